"""The Markov Quilt Mechanism on any Bayesian network (Wang et al., Privacy-Preserving Analysis of
Correlated Data, §4, Algorithm 2).

For each node ``X_i``, every Markov quilt ``X_Q`` (Definition 4.2, found by d-separation,
:func:`pufferfish.verify.quilts.markov_quilts.enumerate_quilts`) gets its exact max-influence
(Definition 4.1, :func:`pufferfish.verify.influence.max_influence.network_max_influence`) and its
certified score ``card(X_N)/(ε − e(X_Q|X_i))`` (:mod:`pufferfish.verify.quilts.scores`);
``σ_i`` is the least score and ``σ_max = max_i σ_i``.  Chains have the faster search of
:mod:`pufferfish.verify.quilts.chain_search`.

>>> from pufferfish.models.bayesnet import BayesNetFamily
>>> from pufferfish.models.files.bayesnet_file import parse_bayesnet
>>> import json, pufferfish.examples as ex
>>> family = parse_bayesnet(json.loads(open(ex.example_path("bayesnet_vstructure.json")).read()))
>>> mqm_bayesnet(family, "2").holds
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pufferfish.models.bayesnet import BayesNetFamily, Node
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.influence.max_influence import network_max_influence
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import log_enclosure
from pufferfish.verify.quilts.markov_quilts import (DEFAULT_MAX_CANDIDATES, check_search_size,
                                                    enumerate_quilts)
from pufferfish.verify.quilts.scores import (SCORE_BITS, MQMResult, NodeChoice, as_budget,
                                             exact_score, sigma_of, worst_choice)


def node_search(family: BayesNetFamily, node: Node, budget: Budget, max_quilt_size: int | None,
                max_candidates: int, minimal_only: bool) -> tuple[NodeChoice, str | None]:
    """One node's search of Algorithm 2: its best quilt (least certified score upper end, then
    lower end; the first found on ties) and the note of an incomplete enumeration, if any.
    Cost: one exact max-influence per enumerated quilt."""
    enum = enumerate_quilts(family.graph, node, max_size=max_quilt_size,
                            max_candidates=max_candidates)
    best: NodeChoice | None = None
    for q in (enum.minimal if minimal_only else enum.quilts):
        influence = network_max_influence(family, node, q.quilt)
        score = exact_score(q.card_nearby, influence.max_ratio, budget)
        lo, hi = log_enclosure(influence.max_ratio, SCORE_BITS - 10)
        choice = NodeChoice(node, q, (lo, hi), influence.max_ratio, score)
        if best is None or (score.upper, score.lower) < (best.score.upper, best.score.lower):
            best = choice
    assert best is not None
    return best, None if enum.complete else f"node {node}: {enum.message}"


def mqm_bayesnet(family: BayesNetFamily, epsilon: Budget | str, *, nodes: Sequence[Node] | None = None,
                 max_quilt_size: int | None = None, max_candidates: int = DEFAULT_MAX_CANDIDATES,
                 minimal_only: bool = False,
                 progress: Callable[[int, int], None] | None = None,
                 engine: Engine | None = None) -> MQMResult:
    """Algorithm 2 on any Bayesian network: for each node, every quilt ``X_Q`` up to
    ``max_quilt_size`` nodes (partition by d-separation), its exact max-influence and certified
    score; ``σ_i`` = the least score, ``σ_max = max_i σ_i``.

    ``minimal_only=True`` searches only the minimal quilts (Definition B.1).  That loses nothing on
    chains (Lemma B.3) but is not proved for general networks (a larger quilt with the same
    ``X_N`` need not contain a minimal one), so the default searches every enumerated quilt.
    Exponential in the number of nodes; bounded by ``max_quilt_size`` and ``max_candidates``, and
    refused before it starts above :data:`~pufferfish.verify.quilts.markov_quilts.MAX_SEPARATION_TESTS`
    d-separation tests (:func:`~pufferfish.verify.quilts.markov_quilts.check_search_size`).  A
    node's search is never empty: the trivial quilt ``∅`` (score ``card(X_N)/ε``) is always there.
    On a Dask ``engine`` (:mod:`pufferfish.verify.execution`) each node's search
    (:func:`node_search`) is one task, the family shipped to each worker once; the result is
    identical to one process.
    """
    budget = as_budget(epsilon)
    wanted = list(family.nodes if nodes is None else nodes)
    check_search_size(family.graph, len(wanted), max_quilt_size, max_candidates)
    arguments = [(node, budget, max_quilt_size, max_candidates, minimal_only) for node in wanted]
    found = (engine or InProcessEngine()).map(node_search, arguments, progress, shared=family)
    choices = [choice for choice, _ in found]
    notes = [note for _, note in found if note is not None]
    worst = worst_choice(choices)
    return MQMResult("bayesnet-exact", budget, sigma_of(choices), worst, tuple(choices),
                     len(choices), tuple(notes))


__all__ = ["mqm_bayesnet", "node_search"]
