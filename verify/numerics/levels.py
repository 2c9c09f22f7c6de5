"""Exact privacy levels: the real numbers ``(q + log r)/d`` and the one sign decision they need.

Every privacy level the toolkit meets is the log of an exact rational (a worst-case likelihood
ratio), a rational ε written by a user, or a sum, difference or integer multiple or quotient of
such numbers (Bai et al., Composition for Pufferfish Privacy, §6.2, Theorems 6–7; Definitions 1–5
bound ratios by ``e^ε``).  They all have the form

    (q + log r) / d,      q rational, r a positive rational or ∞, d a positive integer,

which is :class:`LogValue`.  Comparing two such numbers reduces to the sign of ``q + log R`` for
one exact rational ``R`` (:func:`rational_plus_log_sign`): exact when ``q = 0`` or ``R = 1``; for
rational ``q ≠ 0``, ``e^{-q}`` is irrational (Lindemann–Weierstrass), so ``q + log R ≠ 0`` and
interval arithmetic at doubling precision (:func:`~pufferfish.verify.numerics.intervals.certified_sign`)
separates it from 0 after finitely many steps.  No float decides anything here.

Budgets are read by :func:`parse_level` from the forms ``"0.5"``, ``"1/2"``, ``"log(3)"``,
``"log(9/2)"`` and ``"inf"`` (decimals are exact decimal fractions).

>>> LogValue.log(Fraction(3)) > LogValue.rational(Fraction(1))     # log 3 > 1
True
>>> (LogValue.rational(Fraction(2)) - LogValue.log(Fraction(6, 5))).divided(2).text
'(2 - log(6/5))/2'
>>> rational_plus_log_sign(Fraction(-1), Fraction(271828, 100000))   # log 2.71828 < 1
-1
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, Ratio, exact, fraction_str
from pufferfish.verify.numerics.intervals import (certified_sign, endpoints, interval_context,
                                                  log_interval, rational_interval)

ACCEPTED_FORMS = "0.5, 1/2, log(3), log(9/2) or inf"
"""The budget forms :func:`parse_level` reads, for error messages."""

MAX_TEXT_LENGTH = 1000
"""Longest budget text read (a longer number is refused before any arithmetic)."""

MAX_DECIMAL_EXPONENT = 1000
"""Largest ``|e|`` of a decimal exponent ``…e±N`` in a budget (``1e999999999`` would take hours
to expand exactly, and no privacy budget needs more than a thousand digits)."""

LOG_FORM = re.compile(r"^\s*log\s*\(\s*([^()]+?)\s*\)\s*$")
_EXPONENT = re.compile(r"[eE]([+-]?\d+)\s*$")


def rational_plus_log_sign(q: Fraction, r: Fraction) -> int:
    """The exact sign (-1, 0, +1) of ``q + log r`` for rationals ``q`` and ``r > 0``.

    ``0`` only when ``q = 0`` and ``r = 1``.  Cost: exact when ``q = 0`` or ``r = 1``; otherwise
    interval evaluations at 64, 128, … bits until the enclosure excludes 0 — a number of bits about
    ``-log2 |q + log r|`` (``ArithmeticError`` past 2^16 bits, a distance below ``2^-65000``).
    """
    q, r = Fraction(q), Fraction(r)
    if r <= 0:
        raise ValueError(f"log of a non-positive number: {r}")
    if q == 0:
        return (r > 1) - (r < 1)
    if r == 1:
        return (q > 0) - (q < 0)
    return certified_sign(lambda context: rational_interval(context, q) + log_interval(context, r))


@dataclass(frozen=True)
class LogValue:
    """The real number ``(q + log r) / d``; ``r = INFINITY`` is +∞.  ``numerical`` marks a value
    that came from a numerical (uncertified) computation, carried through arithmetic."""

    q: Fraction = Fraction(0)
    r: Ratio = Fraction(1)
    d: int = 1
    numerical: bool = False

    def __post_init__(self) -> None:
        if self.r != INFINITY and self.r <= 0:
            raise ValueError("r must be positive")
        if self.d < 1:
            raise ValueError("d must be a positive integer")

    @classmethod
    def rational(cls, q: Fraction, numerical: bool = False) -> "LogValue":
        """The rational number ``q``."""
        return cls(Fraction(q), Fraction(1), 1, numerical)

    @classmethod
    def log(cls, r: Ratio) -> "LogValue":
        """``log r`` for a positive rational ``r`` or ∞."""
        return cls(Fraction(0), r if r == INFINITY else Fraction(r), 1)

    @classmethod
    def parse(cls, text: object, path: str) -> "LogValue":
        """``"inf"``, ``"log(9/2)"``, ``"1/2"``, ``"0.5"`` (exact) or an int (:func:`parse_level`)."""
        return parse_level(text if isinstance(text, str) else str(exact(text, path)), path)

    @property
    def infinite(self) -> bool:
        return self.r == INFINITY

    def _scaled(self, factor: int) -> tuple[Fraction, Ratio]:
        """``(q·f, r^f)``: the numerator over ``d·f``."""
        return self.q * factor, (INFINITY if self.infinite else self.r ** factor)

    def __add__(self, other: "LogValue") -> "LogValue":
        if self.infinite or other.infinite:
            return LogValue(Fraction(0), INFINITY, 1, self.numerical or other.numerical)
        if self.d == other.d:
            return LogValue(self.q + other.q, self.r * other.r, self.d,
                            self.numerical or other.numerical)
        q1, r1 = self._scaled(other.d)
        q2, r2 = other._scaled(self.d)
        return LogValue(q1 + q2, r1 * r2, self.d * other.d, self.numerical or other.numerical)

    def __neg__(self) -> "LogValue":
        if self.infinite:
            raise ValueError("-∞ is not representable")
        return LogValue(-self.q, 1 / self.r, self.d, self.numerical)

    def __sub__(self, other: "LogValue") -> "LogValue":
        return self + (-other)

    def times(self, k: int) -> "LogValue":
        """``k · self`` for an integer ``k >= 0``."""
        if k == 0:
            return LogValue(numerical=self.numerical)
        if self.infinite:
            return self
        return LogValue(self.q * k, self.r ** k, self.d, self.numerical)

    def divided(self, k: int) -> "LogValue":
        """``self / k`` for an integer ``k >= 1``."""
        return self if self.infinite else LogValue(self.q, self.r, self.d * k, self.numerical)

    def sign(self) -> int:
        """The exact sign of the value (+1, 0, -1)."""
        if self.infinite:
            return 1
        return rational_plus_log_sign(self.q, self.r)

    def compare(self, other: "LogValue") -> int:
        """``-1, 0, +1`` as ``self <, =, > other`` (exact)."""
        if self.infinite or other.infinite:
            return (self.infinite > other.infinite) - (self.infinite < other.infinite)
        return (self - other).sign()

    def __lt__(self, other: "LogValue") -> bool:
        return self.compare(other) < 0

    def __le__(self, other: "LogValue") -> bool:
        return self.compare(other) <= 0

    def bounds(self, bits: int = 64) -> tuple[float, float]:
        """Certified ``[lower, upper]`` (floats one step outside the nearest doubles of the
        endpoints of an enclosure at ``bits + 20`` bits)."""
        if self.infinite:
            return (math.inf, math.inf)
        context = interval_context(bits + 20)
        value = (rational_interval(context, self.q) + log_interval(context, self.r)) / self.d
        low, high = endpoints(value)
        return (math.nextafter(float(low), -math.inf), math.nextafter(float(high), math.inf))

    def lower_fraction(self, bits: int = 64) -> Fraction:
        """An exact rational ``<= value`` (for samplers: a safe, slightly smaller ε)."""
        return Fraction(self.bounds(bits)[0])

    def to_float(self) -> float:
        """Midpoint of :meth:`bounds` — for reading only."""
        low, high = self.bounds()
        return low if low == high else (low + high) / 2

    @property
    def text(self) -> str:
        if self.infinite:
            return "inf"
        if self.r == 1:
            return fraction_str(self.q / self.d)
        parts = []
        if self.q or self.r == 1:
            parts.append(fraction_str(self.q))
        if self.r != 1:
            log = f"log({fraction_str(self.r)})" if self.r > 1 else f"log({fraction_str(1 / self.r)})"
            if parts:
                parts.append(("+ " if self.r > 1 else "- ") + log)
            else:
                parts.append(log if self.r > 1 else "-" + log)
        body = " ".join(parts)
        return body if self.d == 1 else f"({body})/{self.d}"

    def to_dict(self) -> dict:
        low, high = self.bounds()
        data = {"value": self.text, "float": self.to_float(), "bounds": [low, high]}
        if self.numerical:
            data["numerical"] = True
        return data


def parse_level(text: object, path: str = "--epsilon") -> LogValue:
    """Read a non-negative level: ``"0.5"``, ``"1/2"``, ``"log(3)"``, ``"log(9/2)"``, ``"inf"``,
    an ``int`` or a :class:`~fractions.Fraction`.

    Floats are refused (they are not exact; the message says how to write the number), and so
    are texts longer than :data:`MAX_TEXT_LENGTH` and decimal exponents beyond
    :data:`MAX_DECIMAL_EXPONENT`, before any arithmetic.  Errors are :class:`ModelError` located
    at ``path`` and name the accepted forms.

    >>> parse_level("log(9/2)").r, parse_level("0.25").q
    (Fraction(9, 2), Fraction(1, 4))
    """
    if not isinstance(text, str):
        value = exact(text, path)
        if value < 0:
            raise ModelError(f"a privacy budget must be >= 0, got {fraction_str(value)}", path)
        return LogValue.rational(value)
    stripped = text.strip()
    _check_size(stripped, path)
    if stripped.lower() in ("inf", "infinity"):
        return LogValue.log(INFINITY)
    match = LOG_FORM.match(stripped)
    if match:
        r = _number(match.group(1), text, path)
        if r < 1:
            raise ModelError(f"log({fraction_str(r)}) is negative; a budget must be >= 0", path)
        return LogValue.log(r)
    value = _number(stripped, text, path)
    if value < 0:
        raise ModelError(f"a privacy budget must be >= 0, got {fraction_str(value)}", path)
    return LogValue.rational(value)


def _check_size(text: str, path: str) -> None:
    if len(text) > MAX_TEXT_LENGTH:
        raise ModelError(f"the budget is {len(text):,} characters long; write at most "
                         f"{MAX_TEXT_LENGTH} ({ACCEPTED_FORMS})", path)
    exponent = _EXPONENT.search(text.rstrip(") "))
    if exponent and abs(int(exponent.group(1))) > MAX_DECIMAL_EXPONENT:
        raise ModelError(f"the decimal exponent in {text!r} is out of range: budgets accept "
                         f"exponents between -{MAX_DECIMAL_EXPONENT} and {MAX_DECIMAL_EXPONENT} "
                         "(write \"inf\" for an unbounded budget)", path)


def _number(part: str, text: str, path: str) -> Fraction:
    try:
        return exact(part, path)
    except ModelError as error:
        raise ModelError(f"{text!r} is not a number or a budget; write {ACCEPTED_FORMS}",
                         path) from error


__all__ = ["LogValue", "parse_level", "rational_plus_log_sign", "ACCEPTED_FORMS"]
