"""The Markov Quilt Mechanism on any Bayesian network (Wang et al., Privacy-Preserving Analysis of
Correlated Data, §4, Algorithm 2).

For each node ``X_i``, every Markov quilt ``X_Q`` (Definition 4.2, found by d-separation,
:func:`pufferfish.verify.quilts.markov_quilts.enumerate_quilts`) gets its exact max-influence
(Definition 4.1, :func:`pufferfish.verify.influence.max_influence.network_max_influence`) and its
certified score ``card(X_N)/(ε − e(X_Q|X_i))`` (:mod:`pufferfish.verify.quilts.scores`);
``σ_i`` is the least score and ``σ_max = max_i σ_i``.  :func:`node_search` gives that choice
exactly while computing few of these: it visits only the candidates whose partition is not a
smaller one's (:mod:`pufferfish.verify.quilts.quilt_candidates`) and skips those whose certified
score floor cannot win.  Chains have the faster search of
:mod:`pufferfish.verify.quilts.chain_search`.

>>> from pufferfish.models.bayesnet import BayesNetFamily
>>> from pufferfish.models.files.bayesnet_file import parse_bayesnet
>>> import json, pufferfish.examples as ex
>>> family = parse_bayesnet(json.loads(open(ex.example_path("bayesnet_vstructure.json")).read()))
>>> mqm_bayesnet(family, "2").holds
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from pufferfish.models.bayesnet import BayesNetFamily, Node
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.influence.max_influence import network_max_influence
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import log_enclosure
from pufferfish.verify.quilts.markov_quilts import (DEFAULT_MAX_CANDIDATES, Quilt,
                                                    check_search_size, enumerate_quilts)
from pufferfish.verify.quilts.quilt_candidates import QuiltCandidates
from pufferfish.verify.quilts.screening import FloatNetwork, influence_ratio_bounds
from pufferfish.verify.quilts.scores import (SCORE_BITS, MQMResult, NodeChoice, as_budget,
                                             exact_score, sigma_of, worst_choice)


def node_search(family: BayesNetFamily, node: Node, budget: Budget, max_quilt_size: int | None,
                max_candidates: int, minimal_only: bool,
                screen: bool = True) -> tuple[NodeChoice, str | None]:
    """One node's search of Algorithm 2: its best quilt (least certified score upper end, then
    lower end; the first in the enumeration's order on ties) and the note of an incomplete
    enumeration, if any.

    Without ``screen``: every enumerated quilt
    (:func:`~pufferfish.verify.quilts.markov_quilts.enumerate_quilts`) gets its exact
    max-influence (the reference the screened search is tested against).  With it (the default)
    the result is the same, from the same candidates in the same order, with exact
    max-influences for few of them:

    1. Only the irreducible candidates are visited
       (:class:`~pufferfish.verify.quilts.quilt_candidates.QuiltCandidates`).  A reducible one has
       the ``X_N`` and the exact max-influence of an earlier candidate (that module's lemma), so
       the same certified score (a function of ``card(X_N)``, the ratio and ε), and the earlier
       one wins the tie; it is not minimal either (Definition B.1).  It still counts as examined:
       the cut at ``max_candidates`` and the note are the enumeration's.
    2. Each visited quilt gets a certified lower bound ``r`` of its max-influence ratio: the
       largest of those of its immediate subsets ``X_Q∖{v}`` (``e`` grows with the quilt: a
       marginal's ratio ``Σ P(x_S, x|a) / Σ P(x_S, x|b)`` is at most its largest term ratio, the
       mediant inequality, and an infinite one has an infinite term), and, unless its floor
       below already rules it out, the certified float bound
       (:func:`~pufferfish.verify.quilts.screening.influence_ratio_bounds`: variable elimination in
       doubles with a proved error bound; an underflow is refused and leaves the subsets' bound).
       Its score floor ``L_Q = card(X_N)/(ε − log r)`` (the score grows with the ratio) is a
       certified lower bound of its score.
    3. A quilt is skipped when ``L_Q`` exceeds the upper end of the best quilt so far; the others
       get exact max-influences (:func:`network_max_influence`) and scores.

    Why the choice is unchanged: the exhaustive search returns ``Q*``, the first candidate of
    least ``(upper, lower)``; it is irreducible (1).  ``L_{Q*} ≤ score(Q*) ≤ upper(Q*)``, and
    ``upper(Q*)`` is at most the upper end of every earlier candidate, so ``Q*`` is never skipped;
    it is then strictly better than every quilt before it and no later quilt is strictly better,
    so it is the result.  A float never decides: it only rules out, through certified bounds,
    quilts that cannot win; every score compared is exact.

    Cost on alarm (37 nodes, the default 200,000 candidates per node, ε = 1): about 55,000
    irreducible candidates per node, of which about 160 need a float elimination and 2 an exact
    max-influence (``benchmarks/bench_network_mqm.py``)."""
    if not screen:
        return _exhaustive_search(family, node, budget, max_quilt_size, max_candidates,
                                  minimal_only)
    candidates = QuiltCandidates(family.graph, node, max_size=max_quilt_size,
                                 max_candidates=max_candidates)
    members: list[FloatNetwork] | None = None
    lows: dict[int, float] = {}           # candidate mask -> certified lower bound of its ratio
    floors: dict[tuple[int, float], float] = {}
    best: NodeChoice | None = None

    def floor(card: int, low: float) -> float:
        if (card, low) not in floors:
            floors[card, low] = _score_floor(card, low, budget)
        return floors[card, low]

    for candidate in candidates:
        low = max((lows[below] for below in candidate.below), default=1.0)
        lows[candidate.mask] = low
        if minimal_only and not candidate.minimal:
            continue
        bar = math.inf if best is None else best.score.upper
        card = candidate.card_nearby
        if floor(card, low) > bar:
            continue
        if candidate.quilt:
            if members is None:
                members = [FloatNetwork(member) for member in family.members]
            bounds = influence_ratio_bounds(members, node, candidate.quilt)
            if bounds is not None and bounds[0] > low:
                low = lows[candidate.mask] = bounds[0]
                if floor(card, low) > bar:
                    continue
        choice = _exact_choice(family, node, candidates.quilt(candidate), budget)
        if best is None or ((choice.score.upper, choice.score.lower)
                            < (best.score.upper, best.score.lower)):
            best = choice
    assert best is not None               # the empty quilt comes first and is always computed
    return best, None if candidates.complete else f"node {node}: {candidates.message}"


def _exhaustive_search(family: BayesNetFamily, node: Node, budget: Budget,
                       max_quilt_size: int | None, max_candidates: int,
                       minimal_only: bool) -> tuple[NodeChoice, str | None]:
    """:func:`node_search` without screening: an exact score for every enumerated quilt."""
    enum = enumerate_quilts(family.graph, node, max_size=max_quilt_size,
                            max_candidates=max_candidates)
    best: NodeChoice | None = None
    for quilt in enum.minimal if minimal_only else enum.quilts:
        choice = _exact_choice(family, node, quilt, budget)
        if best is None or ((choice.score.upper, choice.score.lower)
                            < (best.score.upper, best.score.lower)):
            best = choice
    assert best is not None
    return best, None if enum.complete else f"node {node}: {enum.message}"


def _exact_choice(family: BayesNetFamily, node: Node, quilt: Quilt, budget: Budget) -> NodeChoice:
    """``quilt`` with its exact max-influence and certified score."""
    ratio = network_max_influence(family, node, quilt.quilt).max_ratio
    score = exact_score(quilt.card_nearby, ratio, budget)
    lo, hi = log_enclosure(ratio, SCORE_BITS - 10)
    return NodeChoice(node, quilt, (lo, hi), ratio, score)


def _score_floor(card: int, ratio_low: float, budget: Budget) -> float:
    """A certified lower bound of ``card/(ε − log r)`` for every ratio ``r ≥ ratio_low``."""
    if card == 0:
        return 0.0                      # an empty X_N scores 0 whatever the influence
    if ratio_low == math.inf:
        return math.inf
    return exact_score(card, Fraction(max(ratio_low, 1.0)), budget).lower


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
    refused before it starts above :data:`~pufferfish.verify.quilts.markov_quilts.MAX_SEARCH_STEPS`
    steps (:func:`~pufferfish.verify.quilts.markov_quilts.check_search_size`).  A
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
