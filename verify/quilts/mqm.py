"""The names ``pufferfish quilts`` / ``pufferfish mqm`` (``pufferfish/cli/quilts.py``) import.

The Markov Quilt Mechanism (``002_e1f2e9a9937b8cda.txt`` §4, Appendix B) lives in modules with
one job each; this module only re-exports the names that command line imports from here:

* :mod:`pufferfish.verify.quilts.scores` — budgets, certified scores, :class:`MQMResult`;
* :mod:`pufferfish.verify.quilts.bayesnet_mqm` — Algorithm 2 on any Bayesian network;
* :mod:`pufferfish.verify.quilts.chain_search` — Algorithms 3–5 on chains;
* :mod:`pufferfish.models.chain_family` — the chain family Θ (a prior class);
* :mod:`pufferfish.verify.influence.max_influence` — max-influence (Definition 4.1).

``interval_family`` and ``interval_parameters`` are the earlier names of
:func:`~pufferfish.models.chain_family.binary_grid_family` and
:func:`~pufferfish.models.chain_family.binary_box_parameters` ("interval family" now means only
:class:`pufferfish.models.priors.IntervalFamily`); ``max_influence`` here is
:func:`~pufferfish.verify.influence.max_influence.network_max_influence`.
"""

from pufferfish.models.chain_family import (INITIAL_MODES, ChainFamily, binary_box_parameters,
                                            binary_grid_family, chain_family_parameters)
from pufferfish.verify.influence.max_influence import network_max_influence
from pufferfish.verify.quilts.bayesnet_mqm import mqm_bayesnet
from pufferfish.verify.quilts.chain_search import (chain_node_quilts_exact, mqm_chain_approx,
                                                   mqm_chain_exact)
from pufferfish.verify.quilts.scores import as_budget, exact_score

interval_family = binary_grid_family
interval_parameters = binary_box_parameters
max_influence = network_max_influence

__all__ = ["INITIAL_MODES", "ChainFamily", "as_budget", "chain_family_parameters",
           "chain_node_quilts_exact", "exact_score", "interval_family", "interval_parameters",
           "max_influence", "mqm_bayesnet", "mqm_chain_approx", "mqm_chain_exact"]
