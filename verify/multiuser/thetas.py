"""Laplace scales θ of the multi-user calibrators, exact or certified
(Ding et al., Multi-user Pufferfish Privacy, §4.3 Theorem 3, equations (13)–(15); §4.4.1 Lemma 2,
equation (21)).

A :class:`Theta` is either exact (``lower == upper``; ``coefficient = θ·ε`` when θ = c/ε) or a
certified rational enclosure ``lower <= θ <= upper`` of a transcendental value, optionally with a
:class:`RootSpec` describing θ exactly as ``1/(L · log z*)`` for the root ``z*`` of an increasing
rational function — which lets :func:`pufferfish.verify.multiuser.levels.decide_at_root` decide the
level *at* θ when the enclosure alone cannot.

* :func:`eq13_theta` — the root of ``E_{P_i}[e^{|D_i|/θ}] = e^ε`` (13), solved as a polynomial:
  with ``L`` the common denominator of the values and ``z = e^{1/(Lθ)}``,
  ``g(z) = Σ_t P_i(t) z^{L|t|}`` is strictly increasing on ``z >= 1`` with ``g(1) = 1 < e^ε``; the
  unique root is isolated by bisection over rational ``z`` where every comparison of ``g(z)`` with
  ``e^ε`` is decided rigorously (:func:`pufferfish.verify.numerics.certified.compare_ratio`), and
  ``θ = 1/(L log z)`` is enclosed with interval arithmetic.  Cost ``O(log(1/tolerance))``
  polynomial evaluations.
* :func:`eq15_theta` — the closed form (15) for Bernoulli users, ``1/log((e^ε − (1 − p))/p)``.
* :func:`lemma2_psi_min`, :func:`lemma2_theta` — (21): ``ψ_i(x)`` is taken over the points ``x``
  with ``Pr(S_{-i} = x − 1) > 0`` (elsewhere ``π*(x − 1, x) = 0`` and (23) imposes nothing); the
  term is decreasing in ψ, so the supremum is at the least ψ.

Interval enclosures use a private context (:func:`pufferfish.verify.numerics.intervals.interval_context`)
at :data:`BITS` bits; nothing sets a global precision.

>>> from pufferfish.verify.numerics.certified import parse_budget
>>> theta = eq15_theta(Fraction(1, 5), parse_budget("1"))
>>> 0.44 < float(theta.lower) <= float(theta.upper) < 0.45 and not theta.exact
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import reduce
from math import lcm

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.numerics.certified import Budget, compare_ratio
from pufferfish.verify.numerics.intervals import (endpoints, exp_interval, interval_context,
                                                  log_interval, rational_interval)

BITS = 128
"""Working precision (bits) of the interval enclosures of transcendental θ."""
ROOT_TOLERANCE = Fraction(1, 2 ** 40)
"""Relative width at which the certified enclosure of a transcendental θ stops."""


def epsilon_of(budget: Budget) -> Fraction:
    """The rational ε > 0 of a budget (``log(r)`` and ``inf`` budgets are refused).

    >>> from pufferfish.verify.numerics.certified import parse_budget
    >>> epsilon_of(parse_budget("1/2"))
    Fraction(1, 2)
    """
    if budget.infinite or budget.epsilon is None:
        raise UnsupportedError(f"give ε as a rational number such as 0.5 or 1/2 (got {budget.text!r}): "
                               "the calibrated scale c/ε must be rational", "--epsilon")
    if budget.epsilon <= 0:
        raise ModelError(f"ε must be > 0, got {budget.text!r}", "--epsilon")
    return budget.epsilon


@dataclass(frozen=True)
class Theta:
    """A Laplace scale θ: exact (``lower == upper``; ``coefficient`` = θ·ε when θ = c/ε) or a
    certified enclosure ``lower <= θ <= upper`` of a transcendental value."""

    lower: Fraction
    upper: Fraction
    coefficient: Fraction | None = None
    root: "RootSpec | None" = field(default=None, repr=False, compare=False)

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @classmethod
    def multiple(cls, coefficient: Fraction, epsilon: Fraction) -> "Theta":
        value = Fraction(coefficient) / epsilon
        return cls(value, value, Fraction(coefficient))

    def text(self) -> str:
        if self.coefficient is not None:
            return f"{fraction_str(self.coefficient)}/ε = {fraction_str(self.lower)}"
        if self.exact:
            return fraction_str(self.lower)
        return f"∈ [{float(self.lower):.12g}, {float(self.upper):.12g}]"

    def to_dict(self, epsilon: Fraction | None = None) -> dict:
        data = {"exact": self.exact, "lower": fraction_str(self.lower),
                "upper": fraction_str(self.upper), "lower_float": float(self.lower),
                "upper_float": float(self.upper)}
        if self.exact:
            data["theta"] = fraction_str(self.lower)
        if self.coefficient is not None:
            data["times_epsilon"] = fraction_str(self.coefficient)
        elif epsilon is not None:
            data["times_epsilon_interval"] = [float(self.lower * epsilon), float(self.upper * epsilon)]
        return data


def _theta_from_interval(interval, root: "RootSpec | None" = None) -> Theta:
    low, high = endpoints(interval)
    return Theta(max(low, Fraction(0)), high, None, root)


@dataclass(frozen=True)
class RootSpec:
    """A transcendental θ given as ``θ = 1/(lattice · log z*)`` where ``z* > 1`` is the unique
    root of ``R(z) = e^ε`` for the increasing rational function ``R = numerator/denominator``
    (integer exponent -> rational coefficient), bracketed by ``z_low < z* < z_high``."""

    lattice: int
    numerator: Mapping[int, Fraction]
    denominator: Mapping[int, Fraction]
    z_low: Fraction
    z_high: Fraction

    def value(self, z: Fraction) -> Fraction:
        return evaluate_polynomial(self.numerator, z) / evaluate_polynomial(self.denominator, z)

    def refined(self, budget: Budget) -> "RootSpec":
        """The bracket halved (the side is decided by a certified comparison of R(mid) with e^ε)."""
        mid = (self.z_low + self.z_high) / 2
        if compare_ratio(self.value(mid), budget).relation == "above":
            return RootSpec(self.lattice, self.numerator, self.denominator, self.z_low, mid)
        return RootSpec(self.lattice, self.numerator, self.denominator, mid, self.z_high)


def evaluate_polynomial(poly: Mapping[int, Fraction], z: Fraction) -> Fraction:
    """``Σ_k poly[k] z^k`` exactly."""
    return sum((c * z ** k for k, c in poly.items()), Fraction(0))


def eq13_polynomial(dist: Distribution) -> tuple[int, dict[int, Fraction]]:
    """Equation (13) as a polynomial: ``(L, {k: coefficient})`` with
    ``E[e^{|D|/θ}] = Σ_k coefficient_k z^k`` for ``z = e^{1/(Lθ)}``."""
    scale = reduce(lcm, (Fraction(v).denominator for v in dist.support), 1)
    poly: dict[int, Fraction] = {}
    for v, p in dist.items():
        k = int(abs(Fraction(v)) * scale)
        poly[k] = poly.get(k, Fraction(0)) + p
    return scale, poly


def eq13_theta(dist: Distribution, budget: Budget, tolerance: Fraction = ROOT_TOLERANCE) -> Theta:
    """The θ of equation (13), ``E_{D~P}[e^{|D|/θ}] = e^ε``, with certified root isolation in
    ``z = e^{1/(Lθ)}`` (module docstring).  θ = 0 when ``D = 0`` almost surely."""
    epsilon_of(budget)
    scale, poly = eq13_polynomial(dist)
    if set(poly) == {0}:
        return Theta(Fraction(0), Fraction(0))

    def above(z: Fraction) -> bool:
        return compare_ratio(evaluate_polynomial(poly, z), budget).relation == "above"

    context = interval_context(BITS)
    low, high = Fraction(1), Fraction(2)
    while not above(high):
        low, high = high, high * 2
    while True:
        mid = (low + high) / 2
        if above(mid):
            high = mid
        else:
            low = mid
        if low > 1:
            lo_theta = endpoints(1 / (scale * log_interval(context, high)))[0]
            hi_theta = endpoints(1 / (scale * log_interval(context, low)))[1]
            if hi_theta - lo_theta <= tolerance * lo_theta:
                return Theta(lo_theta, hi_theta, None,
                             RootSpec(scale, poly, {0: Fraction(1)}, low, high))


def eq15_theta(p: Fraction, budget: Budget) -> Theta:
    """Equation (15) for ``D ~ Bernoulli(p)``: ``θ = 1/log((e^ε − (1 − p))/p)`` (0 when p = 0)."""
    eps = epsilon_of(budget)
    if p == 0:
        return Theta(Fraction(0), Fraction(0))
    if p == 1:
        return Theta.multiple(Fraction(1), eps)          # 1/log(e^ε) = 1/ε exactly
    context = interval_context(BITS)
    z = (exp_interval(context, eps) - (1 - rational_interval(context, p))) \
        / rational_interval(context, p)
    root = RootSpec(1, {0: 1 - p, 1: p}, {0: Fraction(1)}, *_widen(z))
    return _theta_from_interval(1 / context.log(z), root)


def _widen(z) -> tuple[Fraction, Fraction]:
    low, high = endpoints(z)
    return low * (1 - Fraction(1, 2 ** 100)), high * (1 + Fraction(1, 2 ** 100))


def lemma2_psi_min(p: Fraction, q: Fraction, others: Distribution) -> Fraction | None:
    """``min_x ψ_i(x)`` of Lemma 2 over the points with ``Pr(S_{-i} = x − 1) > 0``
    (``None`` when ``p = q``: the two secrets give the same distribution)."""
    if p == q:
        return None
    best: Fraction | None = None
    for s, before in others.items():
        r = others.prob(s + 1) / before
        psi = ((1 - q) * r + p) / (q - p) if p < q else ((1 - p) * r + q) / (p - q)
        best = psi if best is None or psi < best else best
    return best


def lemma2_theta(psi: Fraction, budget: Budget) -> Theta:
    """``θ = 1/log(e^ε + (e^ε − 1) ψ)`` (equation (21) at the least ψ)."""
    eps = epsilon_of(budget)
    if psi == 0:
        return Theta.multiple(Fraction(1), eps)          # 1/log(e^ε) = 1/ε exactly
    context = interval_context(BITS)
    e = exp_interval(context, eps)
    z = e + (e - 1) * rational_interval(context, psi)
    root = RootSpec(1, {0: psi, 1: Fraction(1)}, {0: 1 + psi}, *_widen(z))
    return _theta_from_interval(1 / context.log(z), root)
