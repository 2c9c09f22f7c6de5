"""Optimal transport on the line for the Kantorovich mechanism (Ding et al., Multi-user Pufferfish
Privacy, §2 equations (5)–(6), Proposition 1; Appendix A, Lemma 3, equation (25), Proposition 2,
Example 1, Tables 4–6).

Definitions.  For finite distributions ``μ, ν`` on the rationals with cdfs ``F_μ, F_ν``:

* the **comonotone (north-west-corner) coupling** ``π*`` — equation (6),
  ``π*((−∞, x] × (−∞, x']) = min{F_μ(x), F_ν(x')}`` — pairs the ``u``-quantiles of μ and ν for
  every level ``u``; it is optimal for ``W_1`` (and every ``W_p``, p = ∞ included).  The coupling
  itself is :func:`pufferfish.verify.transport.couplings.comonotone_coupling` (shared with W∞);
* ``W_1(μ, ν) = Σ π*(x, x') |x − x'|`` (cross-checked by ``∫ |F_μ − F_ν|``, :func:`w1_by_cdf`);
* the **largest transported distance** ``sup_{(x,x') ∈ supp(π*)} |x − x'|`` of Proposition 1
  (equation (5)), which equals ``W_∞(μ, ν)``;
* **Δ*(x)** of Lemma 3 / equation (25) (and of Theorem 4, equation (17), applied to ``P_i, Q_i``):
  ``0`` if ``F_μ(x) = F_ν(x)``; ``min{Δ > 0 : F_μ(x) <= F_ν(x + Δ)}`` if ``F_μ(x) > F_ν(x)``;
  ``min{Δ > 0 : F_μ(x) >= F_ν(x − Δ)}`` if ``F_μ(x) < F_ν(x)``.

The grid of Δ*.  Read over the reals the third case is ill-posed: ``F_ν`` is right-continuous, so
``{Δ > 0 : F_ν(x − Δ) <= F_μ(x)}`` is an *open* half-line and has no minimum (for ``μ = δ_1``,
``ν = δ_0`` at ``x = 0`` it is ``(0, ∞)``, so the infimum 0 would miss the transported distance 1).
This module therefore computes Δ* on the **lattice of the support**: ``h`` is the largest step such
that every support point of μ and ν lies on ``x_0 + hℤ`` (``x_0`` the smallest support point),
``Δ`` ranges over ``hℤ_{>0}`` and ``x`` over the lattice points between the smallest and the largest
support point (points outside carry Δ* = 0 or a smaller value).  On this grid every min exists and

    case F_μ(x) > F_ν(x):  Δ*(x) = s(x) − x,      s(x) = min{s ∈ supp ν : F_ν(s) >= F_μ(x)};
    case F_μ(x) < F_ν(x):  Δ*(x) = x − b(x) + h,  b(x) = min{b ∈ supp ν : F_ν(b) > F_μ(x)}.

Lemma 3 (``sup_x Δ*(x)`` = the largest transported distance) holds on this grid: the first case at
an atom ``a`` of μ is the distance the top of ``a``'s mass moves up; the second case at the
lattice point just below the source of a downward move attains that move, and no lattice point
exceeds it (checked as the claim ``001.lemma3.lattice`` and in the tests).  Evaluating Δ* only at
support points is *not* enough (``μ = δ_5``, ``ν = (δ_0 + δ_1)/2``: the support points give 2, the
transported distance is 5, attained at the non-support point 4).

Complexity: the coupling ``O(m + n)`` after sorting; Δ* ``O(G log n)`` for ``G`` lattice points
(refused above ``max_points``).

Example 1 (Tables 4–6):

>>> from fractions import Fraction as Q
>>> mu = {1: Q(1, 5), 2: Q(9, 40), 3: Q(1, 2), 4: Q(3, 40)}
>>> nu = {2: Q(3, 40), 3: Q(1, 2), 4: Q(9, 40), 5: Q(1, 5)}
>>> plan = transport_plan(mu, nu)
>>> plan.largest_distance, delta_star(mu, nu).supremum
(Fraction(2, 1), Fraction(2, 1))
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.errors import TooLargeError
from pufferfish.models.multiuser import lattice_step
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.transport.couplings import (Atoms, Coupling, atoms, comonotone_coupling,
                                                   verify_coupling)
from pufferfish.verify.report import Explained

DEFAULT_MAX_POINTS = 2_000_000
"""Largest lattice on which Δ* is tabulated."""


@dataclass(repr=False, frozen=True)
class TransportPlan(Explained):
    """The comonotone coupling ``π*`` of ``first`` and ``second`` (equation (6)) with ``W_1`` and
    the largest transported distance (the quantity of Proposition 1, equation (5))."""

    first: Atoms
    second: Atoms
    coupling: Coupling
    w1: Fraction
    largest_distance: Fraction

    @property
    def witness(self) -> tuple[Fraction, Fraction, Fraction] | None:
        """A coupled ``(x, x', mass)`` moving mass by exactly the largest distance."""
        return next((c for c in self.coupling if abs(c[0] - c[1]) == self.largest_distance), None)

    def verify(self) -> bool:
        """Exactly: marginals, nonnegativity, largest displacement, and ``W_1 = Σ π |x − x'|``."""
        return (verify_coupling(self.coupling, self.first, self.second, self.largest_distance)
                and self.w1 == sum((m * abs(a - b) for a, b, m in self.coupling), Fraction(0)))

    def matrix(self) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...], tuple[tuple[Fraction, ...], ...]]:
        """``(rows, columns, masses)``: ``π*(x, x')`` on the union support (Table 6's layout)."""
        points = tuple(sorted({v for v, _ in self.first} | {v for v, _ in self.second}))
        cell = {(a, b): m for a, b, m in self.coupling}
        return points, points, tuple(tuple(cell.get((a, b), Fraction(0)) for b in points)
                                     for a in points)

    def to_dict(self) -> dict:
        witness = self.witness
        return {"coupling": [[fraction_str(a), fraction_str(b), fraction_str(m)]
                             for a, b, m in self.coupling],
                "w1": fraction_str(self.w1), "w1_float": float(self.w1),
                "largest_distance": fraction_str(self.largest_distance),
                "largest_distance_float": float(self.largest_distance),
                "witness": None if witness is None else [fraction_str(x) for x in witness],
                "certificate_verified": self.verify()}

    def explain(self) -> str:
        text = (f"comonotone coupling: W1 = {fraction_str(self.w1)}, largest transported distance "
                f"{fraction_str(self.largest_distance)}")
        if self.witness is not None and self.largest_distance:
            a, b, m = self.witness
            text += f" (mass {fraction_str(m)} from {fraction_str(a)} to {fraction_str(b)})"
        return text


def transport_plan(first: Mapping, second: Mapping) -> TransportPlan:
    """The comonotone coupling of two finite distributions, with ``W_1`` and the largest distance."""
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    coupling = comonotone_coupling(p1, p2)
    w1 = sum((m * abs(a - b) for a, b, m in coupling), Fraction(0))
    largest = max((abs(a - b) for a, b, _ in coupling), default=Fraction(0))
    return TransportPlan(p1, p2, coupling, w1, largest)


def w1_by_cdf(first: Mapping, second: Mapping) -> Fraction:
    """Independent cross-check: ``W_1 = ∫ |F_μ(x) − F_ν(x)| dx`` (exact on the union support)."""
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    points = sorted({v for v, _ in p1} | {v for v, _ in p2})
    f1, f2 = dict(p1), dict(p2)
    c1 = c2 = Fraction(0)
    total = Fraction(0)
    for left, right in zip(points, points[1:]):
        c1 += f1.get(left, Fraction(0))
        c2 += f2.get(left, Fraction(0))
        total += abs(c1 - c2) * (right - left)
    return total


def cdf_table(first: Mapping, second: Mapping) -> tuple[tuple[Fraction, Fraction, Fraction], ...]:
    """``(x, F_μ(x), F_ν(x))`` at every point of the union support (Table 5's layout)."""
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    points = sorted({v for v, _ in p1} | {v for v, _ in p2})
    f1, f2 = dict(p1), dict(p2)
    c1 = c2 = Fraction(0)
    out = []
    for x in points:
        c1 += f1.get(x, Fraction(0))
        c2 += f2.get(x, Fraction(0))
        out.append((x, c1, c2))
    return tuple(out)


@dataclass(repr=False, frozen=True)
class DeltaStar(Explained):
    """Δ* of Lemma 3 / equation (25) on the lattice ``origin + step·ℤ`` (see the module docstring).

    ``values`` lists ``(x, Δ*(x))`` at every lattice point between the extreme support points;
    ``supremum`` is their max and ``argmax`` the first point attaining it."""

    step: Fraction
    origin: Fraction
    values: tuple[tuple[Fraction, Fraction], ...]
    supremum: Fraction
    argmax: Fraction

    def to_dict(self) -> dict:
        return {"grid": {"origin": fraction_str(self.origin), "step": fraction_str(self.step),
                         "points": len(self.values)},
                "supremum": fraction_str(self.supremum), "argmax": fraction_str(self.argmax),
                "values": [[fraction_str(x), fraction_str(d)] for x, d in self.values[:200]],
                "values_truncated": len(self.values) > 200}

    def explain(self) -> str:
        return (f"sup Δ* = {fraction_str(self.supremum)} at x = {fraction_str(self.argmax)} on the "
                f"lattice {fraction_str(self.origin)} + {fraction_str(self.step)}ℤ "
                f"({len(self.values)} points)")


def delta_star(first: Mapping, second: Mapping, max_points: int = DEFAULT_MAX_POINTS) -> DeltaStar:
    """Δ*(x) at every lattice point and its supremum (Lemma 3, equation (25); Theorem 4, (17))."""
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    points = sorted({v for v, _ in p1} | {v for v, _ in p2})
    step = lattice_step(points)
    origin, last = points[0], points[-1]
    count = int((last - origin) / step) + 1
    if count > max_points:
        raise TooLargeError(f"the lattice {fraction_str(origin)} + {fraction_str(step)}ℤ has "
                            f"{count:,} points between the extreme support points; the limit is "
                            f"{max_points:,}", "max_points")
    # cdf of ν at its support points, for the quantile searches
    nu_points = [v for v, _ in p2]
    nu_cdf: list[Fraction] = []
    total = Fraction(0)
    for _, m in p2:
        total += m
        nu_cdf.append(total)
    mu = list(p1)
    values = []
    k = -1
    f_mu = Fraction(0)
    best, argmax = Fraction(-1), origin
    for g in range(count):
        x = origin + g * step
        while k + 1 < len(mu) and mu[k + 1][0] <= x:
            k += 1
            f_mu += mu[k][1]
        j = bisect_right(nu_points, x)
        f_nu = nu_cdf[j - 1] if j else Fraction(0)
        if f_mu == f_nu:
            d = Fraction(0)
        elif f_mu > f_nu:
            s = nu_points[bisect_left(nu_cdf, f_mu)]          # first s with F_ν(s) >= F_μ(x)
            d = s - x
        else:
            b = nu_points[bisect_right(nu_cdf, f_mu)]         # first b with F_ν(b) > F_μ(x)
            d = x - b + step
        values.append((x, d))
        if d > best:
            best, argmax = d, x
    return DeltaStar(step, origin, tuple(values), best, argmax)


def delta_star_brute_force(first: Mapping, second: Mapping) -> Fraction:
    """Independent cross-check of :func:`delta_star`'s supremum: the definition (25) evaluated
    literally at every lattice point, each min searched step by step over ``Δ ∈ hℤ_{>0}``."""
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    points = sorted({v for v, _ in p1} | {v for v, _ in p2})
    step = lattice_step(points)

    def cdf(measure: Atoms, x: Fraction) -> Fraction:
        return sum((m for v, m in measure if v <= x), Fraction(0))

    best = Fraction(0)
    x = points[0]
    while x <= points[-1]:
        a, b = cdf(p1, x), cdf(p2, x)
        delta = Fraction(0)
        if a != b:
            delta = step
            while not (a <= cdf(p2, x + delta) if a > b else a >= cdf(p2, x - delta)):
                delta += step
        best = max(best, delta)
        x += step
    return best
