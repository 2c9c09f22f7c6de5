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

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from pufferfish.models.bayesnet import BayesNetFamily, Node
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.influence.max_influence import network_max_influence
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import log_enclosure
from pufferfish.verify.quilts.markov_quilts import (DEFAULT_MAX_CANDIDATES, check_search_size,
                                                    enumerate_quilts)
from pufferfish.verify.quilts.screening import FloatNetwork, influence_ratio_bounds
from pufferfish.verify.quilts.scores import (SCORE_BITS, MQMResult, NodeChoice, as_budget,
                                             exact_score, sigma_of, worst_choice)


def node_search(family: BayesNetFamily, node: Node, budget: Budget, max_quilt_size: int | None,
                max_candidates: int, minimal_only: bool,
                screen: bool = True) -> tuple[NodeChoice, str | None]:
    """One node's search of Algorithm 2: its best quilt (least certified score upper end, then
    lower end; the first found on ties) and the note of an incomplete enumeration, if any.

    Without ``screen``: one exact max-influence per enumerated quilt (the reference the screened
    search is tested against).  With it (the default) the
    result is the same, with exact max-influences for few quilts: every quilt first gets a
    certified lower bound ``L_Q`` of its score, ``card(X_N)/(ε − log r)`` for a certified lower
    bound ``r`` of its max-influence ratio
    (:func:`~pufferfish.verify.quilts.screening.influence_ratio_bounds`, variable elimination
    in doubles with a proved error bound; the score
    increases with the ratio).  The quilt with the least ``L_Q`` is computed exactly first; its
    certified upper end ``U`` is the bar (the smallest such quilt, to within a relative 10^-9 of
    the least floor: any quilt would do).  Then the quilts are visited in the enumeration's order,
    as without screening, and a quilt is skipped when ``L_Q`` exceeds the bar or the upper end of
    the best quilt so far.  Why the choice is unchanged: the quilt the exhaustive search returns,
    ``Q*`` (the first of least ``(upper, lower)``), has ``L_{Q*} ≤ score(Q*) ≤ upper(Q*)``, and
    ``upper(Q*)`` is at most ``U`` and at most every upper end seen before it, so ``Q*`` is never
    skipped; a skipped quilt has ``upper ≥ score > L_Q`` above an upper end that ``Q*``'s does not
    exceed, so it could neither be chosen nor tie with ``Q*``.  A float never decides: it only
    orders the work and, through certified bounds, rules out quilts that cannot win; every score
    compared is exact.  A quilt whose elimination in doubles is refused (an underflow) is
    computed exactly.  A quilt that is a quilt already computed plus nodes remote for it has that
    quilt's max-influence exactly (the private ``_inherited_ratio``), without an elimination."""
    enum = enumerate_quilts(family.graph, node, max_size=max_quilt_size,
                            max_candidates=max_candidates)
    quilts = list(enum.minimal if minimal_only else enum.quilts)
    exact: dict[int, NodeChoice] = {}

    def choice_of(k: int) -> NodeChoice:
        if k not in exact:
            q = quilts[k]
            ratio = _inherited_ratio(q, exact.values()) if screen else None
            if ratio is None:
                ratio = network_max_influence(family, node, q.quilt).max_ratio
            score = exact_score(q.card_nearby, ratio, budget)
            lo, hi = log_enclosure(ratio, SCORE_BITS - 10)
            exact[k] = NodeChoice(node, q, (lo, hi), ratio, score)
        return exact[k]

    floor = [-math.inf] * len(quilts)
    bar = math.inf
    if screen and len(quilts) > 1:
        members = [FloatNetwork(member) for member in family.members]
        for k, q in enumerate(quilts):
            bounds = influence_ratio_bounds(members, node, q.quilt)
            if bounds is not None:
                floor[k] = _score_floor(q.card_nearby, bounds[0], budget)
        least = min(floor)
        # the bar only prunes, so any quilt sets it: the smallest of those whose floor is
        # within a relative 10^-9 of the least (the cheapest to compute exactly)
        first = min((k for k in range(len(quilts)) if floor[k] <= least * (1 + 1e-9)),
                    key=lambda k: (len(quilts[k].quilt), k))
        bar = choice_of(first).score.upper
    best: NodeChoice | None = None
    for k in range(len(quilts)):
        if floor[k] > min(bar, math.inf if best is None else best.score.upper):
            continue
        choice = choice_of(k)
        score = choice.score
        if best is None or (score.upper, score.lower) < (best.score.upper, best.score.lower):
            best = choice
    assert best is not None
    return best, None if enum.complete else f"node {node}: {enum.message}"


def _inherited_ratio(quilt, known) -> object | None:
    """The exact max-influence ratio of ``quilt`` when it is a known quilt ``Q`` plus nodes that
    are remote for ``Q``: those are d-separated from the node given ``X_Q`` in every member's
    graph, so ``P(x_Q, x_R | a) = P(x_Q | a)·P(x_R | x_Q)`` and every ratio
    ``P(x_{Q'} | a)/P(x_{Q'} | b)`` is one of ``Q``'s: ``e(X_{Q'} | X_i) = e(X_Q | X_i)``
    exactly (Definition 4.1).  ``None`` when no known quilt qualifies."""
    for choice in known:
        smaller = choice.quilt
        if smaller.quilt <= quilt.quilt and quilt.quilt - smaller.quilt <= smaller.remote:
            return choice.ratio
    return None


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
