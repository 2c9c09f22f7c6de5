"""A program as a mechanism, and programs named by model files.

:class:`ProgramMechanism` is a :class:`~pufferfish.models.mechanisms.Mechanism` whose kernel row
for a dataset is the exact output law of a Python program on it
(:func:`~pufferfish.models.programs.enumerate.program_distribution`), so every analysis of the
toolkit (Pufferfish and DP levels under any neighbour relation, leakage, joint releases,
``composes``, ``design``'s comparisons) reads it like any other mechanism.

A model file names a program as ``{"program": {"file": "svt.py", "function": "svt1",
"arguments": {...}}}``; the file is resolved relative to the model file and **its code runs**
when the model is audited, with the rights of the user running the toolkit: a model file that
names a program is code, to be trusted as such.

>>> from pufferfish.models.programs import coin
>>> def randomized_bit(data, keep):
...     return data[0] if coin(keep) else 1 - data[0]
>>> m = ProgramMechanism("rr", randomized_bit, {"keep": "3/4"})
>>> m.distribution((1,))
Distribution({1: 3/4, 0: 1/4})
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.programs.enumerate import (DEFAULT_MAX_RUNS, DEFAULT_MAX_STEPS,
                                                  program_distribution)
from pufferfish.models.universe import Dataset

__all__ = ["ProgramMechanism", "load_program"]


class ProgramMechanism(Mechanism):
    """The mechanism ``D ↦ law of program(D, **arguments)`` (module docstring).

    ``reads`` (attribute positions, optional; ``read_names`` their names, for writing the model
    back) restricts what the program sees: it is given only those values, in that order, so datasets that agree on them share one run of the enumeration
    (they are the mechanism's :meth:`kernel_key`) — by construction, not by the author's word.
    ``source`` is ``(file, function)`` when the program was named by a model file (it is then
    written back the same way, and a worker process reloads it from the file); a function given
    from Python cannot be written to a model file.

    >>> from pufferfish.models.programs import coin
    >>> first = ProgramMechanism("first", lambda data: data[0] if coin("3/4") else 1 - data[0],
    ...                          reads=[0])
    >>> first.kernel_key((1, 0, 1)), first.distribution((1, 0, 1)) is first.distribution((1, 1, 0))
    ((1,), True)
    """

    def __init__(self, name: str, program: Callable, arguments: Mapping[str, object] | None = None,
                 *, reads: Sequence[int] | None = None, read_names: Sequence[str] | None = None,
                 source: tuple[str, str] | None = None,
                 max_steps: int = DEFAULT_MAX_STEPS, max_runs: int = DEFAULT_MAX_RUNS) -> None:
        super().__init__(name)
        if not callable(program):
            raise ModelError(f"a program must be a Python function, got {program!r}",
                             f"mechanisms.{name}")
        self.program = program
        self.arguments = dict(arguments or {})
        self.source = source
        self.reads = None if reads is None else tuple(reads)
        self.read_names = read_names
        self.max_steps, self.max_runs = max_steps, max_runs

    def kernel_key(self, dataset: Dataset) -> Dataset:
        """The values the program reads (all of the dataset unless ``reads`` says otherwise)."""
        return dataset if self.reads is None else tuple(dataset[i] for i in self.reads)

    def _compute(self, dataset: Dataset) -> Distribution:
        return self._from_key(self.kernel_key(dataset))

    def _from_key(self, key: Dataset) -> Distribution:
        return program_distribution(self.program, key, self.arguments,
                                    name=f"{self.name} ({self._label()})",
                                    max_steps=self.max_steps, max_runs=self.max_runs)

    def _label(self) -> str:
        if self.source is not None:
            return f"{os.path.basename(self.source[0])}:{self.source[1]}"
        return getattr(self.program, "__qualname__", "a Python function")

    def to_dict(self) -> dict:
        if self.source is None:
            raise ModelError(f"mechanism {self.name!r} is a Python function; put it in a file and "
                             "name it as {\"program\": {\"file\": ..., \"function\": ...}} to "
                             "write the model to a file")
        body: dict = {"file": self.source[0], "function": self.source[1]}
        if self.arguments:
            body["arguments"] = self.arguments
        if self.reads is not None:
            body["reads"] = list(self.read_names or self.reads)
        return {"program": body}

    def __reduce__(self):
        if self.source is None:
            return (ProgramMechanism, (self.name, self.program, self.arguments),
                    {"max_steps": self.max_steps, "max_runs": self.max_runs, "reads": self.reads})
        return (_reloaded, (self.name, self.source, self.arguments, self.max_steps, self.max_runs,
                            self.reads))

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def _reloaded(name: str, source: tuple[str, str], arguments: dict, max_steps: int,
              max_runs: int, reads: tuple[int, ...] | None) -> ProgramMechanism:
    program = load_program(source[0], source[1])
    return ProgramMechanism(name, program, arguments, reads=reads, source=source,
                            max_steps=max_steps, max_runs=max_runs)


_MODULES: dict[str, object] = {}


def load_program(file: str | os.PathLike, function: str, base: str | os.PathLike | None = None,
                 path: str = "") -> Callable:
    """The function ``function`` of the Python file ``file`` (relative to the folder ``base``);
    the file's code runs once per process.  Errors (no such file, a syntax error, an exception
    while the file runs, no such function) are a :class:`ModelError` at ``path``."""
    location = Path(base or ".") / file
    real = os.path.realpath(location)
    module = _MODULES.get(real)
    if module is None:
        if not os.path.isfile(real):
            raise ModelError(f"no program file {str(location)!r} (resolved relative to the model "
                             f"file's folder)", f"{path}.file" if path else "")
        name = f"pufferfish_program_{len(_MODULES)}"
        spec = importlib.util.spec_from_file_location(name, real)
        module = importlib.util.module_from_spec(spec)
        try:
            sys.modules[name] = module
            spec.loader.exec_module(module)
        except SyntaxError as error:
            sys.modules.pop(name, None)
            raise ModelError(f"program file {str(location)!r} has a syntax error at line "
                             f"{error.lineno}: {error.msg}", f"{path}.file" if path else "") from None
        except Exception as error:
            sys.modules.pop(name, None)
            raise ModelError(f"program file {str(location)!r} raised {type(error).__name__}: "
                             f"{error} while loading", f"{path}.file" if path else "") from None
        _MODULES[real] = module
    program = getattr(module, function, None)
    if not callable(program):
        names = sorted(n for n, v in vars(module).items()
                       if callable(v) and getattr(v, "__module__", None) == module.__name__)
        raise ModelError(f"program file {str(location)!r} has no function {function!r}; its "
                         f"functions are {names}", f"{path}.function" if path else "")
    return program
