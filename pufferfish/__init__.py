"""Exact and certified verification of Pufferfish privacy and its composition.

Subpackages: :mod:`pufferfish.models` (exact finite models and model files),
:mod:`pufferfish.verify` (the checks), :mod:`pufferfish.proofs_check` (the papers' claims), and
:mod:`pufferfish.cli` (the ``pufferfish`` command).

The names below are imported on first use (PEP 562), so ``import pufferfish`` and the command
line start without loading the library.

>>> import pufferfish
>>> pufferfish.budget("log(3)").text
'log(3)'
"""

__all__ = ["__version__", "load", "budget", "audit", "pufferfish_level", "dp_level",
           "approximate_dp", "dp_for_every_epsilon", "leakage",
           "composes", "design", "load_parametric", "symbolic_audit", "region", "nfc_region",
           "least_noise", "mqm_price", "plot_mqm_price", "certificate"]


def __getattr__(name: str):
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("pufferfish-verifier")
        except PackageNotFoundError:  # running from a source tree that was never installed
            return "0+unknown"
    if name in __all__:
        from pufferfish import api

        return getattr(api, name)
    raise AttributeError(f"module 'pufferfish' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
