"""Certified enclosures: a real number known to lie in ``[lower, upper]`` with exact rational ends.

The probabilities of a program that draws Gaussian noise are not exact numbers of any field the
toolkit can compute in (the Gaussian integral of a product of error functions has no closed
form), so the engine returns them as enclosures (:mod:`~pufferfish.models.programs.gaussian`):
rigorous bounds, never a float.  Arithmetic on enclosures is interval arithmetic with exact
rational ends, rounded outward to :data:`BITS` significant bits so that sums over thousands of
paths stay cheap; the result always contains the true value.

An enclosure cannot be compared (``<``, ``>=``…): a comparison of two overlapping intervals has no
answer, and a verdict must never be taken on a guess.  Code that decides with enclosures reads
their ends explicitly (:meth:`Enclosure.sign` answers ``None`` when the interval straddles 0);
any other code path that meets one raises :class:`UncertainComparison`, a model error naming
the commands that accept certified probabilities.

>>> from fractions import Fraction
>>> third = Enclosure(Fraction(1, 3) - Fraction(1, 10**9), Fraction(1, 3) + Fraction(1, 10**9))
>>> (third + third + third).contains(1)
True
>>> (third - Fraction(1, 3)).sign() is None
True
>>> print(Enclosure(Fraction(1, 4), Fraction(1, 4)))
[0.250000, 0.250000]
"""

from __future__ import annotations

from fractions import Fraction
from math import floor

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import decimal_bound

__all__ = ["Enclosure", "UncertainComparison", "BITS"]

BITS = 96
"""Significant bits kept by outward rounding of an enclosure's ends."""


class UncertainComparison(ModelError):
    """A comparison asked of certified (interval) probabilities outside the code that decides
    with intervals."""


def _round(value: Fraction, up: bool) -> Fraction:
    """``value`` rounded to :data:`BITS` significant bits, towards +∞ when ``up`` else −∞."""
    if not value or value.denominator == 1:
        return value
    numerator, denominator = value.numerator, value.denominator
    shift = BITS - (abs(numerator).bit_length() - denominator.bit_length())
    if shift <= 0:
        return value
    scaled = Fraction(numerator << shift, denominator)
    if scaled.denominator == 1:
        return value
    whole = floor(scaled) + (1 if up else 0)
    return Fraction(whole, 1 << shift)


def _ends(value) -> tuple[Fraction, Fraction]:
    if isinstance(value, Enclosure):
        return value.lower, value.upper
    if hasattr(value, "bounds") and hasattr(value, "is_rational"):  # an ExpNumber
        if value.is_rational():
            exact = value.rational()
            return exact, exact
        return value.bounds(BITS + 32)
    exact = Fraction(value)
    return exact, exact


class Enclosure:
    """A real number in ``[lower, upper]`` (exact rational ends; module docstring)."""

    __slots__ = ("lower", "upper")

    def __init__(self, lower, upper) -> None:
        lower, upper = Fraction(lower), Fraction(upper)
        if lower > upper:
            raise ValueError(f"an enclosure needs lower <= upper, got [{lower}, {upper}]")
        self.lower, self.upper = lower, upper

    @classmethod
    def of(cls, value) -> "Enclosure":
        """An enclosure of an exact number (a Fraction, an int, an ExpNumber) or itself."""
        if isinstance(value, Enclosure):
            return value
        return cls(*_ends(value))

    @classmethod
    def _outward(cls, lower: Fraction, upper: Fraction) -> "Enclosure":
        return cls(_round(lower, up=False), _round(upper, up=True))

    # --- arithmetic ---------------------------------------------------------------------------

    def __add__(self, other) -> "Enclosure":
        low, high = _ends(other)
        return Enclosure._outward(self.lower + low, self.upper + high)

    __radd__ = __add__

    def __neg__(self) -> "Enclosure":
        return Enclosure(-self.upper, -self.lower)

    def __sub__(self, other) -> "Enclosure":
        low, high = _ends(other)
        return Enclosure._outward(self.lower - high, self.upper - low)

    def __rsub__(self, other) -> "Enclosure":
        return (-self) + other

    def __mul__(self, other) -> "Enclosure":
        low, high = _ends(other)
        products = (self.lower * low, self.lower * high, self.upper * low, self.upper * high)
        return Enclosure._outward(min(products), max(products))

    __rmul__ = __mul__

    def __truediv__(self, other) -> "Enclosure":
        low, high = _ends(other)
        if low <= 0 <= high:
            raise ZeroDivisionError("division by an enclosure that contains 0")
        return self * Enclosure._outward(1 / high, 1 / low)

    def __rtruediv__(self, other) -> "Enclosure":
        return Enclosure.of(other) / self

    def __bool__(self) -> bool:
        """False only for the exact zero ``[0, 0]`` (an impossible output)."""
        return bool(self.lower or self.upper)

    # --- reading ------------------------------------------------------------------------------

    def contains(self, value) -> bool:
        """Whether the exact number ``value`` lies in the interval."""
        low, high = _ends(value)
        return self.lower <= low and high <= self.upper

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    def sign(self) -> int | None:
        """``1``, ``−1``, ``0`` (exactly zero) or ``None`` when the interval straddles 0."""
        if self.lower > 0:
            return 1
        if self.upper < 0:
            return -1
        if self.lower == self.upper == 0:
            return 0
        return None

    def positive_part(self) -> "Enclosure":
        """An enclosure of ``max(x, 0)``."""
        return Enclosure(max(self.lower, 0), max(self.upper, 0))

    def __float__(self) -> float:
        """The midpoint, for reading only (no verdict reads it)."""
        return float((self.lower + self.upper) / 2)

    def __str__(self) -> str:
        return f"[{_decimal(self.lower, False)}, {_decimal(self.upper, True)}]"

    def __repr__(self) -> str:
        return f"Enclosure({self})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, Enclosure) and self.lower == other.lower
                and self.upper == other.upper)

    def __hash__(self) -> int:
        return hash((Enclosure, self.lower, self.upper))

    def __reduce__(self):
        return (Enclosure, (self.lower, self.upper))

    def _refused(self, *_):
        raise UncertainComparison(
            "this computation compares certified (interval) probabilities, which it cannot do "
            "exactly: a program with Gaussian noise, or whose comparisons between integer "
            "noise values form a cycle, has output probabilities known only as "
            "certified intervals; `pufferfish approximate-dp` (pufferfish.approximate_dp) decides "
            "its (ε, δ) and pure-ε levels from them, and pufferfish.pufferfish_level gives "
            "certified bounds on its Pufferfish level")

    __lt__ = __le__ = __gt__ = __ge__ = _refused


def _decimal(value: Fraction, up: bool, digits: int = 6) -> str:
    """``value`` as a decimal with ``digits`` significant digits, rounded outward."""
    return decimal_bound(value, up, digits)
