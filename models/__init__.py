"""The nouns of the toolkit: exact finite models of Pufferfish privacy.

See ``DESIGN.md`` (layout, exactness policy) and Bai et al., Composition for Pufferfish Privacy, §2
for the definitions.  Nothing here imports :mod:`verify` or :mod:`proofs_check`.
"""

from pufferfish.models.bayesnet import BayesNetPrior
from pufferfish.models.distribution import Distribution, product_distribution
from pufferfish.models.errors import ModelError, TooLargeError, UnsupportedError
from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import (Composition, FunctionMechanism, GeometricNoise, Mechanism,
                               PostProcessed, Query, QueryMechanism, RandomizedResponse, Repeated,
                               TableMechanism, compose, repeat, tabulate)
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, epsilon_str, exact, fraction_str, probability
from pufferfish.models.priors import (IndependentPrior, IntervalBlock, IntervalFamily, MarkovPrior, Prior,
                           TablePrior, UniformPrior)
from pufferfish.models.secrets import Secret, SecretPair, entry_pairs, entry_secrets
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Universe

__all__ = [
    "Distribution", "product_distribution", "ModelError", "TooLargeError", "UnsupportedError",
    "KernelTable", "Composition", "FunctionMechanism", "GeometricNoise", "Mechanism",
    "PostProcessed", "Query", "QueryMechanism", "RandomizedResponse", "Repeated",
    "TableMechanism", "compose", "repeat", "tabulate", "PufferfishModel", "INFINITY",
    "epsilon_str", "exact", "fraction_str", "probability", "IndependentPrior", "IntervalBlock",
    "IntervalFamily", "MarkovPrior", "Prior", "TablePrior", "UniformPrior", "Secret",
    "SecretPair", "entry_pairs", "entry_secrets", "DEFAULT_MAX_DATASETS", "Universe",
    "BayesNetPrior",
]
