"""Certified bounds on ``a†(L)`` and ``a*(b)`` of the truncated Gaussian prior (Example 6.2).

Source: ``000_65109fe28ca61d17.txt`` §6.3, Example 6.2 and Theorem 9 (the reduction of the proof
in Appendix C), in the form of :mod:`pufferfish.verify.influence.gaussian`:
``a†(L) = sup_{μ ∈ [−M, M]} sup_{|r − r'| >= δ} h_μ(r) − h_μ(r')`` with
``h_μ(r) = log Pr[N(μ, σ²) ∈ [r, r+δ]] − log Pr[N(0, Σ_ii) ∈ [r, r+δ]]``, ``r, r' ∈ [−γ, γ−δ]``,
``σ² = Σ_ii − Σ_iL Σ_LL⁻¹ Σ_Li`` and ``M = γ ‖Σ_LL⁻¹ Σ_Li‖₁`` (the same reduced quantity as the
numerical module, which, like the paper, does not model the truncation of the unobserved
coordinates).  For fixed ``(r, r')`` the ratio ``g_r(μ)/g_{r'}(μ)`` is monotone in ``μ``
(monotone likelihood ratio of the Gaussian location family, disjoint regions), so ``μ = ±M``.

**Upper bound (over the whole parameter range, no sampling).**  Cut ``[−γ, γ−δ]`` into ``K``
cells of width ``w < δ``.  For ``r`` in a cell ``[a, b]``, ``[b, a+δ] ⊆ [r, r+δ] ⊆ [a, b+δ]``,
so both probabilities are enclosed by the masses of those two fixed intervals, giving an interval
``H_k ⊇ {h(r) : r ∈ [a, b]}``.  Two cells can hold an admissible pair only if their farthest
points are ``δ`` apart, so ``a†(L) <= max_{admissible k, k'} sup H_k − inf H_{k'}`` (prefix and
suffix minima make this ``O(K)``).  The upper bound tends to ``a†(L)`` as ``K`` grows.
**Lower bound.**  ``h`` enclosed at the cells' left ends: any admissible pair of points gives a
certified value of the objective, so their maximum is a lower bound.

Every number is an interval of a private mpmath context (:mod:`pufferfish.verify.numerics.
intervals`): ``Σ`` and its solve in interval arithmetic, the normal tails by the alternating
Taylor series of ``erf`` (``|x| <= 6``, remainder bounded by the first omitted term) or by two
consecutive approximants of Laplace's continued fraction for the Mills ratio, which lie on either
side of it (``x > 6``; the depth doubles until they agree to the precision).  The bounds are exact rationals (interval endpoints).

Cost: ``O(n³)`` interval operations for the solve plus ``O(K)`` tail evaluations (each ``O(bits)``
series terms or a few dozen continued-fraction steps) per ``μ``; :func:`certified_a_star` repeats this for
every ``L`` of size ``n − b``.

>>> from fractions import Fraction
>>> from pufferfish.verify.influence.gaussian import GaussianSetting
>>> setting = GaussianSetting(2, Fraction(2), gamma=Fraction(1), delta=Fraction(1, 4))
>>> bound = gaussian_leakage_bounds(setting, 0, (1,), tolerance=Fraction(1, 10))
>>> 0 < bound.lower <= bound.upper <= bound.lower + Fraction(1, 10)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from pufferfish.models.errors import ModelError
from pufferfish.verify.influence.gaussian import GaussianSetting
from pufferfish.verify.numerics.intervals import endpoints, interval_context, rational_interval
from pufferfish.verify.report import Explained

DEFAULT_BITS = 160
_SERIES_LIMIT = 6
_FRACTION_DEPTH = 60


@dataclass(repr=False, frozen=True)
class GaussianLeakageBound(Explained):
    """``lower <= a†(L) <= upper`` for region secrets on ``coordinate`` (certified, exact ends)."""

    coordinate: int
    low: tuple[int, ...]
    lower: Fraction
    upper: Fraction
    cells: int

    def to_dict(self) -> dict:
        return {"coordinate": self.coordinate, "low": list(self.low),
                "a_lower": str(self.lower), "a_upper": str(self.upper),
                "a_lower_float": float(self.lower), "a_upper_float": float(self.upper),
                "cells": self.cells, "certified": True}

    def explain(self) -> str:
        return (f"a†(L={[j + 1 for j in self.low]}) for x_{self.coordinate + 1} ∈ "
                f"[{float(self.lower):.10g}, {float(self.upper):.10g}] (certified, "
                f"{self.cells} cells)")


def _tail_point(ctx, t):
    """An interval holding ``Q(t) = Pr[N(0,1) > t]`` for a point interval ``t``."""
    if t.b < 0:
        return 1 - _tail_point(ctx, -t)
    small = ctx.mpf(2) ** (-ctx.prec - 8)
    if t.a <= _SERIES_LIMIT:
        z = t / ctx.sqrt(2)
        z2 = z * z
        term, total, n = z, ctx.mpf(0), 0
        # alternating series of erf; stop past the peak once a term is negligible
        while True:
            total += term / _integer(ctx, 2 * n + 1)
            n += 1
            term = -term * z2 / _integer(ctx, n)
            if n > z2.b + 1 and abs(term).b / (2 * n + 1) < small:
                break
        bound = abs(term).b / (2 * n + 1)
        erf = 2 / ctx.sqrt(ctx.pi) * (total + ctx.mpf([-bound, bound]))
        return (1 - erf) / 2

    def approximant(depth: int):
        f = t
        for k in range(depth, 0, -1):
            f = t + _integer(ctx, k) / f
        return 1 / f

    density = ctx.exp(-t * t / 2) / ctx.sqrt(2 * ctx.pi)
    depth = 8
    while True:
        first, second = approximant(depth), approximant(depth + 1)
        low, high = min(first.a, second.a), max(first.b, second.b)
        if high - low < small * high or depth >= 4 * _FRACTION_DEPTH:
            return density * ctx.mpf([low, high])
        depth *= 2


def _integer(ctx, k: int):
    """The interval of the integer ``k`` (cached per context: conversion dominates otherwise)."""
    cache = _INTEGERS.setdefault(id(ctx), {})
    value = cache.get(k)
    if value is None:
        value = cache[k] = ctx.mpf(k)
    return value


_INTEGERS: dict[int, dict[int, object]] = {}


def _tail(ctx, x):
    """An interval holding ``Q`` over the interval ``x`` (``Q`` is decreasing)."""
    top = _tail_point(ctx, ctx.mpf(x.a))
    bottom = _tail_point(ctx, ctx.mpf(x.b))
    return ctx.mpf([bottom.a, top.b])


class _Masses:
    """``Pr[N(μ, σ²) ∈ [p, q]]`` for rational ends, with the tails at each end computed once."""

    def __init__(self, ctx, mu, sigma) -> None:
        self.ctx, self.mu, self.sigma = ctx, mu, sigma
        self._tails: dict = {}

    def _end(self, point: Fraction, upper_tail: bool):
        key = (point, upper_tail)
        if key not in self._tails:
            x = (rational_interval(self.ctx, point) - self.mu) / self.sigma
            self._tails[key] = (x, _tail(self.ctx, x if upper_tail else -x))
        return self._tails[key]

    def mass(self, low: Fraction, high: Fraction):
        """An interval holding the mass of ``[low, high]`` (cancellation avoided)."""
        x_low, q_low = self._end(low, True)
        x_high, q_high = self._end(high, True)
        if x_low.a >= 0:
            value = q_low - q_high
        elif x_high.b <= 0:
            value = self._end(high, False)[1] - self._end(low, False)[1]
        else:
            value = 1 - q_high - self._end(low, False)[1]
        return self.ctx.mpf([max(value.a, 0), min(value.b, 1)])


def _log_ratio(ctx, numerator, denominator):
    if numerator.a <= 0 or denominator.a <= 0:
        raise ModelError("a region probability is not separated from 0 at this precision; "
                         "raise bits", "bits")
    return ctx.log(numerator) - ctx.log(denominator)


def _conditional(ctx, setting: GaussianSetting, coordinate: int, low: tuple[int, ...]):
    """Intervals for ``Σ_ii``, ``σ`` and ``M`` of the reduction."""
    ell = rational_interval(ctx, setting.ell)
    sig = [[ctx.exp(-ctx.mpf((j - k) ** 2) / ell) for k in range(setting.n)]
           for j in range(setting.n)]
    var_i = sig[coordinate][coordinate]
    if not low:
        return var_i, ctx.sqrt(var_i), ctx.mpf(0)
    s_ll = ctx.matrix([[sig[a][b] for b in low] for a in low])
    s_li = ctx.matrix([sig[a][coordinate] for a in low])
    w = ctx.lu_solve(s_ll, s_li)
    var = var_i - sum((s_li[k] * w[k] for k in range(len(low))), ctx.mpf(0))
    if var.a <= 0:
        raise ModelError("the conditional variance is not separated from 0 at this precision; "
                         "raise bits", "bits")
    gamma = rational_interval(ctx, setting.gamma)
    return var_i, ctx.sqrt(var), gamma * sum((abs(w[k]) for k in range(len(low))), ctx.mpf(0))


def gaussian_leakage_bounds(setting: GaussianSetting, coordinate: int, low: Iterable[int],
                            cells: int = 128, bits: int = DEFAULT_BITS,
                            tolerance: Fraction = Fraction(1, 100),
                            max_cells: int = 4096) -> GaussianLeakageBound:
    """Certified ``[lower, upper] ∋ a†(L)`` over the whole region range (module docstring).

    Starts from ``cells`` equal cells (at least enough for a width below ``δ``) and halves, round
    after round, every cell that could still hold the maximum's top or bottom (its enclosure
    reaches past the current lower bound), until ``upper − lower <= tolerance`` or ``max_cells``.
    """
    low = tuple(sorted(low))
    if not 0 <= coordinate < setting.n or any(not 0 <= j < setting.n for j in low):
        raise ModelError(f"coordinates are 0..{setting.n - 1}", "coordinate")
    if coordinate in low:
        raise ModelError("the coordinate is in L: a†(L) is infinite", "low")
    ctx = interval_context(bits)
    var_i, sigma, m = _conditional(ctx, setting, coordinate, low)
    if not low:
        return GaussianLeakageBound(coordinate, low, Fraction(0), Fraction(0), 0)
    gamma, delta = setting.gamma, setting.delta
    span = 2 * gamma - delta
    count = max(cells, int(span / delta) + 2)
    prior = _Masses(ctx, ctx.mpf(0), ctx.sqrt(var_i))
    sides = [_Side(ctx, prior, _Masses(ctx, mu, sigma), delta) for mu in (m, -m)]
    grid = [(-gamma + k * span / count, -gamma + (k + 1) * span / count) for k in range(count)]
    for side in sides:
        side.add(grid)
    while True:
        upper = max(side.upper() for side in sides)
        lower = max(side.lower() for side in sides)
        total = sum(len(side.cells) for side in sides)
        if upper - lower <= tolerance or total >= max_cells:
            return GaussianLeakageBound(coordinate, low, lower, upper, total)
        for side in sides:
            side.refine(lower)


class _Side:
    """One sign of ``μ``: the cells with their enclosures of ``h``, and the point values."""

    def __init__(self, ctx, prior: _Masses, posterior: _Masses, delta: Fraction) -> None:
        self.ctx, self.prior, self.posterior, self.delta = ctx, prior, posterior, delta
        self.cells: dict[tuple[Fraction, Fraction], tuple[Fraction, Fraction]] = {}
        self.points: dict[Fraction, tuple[Fraction, Fraction]] = {}

    def add(self, cells) -> None:
        ctx, prior, posterior, d = self.ctx, self.prior, self.posterior, self.delta
        for a, b in cells:
            top = endpoints(_log_ratio(ctx, posterior.mass(a, b + d), prior.mass(b, a + d)))[1]
            bottom = endpoints(_log_ratio(ctx, posterior.mass(b, a + d), prior.mass(a, b + d)))[0]
            self.cells[(a, b)] = (bottom, top)
            if a not in self.points:
                self.points[a] = endpoints(_log_ratio(ctx, posterior.mass(a, a + d),
                                                      prior.mass(a, a + d)))

    def _pairs(self, items):
        """``[(cell, top, partner)]``: for each cell ``[a, b]`` the least bottom among the cells
        it can pair with (some points ``δ`` apart: ``b' >= a + δ`` or ``a' <= b − δ``), by sorted
        order, bisection and prefix/suffix minima (``O(K log K)``)."""
        order = sorted(items)
        lows, highs = [c[0] for c, _ in order], [c[1] for c, _ in order]
        prefix, suffix = [], [None] * len(order)
        for _, (bottom, _top) in order:
            prefix.append(bottom if not prefix else min(prefix[-1], bottom))
        for k in range(len(order) - 1, -1, -1):
            bottom = order[k][1][0]
            suffix[k] = bottom if k == len(order) - 1 else min(suffix[k + 1], bottom)
        out = []
        for (a, b), (_bottom, top) in order:
            options = []
            right = bisect_left(highs, a + self.delta)
            if right < len(order):
                options.append(suffix[right])
            left = bisect_right(lows, b - self.delta)
            if left > 0:
                options.append(prefix[left - 1])
            out.append(((a, b), top, min(options) if options else None))
        return out

    def upper(self) -> Fraction:
        """``max(0, max over admissible cell pairs of sup H_k − inf H_k')``."""
        return max([Fraction(0)] + [top - partner for _, top, partner in
                                    self._pairs(self.cells.items()) if partner is not None])

    def lower(self) -> Fraction:
        """The best certified objective value at two points ``δ`` apart (or 0)."""
        points = [((p, p), (value[1], value[0])) for p, value in self.points.items()]
        return max([Fraction(0)] + [top - partner for _, top, partner in self._pairs(points)
                                    if partner is not None])

    def refine(self, lower: Fraction) -> None:
        """Halve every cell that may still hold the top or the bottom of a pair above ``lower``."""
        pairs = self._pairs(self.cells.items())
        best_top = max(top for _, top, _ in pairs)
        split = [cell for cell, top, partner in pairs
                 if (partner is not None and top - partner > lower)
                 or best_top - self.cells[cell][0] > lower]
        for cell in split:
            del self.cells[cell]
        self.add([half for a, b in split for half in ((a, (a + b) / 2), ((a + b) / 2, b))])


@dataclass(repr=False, frozen=True)
class GaussianAStar(Explained):
    """Certified ``lower <= a*_i(b) = min_{|L| = n−b, i ∉ L} a†(L) <= upper``."""

    coordinate: int
    b: int
    lower: Fraction
    upper: Fraction
    best_low: tuple[int, ...]

    def to_dict(self) -> dict:
        return {"coordinate": self.coordinate, "b": self.b, "a_lower": str(self.lower),
                "a_upper": str(self.upper), "best_low": list(self.best_low), "certified": True}

    def explain(self) -> str:
        return (f"a*_{self.coordinate + 1}({self.b}) ∈ [{float(self.lower):.10g}, "
                f"{float(self.upper):.10g}] (certified; best L = "
                f"{[j + 1 for j in self.best_low]})")


def certified_a_star(setting: GaussianSetting, coordinate: int, b: int, cells: int = 128,
                     bits: int = DEFAULT_BITS, tolerance: Fraction = Fraction(1, 100)
                     ) -> GaussianAStar:
    """``a*_i(b)`` bounded over every ``L`` of size ``n − b`` avoiding ``i`` (``1 <= b <= n``):
    the least lower bound and the least upper bound over the sets."""
    if not 1 <= b <= setting.n:
        raise ModelError("a*(b) needs 1 <= b <= n", "b")
    others = [j for j in range(setting.n) if j != coordinate]
    bounds = [gaussian_leakage_bounds(setting, coordinate, low, cells, bits, tolerance)
              for low in combinations(others, setting.n - b)]
    best = min(bounds, key=lambda x: x.upper)
    return GaussianAStar(coordinate, b, min(x.lower for x in bounds), best.upper, best.low)


__all__ = ["GaussianAStar", "GaussianLeakageBound", "certified_a_star", "gaussian_leakage_bounds"]
