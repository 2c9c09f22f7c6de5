"""The Wasserstein parameter ``W`` of a model (Wang et al., Privacy-Preserving Analysis of
Correlated Data, §3, Algorithm 1; Appendix A.4, step 3).

Algorithm 1: for every secret pair ``(s_i, s_j) ∈ 𝒬`` and prior θ with ``P(s_i|θ), P(s_j|θ) > 0``
let ``μ_{i,θ} = P(F(X) = · | s_i, θ)``; then ``W = sup W_∞(μ_{i,θ}, μ_{j,θ})``
(:func:`pufferfish.verify.transport.w_infinity.w_infinity`).  The (ε, δ) variant of Appendix A.4
uses the trimmed distance instead (:func:`pufferfish.verify.transport.trimmed.trimmed_w_infinity`).

A (pair, prior) in which a secret has probability 0 imposes nothing (Definition 5) and is listed
as skipped.  When *every* (pair, prior) is skipped there is nothing to calibrate, and
:func:`wasserstein_parameter` refuses the model rather than report ``W = 0`` as if a check had
been made.

Example (two perfectly correlated bits and the sum: knowing ``x1`` moves the sum by 2):

>>> from pufferfish.models.distribution import Distribution
>>> from pufferfish.models.model import PufferfishModel
>>> from pufferfish.models.priors import TablePrior
>>> from pufferfish.models.secrets import entry_pairs, entry_secrets
>>> from pufferfish.models.universe import Universe
>>> universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
>>> copies = TablePrior("copies", Distribution({(0, 0): "1/2", (1, 1): "1/2"}))
>>> model = PufferfishModel(universe, {"copies": copies}, entry_secrets(universe),
...                         entry_pairs(universe))
>>> wasserstein_parameter(model, sum).value
Fraction(2, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.transport.laplace_level import conditional_query_distributions
from pufferfish.verify.transport.trimmed import TrimmedWInfinity, trimmed_mass, trimmed_w_infinity
from pufferfish.verify.transport.w_infinity import WInfinityResult, w_infinity
from pufferfish.verify.report import Explained


@dataclass(frozen=True)
class PairDistance:
    """``W_∞`` (or its trimmed version) for one secret pair under one prior."""

    pair: str
    first: str
    second: str
    prior: str
    distance: WInfinityResult | TrimmedWInfinity

    @property
    def value(self) -> Fraction:
        return self.distance.value

    def to_dict(self) -> dict:
        return {"pair": self.pair, "direction": [self.first, self.second], "prior": self.prior,
                **self.distance.to_dict()}


@dataclass(repr=False, frozen=True)
class WassersteinParameter(Explained):
    """``W`` of Algorithm 1 (or of the (ε, δ) variant when ``delta > 0``) with its witness."""

    value: Fraction
    delta: Fraction
    witness: PairDistance | None
    distances: tuple[PairDistance, ...]
    skipped: tuple[tuple[str, str, str], ...] = ()

    def to_dict(self) -> dict:
        return {"W": fraction_str(self.value), "W_float": float(self.value),
                "delta": fraction_str(self.delta),
                "witness": self.witness.to_dict() if self.witness else None,
                "distances": [d.to_dict() for d in self.distances],
                "skipped": [{"pair": p, "prior": q, "reason": r} for p, q, r in self.skipped]}

    def explain(self) -> str:
        text = f"W = {fraction_str(self.value)}"
        if self.witness is not None:
            text += (f" (pair {self.witness.pair}, prior {self.witness.prior}: "
                     f"{self.witness.distance.explain()})")
        return text


def wasserstein_parameter(model: PufferfishModel, query: Callable[[Dataset], object],
                          delta: Fraction = Fraction(0),
                          max_datasets: int = DEFAULT_MAX_DATASETS) -> WassersteinParameter:
    """``W = sup_{(s_i,s_j) ∈ 𝒬, θ ∈ Θ} W_∞(μ_{i,θ}, μ_{j,θ})`` (Algorithm 1), or with ``delta > 0``
    the (ε, δ) variant's ``sup inf_{T_i,T_j} W_∞`` (Appendix A.4, step 3).

    ``W_∞`` is symmetric, so each unordered (pair, prior) is computed once.  With ``delta = 0`` an
    interval family enters through its extreme conditionals, exactly (``W_∞`` is jointly
    quasi-convex, :mod:`pufferfish.verify.transport.family_vertices`).  The trimmed distance is not
    known to be quasi-convex, so with ``delta > 0`` a family contributes the untrimmed ``W_∞`` of
    its extreme members, a certified outer bound of its trimmed supremum (trimming nothing is one
    admissible trimming), labelled so in the witness's prior.  Raises
    :class:`ModelError` when every (pair, prior) has a secret of probability 0 (nothing to check).
    Cost: the conditionals (one pass over each prior's support per secret) plus one ``W_∞`` per
    pair and prior.
    """
    delta = trimmed_mass(delta)
    distances: list[PairDistance] = []
    skipped: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for label, first, second, prior, d1, d2 in conditional_query_distributions(
            model, query, max_datasets, interval_families=True):
        if (label, prior) in seen:
            continue
        seen.add((label, prior))
        if d1 is None or d2 is None:
            zero = first if d1 is None else second
            skipped.append((label, prior, f"Pr[{zero} | {prior}] = 0"))
            continue
        m1, m2 = dict(d1.items()), dict(d2.items())
        if delta and prior not in model.finite_priors:
            # an extreme member of an interval family: the untrimmed distance bounds the trimmed
            # one over the whole family from above (trimming nothing is one admissible trimming)
            prior = f"{prior} (untrimmed W∞: an outer bound)"
            distance = trimmed_w_infinity(m1, m2, Fraction(0))
        else:
            distance = w_infinity(m1, m2) if delta == 0 else trimmed_w_infinity(m1, m2, delta)
        distances.append(PairDistance(label, first, second, prior, distance))
    if not distances:
        reasons = "; ".join(f"{p} under {q}: {r}" for p, q, r in skipped)
        raise ModelError("no secret pair has both secrets of positive probability under any "
                         f"prior, so there is nothing to check ({reasons})", "pairs")
    witness = max(distances, key=lambda d: d.value)
    return WassersteinParameter(witness.value, delta, witness, tuple(distances), tuple(skipped))


def mechanism_epsilon(epsilon: object) -> Fraction:
    """The rational ε > 0 of the Wasserstein mechanism (the noise scale ``W/ε`` must be
    rational): a :class:`Budget` with a rational ε, or an exact number."""
    if isinstance(epsilon, Budget):
        if epsilon.epsilon is None:
            raise UnsupportedError("the Wasserstein mechanism needs a rational ε (the noise scale "
                                   "W/ε must be rational); got " + epsilon.text, "--epsilon")
        epsilon = epsilon.epsilon
    value = exact(epsilon, "--epsilon")
    if value <= 0:
        raise ModelError(f"ε must be > 0, got {fraction_str(value)}", "--epsilon")
    return value
