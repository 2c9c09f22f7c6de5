"""One parameter: the exact cell decomposition of an interval by the real roots of polynomials.

The interval ``[low, high]`` is cut at the real roots of the given polynomials (real algebraic
numbers, :mod:`pufferfish.models.polynomials`); on each open cell between consecutive cut points
every polynomial has a constant nonzero sign, read exactly at a rational point of the cell, and
at each cut point the sign is computed exactly at the algebraic number.  This is the
one-dimensional cylindrical decomposition behind the piecewise levels and the exact regions.
Cost: root isolation of the distinct irreducible factors, then one exact evaluation per
(polynomial, cell) and one exact sign per (polynomial, cut point).

>>> import sympy
>>> p = sympy.Symbol("p")
>>> cells = decompose([sympy.Poly(2 * p - 1, p)], Fraction(0), Fraction(1))
>>> [str(point) for point in cells.points], [str(t) for t in cells.samples]
(['0', '1/2', '1'], ['1/3', '2/3'])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy

from pufferfish.models.polynomials import AlgebraicNumber, real_roots_in, sign_at

__all__ = ["Cells", "decompose", "rational_between", "as_poly", "evaluate_poly", "exact_point"]


def exact_point(value: Fraction, symbol: sympy.Symbol) -> AlgebraicNumber:
    """``value`` as an :class:`AlgebraicNumber` (polynomial ``d·x - n``)."""
    return AlgebraicNumber(sympy.Poly(value.denominator * symbol - value.numerator, symbol),
                           value, value)


def rational_between(left: AlgebraicNumber, right: AlgebraicNumber) -> Fraction:
    """A short rational strictly between two distinct algebraic numbers ``left < right``."""
    while not left.high < right.low:
        left = left.refined((left.high - left.low) / 2)
        right = right.refined((right.high - right.low) / 2)
    a, b = left.high, right.low
    return _simplest_between(a, b)


def _simplest_between(a: Fraction, b: Fraction) -> Fraction:
    """The rational of least denominator in the open interval ``(a, b)`` (Stern–Brocot)."""
    denominator = 1
    while True:
        numerator = (a * denominator).__floor__() + 1
        candidate = Fraction(numerator, denominator)
        if a < candidate < b:
            return candidate
        denominator += 1 if denominator < 64 else denominator
        if denominator > 2 ** 40:
            return (a + b) / 2


def as_poly(element, symbol: sympy.Symbol) -> sympy.Poly:
    """A polynomial-ring element (or sympy expression) as a univariate sympy ``Poly``."""
    expr = element.as_expr() if hasattr(element, "as_expr") else element
    return sympy.Poly(expr, symbol)


def evaluate_poly(polynomial: sympy.Poly, x: Fraction) -> Fraction:
    """The exact value of a rational polynomial at a rational point."""
    value = polynomial.eval(sympy.Rational(x.numerator, x.denominator))
    return Fraction(int(value.p), int(value.q))


@dataclass(frozen=True)
class Cells:
    """Cut points ``points[0] = low < ... < points[-1] = high`` and one rational sample inside
    each open cell ``(points[i], points[i+1])`` (none when ``low == high``)."""

    points: tuple[AlgebraicNumber, ...]
    samples: tuple[Fraction, ...]

    def point_signs(self, polynomial: sympy.Poly) -> list[int]:
        return [sign_at(polynomial, point) for point in self.points]

    def cell_signs(self, polynomial: sympy.Poly) -> list[int]:
        out = []
        for t in self.samples:
            value = evaluate_poly(polynomial, t)
            out.append((value > 0) - (value < 0))
        return out


def decompose(polynomials: list[sympy.Poly], low: Fraction, high: Fraction) -> Cells:
    """Cut ``[low, high]`` at the real roots of ``polynomials`` (see the module docstring)."""
    symbol = sympy.Symbol("x")
    gens = next((p.gens for p in polynomials if not p.is_zero), (symbol,))
    symbol = gens[0]
    start, end = exact_point(low, symbol), exact_point(high, symbol)
    if low == high:
        return Cells((start,), ())
    roots = [r for r in real_roots_in(polynomials, low, high)
             if not (r.is_rational and r.value in (low, high))]
    points = (start, *roots, end)
    samples = tuple(rational_between(a, b) for a, b in zip(points, points[1:]))
    return Cells(points, samples)
