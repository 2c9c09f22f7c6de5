"""Exact real algebra on rational functions of a few parameters: real roots isolated by rational
intervals, exact signs at algebraic points, and rational interval bounds over boxes.

A *real algebraic number* is written as an irreducible integer polynomial and a rational interval
that contains exactly one of its real roots (:class:`AlgebraicNumber`; a rational number has a
degree-1 polynomial and a degenerate interval).  Root isolation is sympy's Vincent–Akritas–Strzeboński
continued-fraction method (``Poly.intervals``), polynomial in the degree and the coefficient size;
the sign of a polynomial ``g`` at a root ``α`` of an irreducible ``h`` is exact: ``g(α) = 0`` iff
``h`` divides ``g``, and otherwise the isolating interval of ``α`` is bisected until ``g`` has no
root in it, when ``g``'s sign at any rational point of the interval is its sign at ``α``.

Several parameters: :func:`interval_bounds` bounds a polynomial over a box with exact rational
interval arithmetic on its monomials (O(terms · variables) operations; the bound is exact for
monomials and over-approximates their sum), the building block of the certified subdivisions of
:mod:`pufferfish.models.parametric` and :mod:`pufferfish.verify.symbolic.region`.

>>> import sympy
>>> p = sympy.Symbol("p")
>>> [str(r) for r in real_roots_in([sympy.Poly(p**2 - 2, p), sympy.Poly(3*p - 1, p)], 0, 2)]
['1/3', 'root of p**2 - 2 in [1, 2]']
>>> sign_at(sympy.Poly(p - 1, p), real_roots_in([sympy.Poly(p**2 - 2, p)], 0, 2)[0])
1
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import total_ordering
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # sympy is imported where it is used: a model without parameters never loads it
    import sympy

__all__ = ["AlgebraicNumber", "real_roots_in", "below", "sign_at", "to_fraction", "polynomial_terms",
           "evaluate_terms", "interval_bounds", "fraction_text", "derivative_terms",
           "BoundedPolynomial"]


def to_fraction(value: object) -> Fraction:
    """A sympy rational, a ground-domain ``QQ`` element or an int as a :class:`Fraction`."""
    import sympy

    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    numerator = getattr(value, "numerator", None)
    if numerator is not None and not callable(numerator):
        return Fraction(int(numerator), int(value.denominator))
    rational = sympy.Rational(value)
    return Fraction(int(rational.p), int(rational.q))


def fraction_text(value: Fraction) -> str:
    """``"3/4"``, ``"2"``, ``"-1/3"``."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


@total_ordering
@dataclass(frozen=True)
class AlgebraicNumber:
    """The unique root of the irreducible ``polynomial`` in the closed rational interval
    ``[low, high]`` (``low == high`` for a rational number)."""

    polynomial: sympy.Poly
    low: Fraction
    high: Fraction

    @property
    def is_rational(self) -> bool:
        return self.low == self.high

    @property
    def value(self) -> Fraction:
        """The number itself; only for rational numbers."""
        if not self.is_rational:
            raise ValueError(f"{self} is irrational")
        return self.low

    def refined(self, width: Fraction) -> "AlgebraicNumber":
        """The same number with an isolating interval of width at most ``width``."""
        import sympy

        low, high = self.low, self.high
        while high - low > width:
            middle = (low + high) / 2
            if self.polynomial.eval(sympy.Rational(middle.numerator, middle.denominator)) == 0:
                return AlgebraicNumber(self.polynomial, middle, middle)
            if self.polynomial.count_roots(_rational(low), _rational(middle)) >= 1:
                high = middle
            else:
                low = middle
        return AlgebraicNumber(self.polynomial, low, high)

    def approx(self) -> float:
        """A float for reading (never for deciding)."""
        refined = self.refined(Fraction(1, 2 ** 60))
        return float((refined.low + refined.high) / 2)

    def __lt__(self, other: "AlgebraicNumber") -> bool:
        return compare(self, other) < 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AlgebraicNumber):
            return NotImplemented
        return compare(self, other) == 0

    def __hash__(self) -> int:
        return hash(self.value) if self.is_rational else hash(self.polynomial.as_expr())

    def __str__(self) -> str:
        if self.is_rational:
            return fraction_text(self.low)
        return (f"root of {self.polynomial.as_expr()} in "
                f"[{fraction_text(self.low)}, {fraction_text(self.high)}]")

    def to_dict(self) -> dict:
        """JSON form: the exact number, or its polynomial and isolating interval, plus a float."""
        if self.is_rational:
            return {"exact": fraction_text(self.low), "approx": float(self.low)}
        return {"polynomial": str(self.polynomial.as_expr()),
                "interval": [fraction_text(self.low), fraction_text(self.high)],
                "approx": self.approx()}


def compare(first: AlgebraicNumber, second: AlgebraicNumber) -> int:
    """Exact comparison of two algebraic numbers (-1, 0, 1)."""
    import sympy

    if first.is_rational and second.is_rational:
        return (first.low > second.low) - (first.low < second.low)
    if sympy.gcd(first.polynomial, second.polynomial).degree() > 0 and \
            first.polynomial.monic() == second.polynomial.monic():
        lows = max(first.low, second.low)
        highs = min(first.high, second.high)
        if lows <= highs and first.polynomial.count_roots(_rational(lows), _rational(highs)) >= 1 \
                and _unique_in(first, lows, highs):
            return 0
    a, b = first, second
    while not (a.high < b.low or b.high < a.low):
        if a.is_rational and b.is_rational:
            return (a.low > b.low) - (a.low < b.low)
        if a.is_rational:
            s = sign_at(sympy.Poly(a.polynomial.gens[0] - _rational(a.low), *a.polynomial.gens), b)
            return -s
        if b.is_rational:
            return sign_at(sympy.Poly(b.polynomial.gens[0] - _rational(b.low), *b.polynomial.gens), a)
        a = a.refined((a.high - a.low) / 2)
        b = b.refined((b.high - b.low) / 2)
    return -1 if a.high < b.low else 1


def _unique_in(number: AlgebraicNumber, low: Fraction, high: Fraction) -> bool:
    return number.polynomial.count_roots(_rational(low), _rational(high)) == 1


def _rational(value: Fraction) -> sympy.Rational:
    import sympy
    return sympy.Rational(value.numerator, value.denominator)


def real_roots_in(polynomials: list[sympy.Poly], low: Fraction, high: Fraction) -> list[AlgebraicNumber]:
    """The distinct real roots in ``[low, high]`` of the univariate ``polynomials`` (nonzero ones),
    sorted, each with its irreducible polynomial and an isolating interval.

    Cost: factoring each polynomial over Q, then one simultaneous isolation of the distinct
    irreducible factors (sympy ``intervals`` on the list: disjoint, sorted intervals).
    """
    import sympy

    factors: list[sympy.Poly] = []
    seen: set = set()
    for polynomial in polynomials:
        if polynomial.is_zero or polynomial.degree() <= 0:
            continue
        for factor, _ in polynomial.factor_list()[1]:
            key = factor.monic().as_expr()
            if factor.degree() > 0 and key not in seen:
                seen.add(key)
                factors.append(factor)
    if not factors:
        return []
    roots: list[AlgebraicNumber] = []
    for (a, b), owners in sympy.intervals(factors, inf=_rational(low), sup=_rational(high)):
        factor = factors[next(iter(owners))]
        if factor.degree() == 1:
            c1, c0 = (to_fraction(c) for c in factor.all_coeffs())
            roots.append(AlgebraicNumber(factor, -c0 / c1, -c0 / c1))
        else:
            roots.append(AlgebraicNumber(factor, to_fraction(a), to_fraction(b)))
    return roots


def below(number: AlgebraicNumber, value: Fraction) -> bool:
    """Whether ``number < value`` (exactly; ``value`` rational)."""
    if number.is_rational:
        return number.low < value
    while number.low <= value <= number.high:
        if number.polynomial.eval(_rational(value)) == 0:
            return False
        number = number.refined((number.high - number.low) / 2)
    return number.high < value


def sign_at(polynomial: sympy.Poly, number: AlgebraicNumber) -> int:
    """The exact sign of the univariate ``polynomial`` at ``number``."""
    if polynomial.is_zero:
        return 0
    if number.is_rational:
        return _sign(polynomial.eval(_rational(number.low)))
    if polynomial.rem(number.polynomial).is_zero:
        return 0
    low, high = number.low, number.high
    while polynomial.count_roots(_rational(low), _rational(high)) > 0:
        middle = (low + high) / 2
        if number.polynomial.eval(_rational(middle)) == 0:
            return _sign(polynomial.eval(_rational(middle)))
        if number.polynomial.count_roots(_rational(low), _rational(middle)) >= 1:
            high = middle
        else:
            low = middle
    return _sign(polynomial.eval(_rational((low + high) / 2)))


def _sign(value: object) -> int:
    value = to_fraction(value)
    return (value > 0) - (value < 0)


# --------------------------------------------------------------------------------------------
# Several variables: polynomials as monomial dictionaries, exact evaluation and interval bounds
# --------------------------------------------------------------------------------------------

Terms = dict[tuple[int, ...], Fraction]
"""A polynomial as ``{exponents: coefficient}``."""


def polynomial_terms(polynomial: object) -> Terms:
    """The terms of a sympy ``Poly`` or a polynomial-ring element, with Fraction coefficients."""
    import sympy

    items = polynomial.terms() if isinstance(polynomial, sympy.Poly) else polynomial.items()
    return {tuple(exponents): to_fraction(c) for exponents, c in items if c}


def evaluate_terms(terms: Terms, point: tuple[Fraction, ...]) -> Fraction:
    """The exact value at a rational point.  Cost O(terms · variables) multiplications."""
    total = Fraction(0)
    for exponents, coefficient in terms.items():
        value = coefficient
        for x, e in zip(point, exponents):
            if e:
                value *= x ** e
        total += value
    return total


def _power_bounds(low: Fraction, high: Fraction, e: int) -> tuple[Fraction, Fraction]:
    a, b = low ** e, high ** e
    if e % 2 == 0 and low < 0 < high:
        return Fraction(0), max(a, b)
    return min(a, b), max(a, b)


def interval_bounds(terms: Terms, box: tuple[tuple[Fraction, Fraction], ...]) -> tuple[Fraction, Fraction]:
    """Rational ``(lower, upper)`` with ``lower <= f(x) <= upper`` for every ``x`` in the box.

    Each monomial's range is exact; their sum over-approximates, and shrinks to the exact range
    as the box shrinks (the bisections of the callers converge).

    >>> interval_bounds({(1,): Fraction(1), (0,): Fraction(-1, 2)}, ((Fraction(0), Fraction(1)),))
    (Fraction(-1, 2), Fraction(1, 2))
    """
    lower = upper = Fraction(0)
    for exponents, coefficient in terms.items():
        lo = hi = Fraction(1)
        for (a, b), e in zip(box, exponents):
            if e:
                pa, pb = _power_bounds(a, b, e)
                products = (lo * pa, lo * pb, hi * pa, hi * pb)
                lo, hi = min(products), max(products)
        if coefficient > 0:
            lower += coefficient * lo
            upper += coefficient * hi
        else:
            lower += coefficient * hi
            upper += coefficient * lo
    return lower, upper


def derivative_terms(terms: Terms, variable: int) -> Terms:
    """The partial derivative along ``variable``."""
    out: Terms = {}
    for exponents, coefficient in terms.items():
        e = exponents[variable]
        if e:
            lowered = exponents[:variable] + (e - 1,) + exponents[variable + 1:]
            out[lowered] = out.get(lowered, Fraction(0)) + coefficient * e
    return out


@dataclass(frozen=True)
class BoundedPolynomial:
    """A polynomial with its gradient, bounded over boxes by the better of the monomial bound
    (:func:`interval_bounds`) and the mean-value form ``f(c) + Σ_i ∂_i f(box)·(x_i − c_i)``
    (whose overestimate shrinks linearly with the box, so bisection separates the boundary).

    >>> f = BoundedPolynomial.of({(2,): Fraction(1), (1,): Fraction(-2), (0,): Fraction(1)})
    >>> f.bounds(((Fraction(9, 10), Fraction(11, 10)),))     # (x - 1)^2 near 1
    (Fraction(-1, 50), Fraction(1, 50))
    """

    terms: Terms
    gradient: tuple[Terms, ...]

    @classmethod
    def of(cls, terms: Terms) -> "BoundedPolynomial":
        width = len(next(iter(terms))) if terms else 0
        return cls(terms, tuple(derivative_terms(terms, i) for i in range(width)))

    def bounds(self, box: tuple[tuple[Fraction, Fraction], ...]) -> tuple[Fraction, Fraction]:
        low, high = interval_bounds(self.terms, box)
        centre = tuple((a + b) / 2 for a, b in box)
        value = evaluate_terms(self.terms, centre)
        spread = Fraction(0)
        for derivative, (a, b) in zip(self.gradient, box):
            if derivative:
                d_low, d_high = interval_bounds(derivative, box)
                spread += max(abs(d_low), abs(d_high)) * (b - a) / 2
        return max(low, value - spread), min(high, value + spread)
