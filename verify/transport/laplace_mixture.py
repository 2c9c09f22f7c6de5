"""Exact privacy of Laplace-noise mechanisms on finitely many query values.

A mechanism that releases ``F(X) + Z`` with ``Z ~ Lap(σ)`` (density ``e^{-|z|/σ} / 2σ``) and ``F``
taking finitely many rational values has, given a secret ``s`` and a prior θ, the output density::

    f(w) = Σ_v P(v) · e^{-|w - v|/σ} / 2σ,          P(v) = Pr[F(X) = v | s, θ],

a finite mixture of Laplace densities.  Its Pufferfish level (Wang et al., Privacy-Preserving
Analysis of Correlated Data, §2, Definition 2.1; Bai et al., Composition for Pufferfish Privacy,
§2.2, Definition 5) is the log of the supremum over *all real* outputs ``w`` of ``f_1(w) / f_2(w)``
for the two conditional distributions of each secret pair.  This module computes that supremum
exactly in the following sense: it finds the finitely many candidate outputs where it is attained,
and encloses the value in a certified interval (mpmath ``iv``); whether it is ``<=``, ``=`` or ``>``
a budget is then *decided*, not estimated.

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

The hockey-stick divergence of two Laplace mixtures is in
:mod:`pufferfish.verify.transport.laplace_hockey`; the Pufferfish level of a query with Laplace noise
under a model in :mod:`pufferfish.verify.transport.laplace_level`.

Complexity: ``n`` = size of the union of the supports.  The supremum costs ``O(n)`` interval
exponentials and operations (prefix sums); deciding a budget costs ``O(n^2)`` exact rational
operations per ambiguous candidate.

Example: two point masses at 0 and Δ = 1 with σ = 1/2 give ``sup = e^{Δ/σ} = e^2``:

>>> from fractions import Fraction as Q
>>> b = laplace_mixture_sup_ratio({Q(0): Q(1)}, {Q(1): Q(1)}, Q(1, 2))
>>> round(b.epsilon_lower, 6), round(b.epsilon_upper, 6)
(2.0, 2.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, Ratio, exact, fraction_str
from pufferfish.verify.numerics.certified import Budget, compare_ratio
from pufferfish.verify.numerics.intervals import (endpoints, exp_interval, float_down, float_up,
                                                  interval_context, log_enclosure, rational_interval)
from pufferfish.verify.report import Explained
from pufferfish.verify.transport.couplings import atoms

MAX_BITS = 1 << 13
"""Precision limit (bits) for refining a comparison before answering ``undecided``."""

Measure = Mapping[Fraction, Fraction]
"""A finite measure on the line: point → mass (a conditional distribution of the query)."""


# ------------------------------------------------------------------------------------------------
# interval helpers
# ------------------------------------------------------------------------------------------------

def log_bounds(lower: Ratio, upper: Ratio, bits: int) -> tuple[float, float]:
    """Outward-rounded float bounds on ``log`` of a positive interval ``[lower, upper]``."""
    return log_enclosure(lower, bits)[0], log_enclosure(upper, bits)[1]


def exp_of_budget(context, budget: Budget):
    """An interval of ``context`` enclosing ``e^ε`` for a finite budget."""
    if budget.ratio is not None:
        return rational_interval(context, budget.ratio)
    return exp_interval(context, budget.epsilon)


# ------------------------------------------------------------------------------------------------
# input validation
# ------------------------------------------------------------------------------------------------

def check_scale(raw: object) -> Fraction:
    """The Laplace scale σ >= 0 as an exact rational."""
    sigma = exact(raw, "scale")
    if sigma < 0:
        raise ModelError(f"the Laplace scale must be >= 0, got {fraction_str(sigma)}", "scale")
    return sigma


# ------------------------------------------------------------------------------------------------
# densities at the support points
# ------------------------------------------------------------------------------------------------

def _densities(context, measure: tuple[tuple[Fraction, Fraction], ...], points: list[Fraction],
               sigma: Fraction) -> list:
    """Intervals enclosing ``2σ f(w)`` at every point ``w`` (O(n) by prefix sums).

    ``2σ f(w_k) = e^{-w_k/σ} Σ_{v<=w_k} P(v) e^{v/σ} + e^{w_k/σ} Σ_{v>w_k} P(v) e^{-v/σ}``.
    Exponents are shifted by the first point so the sums stay moderate.
    """
    origin = points[0]
    weights = dict(measure)

    def weight(w):
        return rational_interval(context, weights.get(w, Fraction(0)))

    ups = [weight(w) * exp_interval(context, (w - origin) / sigma) for w in points]
    downs = [weight(w) * exp_interval(context, (origin - w) / sigma) for w in points]
    below, above = [], []
    total = context.mpf(0)
    for term in ups:
        total = total + term
        below.append(total)
    total = context.mpf(0)
    for term in reversed(downs):
        above.append(total)
        total = total + term
    above.reverse()
    return [exp_interval(context, (origin - w) / sigma) * below[k]
            + exp_interval(context, (w - origin) / sigma) * above[k]
            for k, w in enumerate(points)]


def _ratio_intervals(context, first, second, points, sigma):
    return [a / b for a, b in zip(_densities(context, first, points, sigma),
                                  _densities(context, second, points, sigma))]


# ------------------------------------------------------------------------------------------------
# the supremum of the likelihood ratio
# ------------------------------------------------------------------------------------------------

@dataclass(repr=False, frozen=True)
class LaplaceRatioBound(Explained):
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
            context = interval_context(bits)
            ratios = _ratio_intervals(context, self.first, self.second, points, self.scale)
            bound = exp_of_budget(context, budget)
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
                              "lower_float": float_down(Fraction(self.lower))
                              if self.lower != INFINITY else math.inf,
                              "upper_float": float_up(Fraction(self.upper))
                              if self.upper != INFINITY else math.inf},
                "epsilon": {"lower": self.epsilon_lower, "upper": self.epsilon_upper},
                "witness": _witness_text(self.witness), "scale": fraction_str(self.scale),
                "certified": True, "exact": self.exact}

    def explain(self) -> str:
        if self.scale == 0:
            return (f"no noise: sup of Pr[v|s1]/Pr[v|s2] = {fraction_str(self.upper)} at "
                    f"v = {_witness_text(self.witness)}")
        text = (f"sup_w f1(w)/f2(w) ∈ [{float_down(Fraction(self.lower)):.10g}, "
                f"{float_up(Fraction(self.upper)):.10g}], ε = log(sup) ∈ "
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
    p1, p2 = atoms(first, "first", normalized=False), atoms(second, "second", normalized=False)
    sigma = check_scale(scale)
    if bits < 16:
        raise ModelError(f"bits must be >= 16, got {bits}", "bits")
    if sigma == 0:
        return _discrete_ratio(p1, p2, bits)
    points = sorted({v for v, _ in p1} | {v for v, _ in p2})
    bounds = [endpoints(r) for r in _ratio_intervals(interval_context(bits), p1, p2, points, sigma)]
    best = max(range(len(points)), key=lambda k: (bounds[k][1], bounds[k][0]))
    lower = max(low for low, _ in bounds)
    upper = bounds[best][1]
    eps_low, eps_high = log_bounds(lower, upper, bits)
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
    eps_low, eps_high = log_bounds(best, best, bits)
    return LaplaceRatioBound(best, best, witness, eps_low, eps_high, Fraction(0), p1, p2, bits)


__all__ = ["LaplaceRatioBound", "laplace_mixture_sup_ratio", "MAX_BITS", "Measure"]
