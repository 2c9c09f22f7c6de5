"""Exact and certified verification of Pufferfish privacy and its composition.

Subpackages: :mod:`pufferfish.models` (exact finite models and model files),
:mod:`pufferfish.verify` (the checks), :mod:`pufferfish.proofs_check` (the papers' claims), and
:mod:`pufferfish.cli` (the ``pufferfish`` command).
"""

from importlib.metadata import PackageNotFoundError, version as _distribution_version

try:
    __version__ = _distribution_version("pufferfish-verifier")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

from pufferfish.api import audit, budget, composes, dp_level, leakage, load, pufferfish_level

__all__ = ["__version__", "load", "budget", "audit", "pufferfish_level", "dp_level", "leakage",
           "composes"]
