"""The Wasserstein mechanism (``002_e1f2e9a9937b8cda.txt`` §3, Algorithm 1; Appendix A).

Definition 3.1 (§3): for probability measures μ, ν on the line, ``W_∞(μ, ν)`` is the least ``d``
such that some coupling γ of μ and ν puts no mass on pairs ``(t, s)`` with ``|t − s| > d`` — "the
maximum distance any probability mass moves while transforming μ into ν".

Algorithm 1 (Wasserstein mechanism): for every secret pair ``(s_i, s_j) ∈ 𝒬`` and prior θ with
``P(s_i|θ), P(s_j|θ) > 0`` let ``μ_{i,θ} = P(F(X) = · | s_i, θ)``; set
``W = sup W_∞(μ_{i,θ}, μ_{j,θ})`` and release ``F(D) + Z`` with ``Z ~ Lap(W/ε)``.
Theorem 3.2: this is ε-Pufferfish private.  Theorem 3.3 (Appendix A.2.2): ``W`` is at most the
global sensitivity of ``F`` in the corresponding group-DP framework.

What this module computes, exactly:

* :func:`w_infinity` — ``W_∞`` between two finite distributions on the rationals, with the
  **comonotone (north-west-corner) coupling** as the upper-bound certificate (it pairs the
  ``q``-quantiles of μ and ν for every ``q``; on the line it is optimal for every ``W_p``, p = ∞
  included) and a **half-line** as the lower-bound certificate: a point ``a`` with
  ``μ((−∞, a]) > ν((−∞, a + d))`` (or the mirror image) forces every coupling to move mass by
  at least ``d`` (Strassen's criterion).  :meth:`WInfinityResult.verify` checks both exactly.
  Cost ``O((m + n) log(m + n))`` for supports of sizes ``m, n``.
* :func:`w_infinity_by_max_flow` — an independent cross-check: for each candidate distance
  (the ``m·n`` values ``|a − b|``) an exact integer max-flow (networkx) decides whether a
  coupling within that distance exists.  Cost ``O(mn · maxflow)``.
* :func:`trimmed_w_infinity` — the (ε, δ) variant's ``inf_{T_i, T_j} W_∞(ν_i, ν_j)`` (Appendix
  A.4, step 3) for *discrete* distributions.  The paper assumes a continuous cdf so that sets
  ``T`` of mass exactly δ exist; for atoms we trim a **sub-measure** τ ≤ μ of mass exactly δ,
  possibly a fraction of an atom (the proof of Theorem A.8 only uses ``∫ P(Z∈S−t) dτ ≤ δ``, so it
  carries over verbatim).  Then ``W_∞(ν_i, ν_j) <= d`` for ``ν = (μ − τ)/(1 − δ)`` iff a partial
  coupling of μ_i and μ_j of mass ``1 − δ`` moves no mass farther than ``d``; the largest partial
  coupling within distance ``d`` is found by a greedy sweep (left atoms in increasing order, each
  matched to the leftmost unexhausted right atoms within ``[a − d, a + d]``; optimal because
  both ends of these windows increase with ``a``), and the least feasible ``d`` among the
  candidates ``|a − b|`` by bisection.  The flow is scaled by ``(1 − δ)/flow`` so exactly
  ``1 − δ`` is kept; what is trimmed is ``τ = μ − (kept marginal)``.
  Cost ``O((m + n) log(mn))`` per candidate, ``O(log(mn))`` candidates.
* :func:`wasserstein_parameter` — ``W`` of Algorithm 1 over a model's finite priors and pairs,
  with the worst (pair, prior) and its coupling as witness (``delta > 0``: the trimmed variant).
* :class:`WassersteinMechanism` — the mechanism as a sampler (numpy ``Generator``; the sample
  is a float, which is a release, never a verdict).
* :func:`verify_wasserstein_mechanism` — Theorem 3.2 checked on a model: the *actual* certified
  Pufferfish level of ``F + Lap(W/ε)`` (:func:`pufferfish.verify.transport.laplace_level.laplace_pufferfish_level`)
  next to ε.  :func:`verify_epsilon_delta_mechanism` — Theorem A.8: the certified hockey-stick
  divergence of every pair next to δ.
* :func:`group_sensitivity`, :func:`dependence_groups` — Theorem 3.3's right-hand side.
* :func:`flu_conditionals`, :func:`flu_model` — the flu example of §3 (``W = 2``, group DP 4).

Example (§3, the flu example):

>>> first, second = flu_conditionals()
>>> w_infinity(first, second).value
Fraction(2, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, product
from math import lcm

import numpy as np

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.mechanisms import Query
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.models.priors import TablePrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe
from pufferfish.verify.numerics.certified import Budget, parse_budget
from pufferfish.verify.transport.laplace_level import (HockeyStickBound, LaplacePufferfishResult,
                                    conditional_query_distributions, laplace_mixture_hockey_stick,
                                    laplace_pufferfish_level)
from pufferfish.verify.privacy.supports import prior_supports

Atoms = tuple[tuple[Fraction, Fraction], ...]
Coupling = tuple[tuple[Fraction, Fraction, Fraction], ...]


def atoms(raw: Mapping, name: str = "distribution", normalized: bool = True) -> Atoms:
    """Sorted ``((value, mass), ...)`` with positive masses (summing to 1 when ``normalized``),
    validated exactly with JSON-path errors."""
    if not isinstance(raw, Mapping):
        raise ModelError("expected a mapping from value to probability", name)
    merged: dict[Fraction, Fraction] = {}
    for value, weight in raw.items():
        v, p = exact(value, f"{name}.{value}"), exact(weight, f"{name}.{value}")
        if p < 0:
            raise ModelError(f"probability {fraction_str(p)} is negative", f"{name}.{value}")
        if p:
            merged[v] = merged.get(v, Fraction(0)) + p
    total = sum(merged.values(), Fraction(0))
    if normalized and total != 1:
        raise ModelError(f"probabilities sum to {fraction_str(total)}, must sum to 1", name)
    return tuple(sorted(merged.items()))


def _pairs_text(atoms: Atoms) -> list[list[str]]:
    return [[fraction_str(v), fraction_str(p)] for v, p in atoms]


def _coupling_text(coupling: Coupling) -> list[list[str]]:
    return [[fraction_str(a), fraction_str(b), fraction_str(m)] for a, b, m in coupling]


# ------------------------------------------------------------------------------------------------
# W_∞ with certificates
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HalfLine:
    """Lower-bound certificate: ``μ((−∞, point]) > ν((−∞, point + d))`` (side ``left``) or
    ``μ([point, ∞)) > ν((point − d, ∞))`` (side ``right``): some mass of μ must move by ``>= d``."""

    point: Fraction
    side: str

    def to_dict(self) -> dict:
        return {"point": fraction_str(self.point), "side": self.side}


@dataclass(frozen=True)
class WInfinityResult:
    """``W_∞(first, second)`` with the comonotone coupling and a half-line lower bound."""

    value: Fraction
    coupling: Coupling
    lower_certificate: HalfLine | None
    first: Atoms
    second: Atoms

    @property
    def witness(self) -> tuple[Fraction, Fraction, Fraction] | None:
        """A coupled pair ``(t, s, mass)`` that moves mass by exactly ``value``."""
        for a, b, m in self.coupling:
            if abs(a - b) == self.value:
                return (a, b, m)
        return None

    def verify(self) -> bool:
        """Check the certificates exactly: the coupling has the right marginals, its largest
        displacement is ``value``, and (if ``value > 0``) the half-line forces ``>= value``."""
        return verify_coupling(self.coupling, self.first, self.second, self.value) and \
            verify_lower_certificate(self.lower_certificate, self.first, self.second, self.value)

    def to_dict(self) -> dict:
        witness = self.witness
        return {"w_infinity": fraction_str(self.value), "w_infinity_float": float(self.value),
                "first": _pairs_text(self.first), "second": _pairs_text(self.second),
                "coupling": _coupling_text(self.coupling),
                "farthest_move": None if witness is None else _coupling_text((witness,))[0],
                "lower_certificate": None if self.lower_certificate is None
                else self.lower_certificate.to_dict(), "certificate_verified": self.verify()}

    def explain(self) -> str:
        witness = self.witness
        text = f"W∞ = {fraction_str(self.value)}"
        if witness is not None and self.value:
            text += (f": the comonotone coupling moves mass {fraction_str(witness[2])} from "
                     f"{fraction_str(witness[0])} to {fraction_str(witness[1])}")
        return text


def verify_coupling(coupling: Coupling, first: Atoms, second: Atoms, value: Fraction,
                    mass: Fraction | None = None) -> bool:
    """Exactly: ``coupling`` has marginals ``first``/``second`` (or, with ``mass``, marginals
    bounded by them and total ``mass``), nonnegative entries, and largest displacement ``value``."""
    left: dict[Fraction, Fraction] = {}
    right: dict[Fraction, Fraction] = {}
    for a, b, m in coupling:
        if m <= 0:
            return False
        left[a] = left.get(a, Fraction(0)) + m
        right[b] = right.get(b, Fraction(0)) + m
    largest = max((abs(a - b) for a, b, _ in coupling), default=Fraction(0))
    if largest != value:
        return False
    if mass is None:
        return left == dict(first) and right == dict(second)
    f, s = dict(first), dict(second)
    return (all(m <= f.get(a, 0) for a, m in left.items())
            and all(m <= s.get(b, 0) for b, m in right.items())
            and sum(left.values(), Fraction(0)) == mass)


def verify_lower_certificate(certificate: HalfLine | None, first: Atoms, second: Atoms,
                             value: Fraction) -> bool:
    """Exactly: the half-line proves that every coupling moves some mass by ``>= value``."""
    if value == 0:
        return True
    if certificate is None:
        return False
    a = certificate.point
    if certificate.side == "left":
        return sum((p for v, p in first if v <= a), Fraction(0)) > \
            sum((p for v, p in second if v < a + value), Fraction(0))
    return sum((p for v, p in first if v >= a), Fraction(0)) > \
        sum((p for v, p in second if v > a - value), Fraction(0))


def comonotone_coupling(first: Atoms, second: Atoms) -> Coupling:
    """The north-west-corner coupling of two sorted atom lists of equal total mass."""
    out: list[tuple[Fraction, Fraction, Fraction]] = []
    i = j = 0
    rest_a = first[0][1] if first else Fraction(0)
    rest_b = second[0][1] if second else Fraction(0)
    while i < len(first) and j < len(second):
        m = min(rest_a, rest_b)
        if m:
            out.append((first[i][0], second[j][0], m))
        rest_a -= m
        rest_b -= m
        if rest_a == 0:
            i += 1
            rest_a = first[i][1] if i < len(first) else Fraction(0)
        if rest_b == 0:
            j += 1
            rest_b = second[j][1] if j < len(second) else Fraction(0)
    return tuple(out)


def w_infinity(first: Mapping, second: Mapping) -> WInfinityResult:
    """``W_∞`` between two finite distributions on the rationals, with certificates.

    >>> w_infinity({0: 1}, {"1/2": "1/2", 3: "1/2"}).value
    Fraction(3, 1)
    """
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    coupling = comonotone_coupling(p1, p2)
    value = max((abs(a - b) for a, b, _ in coupling), default=Fraction(0))
    certificate = None
    if value:
        a, b, _ = next(c for c in coupling if abs(c[0] - c[1]) == value)
        certificate = HalfLine(a, "left" if b > a else "right")
    return WInfinityResult(value, coupling, certificate, p1, p2)


def w_infinity_by_max_flow(first: Mapping, second: Mapping) -> Fraction:
    """Independent cross-check of :func:`w_infinity`: least candidate ``d = |a − b|`` for which an
    exact integer max-flow saturates the bipartite graph with edges ``|a − b| <= d``."""
    import networkx as nx

    p1, p2 = atoms(first, "first"), atoms(second, "second")
    scale = lcm(*(p.denominator for _, p in p1 + p2))
    for d in sorted({abs(a - b) for a, _ in p1 for b, _ in p2}):
        graph = nx.DiGraph()
        for a, p in p1:
            graph.add_edge("source", ("L", a), capacity=int(p * scale))
        for b, q in p2:
            graph.add_edge(("R", b), "sink", capacity=int(q * scale))
        for a, _ in p1:
            for b, _ in p2:
                if abs(a - b) <= d:
                    graph.add_edge(("L", a), ("R", b), capacity=scale)
        if nx.maximum_flow_value(graph, "source", "sink") == scale:
            return d
    raise AssertionError("the largest distance always admits a coupling")  # pragma: no cover


# ------------------------------------------------------------------------------------------------
# the (ε, δ) variant: trimming mass δ
# ------------------------------------------------------------------------------------------------

def greedy_partial_coupling(first: Atoms, second: Atoms, distance: Fraction) -> Coupling:
    """A largest partial coupling of ``first`` and ``second`` moving no mass farther than
    ``distance`` (greedy sweep; see the module docstring)."""
    rest = [p for _, p in second]
    out: list[tuple[Fraction, Fraction, Fraction]] = []
    start = 0
    for a, p in first:
        while start < len(second) and (second[start][0] < a - distance or rest[start] == 0):
            start += 1
        j = start
        while p and j < len(second) and second[j][0] <= a + distance:
            m = min(p, rest[j])
            if m:
                out.append((a, second[j][0], m))
                p -= m
                rest[j] -= m
            j += 1
    return tuple(out)


@dataclass(frozen=True)
class TrimmedWInfinity:
    """``inf_{τ_1, τ_2} W_∞((μ_1 − τ_1)/(1−δ), (μ_2 − τ_2)/(1−δ))`` over trims of mass δ."""

    value: Fraction
    delta: Fraction
    partial_coupling: Coupling
    trimmed_first: Atoms
    trimmed_second: Atoms
    first: Atoms
    second: Atoms

    def verify(self) -> bool:
        """Exactly: the partial coupling has mass ``1 − δ``, marginals ``<=`` μ, displacement
        ``value``; the trims are ``μ − marginal`` with mass δ; and no smaller candidate distance
        admits a partial coupling of mass ``1 − δ`` (re-checked by the greedy optimum)."""
        kept = 1 - self.delta
        if not verify_coupling(self.partial_coupling, self.first, self.second, self.value, kept) \
                and not (kept == 0 and not self.partial_coupling):
            return False
        for atoms, trimmed, index in ((self.first, self.trimmed_first, 0),
                                      (self.second, self.trimmed_second, 1)):
            marginal: dict[Fraction, Fraction] = {}
            for entry in self.partial_coupling:
                marginal[entry[index]] = marginal.get(entry[index], Fraction(0)) + entry[2]
            expected = {v: p - marginal.get(v, 0) for v, p in atoms if p - marginal.get(v, 0)}
            if dict(trimmed) != expected or sum(expected.values(), Fraction(0)) != self.delta:
                return False
        smaller = [d for d in _candidates(self.first, self.second) if d < self.value]
        return not smaller or _flow_mass(self.first, self.second, max(smaller)) < kept

    def kept(self, index: int) -> Atoms:
        """The normalized kept distribution ν_i (``index`` 0 or 1)."""
        marginal: dict[Fraction, Fraction] = {}
        for entry in self.partial_coupling:
            marginal[entry[index]] = marginal.get(entry[index], Fraction(0)) + entry[2]
        return tuple(sorted((v, m / (1 - self.delta)) for v, m in marginal.items()))

    def to_dict(self) -> dict:
        return {"w_infinity_trimmed": fraction_str(self.value), "delta": fraction_str(self.delta),
                "partial_coupling": _coupling_text(self.partial_coupling),
                "trimmed_first": _pairs_text(self.trimmed_first),
                "trimmed_second": _pairs_text(self.trimmed_second),
                "certificate_verified": self.verify()}

    def explain(self) -> str:
        return (f"after trimming mass {fraction_str(self.delta)} from each side, W∞ = "
                f"{fraction_str(self.value)}")


def _candidates(first: Atoms, second: Atoms) -> list[Fraction]:
    return sorted({abs(a - b) for a, _ in first for b, _ in second})


def _flow_mass(first: Atoms, second: Atoms, distance: Fraction) -> Fraction:
    return sum((m for _, _, m in greedy_partial_coupling(first, second, distance)), Fraction(0))


def trimmed_w_infinity(first: Mapping, second: Mapping, delta: Fraction) -> TrimmedWInfinity:
    """The (ε, δ) variant's distance for discrete distributions (Appendix A.4; module docstring)."""
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    delta = exact(delta, "delta")
    if not 0 <= delta < 1:
        raise ModelError(f"δ must be in [0, 1), got {fraction_str(delta)}", "--delta")
    kept = 1 - delta
    candidates = _candidates(p1, p2)
    low, high = 0, len(candidates) - 1             # the largest candidate always couples fully
    while low < high:
        middle = (low + high) // 2
        if _flow_mass(p1, p2, candidates[middle]) >= kept:
            high = middle
        else:
            low = middle + 1
    value = candidates[low]
    flow = greedy_partial_coupling(p1, p2, value)
    total = sum((m for _, _, m in flow), Fraction(0))
    factor = kept / total
    coupling = tuple((a, b, m * factor) for a, b, m in flow if m * factor)
    value = max((abs(a - b) for a, b, _ in coupling), default=Fraction(0))
    trims = []
    for side, index in ((p1, 0), (p2, 1)):
        marginal: dict[Fraction, Fraction] = {}
        for entry in coupling:
            marginal[entry[index]] = marginal.get(entry[index], Fraction(0)) + entry[2]
        trims.append(tuple((v, p - marginal.get(v, 0)) for v, p in side if p - marginal.get(v, 0)))
    return TrimmedWInfinity(value, delta, coupling, trims[0], trims[1], p1, p2)


# ------------------------------------------------------------------------------------------------
# Algorithm 1: W over a model
# ------------------------------------------------------------------------------------------------

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


@dataclass(frozen=True)
class WassersteinParameter:
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

    ``W_∞`` is symmetric, so each unordered (pair, prior) is computed once.  Cost: the
    conditionals (one pass over each prior's support per secret) plus one ``W_∞`` per pair and prior.
    """
    delta = exact(delta, "--delta")
    distances: list[PairDistance] = []
    skipped: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for label, first, second, prior, d1, d2 in conditional_query_distributions(model, query,
                                                                                max_datasets):
        if (label, prior) in seen:
            continue
        seen.add((label, prior))
        if d1 is None or d2 is None:
            zero = first if d1 is None else second
            skipped.append((label, prior, f"Pr[{zero} | {prior}] = 0"))
            continue
        m1, m2 = dict(d1.items()), dict(d2.items())
        distance = w_infinity(m1, m2) if delta == 0 else trimmed_w_infinity(m1, m2, delta)
        distances.append(PairDistance(label, first, second, prior, distance))
    witness = max(distances, key=lambda d: d.value, default=None)
    value = witness.value if witness is not None else Fraction(0)
    return WassersteinParameter(value, delta, witness, tuple(distances), tuple(skipped))


@dataclass(frozen=True)
class WassersteinMechanism:
    """``F(D) + Lap(W/ε)`` (Algorithm 1) as a sampler; ``scale = 0`` releases ``F(D)`` itself."""

    query: Callable[[Dataset], object]
    parameter: WassersteinParameter
    epsilon: Fraction

    @property
    def scale(self) -> Fraction:
        return self.parameter.value / self.epsilon

    def release(self, dataset: Dataset, rng: np.random.Generator) -> float:
        """One release for ``dataset`` (a float sample; the privacy analysis is exact elsewhere)."""
        value = Fraction(self.query(dataset))
        noise = rng.laplace(0.0, float(self.scale)) if self.scale else 0.0
        return float(value) + noise

    def sample(self, dataset: Dataset, size: int, rng: np.random.Generator) -> np.ndarray:
        value = float(Fraction(self.query(dataset)))
        if not self.scale:
            return np.full(size, value)
        return value + rng.laplace(0.0, float(self.scale), size)


def _positive_epsilon(epsilon: object) -> Fraction:
    if isinstance(epsilon, Budget):
        if epsilon.epsilon is None:
            raise UnsupportedError("the Wasserstein mechanism needs a rational ε (the noise scale "
                                   "W/ε must be rational); got " + epsilon.text, "--epsilon")
        epsilon = epsilon.epsilon
    value = exact(epsilon, "--epsilon")
    if value <= 0:
        raise ModelError(f"ε must be > 0, got {fraction_str(value)}", "--epsilon")
    return value


def wasserstein_mechanism(model: PufferfishModel, query: Callable[[Dataset], object],
                          epsilon: object, max_datasets: int = DEFAULT_MAX_DATASETS
                          ) -> WassersteinMechanism:
    """Algorithm 1: compute ``W`` and return the mechanism ``F + Lap(W/ε)``."""
    eps = _positive_epsilon(epsilon)
    return WassersteinMechanism(query, wasserstein_parameter(model, query, Fraction(0), max_datasets),
                                eps)


@dataclass(frozen=True)
class WassersteinVerification:
    """Theorem 3.2 on one model: ``W``, ``σ = W/ε``, and the certified actual level vs ε."""

    epsilon: Fraction
    parameter: WassersteinParameter
    level: LaplacePufferfishResult

    @property
    def scale(self) -> Fraction:
        return self.parameter.value / self.epsilon

    @property
    def holds(self) -> bool | None:
        return self.level.holds

    def to_dict(self) -> dict:
        return {"check": "wasserstein", "epsilon": fraction_str(self.epsilon),
                "W": self.parameter.to_dict(), "scale": fraction_str(self.scale),
                "actual_level": self.level.to_dict(), "holds": self.holds}

    def explain(self) -> str:
        verdict = {None: "UNDECIDED", True: "holds", False: "VIOLATED"}[self.holds]
        return (f"{self.parameter.explain()}; σ = W/ε = {fraction_str(self.scale)}; actual "
                f"Pufferfish level ε ∈ [{self.level.epsilon_lower:.10g}, "
                f"{self.level.epsilon_upper:.10g}] vs ε = {fraction_str(self.epsilon)}: {verdict} "
                f"({self.level.relation})")


def verify_wasserstein_mechanism(model: PufferfishModel, query: Callable[[Dataset], object],
                                 epsilon: object, max_datasets: int = DEFAULT_MAX_DATASETS,
                                 query_name: str | None = None) -> WassersteinVerification:
    """Theorem 3.2 on a finite model: the certified Pufferfish level of ``F + Lap(W/ε)`` next to ε."""
    eps = _positive_epsilon(epsilon)
    parameter = wasserstein_parameter(model, query, Fraction(0), max_datasets)
    level = laplace_pufferfish_level(model, query, parameter.value / eps,
                                     parse_budget(fraction_str(eps)), max_datasets=max_datasets,
                                     query_name=query_name)
    return WassersteinVerification(eps, parameter, level)


@dataclass(frozen=True)
class EpsilonDeltaVerification:
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
    eps = _positive_epsilon(epsilon)
    parameter = wasserstein_parameter(model, query, delta, max_datasets)
    scale = parameter.value / eps
    budget = parse_budget(fraction_str(eps))
    rows = []
    for _, first, second, prior, d1, d2 in conditional_query_distributions(model, query,
                                                                            max_datasets):
        if d1 is None or d2 is None:
            continue
        bound = laplace_mixture_hockey_stick(dict(d1.items()), dict(d2.items()), scale, budget)
        rows.append((first, second, prior, bound, bound.compare(parameter.delta)))
    return EpsilonDeltaVerification(eps, parameter.delta, parameter, tuple(rows))


# ------------------------------------------------------------------------------------------------
# Theorem 3.3: group-DP sensitivity
# ------------------------------------------------------------------------------------------------

def dependence_groups(model: PufferfishModel, max_datasets: int = DEFAULT_MAX_DATASETS
                      ) -> tuple[tuple[int, ...], ...]:
    """The groups of Theorem 3.3 as Appendix A.2.2 defines them: connected components of the graph
    with an edge ``i — j`` when ``X_i`` and ``X_j`` are not independent under some finite prior
    (pairwise independence, checked exactly).  Cost ``O(n^2 · |support| )`` per prior."""
    import networkx as nx

    n = model.universe.width
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for support in prior_supports(model, max_datasets).values():
        for i, j in combinations(range(n), 2):
            if graph.has_edge(i, j):
                continue
            joint: dict[tuple, Fraction] = {}
            left: dict[object, Fraction] = {}
            right: dict[object, Fraction] = {}
            for dataset, p in support:
                joint[(dataset[i], dataset[j])] = joint.get((dataset[i], dataset[j]), 0) + p
                left[dataset[i]] = left.get(dataset[i], 0) + p
                right[dataset[j]] = right.get(dataset[j], 0) + p
            if any(joint.get((a, b), 0) != pa * pb for a, pa in left.items()
                   for b, pb in right.items()):
                graph.add_edge(i, j)
    return tuple(sorted(tuple(sorted(c)) for c in nx.connected_components(graph)))


def groups_mutually_independent(model: PufferfishModel, groups: Sequence[Sequence[int]],
                                max_datasets: int = DEFAULT_MAX_DATASETS) -> bool:
    """Exactly: under every finite prior the joint law is the product of the groups' marginals."""
    for support in prior_supports(model, max_datasets).values():
        marginals = []
        for group in groups:
            marginal: dict[tuple, Fraction] = {}
            for dataset, p in support:
                key = tuple(dataset[i] for i in group)
                marginal[key] = marginal.get(key, Fraction(0)) + p
            marginals.append(marginal)
        joint = dict(support)
        for combo in product(*(m.items() for m in marginals)):
            dataset = [None] * model.universe.width
            p = Fraction(1)
            for group, (key, q) in zip(groups, combo):
                for i, v in zip(group, key):
                    dataset[i] = v
                p *= q
            if joint.get(tuple(dataset), Fraction(0)) != p:
                return False
    return True


def group_sensitivity(universe: Universe, query: Callable[[Dataset], object],
                      groups: Sequence[Sequence[int]],
                      max_datasets: int = DEFAULT_MAX_DATASETS) -> tuple[Fraction, tuple | None]:
    """``Δ_𝒢 F = max_k max_{(x,y) ∈ D_k} |F(x) − F(y)|`` (Appendix A.2.1, Definitions A.2–A.3),
    ``D_k`` = pairs of datasets of the universe that differ only in the entries of group ``k``.
    Returns the value and a witness ``(group, x, y)``.  Cost ``O(|𝒰| · Σ_k |𝒰_k|)``."""
    datasets = list(universe.datasets(max_datasets))
    best, witness = Fraction(0), None
    for group in groups:
        members = set(group)
        classes: dict[tuple, list[Fraction]] = {}
        examples: dict[tuple, tuple[tuple, tuple]] = {}
        for dataset in datasets:
            rest = tuple(v for i, v in enumerate(dataset) if i not in members)
            value = Fraction(query(dataset))
            bucket = classes.setdefault(rest, [value, value])
            low, high = examples.setdefault(rest, (dataset, dataset))
            if value < bucket[0]:
                bucket[0], low = value, dataset
            if value > bucket[1]:
                bucket[1], high = value, dataset
            examples[rest] = (low, high)
        for rest, (low, high) in classes.items():
            if high - low > best:
                best = high - low
                witness = (tuple(group), examples[rest][0], examples[rest][1])
    return best, witness


# ------------------------------------------------------------------------------------------------
# the flu example (§3)
# ------------------------------------------------------------------------------------------------

def flu_conditionals() -> tuple[dict[Fraction, Fraction], dict[Fraction, Fraction]]:
    """§3: ``P(N = 0 | X_i = 0) = 1/2``, ``P(N = k | X_i = 0) = 1/6`` (k = 1, 2, 3);
    ``P(N = j | X_i = 1) = 1/4`` (j = 1..4)."""
    sixth, quarter = Fraction(1, 6), Fraction(1, 4)
    return ({Fraction(0): Fraction(1, 2), Fraction(1): sixth, Fraction(2): sixth, Fraction(3): sixth},
            {Fraction(j): quarter for j in range(1, 5)})


def flu_model() -> PufferfishModel:
    """A 4-person model in which Alice (``x1``) has exactly the §3 conditionals of ``N = Σ x_i``.

    ``Pr[x1 = 1] = 1/2``; given ``x1`` and ``N``, the other three statuses are uniform over the
    arrangements with that count.  (No prior gives these conditionals to *every* person at once —
    see :func:`flu_all_individuals_system`.)
    """
    universe = Universe.product(["x1", "x2", "x3", "x4"], [[0, 1]] * 4)
    given = dict(zip((0, 1), flu_conditionals()))
    table: dict[tuple, Fraction] = {}
    for alice in (0, 1):
        for n, p in given[alice].items():
            others = [d for d in product((0, 1), repeat=3) if sum(d) + alice == n]
            for rest in others:
                table[(alice, *rest)] = Fraction(1, 2) * p / len(others)
    prior = TablePrior("flu", Distribution(table))
    secrets = {"x1=0": Secret.where("x1=0", universe, {"x1": 0}),
               "x1=1": Secret.where("x1=1", universe, {"x1": 1})}
    return PufferfishModel(universe, {"flu": prior}, secrets,
                           [SecretPair(secrets["x1=0"], secrets["x1=1"])],
                           description="002_e1f2e9a9937b8cda.txt §3 flu example: Alice = x1, "
                                       "N = x1 + x2 + x3 + x4")


def flu_all_individuals_system():
    """The linear system "every person i has the §3 conditionals" over the 16 dataset
    probabilities, solved exactly with sympy; returns the solution set (``EmptySet`` when no
    prior — not even a signed one — satisfies it)."""
    import sympy

    datasets = list(product((0, 1), repeat=4))
    p = {d: sympy.Symbol("p_" + "".join(map(str, d))) for d in datasets}
    conditionals = dict(zip((0, 1), flu_conditionals()))
    equations = [sum(p.values()) - 1]
    for i in range(4):
        for status in (0, 1):
            mass = sum(p[d] for d in datasets if d[i] == status)
            for n in range(5):
                target = conditionals[status].get(Fraction(n), Fraction(0))
                joint = sum(p[d] for d in datasets if d[i] == status and sum(d) == n)
                equations.append(joint - sympy.Rational(target.numerator, target.denominator) * mass)
    return sympy.linsolve(equations, list(p.values()))


def parse_query(text: str, universe: Universe) -> Query:
    """The command-line query syntax: ``sum``, ``count``, ``parity`` or ``attribute:NAME``."""
    if not isinstance(text, str) or not text.strip():
        raise ModelError("give a query: sum, count, parity or attribute:NAME", "--query")
    stripped = text.strip()
    if stripped.startswith("attribute:"):
        return Query("attribute", universe, [stripped.split(":", 1)[1]], 1, "--query")
    if stripped not in ("sum", "count", "parity"):
        raise ModelError(f"unknown query {stripped!r}; use sum, count, parity or attribute:NAME",
                         "--query")
    return Query(stripped, universe, None, 1, "--query")
