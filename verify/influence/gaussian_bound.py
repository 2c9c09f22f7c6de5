"""Certified bounds on ``a†(L)`` and ``a*(b)`` of the truncated Gaussian prior (Example 6.2).

Source: Bai et al., Composition for Pufferfish Privacy, §6.3, Example 6.2 and Theorem 9 (the
reduction of the proof in Appendix C), in the form of :mod:`pufferfish.verify.influence.gaussian`:
``a†(L) = sup_{μ ∈ [−M, M]} sup_{|r − r'| >= δ} h_μ(r) − h_μ(r')`` with
``h_μ(r) = log Pr[N(μ, σ²) ∈ [r, r+δ]] − log Pr[N(0, Σ_ii) ∈ [r, r+δ]]``, ``r, r' ∈ [−γ, γ−δ]``,
``σ² = Σ_ii − Σ_iL Σ_LL⁻¹ Σ_Li`` and ``M = γ ‖Σ_LL⁻¹ Σ_Li‖₁`` (the same reduced quantity as the
numerical module, which, like the paper, does not model the truncation of the unobserved
coordinates).  For fixed ``(r, r')`` the ratio ``g_r(μ)/g_{r'}(μ)`` is monotone in ``μ``
(monotone likelihood ratio of the Gaussian location family, disjoint regions), so ``μ = ±M``.
**One sign suffices:** ``Pr[N(−M, σ²) ∈ [r, r+δ]] = Pr[N(M, σ²) ∈ [ρ(r), ρ(r)+δ]]`` and the prior
mass is the same at ``r`` and ``ρ(r)`` for the reflection ``ρ(r) = −r − δ``, an isometry of
``[−γ, γ−δ]`` onto itself, so ``h_{−M} = h_M ∘ ρ`` and both signs give the same supremum.

**Exact ties.**  ``Σ_jk`` depends on ``(j − k)²`` only, so ``σ`` and ``M`` — hence ``a†(L)`` — are
unchanged when ``(i, L)`` is translated or reflected: ``a†`` is a function of the *offset class*
of ``L − i`` (:func:`offset_class`), which certifies equalities no interval can.

**Upper bound (over the whole parameter range, no sampling).**  Cut ``[−γ, γ−δ]`` into cells.
A window mass ``Pr[N(μ, σ²) ∈ [r, r+δ]]`` is unimodal in ``r`` (mode ``μ − δ/2``), so over a
cell ``[a, b]`` it lies between its values at ``a`` and ``b`` and the larger end value, or the
value at the mode when the cell may contain it; the posterior and prior windows so enclosed give
an interval ``H_k ⊇ {h(r) : r ∈ [a, b]}``, intersected with a Lipschitz tent around ``h(a)`` and
``h(b)`` (:class:`_Side`).  Two cells can hold an admissible pair only if their farthest points
are ``δ`` apart, so ``a†(L) <= max_{admissible k, k'} sup H_k − inf H_{k'}`` (prefix and suffix
minima make this ``O(K log K)``).  The upper bound tends to ``a†(L)`` as the cells shrink.
**Lower bound.**  ``h`` enclosed at the cells' ends: any admissible pair of points gives a
certified value of the objective, so their maximum is a lower bound.  Cells that cannot hold the
top or the bottom of a pair above the lower bound are never split again (adaptive refinement).
Cell ends lie on an integer lattice and the enclosures are kept as doubles rounded outward
(one ulp per operation), so the bookkeeping compares machine numbers; the bounds returned are
those doubles as exact rationals.

Every number is a rigorous enclosure of :mod:`pufferfish.verify.influence.normal_masses` (arb
balls by default, or the mpmath interval backend), rounded outward.

Cost: ``O(|L|³)`` ball operations for the solve plus ``O(K)`` tail evaluations (one arb ``erfc``
each) and ``O(K log K)`` comparisons per refinement round for ``K`` cells;
:func:`certified_a_star` repeats this for every ``L`` of size ``n − b``, once per offset class.

>>> from fractions import Fraction
>>> from pufferfish.verify.influence.gaussian import GaussianSetting
>>> setting = GaussianSetting(2, Fraction(2), gamma=Fraction(1), delta=Fraction(1, 4))
>>> bound = gaussian_leakage_bounds(setting, 0, (1,), tolerance=Fraction(1, 10))
>>> 0 < bound.lower <= bound.upper <= bound.lower + Fraction(1, 10)
True
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations

from pufferfish.models.errors import ModelError
from pufferfish.verify.influence.gaussian import GaussianSetting
from pufferfish.verify.influence.normal_masses import BACKENDS, DEFAULT_BITS
from pufferfish.verify.numerics.intervals import float_down, float_up
from pufferfish.verify.report import Explained

DEFAULT_CELLS = 32
_DEPTH = 40
"""Cells are halved at most ``_DEPTH`` times: their ends are integers on a lattice of step
``(2γ − δ)/(cells·2^_DEPTH)``, so sorting and pairing compare integers."""
MAX_CELLS = 4096


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


def offset_class(coordinate: int, low: Iterable[int]) -> tuple[int, ...]:
    """The offsets ``L − i`` up to reflection (the lexicographically least of the two sorted
    tuples): two pairs ``(i, L)`` with one class have the same ``a†(L)`` (module docstring).

    >>> offset_class(1, (3, 4)) == offset_class(4, (1, 2)) == offset_class(4, (6, 7)) == (-3, -2)
    True
    """
    offsets = tuple(sorted(j - coordinate for j in low))
    return min(offsets, tuple(sorted(-d for d in offsets)))


class LeakageEnclosure:
    """A refinable certified enclosure of ``a†(L)`` for one offset class (module docstring).

    :meth:`refine` splits the cells that may still hold the maximum until ``upper − lower`` is
    at most the requested width or the cell budget is spent; :meth:`bound` reads the current
    bounds.
    """

    def __init__(self, setting: GaussianSetting, coordinate: int, low: Iterable[int],
                 cells: int = DEFAULT_CELLS, bits: int = DEFAULT_BITS,
                 backend: str = "arb") -> None:
        low = tuple(sorted(low))
        if not 0 <= coordinate < setting.n or any(not 0 <= j < setting.n for j in low):
            raise ModelError(f"coordinates are 0..{setting.n - 1}", "coordinate")
        if coordinate in low:
            raise ModelError("the coordinate is in L: a†(L) is infinite", "low")
        if backend not in BACKENDS:
            raise ModelError(f"unknown backend {backend!r}; known: {sorted(BACKENDS)}", "backend")
        self.coordinate, self.low, self.key = coordinate, low, offset_class(coordinate, low)
        self.backend = BACKENDS[backend](bits)
        self.side: _Side | None = None
        self.lower = self.upper = Fraction(0)
        if not low:
            return
        gamma, delta = setting.gamma, setting.delta
        count, step = max(cells, 1), 1 << _DEPTH
        with self.backend.precision():
            sigma, m, explained = self.backend.conditional(setting.ell, gamma, coordinate, low)
            self.side = _Side(self.backend, self.backend.masses(0, 1),
                              self.backend.masses(m, sigma), delta, explained,
                              -gamma, (2 * gamma - delta) / (count * step))
            self.side.add([(k * step, (k + 1) * step) for k in range(count)])
        self._read()

    def _read(self) -> None:
        self.upper, self.lower = self.side.upper(), self.side.lower()

    @property
    def cells(self) -> int:
        return len(self.side.cells) if self.side is not None else 0

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    def refine(self, width: Fraction, max_cells: int = MAX_CELLS) -> bool:
        """Split cells round after round until ``upper − lower <= width`` (True), or the cells
        reach ``max_cells`` or none can be split any more (False)."""
        while self.upper - self.lower > width:
            if self.cells >= max_cells:
                return False
            with self.backend.precision():
                if not self.side.refine(self.lower):
                    return False
            self._read()
        return True

    def bound(self) -> GaussianLeakageBound:
        return GaussianLeakageBound(self.coordinate, self.low, self.lower, self.upper, self.cells)


def gaussian_leakage_bounds(setting: GaussianSetting, coordinate: int, low: Iterable[int],
                            cells: int = DEFAULT_CELLS, bits: int = DEFAULT_BITS,
                            tolerance: Fraction = Fraction(1, 100),
                            max_cells: int = MAX_CELLS, backend: str = "arb"
                            ) -> GaussianLeakageBound:
    """Certified ``[lower, upper] ∋ a†(L)`` over the whole region range (module docstring).

    Starts from ``cells`` equal cells (at least enough for a width below ``δ``) and halves, round
    after round, every cell that could still hold the maximum's top or bottom (its enclosure
    reaches past the current lower bound), until ``upper − lower <= tolerance`` or ``max_cells``.
    """
    enclosure = LeakageEnclosure(setting, coordinate, low, cells, bits, backend)
    enclosure.refine(tolerance, max_cells)
    return enclosure.bound()


class _Side:
    """The sign ``μ = +M``: the cells with their enclosures of ``h``, and the point values.

    **Cell enclosure.**  A window mass ``g(r) = Pr[N(μ, σ²) ∈ [r, r+δ]]`` is increasing for
    ``r < μ − δ/2`` and decreasing after (``g' ∝ φ(r+δ) − φ(r)`` in standardised units), so over a
    cell ``[a, b]`` its least value is ``min(g(a), g(b))`` and its largest is ``g`` at the end
    nearer the mode, or ``Pr[|N(0, σ²)| <= δ/2]`` when the mode may lie inside.  Both masses
    (posterior and prior) enclosed this way give ``H ⊇ h([a, b])`` for cells of any width, from
    the point values at the ends, which neighbouring cells share.

    **Lipschitz tent**, intersected with it: with ``q = log(φ_{μ,σ}/φ)`` (a quadratic
    ``c₂x² + c₁x + c₀``, ``c₂ = −(1−σ²)/2σ²``, ``c₁ = μ/σ²``) and the prior restricted to
    ``[r, r+δ]``, ``h'(r) = A(e^{q(r+δ)}/E e^q − 1) − B(e^{q(r)}/E e^q − 1)`` with ``A, B`` the
    prior density at the window's ends over its mass, so ``|h'| <= (A + B)(e^Δ − 1)``, ``Δ`` the
    oscillation of ``q`` over ``[a, b+δ]``; then ``h <= (h(a) + h(b) + |h'|·(b − a))/2`` on the
    cell (and symmetrically below).  The tent gives widths proportional to ``h`` itself when the
    correlation is weak (``σ`` near 1, ``μ`` near 0), where the first enclosure's width does not
    shrink with the signal.
    """

    _FLAT = 30

    def __init__(self, backend, prior, posterior, delta: Fraction, explained, origin: Fraction,
                 unit: Fraction) -> None:
        self.backend, self.prior, self.posterior, self.delta = backend, prior, posterior, delta
        self.origin, self.unit = origin, unit
        self.reach = math.ceil(delta / unit)
        """``δ`` in lattice steps, rounded up: ``k' − k >= reach`` iff the points are ``δ``
        apart."""
        self.cells: dict[tuple[int, int], tuple[float, float]] = {}
        self.points: dict[int, tuple[float, float]] = {}
        self._windows: dict[int, tuple] = {}
        variance = posterior.sigma * posterior.sigma
        self.c2 = float_up(abs(backend.bounds(explained / (2 * variance))[1]))
        self.c1 = float_up(max(abs(x) for x in backend.bounds(posterior.mu / variance)))
        mu_low, mu_high = backend.bounds(posterior.mu)
        self.modes = ((mu_low - delta / 2, mu_high - delta / 2), (-delta / 2, -delta / 2))
        half = backend.number(delta / 2)
        self.peaks = tuple(
            float_up(backend.bounds(backend.log(1 - 2 * backend.tail(half / sigma)))[1])
            for sigma in (posterior.sigma, backend.number(1)))

    def _at(self, k: int) -> Fraction:
        return self.origin + k * self.unit

    def _window(self, k: int) -> tuple:
        """At the lattice point ``k``: the bounds of ``log g(r)`` (posterior), of ``log m(r)``
        (prior) and of ``m(r)``."""
        found = self._windows.get(k)
        if found is None:
            backend, r = self.backend, self._at(k)
            end = r + self.delta
            post, prior = self.posterior.mass(r, end), self.prior.mass(r, end)
            self.points[k] = _outward(backend.bounds(backend.log_ratio(post, prior)))
            found = self._windows[k] = (_outward(backend.bounds(backend.log(post))),
                                        _outward(backend.bounds(backend.log(prior))),
                                        float_down(backend.bounds(prior)[0]))
        return found

    def _range(self, which: int, ka: int, kb: int) -> tuple[float, float]:
        """Bounds of the log window mass (0: posterior, 1: prior) over the cell ``[ka, kb]``."""
        left, right = self._window(ka)[which], self._window(kb)[which]
        mode_low, mode_high = self.modes[which]
        if self._at(kb) <= mode_low:
            high = right[1]
        elif self._at(ka) >= mode_high:
            high = left[1]
        else:
            high = self.peaks[which]
        return min(left[0], right[0]), high

    def _density_upper(self, low: Fraction, high: Fraction) -> float:
        """An upper bound of ``φ`` on ``[low, high]`` (at the point nearest 0)."""
        nearest = min(max(Fraction(0), low), high)
        return float_up(self.backend.bounds(self.backend.density(nearest))[1])

    def _slope(self, ka: int, kb: int) -> float | None:
        """An upper bound of ``|h'|`` on the cell (class docstring), None when ``q`` is too
        steep for it to help."""
        a, b = self._at(ka), self._at(kb)
        low, high = a, b + self.delta
        squares = (low * low, high * high)
        spread = float_up(max(squares) - (0 if low <= 0 <= high else min(squares)))
        oscillation = _up(_up(self.c2 * spread) + _up(self.c1 * float_up(high - low)))
        if oscillation > self._FLAT:
            return None
        backend = self.backend
        growth = _up(float_up(backend.bounds(backend.exp(backend.number(oscillation)))[1]) - 1)
        mass = min(self._window(ka)[2], self._window(kb)[2])
        if mass <= 0:
            return None
        ends = _up(self._density_upper(a + self.delta, b + self.delta)
                   + self._density_upper(a, b))
        return _up(_up(ends * growth) / mass)

    def add(self, cells) -> None:
        for a, b in cells:
            post, prior = self._range(0, a, b), self._range(1, a, b)
            top, bottom = _up(post[1] - prior[0]), _down(post[0] - prior[1])
            slope = self._slope(a, b)
            if slope is not None:
                left, right = self.points[a], self.points[b]
                rise = _up(slope * float_up((b - a) * self.unit))
                top = min(top, _up(_up(left[1] + right[1]) + rise) / 2)
                bottom = max(bottom, _down(_down(left[0] + right[0]) - rise) / 2)
            self.cells[(a, b)] = (bottom, top)

    def _pairs(self, items):
        """``[(cell, top, partner)]``: for each cell ``[a, b]`` the least bottom among the cells
        it can pair with (some points ``δ`` apart: ``b' >= a + δ`` or ``a' <= b − δ``), by sorted
        order, bisection and prefix/suffix minima (``O(K log K)``).  Cell ends are exact; the
        enclosures are doubles rounded outward."""
        order = sorted(items, key=lambda item: item[0])
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
            right = bisect_left(highs, a + self.reach)
            if right < len(order):
                options.append(suffix[right])
            left = bisect_right(lows, b - self.reach)
            if left > 0:
                options.append(prefix[left - 1])
            out.append(((a, b), top, min(options) if options else None))
        return out

    def upper(self) -> Fraction:
        """``max(0, max over admissible cell pairs of sup H_k − inf H_k')`` (each difference
        rounded up)."""
        return Fraction(max([0.0] + [math.nextafter(top - partner, math.inf)
                                     for _, top, partner in self._pairs(self.cells.items())
                                     if partner is not None]))

    def lower(self) -> Fraction:
        """The best certified objective value at two points ``δ`` apart (or 0; each difference
        rounded down)."""
        points = [((p, p), (value[1], value[0])) for p, value in self.points.items()]
        return Fraction(max([0.0] + [math.nextafter(top - partner, -math.inf)
                                     for _, top, partner in self._pairs(points)
                                     if partner is not None]))

    def refine(self, lower: Fraction) -> int:
        """Halve every cell that may still hold the top or the bottom of a pair above ``lower``
        (cells one lattice step wide stay); the number of cells split."""
        pairs = self._pairs(self.cells.items())
        best_top = max(top for _, top, _ in pairs)
        bar = float_down(lower)
        split = [cell for cell, top, partner in pairs
                 if cell[1] - cell[0] > 1 and ((partner is not None and top - partner >= bar)
                                               or best_top - self.cells[cell][0] >= bar)]
        for cell in split:
            del self.cells[cell]
        self.add([half for a, b in split for half in ((a, (a + b) // 2), ((a + b) // 2, b))])
        return len(split)


def _up(x: float) -> float:
    """One double above the rounded result of one operation: an upper bound of the exact one."""
    return math.nextafter(x, math.inf)


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def _outward(bounds: tuple[Fraction, Fraction]) -> tuple[float, float]:
    return float_down(bounds[0]), float_up(bounds[1])


class LeakageCache:
    """One :class:`LeakageEnclosure` per offset class for one setting's ``(ℓ, γ, δ)``: ``a†``
    does not depend on ``n`` or on where ``(i, L)`` sits (module docstring), so every coordinate
    and every ``n`` share the enclosures, and a refinement made for one comparison serves all.
    An enclosure is made for the pair translated to start at index 0 (its ``coordinate`` and
    ``low`` are those of the translated pair)."""

    def __init__(self, setting: GaussianSetting, cells: int = DEFAULT_CELLS,
                 bits: int = DEFAULT_BITS, backend: str = "arb") -> None:
        self.setting, self.cells, self.bits, self.backend = setting, cells, bits, backend
        self._enclosures: dict[tuple[int, ...], LeakageEnclosure] = {}

    def matches(self, setting: GaussianSetting) -> bool:
        """True when ``setting`` has this cache's ``(ℓ, γ, δ)``."""
        s = self.setting
        return (s.ell, s.gamma, s.delta) == (setting.ell, setting.gamma, setting.delta)

    def enclosure(self, coordinate: int, low: Iterable[int]) -> LeakageEnclosure:
        low = tuple(sorted(low))
        key = offset_class(coordinate, low)
        found = self._enclosures.get(key)
        if found is None:
            if coordinate in low or min((coordinate, *low)) < 0:
                raise ModelError("coordinates are >= 0 and the coordinate is not in L", "low")
            start = min((coordinate, *low))
            shifted = replace(self.setting, n=max((coordinate, *low)) - start + 1)
            found = self._enclosures[key] = LeakageEnclosure(
                shifted, coordinate - start, [j - start for j in low], self.cells, self.bits,
                self.backend)
        return found


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


def certified_a_star(setting: GaussianSetting, coordinate: int, b: int,
                     cells: int = DEFAULT_CELLS, bits: int = DEFAULT_BITS,
                     tolerance: Fraction = Fraction(1, 100), max_cells: int = MAX_CELLS,
                     cache: LeakageCache | None = None) -> GaussianAStar:
    """``a*_i(b)`` bounded over every ``L`` of size ``n − b`` avoiding ``i`` (``1 <= b <= n``):
    the least lower bound and the least upper bound over the sets (one enclosure per offset
    class, from ``cache`` when given)."""
    if not 1 <= b <= setting.n:
        raise ModelError("a*(b) needs 1 <= b <= n", "b")
    if cache is None or not cache.matches(setting):
        cache = LeakageCache(setting, cells, bits)
    others = [j for j in range(setting.n) if j != coordinate]
    bounds = []
    for low in combinations(others, setting.n - b):
        enclosure = cache.enclosure(coordinate, low)
        enclosure.refine(tolerance, max_cells)
        bounds.append(GaussianLeakageBound(coordinate, low, enclosure.lower, enclosure.upper,
                                           enclosure.cells))
    best = min(bounds, key=lambda x: x.upper)
    return GaussianAStar(coordinate, b, min(x.lower for x in bounds), best.upper, best.low)


__all__ = ["GaussianAStar", "GaussianLeakageBound", "LeakageCache", "LeakageEnclosure",
           "certified_a_star", "gaussian_leakage_bounds", "offset_class"]
