"""Quilt scores and the Markov Quilt Mechanism's result (Wang et al., Privacy-Preserving Analysis of
Correlated Data, §4, Algorithm 2).

* **Score** of a quilt ``X_Q`` of node ``X_i`` (Algorithm 2):
  ``σ(X_Q) = card(X_N) / (ε − e(X_Q|X_i))`` if ``e(X_Q|X_i) < ε``, else ∞, with ``e`` the
  max-influence (Definition 4.1, :mod:`pufferfish.verify.influence.max_influence`).
* **σ_max** ``= max_i σ_i`` with ``σ_i`` the least score over the quilts searched for node ``i``;
  the mechanism releases ``F(D) + σ_max · Lap(1)`` (Theorem 4.3).

Scores are transcendental: each is reported as a certified enclosure ``[lower, upper]``
(:class:`ScoreInterval`) computed in a private interval context
(:func:`pufferfish.verify.numerics.intervals.interval_context`, 96 bits), and ``e < ε`` is decided
rigorously (:func:`pufferfish.verify.numerics.certified.compare_ratio` for exact ratios).
:class:`NodeChoice` is the quilt chosen for one node (the witness), :class:`MQMResult` the
mechanism's certified ``σ_max``.

>>> exact_score(2, Fraction(1), as_budget("1")).upper
2.0
>>> exact_score(3, Fraction(3), as_budget("log(3)")).infinite
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from pufferfish.models.bayesnet import Node
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, Ratio, fraction_str
from pufferfish.verify.numerics.certified import Budget, compare_ratio, parse_budget
from pufferfish.verify.numerics.intervals import (float_down, float_up, interval_context,
                                                  log_interval, rational_interval, round_out)
from pufferfish.verify.quilts.markov_quilts import ChainQuilt, Quilt
from pufferfish.verify.report import Explained

SCORE_BITS = 96
"""Working precision of the score intervals."""

_MAX_SCORE_BITS = 4096


def as_budget(epsilon: Budget | str | int | Fraction, where: str = "--epsilon") -> Budget:
    """A finite, positive budget ε (``"1"``, ``"1/2"``, ``"log(3)"``); a refusal is located at
    ``where``."""
    budget = epsilon if isinstance(epsilon, Budget) else parse_budget(epsilon, where)
    if budget.infinite:
        raise ModelError("the Markov Quilt Mechanism needs a finite ε", where)
    if (budget.epsilon is not None and budget.epsilon <= 0) or (budget.ratio is not None
                                                                and budget.ratio <= 1):
        raise ModelError("the Markov Quilt Mechanism needs ε > 0", where)
    return budget


@lru_cache(maxsize=64)
def _epsilon_interval(epsilon: Fraction | None, ratio: Fraction | None, bits: int):
    context = interval_context(bits)
    if epsilon is not None:
        return rational_interval(context, epsilon)
    return log_interval(context, ratio)


def epsilon_interval(budget: Budget, bits: int = SCORE_BITS):
    """An interval of ``interval_context(bits)`` enclosing ε."""
    return _epsilon_interval(budget.epsilon, budget.ratio, bits)


def eps_float(budget: Budget) -> float:
    """ε as a float (display and float search only)."""
    if budget.epsilon is not None:
        return float(budget.epsilon)
    return math.log(float(budget.ratio))


def _num(x: float) -> float | str:
    return "inf" if x == math.inf else x


@dataclass(frozen=True)
class ScoreInterval:
    """A certified enclosure ``[lower, upper]`` of a score ``card/(ε − e)`` (∞ when ``e ≥ ε``)."""

    card_nearby: int
    lower: float
    upper: float

    @property
    def infinite(self) -> bool:
        return self.lower == math.inf

    def to_dict(self) -> dict:
        return {"card_nearby": self.card_nearby,
                "score": [_num(self.lower), _num(self.upper)]}


def score_of_interval(card: int, influence, budget: Budget,
                      bits: int = SCORE_BITS) -> ScoreInterval:
    """Certified ``card/(ε − e)`` for ``e`` in the interval ``influence`` of
    ``interval_context(bits)``; ∞ when ``e`` may reach ε (the enclosure of ``ε − e`` is not
    positive)."""
    if card == 0:
        return ScoreInterval(0, 0.0, 0.0)
    context = interval_context(bits)
    gap = epsilon_interval(budget, bits) - influence
    if not gap.a > 0:
        return ScoreInterval(card, math.inf, math.inf)
    lower, upper = round_out(context.mpf(card) / gap)
    return ScoreInterval(card, lower, upper)


def score_from_log_interval(card: int, log_lo: float, log_hi: float, budget: Budget) -> ScoreInterval:
    """Certified ``card/(ε − e)`` for ``e ∈ [log_lo, log_hi]`` (floats; ``inf`` allowed).

    A rational ε needs no interval arithmetic: floats are exact rationals, so both ends are
    computed exactly and rounded outward (``O(1)`` fraction operations); ``ε = log(r)`` goes
    through :func:`score_of_interval`.
    """
    if card == 0:
        return ScoreInterval(0, 0.0, 0.0)
    if log_hi == math.inf:
        return ScoreInterval(card, math.inf, math.inf)
    if budget.epsilon is not None:
        smallest_gap = budget.epsilon - Fraction(log_hi)
        if smallest_gap <= 0:
            return ScoreInterval(card, math.inf, math.inf)
        largest_gap = budget.epsilon - Fraction(log_lo)
        return ScoreInterval(card, float_down(card / largest_gap), float_up(card / smallest_gap))
    return score_of_interval(card, interval_context(SCORE_BITS).mpf([log_lo, log_hi]), budget)


def exact_score(card: int, ratio: Ratio, budget: Budget) -> ScoreInterval:
    """Certified score of a quilt whose max-influence is ``log(ratio)`` for an exact ``ratio``.

    ``log(ratio) < ε`` is decided exactly first; the precision then doubles from 96 bits until
    the enclosure of ``ε − log(ratio)`` is positive.
    """
    if card == 0:
        return ScoreInterval(0, 0.0, 0.0)
    if ratio == INFINITY or not compare_ratio(ratio, budget).relation == "below":
        return ScoreInterval(card, math.inf, math.inf)
    bits = SCORE_BITS
    while True:
        score = score_of_interval(card, log_interval(interval_context(bits), Fraction(ratio)),
                                  budget, bits)
        if not score.infinite or bits > _MAX_SCORE_BITS:
            return score
        bits *= 2


@dataclass(frozen=True)
class NodeChoice:
    """The quilt chosen for one node: its partition, max-influence and certified score."""

    node: Node
    quilt: Quilt | ChainQuilt
    log_influence: tuple[float, float]        # certified enclosure of e(X_Q|X_i)
    ratio: Ratio | None                       # exact ratio when known
    score: ScoreInterval

    def to_dict(self) -> dict:
        return {"node": str(self.node), "quilt": self.quilt.to_dict(),
                "max_influence": [_num(self.log_influence[0]), _num(self.log_influence[1])],
                "max_ratio": None if self.ratio is None else fraction_str(self.ratio),
                "score": self.score.to_dict()["score"]}

    def quilt_label(self) -> str:
        if isinstance(self.quilt, ChainQuilt):
            return self.quilt.label()
        return "{" + ", ".join(sorted(map(str, self.quilt.quilt))) + "}"


@dataclass(repr=False, frozen=True)
class MQMResult(Explained):
    """The Markov Quilt Mechanism's noise scale σ_max with the chosen quilt per node as witness.

    ``sigma`` is a certified interval: ``sigma[1]`` (``sigma_upper``) is a noise scale proved to
    satisfy every node's chosen-quilt constraint; ``sigma[0]`` is the best value the search found.
    ``holds`` is False when some node has no quilt of finite score.
    """

    method: str
    budget: Budget
    sigma: tuple[float, float]
    worst: NodeChoice | None
    choices: tuple[NodeChoice, ...]
    nodes_searched: int
    notes: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        return self.sigma[1] < math.inf

    @property
    def sigma_upper(self) -> float:
        return self.sigma[1]

    def to_dict(self) -> dict:
        return {"method": self.method, "epsilon": self.budget.text,
                "sigma_max": [_num(self.sigma[0]), _num(self.sigma[1])],
                "noise": f"Lap({_num(self.sigma[1])})", "finite": self.holds,
                "worst_node": None if self.worst is None else self.worst.to_dict(),
                "nodes": [c.to_dict() for c in self.choices], "nodes_searched": self.nodes_searched,
                "notes": list(self.notes), **self.extra}

    def explain(self) -> str:
        if self.worst is None:
            return f"{self.method}: no nodes"
        w = self.worst
        lines = [f"Markov Quilt Mechanism ({self.method}), ε = {self.budget.text}",
                 f"σ_max ∈ [{self.sigma[0]:.10g}, {self.sigma[1]:.10g}]  (release F(D) + "
                 f"σ·Lap(1) with σ = {self.sigma[1]:.10g})",
                 f"worst node {w.node}: quilt {w.quilt_label()}, card(X_N) = "
                 f"{w.score.card_nearby}, e(X_Q|X_i) ∈ [{w.log_influence[0]:.6g}, "
                 f"{w.log_influence[1]:.6g}]"]
        lines += list(self.notes)
        return "\n".join(lines)


def worst_choice(choices: Sequence[NodeChoice]) -> NodeChoice | None:
    """The node choice of largest score (upper end first): the node that sets σ_max."""
    return max(choices, key=lambda c: (c.score.upper, c.score.lower), default=None)


def sigma_of(choices: Sequence[NodeChoice]) -> tuple[float, float]:
    """``σ_max`` as the certified interval ``[max_i lower_i, max_i upper_i]``."""
    return (max(c.score.lower for c in choices), max(c.score.upper for c in choices))


__all__ = ["SCORE_BITS", "as_budget", "epsilon_interval", "eps_float", "ScoreInterval",
           "score_of_interval", "score_from_log_interval", "exact_score", "NodeChoice",
           "MQMResult", "worst_choice", "sigma_of"]
