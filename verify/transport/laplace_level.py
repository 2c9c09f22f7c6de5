"""Exact privacy of Laplace-noise mechanisms on finitely many query values.

A mechanism that releases ``F(X) + Z`` with ``Z ~ Lap(σ)`` (density ``e^{-|z|/σ} / 2σ``) and ``F``
taking finitely many rational values has, given a secret ``s`` and a prior θ, the output density

    f(w) = Σ_v P(v) · e^{-|w - v|/σ} / 2σ,          P(v) = Pr[F(X) = v | s, θ],

a finite mixture of Laplace densities.  Its Pufferfish level (``002_e1f2e9a9937b8cda.txt`` §2,
Definition 2.1; ``000_65109fe28ca61d17.txt`` §2.2, Definition 5) is the log of the supremum over
*all real* outputs ``w`` of ``f_1(w) / f_2(w)`` for the two conditional distributions of each secret
pair.  This module computes that supremum exactly in the following sense: it finds the finitely
many candidate outputs where it is attained, and encloses the value in a certified interval
(mpmath ``iv``); whether it is ``<=``, ``=`` or ``>`` a budget is then *decided*, not estimated.

Theorem (where the supremum is attained).  Let ``v_1 < ... < v_n`` be the union of the supports of
``P_1`` and ``P_2``.  Then ``sup_w f_1(w)/f_2(w) = max_k f_1(v_k)/f_2(v_k)``.

Proof.  (i) On ``[v_k, v_{k+1}]`` every support point is either ``<= w`` or ``>= w``, so
``|w - v| = w - v`` for ``v <= v_k`` and ``v - w`` for ``v >= v_{k+1}``.  Hence
``2σ f_i(w) = e^{-w/σ} (a_i + b_i u)`` with ``u = e^{2w/σ}``, ``a_i = Σ_{v<=v_k} P_i(v) e^{v/σ}`` and
``b_i = Σ_{v>=v_{k+1}} P_i(v) e^{-v/σ}`` (both ``>= 0``, and ``a_2 + b_2 u > 0`` because
``f_2 > 0``).  The ratio ``(a_1 + b_1 u) / (a_2 + b_2 u)`` is a Möbius function of ``u``; its
derivative ``(b_1 a_2 - a_1 b_2) / (a_2 + b_2 u)^2`` has constant sign, and ``u`` increases with
``w``, so the ratio is monotone on the closed interval and its supremum there is attained at
``v_k`` or ``v_{k+1}``.  (ii) On the tail ``w <= v_1`` every ``|w - v| = v - w``, so
``f_i(w) = e^{w/σ} Σ_v P_i(v) e^{-v/σ} / 2σ`` and the ratio is the *constant*
``Σ P_1(v) e^{-v/σ} / Σ P_2(v) e^{-v/σ}`` — the tail limit ``w -> -∞`` — equal to its value at
``v_1``; symmetrically the ratio is ``Σ P_1(v) e^{v/σ} / Σ P_2(v) e^{v/σ}`` on ``w >= v_n``
(the limit ``w -> +∞``), equal to its value at ``v_n``.  So every candidate — interval endpoint or
tail limit — is a value at a support point.  ∎

Consequently the witness is always a support point (a tail limit is reported through the extreme
support point where the ratio is already constant; ``explain()`` says so).  ``witness`` is typed
``Fraction | str`` so that callers may also meet ``"+inf"``/``"-inf"``, but this module never needs
them.

Exact decisions.  At a candidate ``w`` the comparison ``f_1(w) <= e^ε f_2(w)`` (ε rational, or
``e^ε = r`` rational) is the sign of ``Σ_k c_k e^{t_k}`` with rational ``c_k, t_k``.  By the
Lindemann–Weierstrass theorem the numbers ``e^{t}`` for distinct rationals ``t`` are linearly
independent over the rationals, so after collecting equal exponents the sum is zero *iff* every
collected coefficient is zero (reported as ``tight``); otherwise interval arithmetic at
increasing precision separates it from 0 after finitely many steps (``undecided`` is returned
only if a precision limit is reached).

Scale 0 (no noise) is accepted as the degenerate case: the release is ``F(X)`` itself and the
supremum is the exact discrete ratio ``max_v P_1(v)/P_2(v)`` (``inf`` if ``P_2(v) = 0 < P_1(v)``).

The hockey-stick divergence ``sup_S P_1(S) - e^ε P_2(S) = ∫ (f_1 - e^ε f_2)_+`` used for
(ε, δ)-Pufferfish privacy (``002_e1f2e9a9937b8cda.txt`` Appendix A.4, Definition A.7) is enclosed
by :func:`laplace_mixture_hockey_stick`: on each interval ``f_1 - e^ε f_2 = (A e^{-x/σ} + B e^{x/σ})
/ 2σ`` changes sign at most once (at ``e^{2x/σ} = -A/B``), so the positive part integrates in
closed form; the integral is nondecreasing in ``A`` and ``B``, which turns interval enclosures of
``A, B`` into a certified enclosure of the divergence.

Complexity: ``n`` = size of the union of the supports.  The supremum costs ``O(n)`` interval
exponentials and operations (prefix sums); deciding a budget costs ``O(n^2)`` exact rational
operations per ambiguous candidate; the hockey-stick divergence costs ``O(n)``.

Example: two point masses at 0 and Δ = 1 with σ = 1/2 give ``sup = e^{Δ/σ} = e^2``:

>>> from fractions import Fraction as Q
>>> b = laplace_mixture_sup_ratio({Q(0): Q(1)}, {Q(1): Q(1)}, Q(1, 2))
>>> round(b.epsilon_lower, 6), round(b.epsilon_upper, 6)
(2.0, 2.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from mpmath import iv
from mpmath.libmp import to_rational

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, exact, fraction_str, ratio_key
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.numerics.certified import Budget, compare_ratio, interval_precision, rational_interval
from pufferfish.verify.privacy.supports import prior_supports

MAX_BITS = 1 << 13
"""Precision limit (bits) for refining a comparison before answering ``undecided``."""

Measure = Mapping[Fraction, Fraction]


# ------------------------------------------------------------------------------------------------
# interval helpers
# ------------------------------------------------------------------------------------------------


def _lower(interval) -> Fraction:
    """The lower end of an interval as an exact Fraction (already rounded outward)."""
    p, q = to_rational(interval._mpi_[0])
    return Fraction(p, q)


def _upper(interval) -> Fraction:
    p, q = to_rational(interval._mpi_[1])
    return Fraction(p, q)


def _float_down(value: Fraction) -> float:
    result = float(value)
    if Fraction(result) > value:
        result = math.nextafter(result, -math.inf)
    return result


def _float_up(value: Fraction) -> float:
    result = float(value)
    if Fraction(result) < value:
        result = math.nextafter(result, math.inf)
    return result


def _log_bounds(lower: Ratio, upper: Ratio, bits: int) -> tuple[float, float]:
    """Outward-rounded float bounds on ``log`` of a positive interval ``[lower, upper]``."""
    def log_interval(x: Ratio):
        return iv.log(rational_interval(Fraction(x)))
    with interval_precision(bits + 10):
        low = -math.inf if lower == 0 else (math.inf if lower == INFINITY
                                            else _float_down(_lower(log_interval(lower))))
        high = -math.inf if upper == 0 else (math.inf if upper == INFINITY
                                             else _float_up(_upper(log_interval(upper))))
    return low, high


def _exp_of_budget(budget: Budget):
    """An interval enclosing ``e^ε`` for a finite budget."""
    if budget.ratio is not None:
        return rational_interval(budget.ratio)
    return iv.exp(rational_interval(budget.epsilon))


# ------------------------------------------------------------------------------------------------
# input validation
# ------------------------------------------------------------------------------------------------

def _measure(raw: Mapping, name: str) -> tuple[tuple[Fraction, Fraction], ...]:
    """Sorted ``((v, P(v)), ...)`` with P(v) > 0; values and weights exact; total mass > 0."""
    if not isinstance(raw, Mapping):
        raise ModelError("expected a mapping from query value to probability", name)
    merged: dict[Fraction, Fraction] = {}
    for value, weight in raw.items():
        v = exact(value, f"{name}.{value}")
        p = exact(weight, f"{name}.{value}")
        if p < 0:
            raise ModelError(f"probability {fraction_str(p)} is negative", f"{name}.{value}")
        if p:
            merged[v] = merged.get(v, Fraction(0)) + p
    if not merged:
        raise ModelError("the distribution has no mass", name)
    return tuple(sorted(merged.items()))


def _scale(raw: object) -> Fraction:
    sigma = exact(raw, "scale")
    if sigma < 0:
        raise ModelError(f"the Laplace scale must be >= 0, got {fraction_str(sigma)}", "scale")
    return sigma


# ------------------------------------------------------------------------------------------------
# densities at the support points
# ------------------------------------------------------------------------------------------------

def _densities(measure: tuple[tuple[Fraction, Fraction], ...], points: list[Fraction],
               sigma: Fraction) -> list:
    """Intervals enclosing ``2σ f(w)`` at every point ``w`` (O(n) by prefix sums).

    ``2σ f(w_k) = e^{-w_k/σ} Σ_{v<=w_k} P(v) e^{v/σ} + e^{w_k/σ} Σ_{v>w_k} P(v) e^{-v/σ}``.
    Exponents are shifted by the first point so the sums stay moderate.
    """
    origin = points[0]
    weights = dict(measure)
    ups = [rational_interval(weights.get(w, Fraction(0))) * iv.exp(rational_interval((w - origin) / sigma)) for w in points]
    downs = [rational_interval(weights.get(w, Fraction(0))) * iv.exp(rational_interval((origin - w) / sigma)) for w in points]
    below, above = [], []
    total = iv.mpf(0)
    for term in ups:
        total = total + term
        below.append(total)
    total = iv.mpf(0)
    for term in reversed(downs):
        above.append(total)
        total = total + term
    above.reverse()
    return [iv.exp(rational_interval((origin - w) / sigma)) * below[k] + iv.exp(rational_interval((w - origin) / sigma)) * above[k]
            for k, w in enumerate(points)]


def _ratio_intervals(first, second, points, sigma):
    return [a / b for a, b in zip(_densities(first, points, sigma), _densities(second, points, sigma))]


# ------------------------------------------------------------------------------------------------
# the supremum of the likelihood ratio
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LaplaceRatioBound:
    """A certified enclosure of ``sup_w f_1(w)/f_2(w)`` for two Laplace mixtures.

    ``lower <= sup <= upper`` (Fractions obtained by outward rounding of interval endpoints;
    ``upper`` is :data:`~pufferfish.models.numbers.INFINITY` only in the no-noise case ``scale = 0``);
    ``witness`` is the output where the supremum is attained; ``epsilon_lower``/``epsilon_upper``
    bound ``log(sup)`` (floats rounded outward, for reading).
    """

    lower: Ratio
    upper: Ratio
    witness: Fraction | str | None
    epsilon_lower: float
    epsilon_upper: float
    scale: Fraction
    first: tuple[tuple[Fraction, Fraction], ...] = field(repr=False)
    second: tuple[tuple[Fraction, Fraction], ...] = field(repr=False)
    bits: int = 80

    @property
    def exact(self) -> bool:
        """True when the supremum is known exactly (``lower == upper``; the no-noise case)."""
        return self.lower == self.upper

    def compare(self, budget: Budget, max_bits: int = MAX_BITS) -> str:
        """Decide ``log(sup)`` against ``budget``: ``below``, ``tight``, ``above`` or ``undecided``.

        ``tight`` (exact equality ``sup = e^ε``) is proved by collecting exponents (see the module
        docstring); ``undecided`` only when ``max_bits`` of precision do not separate the values.
        """
        if self.scale == 0:
            return compare_ratio(self.upper, budget).relation
        if budget.infinite:
            return "below"
        points = sorted({v for v, _ in self.first} | {v for v, _ in self.second})
        pending = list(range(len(points)))
        statuses: dict[int, str] = {}
        tested: set[int] = set()
        bits = max(self.bits, 64)
        while pending and bits <= max_bits:
            with interval_precision(bits):
                ratios = _ratio_intervals(self.first, self.second, points, self.scale)
                bound = _exp_of_budget(budget)
                still = []
                for k in pending:
                    if ratios[k].b < bound.a:
                        statuses[k] = "below"
                    elif ratios[k].a > bound.b:
                        return "above"
                    elif k not in tested:
                        tested.add(k)
                        if _is_tight(self.first, self.second, points[k], self.scale, budget):
                            statuses[k] = "tight"
                        else:
                            still.append(k)
                    else:
                        still.append(k)
                pending = still
            bits *= 2
        if pending:
            return "undecided"
        return "tight" if "tight" in statuses.values() else "below"

    def to_dict(self) -> dict:
        return {"sup_ratio": {"lower": fraction_str(self.lower), "upper": fraction_str(self.upper),
                              "lower_float": _float_down(Fraction(self.lower))
                              if self.lower != INFINITY else math.inf,
                              "upper_float": _float_up(Fraction(self.upper))
                              if self.upper != INFINITY else math.inf},
                "epsilon": {"lower": self.epsilon_lower, "upper": self.epsilon_upper},
                "witness": _witness_text(self.witness), "scale": fraction_str(self.scale),
                "certified": True, "exact": self.exact}

    def explain(self) -> str:
        if self.scale == 0:
            return (f"no noise: sup of Pr[v|s1]/Pr[v|s2] = {fraction_str(self.upper)} at "
                    f"v = {_witness_text(self.witness)}")
        text = (f"sup_w f1(w)/f2(w) ∈ [{_float_down(Fraction(self.lower)):.10g}, "
                f"{_float_up(Fraction(self.upper)):.10g}], ε = log(sup) ∈ "
                f"[{self.epsilon_lower:.10g}, {self.epsilon_upper:.10g}], attained at "
                f"w = {_witness_text(self.witness)}")
        if self.witness is not None and self.first:
            points = sorted({v for v, _ in self.first} | {v for v, _ in self.second})
            if self.witness == points[0]:
                text += f" (the ratio is constant on the whole tail w <= {points[0]})"
            elif self.witness == points[-1]:
                text += f" (the ratio is constant on the whole tail w >= {points[-1]})"
        return text


def _witness_text(witness: object) -> str | None:
    if witness is None or isinstance(witness, str):
        return witness
    return fraction_str(witness)


def _is_tight(first, second, w: Fraction, sigma: Fraction, budget: Budget) -> bool:
    """Exactly: is ``f_1(w) = e^ε f_2(w)``?  (Collected exponential polynomial is identically 0.)"""
    coefficients: dict[Fraction, Fraction] = {}
    for v, p in first:
        t = -abs(w - v) / sigma
        coefficients[t] = coefficients.get(t, Fraction(0)) + p
    for v, p in second:
        if budget.ratio is not None:
            t = -abs(w - v) / sigma
            coefficients[t] = coefficients.get(t, Fraction(0)) - budget.ratio * p
        else:
            t = budget.epsilon - abs(w - v) / sigma
            coefficients[t] = coefficients.get(t, Fraction(0)) - p
    return not any(coefficients.values())


def laplace_mixture_sup_ratio(first: Mapping[Fraction, Fraction], second: Mapping[Fraction, Fraction],
                              scale: Fraction, bits: int = 80) -> LaplaceRatioBound:
    """Certified ``sup_w f_1(w)/f_2(w)`` for ``f_i = Σ_v P_i(v) Lap(v, scale)`` (see module docstring).

    ``first``/``second`` map query values to probabilities (exact numbers; a positive total mass,
    not necessarily 1 — the ratio is of the densities as given).  ``scale = 0`` means no noise.
    """
    p1, p2 = _measure(first, "first"), _measure(second, "second")
    sigma = _scale(scale)
    if bits < 16:
        raise ModelError(f"bits must be >= 16, got {bits}", "bits")
    if sigma == 0:
        return _discrete_ratio(p1, p2, bits)
    points = sorted({v for v, _ in p1} | {v for v, _ in p2})
    with interval_precision(bits):
        ratios = _ratio_intervals(p1, p2, points, sigma)
        best = max(range(len(points)), key=lambda k: (_upper(ratios[k]), _lower(ratios[k])))
        lower = max(_lower(r) for r in ratios)
        upper = _upper(ratios[best])
    eps_low, eps_high = _log_bounds(lower, upper, bits)
    return LaplaceRatioBound(lower, upper, points[best], eps_low, eps_high, sigma, p1, p2, bits)


def _discrete_ratio(p1, p2, bits: int) -> LaplaceRatioBound:
    weights = dict(p2)
    best: Ratio = Fraction(0)
    witness = None
    for v, p in p1:
        q = weights.get(v, Fraction(0))
        value: Ratio = INFINITY if q == 0 else p / q
        if witness is None or (value == INFINITY and best != INFINITY) or \
                (best != INFINITY and value != INFINITY and value > best):
            best, witness = value, v
    eps_low, eps_high = _log_bounds(best, best, bits)
    return LaplaceRatioBound(best, best, witness, eps_low, eps_high, Fraction(0), p1, p2, bits)


# ------------------------------------------------------------------------------------------------
# hockey-stick divergence (for (ε, δ) guarantees)
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HockeyStickBound:
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
            return _discrete_hockey_relation(self.first, self.second, self.budget, delta)
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
                                 "lower_float": _float_down(self.lower),
                                 "upper_float": _float_up(self.upper)},
                "budget": self.budget.text, "scale": fraction_str(self.scale), "certified": True}

    def explain(self) -> str:
        return (f"sup_S P1(S) - e^ε P2(S) ∈ [{_float_down(self.lower):.10g}, "
                f"{_float_up(self.upper):.10g}] for ε = {self.budget.text}, scale "
                f"{fraction_str(self.scale)}")


def laplace_mixture_hockey_stick(first: Mapping[Fraction, Fraction], second: Mapping[Fraction, Fraction],
                                 scale: Fraction, budget: Budget, bits: int = 80) -> HockeyStickBound:
    """Certified enclosure of ``∫ (f_1 - e^ε f_2)_+`` (the smallest δ for which
    ``P_1(S) <= e^ε P_2(S) + δ`` holds for every output set ``S``; ``002_e1f2e9a9937b8cda.txt``
    Appendix A.4, Definition A.7)."""
    p1, p2 = _measure(first, "first"), _measure(second, "second")
    sigma = _scale(scale)
    if budget.infinite:
        raise UnsupportedError("the hockey-stick divergence needs a finite ε", "--epsilon")
    if sigma == 0:
        low, high = _discrete_hockey_interval(p1, p2, budget, bits)
    else:
        low, high = _hockey_interval(p1, p2, sigma, budget, bits)
    return HockeyStickBound(low, high, budget, sigma, p1, p2, bits)


def _positive_part_sign(a: Fraction, b: Fraction, budget: Budget) -> int:
    """Exact sign of ``a - e^ε b`` for rationals ``a, b >= 0``."""
    if b == 0:
        return (a > 0) - (a < 0)
    if a == 0:
        return -1
    relation = compare_ratio(a / b, budget).relation
    return {"below": -1, "tight": 0, "above": 1}[relation]


def _discrete_hockey_interval(p1, p2, budget: Budget, bits: int) -> tuple[Fraction, Fraction]:
    weights = dict(p2)
    a = b = Fraction(0)
    for v, p in p1:
        q = weights.get(v, Fraction(0))
        if _positive_part_sign(p, q, budget) > 0:
            a, b = a + p, b + q
    with interval_precision(bits):
        value = rational_interval(a) - _exp_of_budget(budget) * rational_interval(b)
        return _lower(value), _upper(value)


def _discrete_hockey_relation(p1, p2, budget: Budget, delta: Fraction) -> str:
    """``Σ_v (P_1(v) - e^ε P_2(v))_+`` vs ``delta``, exactly: the sum is ``a - e^ε b``."""
    weights = dict(p2)
    a = b = Fraction(0)
    for v, p in p1:
        q = weights.get(v, Fraction(0))
        if _positive_part_sign(p, q, budget) > 0:
            a, b = a + p, b + q
    if b == 0:
        sign = (a > delta) - (a < delta)
    elif a <= delta:
        sign = -1                                # a - δ <= 0 < e^ε b
    else:
        sign = _positive_part_sign(a - delta, b, budget)
    return {-1: "below", 0: "tight", 1: "above"}[sign]


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
    with interval_precision(bits):
        c = _exp_of_budget(budget)
        diff = [rational_interval(w1.get(v, Fraction(0))) - c * rational_interval(w2.get(v, Fraction(0))) for v in points]
        u = [iv.exp(rational_interval((v - origin) / sigma)) for v in points]
        below, above = [], []
        total = iv.mpf(0)
        for d, uk in zip(diff, u):
            total = total + d * uk
            below.append(total)
        total = iv.mpf(0)
        for d, uk in zip(reversed(diff), reversed(u)):
            above.append(total)
            total = total + d / uk
        above.reverse()
        whole_right = total                      # Σ d(v) e^{-(v-origin)/σ}
        low = iv.mpf(0)
        high = iv.mpf(0)
        # left tail x <= v_1: 2σ g = e^{(x-origin)/σ} Σ d(v) e^{-(v-origin)/σ}; integral = ½ max(0, ·)
        low = low + _half_positive(whole_right.a)
        high = high + _half_positive(whole_right.b)
        # right tail x >= v_n: 2σ g = e^{-(x-origin)/σ} Σ d(v) e^{(v-origin)/σ}; integral = ½ max(0,·)/u_n
        last = below[-1]
        low = low + _half_positive(last.a) / u[-1]
        high = high + _half_positive(last.b) / u[-1]
        for k in range(len(points) - 1):
            A, B = below[k], above[k]
            low = low + _interval_integral(iv.mpf(A.a), iv.mpf(B.a), u[k], u[k + 1])
            high = high + _interval_integral(iv.mpf(A.b), iv.mpf(B.b), u[k], u[k + 1])
        return max(Fraction(0), _lower(low)), _upper(high)


def _half_positive(value) -> object:
    point = iv.mpf(value)
    return point / 2 if point.a > 0 else iv.mpf(0)


def _interval_integral(A, B, ua, ub):
    """Enclosure of ``½ ∫_{ua}^{ub} (A/u^2 + B)_+ du`` for point intervals A, B (ua, ub intervals)."""
    def h(x):
        return (B * x - A / x) / 2
    a_pos, b_pos = A.a >= 0, B.a >= 0
    a_nonpos, b_nonpos = A.b <= 0, B.b <= 0
    if a_pos and b_pos:
        return h(ub) - h(ua)
    if a_nonpos and b_nonpos:
        return iv.mpf(0)
    root = iv.sqrt(-A / B)                      # A, B of opposite signs: A/u^2 + B = 0 at u = root
    lo_arg = min(ub.a, max(ua.a, root.a))
    hi_arg = min(ub.b, max(ua.b, root.b))
    clamp = iv.mpf([lo_arg, hi_arg])
    if A.a > 0:                                 # positive below the root: max of h on [ua, ub]
        value = h(clamp) - h(ua)
    else:                                       # positive above the root: h(ub) - min of h
        value = h(ub) - h(clamp)
    return iv.mpf([max(value.a, 0), max(value.b, 0)])


# ------------------------------------------------------------------------------------------------
# the Pufferfish level of query(D) + Lap(scale)
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LaplaceDirection:
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


@dataclass(frozen=True)
class LaplacePufferfishResult:
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
                                    max_datasets: int = DEFAULT_MAX_DATASETS
                                    ) -> Iterator[tuple[str, str, str, str, Distribution | None,
                                                        Distribution | None]]:
    """For each finite prior and each ordered pair: ``Pr[query(X) = · | s, θ]`` for both secrets.

    Yields ``(pair label, first, second, prior, P(F|first), P(F|second))`` with ``None`` for a
    secret of probability 0 under the prior (Definition 5 then imposes nothing).  Query values must
    be numbers (int or Fraction).  Interval families are refused (their supremum over the
    conditional polytope is not computed here).
    """
    if model.interval_families:
        raise UnsupportedError("Laplace-noise levels are computed for finite priors only; the model "
                               f"has interval families {sorted(model.interval_families)}", "priors")
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
    The level is ``log max(1, max sup)``; the witness is the worst (pair, prior, output).

    Cost: one pass over each prior's support per secret, then ``O(n)`` interval operations per
    direction (``n`` = number of query values).
    """
    sigma = _scale(scale)
    directions: list[LaplaceDirection] = []
    skipped: list[tuple[str, str, str]] = []
    for label, first, second, prior, d1, d2 in conditional_query_distributions(model, query,
                                                                                max_datasets):
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
    eps_low, eps_high = _log_bounds(lower, upper, bits)
    relation = _overall_relation(directions, budget, MAX_BITS) if budget is not None else None
    name = query_name or getattr(query, "kind", None) or getattr(query, "__name__", "query")
    return LaplacePufferfishResult(str(name), sigma, lower, upper, max(0.0, eps_low),
                                   max(0.0, eps_high), witness, tuple(directions), tuple(skipped),
                                   budget, relation)
