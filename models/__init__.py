"""The nouns of the toolkit: exact finite models of Pufferfish privacy.

See :doc:`/design` (layout, exactness policy) and Bai et al., Composition for Pufferfish Privacy,
§2 for the definitions.  Nothing here imports :mod:`verify` or :mod:`proofs_check`.

The names below are imported from their modules on first use (PEP 562), so that importing one
module of the package (``pufferfish.models.errors``, as the command line does before it parses
its options) does not load the others and their dependencies (networkx, numpy).

>>> from pufferfish.models import Universe, ModelError
>>> Universe.product(["x"], [[0, 1]]).size
2
"""

from importlib import import_module

_MODULES = {
    "bayesnet": ["BayesNetPrior"],
    "distribution": ["Distribution", "product_distribution"],
    "errors": ["ModelError", "TooLargeError", "UnsupportedError"],
    "kernel": ["KernelTable"],
    "mechanisms": ["Composition", "FunctionMechanism", "GeometricNoise", "Mechanism",
                   "PostProcessed", "Query", "QueryMechanism", "RandomizedResponse", "Repeated",
                   "TableMechanism", "compose", "repeat", "tabulate"],
    "model": ["PufferfishModel"],
    "numbers": ["INFINITY", "epsilon_str", "exact", "fraction_str", "probability"],
    "priors": ["IndependentPrior", "IntervalBlock", "IntervalFamily", "MarkovPrior", "Prior",
               "TablePrior", "UniformPrior"],
    "secrets": ["Secret", "SecretPair", "entry_pairs", "entry_secrets"],
    "universe": ["DEFAULT_MAX_DATASETS", "Universe"],
}
_HOME = {name: module for module, names in _MODULES.items() for name in names}

__all__ = [name for names in _MODULES.values() for name in names]


def __getattr__(name: str):
    if name in _HOME:
        value = getattr(import_module(f"pufferfish.models.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pufferfish.models' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
