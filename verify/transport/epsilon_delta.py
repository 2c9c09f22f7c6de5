"""The (ε, δ) Wasserstein mechanism and Theorem A.8 (Wang et al., Privacy-Preserving Analysis of
Correlated Data, Appendix A.4, Definition A.7, Theorem A.8).

The mechanism releases ``F(D) + Lap(W_δ/ε)`` where ``W_δ`` is the supremum over pairs and priors
of the δ-trimmed ``W_∞`` (:func:`pufferfish.verify.transport.trimmed.trimmed_w_infinity`, through
:func:`pufferfish.verify.transport.parameter.wasserstein_parameter`).  Theorem A.8: it is
(ε, δ)-Pufferfish private, i.e. (Definition A.7) for every prior, ordered pair and set ``S`` of
outputs ``P(M ∈ S | s_i) <= e^ε P(M ∈ S | s_j) + δ``.

:func:`verify_epsilon_delta_mechanism` checks this on a model: for every prior and ordered pair it
computes the certified hockey-stick divergence ``sup_S P(M ∈ S|s_i) − e^ε P(M ∈ S|s_j)``
(:func:`pufferfish.verify.transport.laplace_level.laplace_mixture_hockey_stick`) and compares it
with δ.  An interval family (Bai et al., Composition for Pufferfish Privacy, Example 4.3) is checked
over its extreme members: the divergence is convex in the pair of conditionals (a supremum of linear
functionals), so its maximum over the family sits at a pair of extreme conditionals
(:mod:`pufferfish.verify.transport.family_vertices`); its ``W_δ`` is the outer bound of
:func:`~pufferfish.verify.transport.parameter.wasserstein_parameter`.  Cost: one ``wasserstein_parameter`` plus one hockey-stick bound per prior and ordered
pair.

Example (two correlated bits, the sum, ε = 1, δ = 1/2: trimming halves ``W`` from 2 to 1):

>>> from pufferfish.models.distribution import Distribution
>>> from pufferfish.models.model import PufferfishModel
>>> from pufferfish.models.priors import TablePrior
>>> from pufferfish.models.secrets import entry_pairs, entry_secrets
>>> from pufferfish.models.universe import Universe
>>> universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
>>> prior = TablePrior("p", Distribution({(0, 0): "3/8", (1, 1): "3/8", (0, 1): "1/8",
...                                       (1, 0): "1/8"}))
>>> model = PufferfishModel(universe, {"p": prior}, entry_secrets(universe), entry_pairs(universe))
>>> result = verify_epsilon_delta_mechanism(model, sum, 1, Fraction(1, 2))
>>> result.parameter.value, result.holds
(Fraction(1, 1), True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.transport.laplace_level import (HockeyStickBound,
                                                       conditional_query_distributions,
                                                       laplace_mixture_hockey_stick)
from pufferfish.verify.transport.parameter import (WassersteinParameter, mechanism_epsilon,
                                                   wasserstein_parameter)
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class EpsilonDeltaVerification(Explained):
    """Theorem A.8 on one model: ``W_δ``, ``σ = W_δ/ε`` and the hockey-stick divergences vs δ."""

    epsilon: Fraction
    delta: Fraction
    parameter: WassersteinParameter
    divergences: tuple[tuple[str, str, str, HockeyStickBound, str], ...]

    @property
    def scale(self) -> Fraction:
        return self.parameter.value / self.epsilon

    @property
    def relation(self) -> str:
        relations = [r for *_, r in self.divergences]
        if "above" in relations:
            return "above"
        if "undecided" in relations:
            return "undecided"
        return "tight" if "tight" in relations else "below"

    @property
    def holds(self) -> bool | None:
        return None if self.relation == "undecided" else self.relation != "above"

    @property
    def worst(self) -> tuple[str, str, str, HockeyStickBound, str] | None:
        return max(self.divergences, key=lambda d: d[3].upper, default=None)

    def to_dict(self) -> dict:
        return {"check": "wasserstein_epsilon_delta", "epsilon": fraction_str(self.epsilon),
                "delta": fraction_str(self.delta), "W_delta": self.parameter.to_dict(),
                "scale": fraction_str(self.scale), "relation": self.relation, "holds": self.holds,
                "divergences": [{"direction": [a, b], "prior": p, **h.to_dict(), "relation": r}
                                for a, b, p, h, r in self.divergences]}

    def explain(self) -> str:
        worst = self.worst
        text = (f"W_δ = {fraction_str(self.parameter.value)} (δ = {fraction_str(self.delta)}), "
                f"σ = {fraction_str(self.scale)}")
        if worst is not None:
            text += f"; worst {worst[0]} vs {worst[1]} under {worst[2]}: {worst[3].explain()}"
        return text + f"; vs δ: {self.relation}"


def verify_epsilon_delta_mechanism(model: PufferfishModel, query: Callable[[Dataset], object],
                                   epsilon: object, delta: Fraction,
                                   max_datasets: int = DEFAULT_MAX_DATASETS) -> EpsilonDeltaVerification:
    """Theorem A.8 on a finite model: for ``F + Lap(W_δ/ε)`` and every prior and ordered pair, the
    certified ``sup_S P(M ∈ S|s_i) − e^ε P(M ∈ S|s_j)`` (Definition A.7) compared with δ."""
    eps = mechanism_epsilon(epsilon)
    parameter = wasserstein_parameter(model, query, delta, max_datasets)
    scale = parameter.value / eps
    budget = parse_budget(fraction_str(eps))
    rows = []
    for _, first, second, prior, d1, d2 in conditional_query_distributions(
            model, query, max_datasets, interval_families=True):
        if d1 is None or d2 is None:
            continue
        bound = laplace_mixture_hockey_stick(dict(d1.items()), dict(d2.items()), scale, budget)
        rows.append((first, second, prior, bound, bound.compare(parameter.delta)))
    return EpsilonDeltaVerification(eps, parameter.delta, parameter, tuple(rows))
