"""Error types shared by the whole toolkit.

A :class:`ModelError` is raised for bad input (a model file, a constructor argument, a command-line
option).  It carries the JSON path of the offending value so a user can find it, and the command
line turns it into exit status 2 with a one-paragraph message.
"""

from __future__ import annotations


class ModelError(ValueError):
    """Bad input, located by a JSON-style dotted path (``priors.chain.transition.1``)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        self.reason = message
        super().__init__(f"{path}: {message}" if path else message)

    def at(self, prefix: str) -> "ModelError":
        """The same error with ``prefix`` put in front of its path."""
        path = f"{prefix}.{self.path}" if self.path else prefix
        return type(self)(self.reason, path)


class TooLargeError(ModelError):
    """A computation would enumerate more datasets or outputs than the configured limit."""


class UnsupportedError(ModelError):
    """A combination of model features a computation does not handle (named in the message)."""


class MissingExtra(UnsupportedError):
    """A feature that needs an optional part of the toolkit that is not installed; the message
    names the extra to install (``pyproject.toml``: ``dask``, ``plots``)."""


def require_extra(module: str, extra: str, feature: str) -> None:
    """Import ``module`` or raise :class:`MissingExtra`: ``feature`` needs the ``extra``.

    >>> require_extra("json", "plots", "a figure")
    >>> require_extra("no_such_module_here", "plots", "a figure")
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.MissingExtra: a figure needs no_such_module_here, which is not installed: pip install 'pufferfish-verifier[plots]'
    """
    import importlib

    try:
        importlib.import_module(module)
    except ModuleNotFoundError:
        raise MissingExtra(f"{feature} needs {module}, which is not installed: "
                           f"pip install 'pufferfish-verifier[{extra}]'") from None


def join_path(*parts: object) -> str:
    """Join path components with dots, skipping empty ones."""
    return ".".join(str(p) for p in parts if p != "")
