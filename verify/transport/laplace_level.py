"""The exact Pufferfish level of releasing ``query(D) + Lap(σ)`` under a model.

A mechanism that releases ``F(X) + Z`` with ``Z ~ Lap(σ)`` and ``F`` taking finitely many rational
values has, given a secret ``s`` and a prior θ, the output density
``f(w) = Σ_v P(v) e^{-|w − v|/σ} / 2σ`` with ``P(v) = Pr[F(X) = v | s, θ]``.  Its Pufferfish level
(Wang et al., Privacy-Preserving Analysis of Correlated Data, §2, Definition 2.1; Bai et al.,
Composition for Pufferfish Privacy, §2.2, Definition 5) is the log of the largest, over finite
priors and ordered secret pairs, supremum over all real outputs of ``f_1(w)/f_2(w)``
(:func:`laplace_pufferfish_level`).

The module is in three parts, by job:

* :mod:`pufferfish.verify.transport.laplace_mixture` — the supremum of the likelihood ratio of two
  Laplace mixtures, attained at a support point (the theorem and its proof are there), certified,
  and decided against a budget exactly (:func:`laplace_mixture_sup_ratio`);
* :mod:`pufferfish.verify.transport.laplace_hockey` — the hockey-stick divergence of two Laplace
  mixtures for (ε, δ) guarantees (:func:`laplace_mixture_hockey_stick`);
* this module — the conditional query distributions of a model and the level over all of them.

Their public names are importable from here.

Complexity: one pass over each prior's support per secret, then ``O(n)`` interval operations per
direction (``n`` = number of query values).

>>> from fractions import Fraction as Q
>>> b = laplace_mixture_sup_ratio({Q(0): Q(1)}, {Q(1): Q(1)}, Q(1, 2))
>>> round(b.epsilon_lower, 6), round(b.epsilon_upper, 6)
(2.0, 2.0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import Ratio, fraction_str, ratio_key
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.privacy.supports import prior_supports
from pufferfish.verify.transport.family_vertices import extreme_pushforwards
from pufferfish.verify.transport.laplace_hockey import HockeyStickBound, laplace_mixture_hockey_stick
from pufferfish.verify.transport.laplace_mixture import (MAX_BITS, LaplaceRatioBound, Measure, check_scale,
                                                         laplace_mixture_sup_ratio, log_bounds)
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class LaplaceDirection(Explained):
    """One ordered secret pair under one prior: the conditional query distributions and the sup."""

    pair: str
    first: str
    second: str
    prior: str
    conditional_first: Distribution
    conditional_second: Distribution
    bound: LaplaceRatioBound

    def to_dict(self) -> dict:
        data = {"pair": self.pair, "direction": [self.first, self.second], "prior": self.prior,
                "query_given_first": [[fraction_str(Fraction(v)), fraction_str(p)]
                                      for v, p in sorted(self.conditional_first.items())],
                "query_given_second": [[fraction_str(Fraction(v)), fraction_str(p)]
                                       for v, p in sorted(self.conditional_second.items())]}
        data.update(self.bound.to_dict())
        return data

    def explain(self) -> str:
        return f"{self.first} vs {self.second} under {self.prior}: {self.bound.explain()}"


@dataclass(repr=False, frozen=True)
class LaplacePufferfishResult(Explained):
    """The certified Pufferfish level of releasing ``query(D) + Lap(scale)`` under a model.

    ``ratio_lower <= e^ε <= ratio_upper`` where ε is the least level ``>= 0`` (Definition 5: the
    max over priors and ordered pairs of the supremum over outputs, floored at ratio 1).
    """

    query: str
    scale: Fraction
    ratio_lower: Ratio
    ratio_upper: Ratio
    epsilon_lower: float
    epsilon_upper: float
    witness: LaplaceDirection | None
    directions: tuple[LaplaceDirection, ...]
    skipped: tuple[tuple[str, str, str], ...] = ()
    budget: Budget | None = None
    relation: str | None = None

    def holds_at(self, budget: Budget, max_bits: int = MAX_BITS) -> bool | None:
        """``True``/``False`` when ``ε <= budget`` is proved/refuted; ``None`` when undecided."""
        relation = _overall_relation(self.directions, budget, max_bits)
        return None if relation == "undecided" else relation != "above"

    @property
    def holds(self) -> bool | None:
        if self.relation is None or self.relation == "undecided":
            return None
        return self.relation != "above"

    def to_dict(self) -> dict:
        data = {"check": "laplace_pufferfish", "query": self.query, "scale": fraction_str(self.scale),
                "ratio": {"lower": fraction_str(self.ratio_lower), "upper": fraction_str(self.ratio_upper)},
                "epsilon": {"lower": self.epsilon_lower, "upper": self.epsilon_upper,
                            "certified": True},
                "witness": self.witness.to_dict() if self.witness else None,
                "directions": [d.to_dict() for d in self.directions],
                "skipped": [{"pair": p, "prior": q, "reason": r} for p, q, r in self.skipped]}
        if self.budget is not None:
            data["budget"] = {"budget": self.budget.text, "relation": self.relation,
                              "holds": self.holds}
        return data

    def explain(self) -> str:
        text = (f"{self.query} + Lap({fraction_str(self.scale)}): Pufferfish level ε ∈ "
                f"[{self.epsilon_lower:.10g}, {self.epsilon_upper:.10g}] (certified)")
        if self.witness is not None:
            text += f"; worst case {self.witness.explain()}"
        if self.budget is not None:
            verdict = {None: "UNDECIDED", True: "holds", False: "VIOLATED"}[self.holds]
            text += f"; budget {self.budget.text}: {verdict} ({self.relation})"
        return text


def _overall_relation(directions, budget: Budget, max_bits: int) -> str:
    relations = [d.bound.compare(budget, max_bits) for d in directions]
    if "above" in relations:
        return "above"
    if "undecided" in relations:
        return "undecided"
    return "tight" if "tight" in relations else "below"


def conditional_query_distributions(model: PufferfishModel, query: Callable[[Dataset], object],
                                    max_datasets: int = DEFAULT_MAX_DATASETS,
                                    interval_families: bool = False
                                    ) -> Iterator[tuple[str, str, str, str, Distribution | None,
                                                        Distribution | None]]:
    """For each finite prior and each ordered pair: ``Pr[query(X) = · | s, θ]`` for both secrets.

    Yields ``(pair label, first, second, prior, P(F|first), P(F|second))`` with ``None`` for a
    secret of probability 0 under the prior (Definition 5 then imposes nothing).  Query values must
    be numbers (int or Fraction).  Interval families are refused unless ``interval_families`` is
    true; then each family contributes every pair of its extreme conditionals (prior label
    ``"family [i, j]"``), which is exact for every jointly quasi-convex quantity of the two
    conditionals (:mod:`pufferfish.verify.transport.family_vertices`): the Laplace level and
    ``W_∞``.
    """
    if model.interval_families and not interval_families:
        raise UnsupportedError("this quantity is computed for finite priors only (its maximum "
                               "over an interval family is not shown to sit at the family's "
                               "extreme members); the model has interval families "
                               f"{sorted(model.interval_families)}", "priors")
    supports = prior_supports(model, max_datasets)
    cache: dict[tuple[str, str], Distribution | None] = {}

    def conditional(prior: str, secret) -> Distribution | None:
        key = (prior, secret.name)
        if key not in cache:
            mass: dict[Fraction, Fraction] = {}
            total = Fraction(0)
            for dataset, p in supports[prior]:
                if secret.holds(dataset):
                    value = _query_value(query, dataset)
                    mass[value] = mass.get(value, Fraction(0)) + p
                    total += p
            cache[key] = None if not total else Distribution._trusted(
                {v: p / total for v, p in mass.items()})
        return cache[key]

    for prior in supports:
        for pair in model.pairs:
            for first, second in pair.directions():
                yield (pair.label, first.name, second.name, prior, conditional(prior, first),
                       conditional(prior, second))
    for name, family in model.interval_families.items():
        vertices: dict[str, list[Distribution]] = {}
        for pair in model.pairs:
            family.require_blocks((pair.first.name, pair.second.name), pair.label, name)
            for first, second in pair.directions():
                for secret in (first.name, second.name):
                    if secret not in vertices:
                        vertices[secret] = extreme_pushforwards(
                            family, secret, lambda d: _query_value(query, d))
                for i, d1 in enumerate(vertices[first.name]):
                    for j, d2 in enumerate(vertices[second.name]):
                        yield pair.label, first.name, second.name, f"{name} [{i}, {j}]", d1, d2


def _query_value(query: Callable[[Dataset], object], dataset: Dataset) -> Fraction:
    value = query(dataset)
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise ModelError(f"the query must answer a number for Laplace noise; it answered {value!r} "
                         f"on dataset {list(dataset)}", "--query")
    return Fraction(value)


def laplace_pufferfish_level(model: PufferfishModel, query: Callable[[Dataset], Fraction],
                             scale: Fraction, budget: Budget | None = None, bits: int = 80,
                             max_datasets: int = DEFAULT_MAX_DATASETS,
                             query_name: str | None = None) -> LaplacePufferfishResult:
    """The certified Pufferfish level of releasing ``query(D) + Lap(scale)`` (Definition 5).

    For every finite prior θ and ordered pair ``(s_i, s_j)`` with ``Pr[s_i|θ], Pr[s_j|θ] > 0``,
    the exact distributions of ``query(X)`` given each secret are computed from the prior's support
    and :func:`laplace_mixture_sup_ratio` bounds the likelihood-ratio supremum over all real outputs.
    The level is ``log max(1, max sup)``; the witness is the worst (pair, prior, output).  An
    interval family contributes every pair of its extreme conditionals: the supremum is jointly
    quasi-convex in the two conditionals, so this is the exact supremum over the whole family
    (:mod:`pufferfish.verify.transport.family_vertices`).

    Cost: one pass over each prior's support per secret, then ``O(n)`` interval operations per
    direction (``n`` = number of query values).
    """
    sigma = check_scale(scale)
    directions: list[LaplaceDirection] = []
    skipped: list[tuple[str, str, str]] = []
    for label, first, second, prior, d1, d2 in conditional_query_distributions(
            model, query, max_datasets, interval_families=True):
        if d1 is None or d2 is None:
            zero = first if d1 is None else second
            skipped.append((f"{first} -> {second}", prior, f"Pr[{zero} | {prior}] = 0"))
            continue
        bound = laplace_mixture_sup_ratio(dict(d1.items()), dict(d2.items()), sigma, bits)
        directions.append(LaplaceDirection(label, first, second, prior, d1, d2, bound))
    witness = max(directions, key=lambda d: (ratio_key(d.bound.upper), ratio_key(d.bound.lower)),
                  default=None)
    if witness is None:
        lower: Ratio = Fraction(1)
        upper: Ratio = Fraction(1)
    else:
        lower = max((d.bound.lower for d in directions), key=ratio_key)
        upper = witness.bound.upper
        lower = lower if ratio_key(lower) > ratio_key(Fraction(1)) else Fraction(1)
        upper = upper if ratio_key(upper) > ratio_key(Fraction(1)) else Fraction(1)
    eps_low, eps_high = log_bounds(lower, upper, bits)
    relation = _overall_relation(directions, budget, MAX_BITS) if budget is not None else None
    name = query_name or getattr(query, "kind", None) or getattr(query, "__name__", "query")
    return LaplacePufferfishResult(str(name), sigma, lower, upper, max(0.0, eps_low),
                                   max(0.0, eps_high), witness, tuple(directions), tuple(skipped),
                                   budget, relation)


__all__ = ["LaplaceDirection", "LaplacePufferfishResult", "conditional_query_distributions",
           "laplace_pufferfish_level", "LaplaceRatioBound", "laplace_mixture_sup_ratio",
           "HockeyStickBound", "laplace_mixture_hockey_stick", "MAX_BITS", "Measure"]
