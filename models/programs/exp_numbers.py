"""Exact numbers of the fields ``Q(e^(1/n))``: the probabilities of Laplace-type noise.

A program that adds discrete Laplace noise at ``α = e^(−ε)`` (``ε`` rational) or continuous
Laplace or exponential noise of rational scale has path probabilities that are rational functions
of a transcendental number: every mass is a finite sum of terms ``c·e^r`` (``c``, ``r`` rational)
divided by another such sum (the normalising constants ``(1−α)/(1+α)``, the closed forms
``Σ_{x≥a} α^x = α^a/(1−α)``, the integrals ``∫ x^p e^(λx) dx`` evaluated at rational points).
With ``n`` the least common denominator of the exponents, such a number is ``t^s·P(t)/Q(t)``
with ``t = e^(1/n)``, ``P, Q`` rational polynomials: an element of the field ``Q(t)``.

Exactness.  ``t`` is transcendental (Lindemann: ``e^q`` is transcendental for every rational
``q ≠ 0``), so ``Q(t)`` is isomorphic to the field of rational functions: two numbers are equal
exactly when their reduced forms are equal, and a nonzero number is never 0 at ``t``.  Every
:class:`ExpNumber` is kept reduced (``P``, ``Q`` coprime, ``Q`` monic, neither divisible by ``t``,
``n`` least), which makes the representation unique: equality, hashing and "is it rational" are
exact and purely algebraic — an identity such as ``(1 − e^(−1))/(1 + e^(−1)) =
(e − 1)/(e + 1)`` is detected as an equality of reduced forms, never by numerics.

Order.  The sign of a nonzero number is found by evaluating it in arb ball arithmetic
(python-flint: rigorous error bounds) at increasing precision until the ball excludes 0; since the
number is not 0, some precision separates it (:meth:`ExpNumber.sign`).  This module is, with
:mod:`pufferfish.verify.influence.normal_masses`, one of the two places outside
:mod:`pufferfish.verify.numerics` that encloses real numbers: the engine of programs needs the
order of its bases (``β < 1``) while it sums, below the verify layer.

Cost: arithmetic is polynomial arithmetic in ``Q[t]`` (FLINT's ``fmpq_poly``) plus one gcd per
operation; degrees grow with ``n`` times the spread of the exponents.  A sign costs one ball
evaluation per precision tried (64 bits, doubled until separation).

>>> half = ExpNumber.exp(Fraction(-1, 2))            # α = e^(−1/2)
>>> c = (1 - half) / (1 + half)                       # the discrete Laplace constant
>>> c
ExpNumber('(e^(1/2) - 1)/(e^(1/2) + 1)')
>>> c.sign(), float(c) > 0.24, c.is_rational()
(1, True, False)
>>> (c * (1 + half) + half) == 1                      # an identity is an exact equality
True
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm
from numbers import Rational

from flint import arb, arb_poly, ctx, fmpq, fmpq_poly

from pufferfish.models.errors import TooLargeError
from pufferfish.models.numbers import fraction_str

__all__ = ["ExpNumber", "exact_number", "product_exceeds", "MAX_SIGN_BITS", "MAX_DEGREE"]

MAX_SIGN_BITS = 1 << 16
"""The highest precision tried to separate a nonzero number from 0 (an engine fault beyond)."""

MAX_DEGREE = 100_000
"""The largest degree in ``t`` a numerator or denominator may reach: exponents with unrelated
denominators (``e^(1/3)`` beside ``e^(1/1000003)``) put both in ``Q(e^(1/n))`` for their least
common multiple ``n``, and a sum of such powers has a degree of the order of ``n``; beyond this
the computation is refused (:class:`~pufferfish.models.errors.TooLargeError`) before memory is
spent."""

_ONE_POLY = fmpq_poly([1])


def _to_fmpq(value) -> fmpq:
    if isinstance(value, fmpq):
        return value
    value = Fraction(value)
    return fmpq(value.numerator, value.denominator)


def _check_degree(degree: int) -> None:
    if degree > MAX_DEGREE:
        raise TooLargeError(f"an exact number of Q(e^(1/n)) would need a polynomial of degree "
                            f"{degree:,} in e^(1/n) (more than {MAX_DEGREE:,}): the noise "
                            f"parameters and thresholds have exponents with large or unrelated "
                            f"denominators; give them a small common denominator")


def _lifted(poly: fmpq_poly, k: int) -> fmpq_poly:
    """``P(t^k)``."""
    if k == 1 or poly.degree() <= 0:
        return poly
    _check_degree(poly.degree() * k)
    coefficients = [0] * (poly.degree() * k + 1)
    for i, c in enumerate(poly.coeffs()):
        coefficients[i * k] = c
    return fmpq_poly(coefficients)


def _valuation(poly: fmpq_poly) -> int:
    """The number of factors ``t`` dividing ``poly`` (nonzero)."""
    for i, c in enumerate(poly.coeffs()):
        if c:
            return i
    raise ZeroDivisionError("the zero polynomial")


class ExpNumber:
    """``t^shift · num(t)/den(t)`` with ``t = e^(1/n)``, kept reduced (module docstring).

    Build numbers with :meth:`exp` (``e^q``) and :meth:`of` (a rational), and combine them with
    ``+ − * /`` and integer powers, with each other and with ``int``, :class:`~fractions.Fraction`
    and ``fmpq``.  Comparisons with ``< <= > >=`` are decided by :meth:`sign`; ``==`` is exact.
    """

    __slots__ = ("n", "shift", "num", "den", "_hash", "_ball")

    def __init__(self, n: int, shift: int, num, den=_ONE_POLY) -> None:
        """Use :meth:`exp` and :meth:`of`; this reduces ``t^shift·num/den`` (``t = e^(1/n)``)."""
        if den.is_zero():
            raise ZeroDivisionError("division by zero in Q(e^(1/n))")
        self._hash = self._ball = None
        if num.is_zero():
            self.n, self.shift, self.num, self.den = 1, 0, fmpq_poly([]), _ONE_POLY
            return
        common = num.gcd(den)
        if common.degree() > 0:
            num, den = num // common, den // common
        low_num, low_den = _valuation(num), _valuation(den)
        if low_num:
            num = fmpq_poly(num.coeffs()[low_num:])
        if low_den:
            den = fmpq_poly(den.coeffs()[low_den:])
        shift += low_num - low_den
        lead = den.coeffs()[-1]
        if lead != 1:
            num, den = num / lead, den / lead
        # the least n: every exponent (the shift and the indices of nonzero coefficients) is a
        # multiple of k, so the number lies in Q(t^k)
        k = n
        for poly in (num, den):
            for i, c in enumerate(poly.coeffs()):
                if c:
                    k = gcd(k, i)
        k = gcd(k, shift) if shift else k
        if k > 1:
            num = fmpq_poly(num.coeffs()[::k])
            den = fmpq_poly(den.coeffs()[::k])
            n, shift = n // k, shift // k
        self.n, self.shift, self.num, self.den = n, shift, num, den

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def of(cls, value) -> "ExpNumber":
        """A rational number (``int``, :class:`~fractions.Fraction`, ``fmpq``, or ``"p/q"``)."""
        if isinstance(value, ExpNumber):
            return value
        return cls(1, 0, fmpq_poly([_to_fmpq(value)]))

    @classmethod
    def exp(cls, q) -> "ExpNumber":
        """``e^q`` for a rational ``q``."""
        q = Fraction(q)
        return cls(q.denominator, q.numerator, _ONE_POLY)

    # --- arithmetic -----------------------------------------------------------------------

    def _at(self, n: int) -> tuple:
        """The shift, numerator and denominator over ``t' = e^(1/n)`` (``self.n`` divides n)."""
        k = n // self.n
        return self.shift * k, _lifted(self.num, k), _lifted(self.den, k)

    def __add__(self, other) -> "ExpNumber":
        other = _coerce(other)
        if other is NotImplemented:
            return other
        if other.num.is_zero():
            return self
        if self.num.is_zero():
            return other
        n = lcm(self.n, other.n)
        s1, p1, q1 = self._at(n)
        s2, p2, q2 = other._at(n)
        s = min(s1, s2)
        num = _lifted_shift(p1 * q2, s1 - s) + _lifted_shift(p2 * q1, s2 - s)
        return ExpNumber(n, s, num, q1 * q2)

    __radd__ = __add__

    def __neg__(self) -> "ExpNumber":
        result = object.__new__(ExpNumber)
        result.n, result.shift, result.num, result.den = self.n, self.shift, -self.num, self.den
        result._hash = result._ball = None
        return result

    def __pos__(self) -> "ExpNumber":
        return self

    def __abs__(self) -> "ExpNumber":
        return -self if self.sign() < 0 else self

    def __sub__(self, other) -> "ExpNumber":
        other = _coerce(other)
        return other if other is NotImplemented else self + (-other)

    def __rsub__(self, other) -> "ExpNumber":
        other = _coerce(other)
        return other if other is NotImplemented else other + (-self)

    def __mul__(self, other) -> "ExpNumber":
        other = _coerce(other)
        if other is NotImplemented:
            return other
        if self.num.is_zero() or other.num.is_zero():
            return _ZERO
        n = lcm(self.n, other.n)
        s1, p1, q1 = self._at(n)
        s2, p2, q2 = other._at(n)
        return ExpNumber(n, s1 + s2, p1 * p2, q1 * q2)

    __rmul__ = __mul__

    def inverse(self) -> "ExpNumber":
        if self.num.is_zero():
            raise ZeroDivisionError("division by zero in Q(e^(1/n))")
        return ExpNumber(self.n, -self.shift, self.den, self.num)

    def __truediv__(self, other) -> "ExpNumber":
        other = _coerce(other)
        return other if other is NotImplemented else self * other.inverse()

    def __rtruediv__(self, other) -> "ExpNumber":
        other = _coerce(other)
        return other if other is NotImplemented else other * self.inverse()

    def __pow__(self, k: int) -> "ExpNumber":
        if isinstance(k, bool) or not isinstance(k, int):
            return NotImplemented
        if k < 0:
            return self.inverse() ** (-k)
        if k == 0:
            return _ONE
        _check_degree(max(self.num.degree(), self.den.degree()) * k)
        return ExpNumber(self.n, self.shift * k, self.num ** k, self.den ** k)

    # --- exact predicates -----------------------------------------------------------------

    def __bool__(self) -> bool:
        return not self.num.is_zero()

    def is_rational(self) -> bool:
        """Whether the number is rational (exact: ``t`` is transcendental)."""
        return self.n == 1 and self.shift == 0 and self.num.degree() <= 0 and self.den.degree() == 0

    def rational(self) -> Fraction:
        """The number as a :class:`~fractions.Fraction` (``ValueError`` when it is not one)."""
        if not self.is_rational():
            raise ValueError(f"{self} is not rational")
        if self.num.is_zero():
            return Fraction(0)
        c = self.num.coeffs()[0]
        return Fraction(int(c.p), int(c.q))

    def log_form(self) -> tuple[Fraction, Fraction] | None:
        """``(q, c)`` with ``self = c·e^q`` when the number is such a monomial (``c > 0``), so that
        ``log(self) = q + log(c)`` exactly; ``None`` otherwise."""
        if self.num.degree() != 0 or self.den.degree() != 0:
            return None
        c = self.num.coeffs()[0]
        c = Fraction(int(c.p), int(c.q))
        return (Fraction(self.shift, self.n), c) if c > 0 else None

    def simplified(self) -> "ExpNumber | Fraction":
        """A :class:`~fractions.Fraction` when the number is rational, else the number."""
        return self.rational() if self.is_rational() else self

    def _key(self) -> tuple:
        return (self.n, self.shift, tuple(self.num.coeffs()), tuple(self.den.coeffs()))

    def __eq__(self, other) -> bool:
        other = _coerce(other)
        if other is NotImplemented:
            return False
        return self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.rational()) if self.is_rational() else hash(self._key())
        return self._hash

    # --- order (certified) ----------------------------------------------------------------

    def enclosure(self, bits: int = 64) -> arb:
        """A ball containing the number, computed with ``bits`` of working precision."""
        with ctx.workprec(bits):
            t = arb(fmpq(1, self.n)).exp()
            num = arb_poly([arb(c) for c in self.num.coeffs()])(t)
            den = arb_poly([arb(c) for c in self.den.coeffs()])(t)
            return num / den * t ** self.shift if self.shift >= 0 else num / (den * t ** -self.shift)

    def sign(self) -> int:
        """``−1``, ``0`` or ``1``: exact for 0, otherwise certified by refinement."""
        if self.num.is_zero():
            return 0
        bits = 64
        while bits <= MAX_SIGN_BITS:
            ball = self.enclosure(bits)
            if ball > 0:
                return 1
            if ball < 0:
                return -1
            bits *= 2
        raise ArithmeticError(f"the sign of {self} was not separated at {MAX_SIGN_BITS} bits")

    def __lt__(self, other) -> bool:
        return (self - other).sign() < 0

    def __le__(self, other) -> bool:
        return (self - other).sign() <= 0

    def __gt__(self, other) -> bool:
        return (self - other).sign() > 0

    def __ge__(self, other) -> bool:
        return (self - other).sign() >= 0

    def bounds(self, bits: int = 64) -> tuple[Fraction, Fraction]:
        """Rational lower and upper bounds (the ball's ends, exactly, rounded outwards at
        ``bits`` bits: at the default 53 bits of arb's context they would be ten orders of
        magnitude wider than the ball at 128)."""
        with ctx.workprec(bits):
            ball = self.enclosure(bits)
            return _arf_fraction(ball.lower()), _arf_fraction(ball.upper())

    def log_bounds(self, bits: int = 64) -> tuple[Fraction, Fraction]:
        """Rational bounds on ``log(self)`` for a positive number (an arb ball's ends)."""
        with ctx.workprec(bits):
            ball = self.enclosure(bits).log()
            return _arf_fraction(ball.lower()), _arf_fraction(ball.upper())

    def __float__(self) -> float:
        """The nearest float, for reading only (no verdict reads it)."""
        return float(self.enclosure(80).mid())

    # --- text -----------------------------------------------------------------------------

    def __str__(self) -> str:
        if self.is_rational():
            value = self.rational()
            return str(value)
        if self.den.degree() == 0:  # a sum of powers of e, negative exponents included
            return _sum_text(self.num, self.shift, self.n)
        num = _sum_text(self.num, self.shift if self.shift > 0 else 0, self.n)
        den = _sum_text(self.den, -self.shift if self.shift < 0 else 0, self.n)
        if den == "1":
            return num
        wrap = (lambda text: f"({text})" if _compound(text) else text)
        return f"{wrap(num)}/{wrap(den)}"

    def __repr__(self) -> str:
        return f"ExpNumber('{self}')"

    def __reduce__(self):
        return (_rebuilt, (self.n, self.shift, [str(c) for c in self.num.coeffs()],
                           [str(c) for c in self.den.coeffs()]))


def _compound(text: str) -> bool:
    """Whether ``text`` needs parentheses as a numerator or denominator."""
    single_power = text.startswith("e^(") and text.endswith(")") and text.count("(") == 1
    return " " in text or "·" in text or ("/" in text and not single_power)


def _rebuilt(n: int, shift: int, num: list[str], den: list[str]) -> ExpNumber:
    return ExpNumber(n, shift, fmpq_poly([fmpq(Fraction(c).numerator, Fraction(c).denominator)
                                          for c in num]),
                     fmpq_poly([fmpq(Fraction(c).numerator, Fraction(c).denominator) for c in den]))


def _lifted_shift(poly: fmpq_poly, s: int) -> fmpq_poly:
    """``t^s·poly`` (``s ≥ 0``)."""
    if not s or poly.is_zero():
        return poly
    _check_degree(poly.degree() + s)
    return fmpq_poly([0] * s + list(poly.coeffs()))


def _coerce(value) -> "ExpNumber":
    if isinstance(value, ExpNumber):
        return value
    if isinstance(value, fmpq) or (isinstance(value, Rational) and not isinstance(value, bool)):
        return ExpNumber.of(value)
    if isinstance(value, bool):
        return ExpNumber.of(int(value))
    return NotImplemented


def _ball_of(value) -> arb:
    """A 64-bit ball containing a rational or an :class:`ExpNumber` (kept with the number)."""
    if type(value) is not ExpNumber:
        value = Fraction(value)
        return arb(fmpq(value.numerator, value.denominator))
    if value._ball is None:
        value._ball = value.enclosure(64)
    return value._ball


def product_exceeds(a, d, n, b) -> bool:
    """Whether ``a·d > n·b``, exactly, for rationals and numbers of ``Q(e^(1/n))`` — the test of
    a ratio ``a/b`` against the largest ratio ``n/d`` so far, as the DP scans make it.

    When one of them is an :class:`ExpNumber`, the products of the four numbers' 64-bit balls
    (each computed once per number and kept) decide when they are apart — arb's bounds are
    rigorous, so the answer is the exact one — and the exact sign of ``a·d − n·b`` decides
    otherwise (ties, near ties).  This skips building and reducing the two products (a
    polynomial gcd each) for all but the close comparisons.  Rationals are compared exactly.

    >>> third = ExpNumber.exp(Fraction(-1, 3))
    >>> product_exceeds(third, 2, 1, 1), product_exceeds(third * 3, third, third, third * 3)
    (True, False)
    """
    if type(a) is not ExpNumber and type(b) is not ExpNumber and type(n) is not ExpNumber \
            and type(d) is not ExpNumber:
        return a * d > n * b
    with ctx.workprec(64):
        left, right = _ball_of(a) * _ball_of(d), _ball_of(n) * _ball_of(b)
        if left > right:
            return True
        if left < right:
            return False
    return _coerce(a) * _coerce(d) > _coerce(n) * _coerce(b)


def _arf_fraction(value) -> Fraction:
    mantissa, exponent = value.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _power_text(k: int, n: int) -> str:
    """``e^(k/n)`` as text."""
    r = Fraction(k, n)
    if r == 0:
        return ""
    if r == 1:
        return "e"
    return f"e^{r}" if r.denominator == 1 and r > 0 else f"e^({r})"


def _sum_text(poly: fmpq_poly, shift: int, n: int) -> str:
    """``t^shift·poly(t)`` with ``t = e^(1/n)`` as a sum of terms ``c·e^r``, highest first."""
    terms = []
    for i, c in reversed(list(enumerate(poly.coeffs()))):
        if not c:
            continue
        power = _power_text(i + shift, n)
        value = Fraction(int(c.p), int(c.q))
        magnitude = abs(value)
        if not power:
            body = fraction_str(magnitude)
        elif magnitude == 1:
            body = power
        else:
            body = f"{fraction_str(magnitude)}·{power}"  # any size (str stops at 4,300 digits)
        terms.append(("-" if value < 0 else "+", body))
    text = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    for sign, body in terms[1:]:
        text += f" {sign} {body}"
    return text


def exact_number(value) -> "ExpNumber | Fraction":
    """A probability as the engine returns it: a :class:`~fractions.Fraction` when rational (so
    programs with rational noise keep their exact rational laws), else an :class:`ExpNumber`."""
    if isinstance(value, ExpNumber):
        return value.simplified()
    if isinstance(value, fmpq):
        return Fraction(int(value.p), int(value.q))
    return Fraction(value)


_ZERO = ExpNumber.of(0)
_ONE = ExpNumber.of(1)
