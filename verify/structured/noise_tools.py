"""Exact and certified pieces of :mod:`~pufferfish.verify.structured.noise_level`: integer and
point-evaluation rings for the junction tree, the likelihood-ratio order of two laws, ``W_∞`` of two
laws on the integers, the clamped ends of geometric noise, and conversions of arb balls to exact
dyadic rationals and to fixed point with outward rounding.

A junction tree (:class:`~pufferfish.verify.structured.elimination.JunctionTree`) computes in any
commutative semiring with ``+``, ``*`` and the ring's ``monomial``.  :data:`INTEGER` takes integer
polynomials (the prior's factors scaled to integers by :func:`integer_factors`: one constant
times every probability); :class:`PointRing` takes scalars, the polynomials evaluated at a point
(exact integers at a rational point, homogenised; balls at an arb point).

>>> from fractions import Fraction
>>> integer_factors([((0,), {(0,): Fraction(1, 3), (1,): Fraction(2, 3)})])
[((0,), {(0,): Fraction(1, 1), (1,): Fraction(2, 1)})]
>>> clamped_below(fmpz_poly([1, 1]), 0, Fraction(1, 2))   # (1 + α)·(Pr[Z <= 0] + Pr[Z <= -1])
3/2
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import arb, fmpq, fmpz, fmpz_poly

from pufferfish.models.numbers import INFINITY
from pufferfish.verify.structured.elimination import Ring

INTEGER = Ring("integer", fmpz_poly, lambda value: fmpz(value.numerator))
"""Integer polynomials: the ring of a tree whose factors were scaled to integers."""


class PointRing(Ring):
    """Scalars: a tree's polynomials evaluated at ``z = p/q`` (exact, homogenised so that every
    value is an integer: ``z^e ↦ p^e q^{top − e}``, ``top`` the largest exponent of a clique) or
    at an arb ball ``z`` (``bits`` of working precision)."""

    def __init__(self, point, top: int = 0, bits: int | None = None) -> None:
        if bits is None:
            p, q = point
            super().__init__(f"at {p}/{q}", lambda *_: fmpz(0), lambda v: fmpz(v.numerator))
            self._p, self._q, self._top = fmpz(p), fmpz(q), top
        else:
            super().__init__("at a ball", lambda *_: arb(0), lambda v: arb(v.numerator), bits)
            self._z = point
        self._powers: dict[int, object] = {}

    def monomial(self, coefficient: Fraction, exponent: int):
        power = self._powers.get(exponent)
        if power is None:
            power = self._powers[exponent] = (
                self._z ** exponent if self.bits else
                self._p ** exponent * self._q ** (self._top - exponent))
        return self.scalar(coefficient) * power


def integer_factors(factors):
    """Each ``(scope, table)`` factor times the lcm of its denominators (integer tables)."""
    out = []
    for scope, table in factors:
        scale = math.lcm(*(v.denominator for v in table.values())) if table else 1
        out.append((scope, {key: v * scale for key, v in table.items()}))
    return out


def keep_extremes(kept: list, found: list) -> list:
    """Of ``kept + found`` (entries ``(lower, upper, ...)``), what a level is read from: the first
    entry of largest upper bound and the first of largest lower bound, so that an evaluation
    holds two entries, not eight per pair (each a product of two of the tree's integers).

    >>> keep_extremes([(1, 5, "a")], [(3, 4, "b"), (2, 5, "c")])
    [(1, 5, 'a'), (3, 4, 'b')]
    """
    entries = kept + found
    if len(entries) <= 2:
        return entries
    upper = max(entries, key=lambda f: f[1])
    lower = max(entries, key=lambda f: f[0])
    return [upper] if lower is upper else [upper, lower]


def likelihood_order(first: Sequence, second: Sequence) -> int | None:
    """``+1`` when ``first[k]/second[k]`` is non-decreasing in ``k`` over the union of the two
    supports (ratio 0 where only ``second`` is positive, ∞ where only ``first`` is), ``−1`` when
    non-increasing, ``0`` when both (proportional), ``None`` when neither.  Exact (integers);
    ``O(len)`` comparisons of consecutive points.

    >>> likelihood_order([3, 2, 1, 0], [0, 1, 2, 3]), likelihood_order([1, 2], [2, 1])
    (-1, 1)
    >>> likelihood_order([1, 0, 1], [0, 1, 0]) is None
    True
    """
    up = down = True
    phase_up = phase_down = 0      # 0: before the common support, 1: in it, 2: after it
    previous = None
    for k in range(max(len(first), len(second))):
        a = first[k] if k < len(first) else 0
        b = second[k] if k < len(second) else 0
        if a and b:
            if previous is not None:
                cross = a * previous[1] - previous[0] * b
                up, down = up and cross >= 0, down and cross <= 0
            previous = (a, b)
            up, down = up and phase_up < 2, down and phase_down < 2
            phase_up, phase_down = 1, 1
        elif b:                      # ratio 0
            up = up and phase_up == 0
            phase_down = 2
        elif a:                      # ratio ∞
            down = down and phase_down == 0
            phase_up = 2
        if not up and not down:
            return None
    return 0 if up and down else (1 if up else -1)


def w_infinity_of(first: Sequence[int], second: Sequence[int], mass_first: int,
                  mass_second: int) -> int:
    """``W_∞`` of the two laws ``first/mass_first`` and ``second/mass_second`` on ``0, 1, ...``
    (Wang et al., Privacy-Preserving Analysis of Correlated Data, §3, Definition 3.1): the least
    ``d`` with ``C_1(t) <= C_2(t + d)`` and ``C_2(t) <= C_1(t + d)`` for every ``t`` (Strassen's
    criterion on the line), exact, ``O(len)``.

    >>> w_infinity_of([3, 1, 1, 1, 0], [0, 1, 1, 1, 1], 6, 4)   # §3's flu example, in sixths
    2
    """
    def one_side(p, q, mp, mq):
        prefix_q, total = [], 0
        for x in q:
            total += x
            prefix_q.append(total)
        worst, j, total = 0, 0, 0
        for t, x in enumerate(p):
            total += x
            j = max(j, t)
            while j < len(prefix_q) and prefix_q[j] * mp < total * mq:
                j += 1
            worst = max(worst, j - t)
        return worst

    return max(one_side(first, second, mass_first, mass_second),
               one_side(second, first, mass_second, mass_first))


class Quotient:
    """An unreduced ratio ``num/den`` of non-negative integers (``den = 0``: ∞), ordered by
    cross-multiplication and reduced only when read (:attr:`value`): maxima over thousands of
    ratios of large integers cost no gcd.  A comparison first reads ``log2(num/den)`` from the
    leading 62 bits ``m`` of each and their exponents (truncation error below ``2^-60``;
    ``math.log2(m) <= 62`` and the sums within a few units in the last place, below ``2^-44``),
    and trusts the difference of two such logarithms only beyond ``2^-40 (128 + |log|)`` for each
    side, far above that error; closer ratios are cross-multiplied exactly.

    >>> Quotient(2, 4) < Quotient(1, 1) < Quotient(1, 0), Quotient(6, 4).value
    (True, Fraction(3, 2))
    """

    __slots__ = ("num", "den", "_log", "_error")

    def __init__(self, num, den) -> None:
        self.num, self.den = fmpz(num), fmpz(den)   # FLINT's products, far faster than int's
        self._log = self._error = None
        if self.num and self.den:
            (top, up), (bottom, down) = _leading(self.num), _leading(self.den)
            self._log = (math.log2(top) - math.log2(bottom)) + (up - down)
            self._error = 2.0 ** -40 * (128 + abs(self._log))

    def __lt__(self, other: "Quotient") -> bool:
        if self._log is not None and other._log is not None:
            gap = other._log - self._log
            if abs(gap) > self._error + other._error:
                return gap > 0
        return self.num * other.den < other.num * self.den

    def __le__(self, other: "Quotient") -> bool:
        return not other < self

    @property
    def value(self):
        """The ratio as a :class:`~fractions.Fraction`, or ``INFINITY``."""
        if not self.den:
            return INFINITY if self.num else Fraction(0)
        return Fraction(int(self.num), int(self.den))


def _leading(x: fmpz) -> tuple[int, int]:
    """``(m, s)`` with ``m`` the leading 62 bits of ``x > 0`` and ``x ∈ [m·2^s, (m + 1)·2^s)``."""
    length = x.bit_length()
    if length <= 62:
        return int(x), 0
    return int(x >> (length - 62)), length - 62


def ball_quotients(value: arb) -> tuple[Quotient, Quotient]:
    """Exact lower and upper bounds of a ball (∞ above when the ball is not finite)."""
    if not value.is_finite():
        return Quotient(0, 1), Quotient(1, 0)
    return _dyadic_quotient(value.lower()), _dyadic_quotient(value.upper())


def _dyadic_quotient(value: arb) -> Quotient:
    mantissa, exponent = (int(x) for x in value.man_exp())
    return Quotient(mantissa << exponent, 1) if exponent >= 0 else Quotient(mantissa, 1 << -exponent)


def fixed_point(value: arb, bits: int, floor: bool) -> int:
    """``floor`` (or ``ceil``) of ``value · 2^bits`` for an exact dyadic arb."""
    mantissa, exponent = (int(x) for x in value.man_exp())
    shift = exponent + bits
    if shift >= 0:
        return mantissa << shift
    return mantissa >> -shift if floor else -((-mantissa) >> -shift)


def padded(poly: fmpz_poly, length: int) -> list[int]:
    """The coefficients of ``poly`` as Python integers, padded with zeros to ``length``."""
    coeffs = [int(c) for c in poly.coeffs()]
    return coeffs + [0] * (length - len(coeffs))


def clamped_below(law: fmpz_poly, low: int, alpha: Fraction):
    """``(1 + α) Σ_c F[c] Pr[Z <= low − c]``: ``α^{c−low}`` for ``c > low``, ``1 + α − α^{low−c+1}``
    for ``c <= low`` (exact)."""
    a = fmpq(alpha.numerator, alpha.denominator)
    coeffs = law.coeffs()
    head = [coeffs[c] for c in range(min(len(coeffs), max(low + 1, 0)))]
    tail = coeffs[max(low + 1, 0):]
    value = fmpq(0)
    if tail:   # Σ_{c > low} F[c] α^{c − low}
        start = max(low + 1, 0)
        value += fmpz_poly(tail)(a) * a ** (start - low)
    if head:   # Σ_{c <= low} F[c] (1 + α − α^{low − c + 1})
        value += sum(head, fmpz(0)) * (1 + a) - a * fmpz_poly(head[::-1])(a) * a ** (low + 1 - len(head))
    return value


def clamped_above(law: fmpz_poly, high: int, alpha: Fraction):
    """``(1 + α) Σ_c F[c] Pr[Z >= high − c]``, the mirror image of :func:`clamped_below`."""
    coeffs = law.coeffs()
    length = len(coeffs)
    mirrored = fmpz_poly(coeffs[::-1]) if coeffs else fmpz_poly()
    return clamped_below(mirrored, length - 1 - high, alpha)


__all__ = ["INTEGER", "PointRing", "integer_factors", "likelihood_order", "w_infinity_of", "Quotient", "ball_quotients", "fixed_point", "padded", "clamped_below", "clamped_above", "keep_extremes"]
