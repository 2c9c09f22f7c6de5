"""The hockey-stick divergence of two Laplace mixtures, certified.

For a mechanism releasing ``F(X) + Z``, ``Z ~ Lap(σ)``, with finitely many rational query values
(:mod:`pufferfish.verify.transport.laplace_mixture` gives the densities ``f_1``, ``f_2``), the
smallest δ with ``P_1(S) <= e^ε P_2(S) + δ`` for every output set ``S`` is

    sup_S P_1(S) − e^ε P_2(S) = ∫ (f_1 − e^ε f_2)_+

(Wang et al., Privacy-Preserving Analysis of Correlated Data, Appendix A.4, Definition A.7).  On
each interval between support points ``f_1 − e^ε f_2 = (A e^{-x/σ} + B e^{x/σ}) / 2σ`` changes sign
at most once (at ``e^{2x/σ} = −A/B``), so the positive part integrates in closed form; the integral
is nondecreasing in ``A`` and ``B``, which turns interval enclosures of ``A, B`` into a certified
enclosure of the divergence (:func:`laplace_mixture_hockey_stick`).  Without noise (σ = 0) it is the
discrete divergence of :mod:`pufferfish.verify.numerics.divergence`, exact when ``e^ε`` is rational.

Complexity: ``O(n)`` interval operations for ``n`` = size of the union of the supports.

>>> from fractions import Fraction as Q
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> h = laplace_mixture_hockey_stick({Q(0): Q(1)}, {Q(1): Q(1)}, Q(0), parse_budget("1"))
>>> h.lower, h.upper           # no noise: the point masses never overlap, δ = 1
(Fraction(1, 1), Fraction(1, 1))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.errors import UnsupportedError
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.divergence import Divergence, hockey_stick_divergence
from pufferfish.verify.numerics.intervals import (endpoints, exp_interval, float_down, float_up,
                                                  interval_context, rational_interval)
from pufferfish.verify.transport.couplings import atoms
from pufferfish.verify.transport.laplace_mixture import MAX_BITS, check_scale, exp_of_budget
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class HockeyStickBound(Explained):
    """Certified ``[lower, upper]`` for ``sup_S P_1(S) - e^ε P_2(S)`` of two Laplace mixtures."""

    lower: Fraction
    upper: Fraction
    budget: Budget
    scale: Fraction
    first: tuple[tuple[Fraction, Fraction], ...] = field(repr=False)
    second: tuple[tuple[Fraction, Fraction], ...] = field(repr=False)
    bits: int = 80

    def compare(self, delta: Fraction, max_bits: int = MAX_BITS) -> str:
        """Decide the divergence against ``delta``: ``below``/``tight``/``above``/``undecided``."""
        delta = exact(delta, "delta")
        if self.scale == 0:
            return _discrete_divergence(self.first, self.second, self.budget,
                                        self.bits).relation_to(delta, self.budget)
        bits = self.bits
        while bits <= max_bits:
            low, high = _hockey_interval(self.first, self.second, self.scale, self.budget, bits)
            if high < delta:
                return "below"
            if low > delta:
                return "above"
            bits *= 2
        return "undecided"

    def to_dict(self) -> dict:
        return {"hockey_stick": {"lower": fraction_str(self.lower), "upper": fraction_str(self.upper),
                                 "lower_float": float_down(self.lower),
                                 "upper_float": float_up(self.upper)},
                "budget": self.budget.text, "scale": fraction_str(self.scale), "certified": True}

    def explain(self) -> str:
        return (f"sup_S P1(S) - e^ε P2(S) ∈ [{float_down(self.lower):.10g}, "
                f"{float_up(self.upper):.10g}] for ε = {self.budget.text}, scale "
                f"{fraction_str(self.scale)}")


def laplace_mixture_hockey_stick(first: Mapping[Fraction, Fraction], second: Mapping[Fraction, Fraction],
                                 scale: Fraction, budget: Budget, bits: int = 80) -> HockeyStickBound:
    """Certified enclosure of ``∫ (f_1 - e^ε f_2)_+`` (the smallest δ for which
    ``P_1(S) <= e^ε P_2(S) + δ`` holds for every output set ``S``; Wang et al., Privacy-Preserving
    Analysis of Correlated Data, Appendix A.4, Definition A.7)."""
    p1, p2 = atoms(first, "first", normalized=False), atoms(second, "second", normalized=False)
    sigma = check_scale(scale)
    if budget.infinite:
        raise UnsupportedError("the hockey-stick divergence needs a finite ε", "--epsilon")
    if sigma == 0:
        divergence = _discrete_divergence(p1, p2, budget, bits)
        low, high = divergence.lower, divergence.upper
    else:
        low, high = _hockey_interval(p1, p2, sigma, budget, bits)
    return HockeyStickBound(low, high, budget, sigma, p1, p2, bits)


def _discrete_divergence(p1, p2, budget: Budget, bits: int) -> Divergence:
    """The no-noise divergence ``Σ_v (P_1(v) − e^ε P_2(v))_+`` (one implementation for the toolkit)."""
    weights = dict(p2)
    return hockey_stick_divergence([(v, p, weights.get(v, Fraction(0))) for v, p in p1], budget, bits)


def _hockey_interval(p1, p2, sigma: Fraction, budget: Budget, bits: int) -> tuple[Fraction, Fraction]:
    """Enclosure of ``∫ (f_1 - c f_2)_+`` with ``c = e^ε``; see the module docstring.

    With ``u = e^{(x - v_1)/σ}`` and ``g = f_1 - c f_2``, on ``[v_k, v_{k+1}]``
    ``2σ g = A/u + B u`` with ``A = Σ_{v<=v_k} (P_1 - cP_2)(v) e^{(v - v_1)/σ}``,
    ``B = Σ_{v>v_k} (P_1 - cP_2)(v) e^{-(v - v_1)/σ}``, and
    ``∫ g_+ dx = ½ ∫ (A/u^2 + B)_+ du`` with antiderivative ``h(u) = ½(B u - A/u)``.
    """
    points = sorted({v for v, _ in p1} | {v for v, _ in p2})
    origin = points[0]
    w1, w2 = dict(p1), dict(p2)
    context = interval_context(bits)
    c = exp_of_budget(context, budget)
    diff = [rational_interval(context, w1.get(v, Fraction(0)))
            - c * rational_interval(context, w2.get(v, Fraction(0))) for v in points]
    u = [exp_interval(context, (v - origin) / sigma) for v in points]
    below, above = [], []
    total = context.mpf(0)
    for d, uk in zip(diff, u):
        total = total + d * uk
        below.append(total)
    total = context.mpf(0)
    for d, uk in zip(reversed(diff), reversed(u)):
        above.append(total)
        total = total + d / uk
    above.reverse()
    whole_right = total                      # Σ d(v) e^{-(v-origin)/σ}
    low = context.mpf(0)
    high = context.mpf(0)
    # left tail x <= v_1: 2σ g = e^{(x-origin)/σ} Σ d(v) e^{-(v-origin)/σ}; integral = ½ max(0, ·)
    low = low + _half_positive(context, whole_right.a)
    high = high + _half_positive(context, whole_right.b)
    # right tail x >= v_n: 2σ g = e^{-(x-origin)/σ} Σ d(v) e^{(v-origin)/σ}; integral = ½ max(0,·)/u_n
    last = below[-1]
    low = low + _half_positive(context, last.a) / u[-1]
    high = high + _half_positive(context, last.b) / u[-1]
    for k in range(len(points) - 1):
        A, B = below[k], above[k]
        low = low + _interval_integral(context, context.mpf(A.a), context.mpf(B.a), u[k], u[k + 1])
        high = high + _interval_integral(context, context.mpf(A.b), context.mpf(B.b), u[k], u[k + 1])
    return max(Fraction(0), endpoints(low)[0]), endpoints(high)[1]


def _half_positive(context, value) -> object:
    point = context.mpf(value)
    return point / 2 if point.a > 0 else context.mpf(0)


def _interval_integral(context, A, B, ua, ub):
    """Enclosure of ``½ ∫_{ua}^{ub} (A/u^2 + B)_+ du`` for point intervals A, B (ua, ub intervals)."""
    def h(x):
        return (B * x - A / x) / 2
    a_pos, b_pos = A.a >= 0, B.a >= 0
    a_nonpos, b_nonpos = A.b <= 0, B.b <= 0
    if a_pos and b_pos:
        return h(ub) - h(ua)
    if a_nonpos and b_nonpos:
        return context.mpf(0)
    root = context.sqrt(-A / B)                 # A, B of opposite signs: A/u^2 + B = 0 at u = root
    lo_arg = min(ub.a, max(ua.a, root.a))
    hi_arg = min(ub.b, max(ua.b, root.b))
    clamp = context.mpf([lo_arg, hi_arg])
    if A.a > 0:                                 # positive below the root: max of h on [ua, ub]
        value = h(clamp) - h(ua)
    else:                                       # positive above the root: h(ub) - min of h
        value = h(ub) - h(clamp)
    return context.mpf([max(value.a, 0), max(value.b, 0)])


__all__ = ["HockeyStickBound", "laplace_mixture_hockey_stick"]
