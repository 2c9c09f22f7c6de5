"""The Markov quilts of one node and, with a budget ε, each quilt's max-influence and score, best
first (Wang et al., Privacy-Preserving Analysis of Correlated Data, §4, Definition 4.2 and
Algorithm 2; chains: Lemma B.2).

* A **Bayesian network** (:func:`score_network_quilts`): the minimal quilts of the node by
  d-separation (:func:`pufferfish.verify.quilts.markov_quilts.enumerate_quilts`, Definition B.1);
  with ε each gets its exact max-influence ``e(X_Q|X_i)`` over the family
  (:func:`pufferfish.verify.influence.max_influence.network_max_influence`) and its certified score
  ``card(X_N)/(ε − e(X_Q|X_i))`` (:func:`pufferfish.verify.quilts.scores.exact_score`).
* A **chain** (:func:`score_chain_quilts`): the ``i·(T+1−i)`` quilts of Lemma B.2
  (``{X_(i−a), X_(i+b)}``, ``{X_(i−a)}``, ``{X_(i+b)}``, ∅); with ε each is scored exactly
  (:func:`pufferfish.verify.quilts.chain_search.chain_node_quilts_exact`); past
  :data:`LONG_CHAIN` nodes only the best quilt is searched
  (:func:`pufferfish.verify.quilts.chain_search.mqm_chain_exact`).

:func:`score_quilts` chooses between them by the kind of family.

>>> from pufferfish.models.chain_family import ChainFamily
>>> from pufferfish.models.bayesnet import MarkovChain
>>> from fractions import Fraction as F
>>> chain = MarkovChain((0, 1), ((F(9, 10), F(1, 10)), (F(1, 10), F(9, 10))), 5, (F(1, 2), F(1, 2)))
>>> result = score_quilts(ChainFamily((chain,), "given"), 3, as_budget("5"))
>>> len(result.choices), [(c.quilt_label(), c.score.card_nearby) for c in result.choices[:2]]
(9, [('{}', 5), ('{X2}', 3)])
"""

from __future__ import annotations

from dataclasses import dataclass

from pufferfish.models.bayesnet import BayesNetFamily, Node
from pufferfish.models.chain_family import ChainFamily
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.influence.max_influence import MaxInfluence
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.quilts.markov_quilts import DEFAULT_MAX_CANDIDATES, Quilt, QuiltEnumeration
from pufferfish.verify.quilts.scores import NodeChoice, ScoreInterval, as_budget
from pufferfish.verify.report import Explained, table

LONG_CHAIN = 200
"""Chains longer than this get only the best quilt of the node (the ``O(T²)`` list of every
quilt is not built)."""

SHOWN_CHAIN_QUILTS = 15
"""How many of a chain node's best quilts :meth:`ChainQuiltScores.explain` lists."""


def _number(x: float) -> str:
    return "inf" if x == float("inf") else f"{x:.10g}"


def _braces(names) -> str:
    return "{" + ", ".join(names) + "}"


@dataclass(frozen=True)
class ScoredQuilt:
    """A minimal quilt of a network node with, when a budget was given, its exact max-influence
    and certified score."""

    quilt: Quilt
    influence: MaxInfluence | None = None
    score: ScoreInterval | None = None

    def to_dict(self) -> dict:
        data = self.quilt.to_dict()
        if self.influence is not None:
            data["max_influence"] = self.influence.to_dict()
            data["score"] = self.score.to_dict()["score"]
        return data


@dataclass(repr=False, frozen=True)
class NetworkQuiltScores(Explained):
    """The minimal quilts of one node of a Bayesian network, best score first when scored."""

    node: Node
    enumeration: QuiltEnumeration
    quilts: tuple[ScoredQuilt, ...]
    budget: Budget | None

    def to_dict(self) -> dict:
        return {"node": str(self.node), "complete": self.enumeration.complete,
                "message": self.enumeration.message,
                "quilts": [q.to_dict() for q in self.quilts],
                "epsilon": None if self.budget is None else self.budget.text}

    def explain(self) -> str:
        rows = []
        for scored in self.quilts:
            entry = scored.quilt.to_dict()
            row = [_braces(entry["quilt"]), _braces(entry["nearby"]), _braces(entry["remote"]),
                   scored.quilt.card_nearby]
            if scored.influence is not None:
                row += [scored.influence.to_dict()["epsilon"], _number(scored.score.upper)]
            rows.append(row)
        headers = ["X_Q", "X_N", "X_R", "card(X_N)"]
        if self.budget is not None:
            headers += ["e(X_Q|X_i)", "score ≤"]
        text = (f"{len(self.enumeration.minimal)} minimal Markov quilts for node {self.node} "
                f"({self.enumeration.examined} candidates examined)\n" + table(headers, rows))
        if not self.enumeration.complete:
            text += "\n" + self.enumeration.message
        return text


@dataclass(repr=False, frozen=True)
class ChainQuiltScores(Explained):
    """The Lemma B.2 quilts of node ``node`` (1-based) of a chain of ``length`` nodes: without a
    budget only their count; with one every quilt scored, best first (``choices``), or for a
    chain longer than :data:`LONG_CHAIN` only the best (``best_only``)."""

    node: int
    length: int
    budget: Budget | None
    choices: tuple[NodeChoice, ...] = ()
    best_only: bool = False

    @property
    def count(self) -> int:
        """The number of Lemma B.2 quilts, ``i·(T+1−i)``."""
        return self.node * (self.length + 1 - self.node)

    def to_dict(self) -> dict:
        if self.budget is None:
            return {"node": self.node, "length": self.length, "count": self.count}
        if self.best_only:
            return {"node": self.node, "best": self.choices[0].to_dict()}
        return {"node": self.node, "quilts": [c.to_dict() for c in self.choices]}

    def explain(self) -> str:
        i, n = self.node, self.length
        if self.budget is None:
            return (f"node {i} of a chain of {n}: the Lemma B.2 quilts are {{X_(i-a), X_(i+b)}}, "
                    f"{{X_(i-a)}}, {{X_(i+b)}} and ∅ for 1 <= a <= {i - 1}, 1 <= b <= {n - i} "
                    f"({self.count} quilts); give --epsilon to score them")
        if self.best_only:
            best = self.choices[0]
            return (f"node {i}: best quilt {best.quilt_label()}, card(X_N) = "
                    f"{best.score.card_nearby}, score ≤ {_number(best.score.upper)}")
        rows = [[c.quilt_label(), c.score.card_nearby, f"{c.log_influence[1]:.6g}",
                 _number(c.score.upper)] for c in self.choices[:SHOWN_CHAIN_QUILTS]]
        return (f"node {i}: {len(self.choices)} Lemma B.2 quilts; the {SHOWN_CHAIN_QUILTS} best\n"
                + table(["X_Q", "card(X_N)", "e(X_Q|X_i) ≤", "score ≤"], rows))


def score_network_quilts(family: BayesNetFamily, node: Node, budget: Budget | None = None, *,
                         max_size: int | None = None,
                         max_candidates: int = DEFAULT_MAX_CANDIDATES,
                         engine: Engine | None = None) -> NetworkQuiltScores:
    """The minimal quilts of ``node`` (at most ``max_size`` nodes, ``max_candidates`` candidates
    examined) and, with ``budget``, their max-influence and certified score, sorted by the upper
    end of the score (stable: ties keep the enumeration order).

    Cost: the enumeration (refused beforehand by
    :func:`~pufferfish.verify.quilts.markov_quilts.check_enumeration_budget` when too large), then
    one exact max-influence per minimal quilt (exponential in the quilt's neighbourhood); on a
    Dask ``engine`` (:mod:`pufferfish.verify.execution`) parts of the quilts are the tasks.
    """
    from pufferfish.verify.quilts.markov_quilts import check_enumeration_budget, enumerate_quilts

    if budget is not None:
        budget = as_budget(budget)
    check_enumeration_budget(family.graph, max_size, max_candidates)
    enumeration = enumerate_quilts(family.graph, node, max_size=max_size,
                                   max_candidates=max_candidates)
    if budget is None:
        scored = tuple(ScoredQuilt(q) for q in enumeration.minimal)
    else:
        scored = tuple(sorted(_in_parts(engine, _score_network_part, list(enumeration.minimal),
                                        (node, budget), family),
                              key=lambda s: s.score.upper))
    return NetworkQuiltScores(node, enumeration, scored, budget)


def _score_network_part(family: BayesNetFamily, node: Node, budget: Budget,
                        quilts: list) -> list[ScoredQuilt]:
    """Each quilt's exact max-influence and certified score (an engine task)."""
    from pufferfish.verify.influence.max_influence import network_max_influence
    from pufferfish.verify.quilts.scores import exact_score

    out = []
    for q in quilts:
        influence = network_max_influence(family, node, q.quilt)
        out.append(ScoredQuilt(q, influence, exact_score(q.card_nearby, influence.max_ratio,
                                                         budget)))
    return out


def _in_parts(engine: Engine | None, function, items: list, arguments: tuple, shared) -> list:
    """``function(shared, *arguments, items)``, the items cut into about four parts per worker
    run as tasks on a Dask ``engine`` (one part in this process); results in the items' order."""
    if engine is None or isinstance(engine, InProcessEngine) or not items:
        return function(shared, *arguments, items)
    size = -(-len(items) // (4 * engine.workers))
    parts = engine.map(function, [(*arguments, items[k:k + size])
                                  for k in range(0, len(items), size)], shared=shared)
    return [result for part in parts for result in part]


def score_chain_quilts(family: ChainFamily, node: int, budget: Budget | None = None,
                       engine: Engine | None = None) -> ChainQuiltScores:
    """The Lemma B.2 quilts of the 1-based ``node`` of the chains of ``family``; with ``budget``
    each scored exactly, sorted by (score upper end, card(X_N)); for chains longer than
    :data:`LONG_CHAIN` only the best quilt.

    Cost: ``O(i·(T+1−i))`` exact max-influences of the family (the long-chain search visits
    fewer); on a Dask ``engine`` parts of the quilts are the tasks.
    """
    from pufferfish.verify.quilts.chain_search import chain_node_quilts_exact, mqm_chain_exact
    from pufferfish.verify.quilts.markov_quilts import chain_quilts

    if budget is None:
        return ChainQuiltScores(node, family.length, None)
    budget = as_budget(budget)
    if family.length > LONG_CHAIN:
        best = mqm_chain_exact(family, budget, nodes=[node]).choices[0]
        return ChainQuiltScores(node, family.length, budget, (best,), best_only=True)
    choices = sorted(_in_parts(engine, chain_node_quilts_exact,
                               list(chain_quilts(family.length, node)), (node, budget), family),
                     key=lambda c: (c.score.upper, c.score.card_nearby))
    return ChainQuiltScores(node, family.length, budget, tuple(choices))


def score_quilts(family: BayesNetFamily | ChainFamily, node, budget: Budget | None = None, *,
                 max_size: int | None = None, max_candidates: int = DEFAULT_MAX_CANDIDATES,
                 engine: Engine | None = None) -> NetworkQuiltScores | ChainQuiltScores:
    """:func:`score_network_quilts` for a Bayesian-network family, :func:`score_chain_quilts`
    (``node`` 1-based) for a chain family; the quilts' scores as tasks on ``engine``."""
    if isinstance(family, BayesNetFamily):
        return score_network_quilts(family, node, budget, max_size=max_size,
                                    max_candidates=max_candidates, engine=engine)
    return score_chain_quilts(family, node, budget, engine)


__all__ = ["LONG_CHAIN", "SHOWN_CHAIN_QUILTS", "ScoredQuilt", "NetworkQuiltScores",
           "ChainQuiltScores", "score_network_quilts", "score_chain_quilts", "score_quilts"]
