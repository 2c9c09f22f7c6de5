"""Exact numbers: the single entry point that turns user input into :class:`fractions.Fraction`.

Exactness policy (DESIGN.md, "Exactness policy"): a model never holds a float.  Integers, strings
such as ``"3/8"`` or ``"0.125"`` (a decimal string denotes the exact decimal fraction), ``Fraction``
and sympy rationals are accepted; floats are refused with a message saying how to write the number
exactly.  Infinite ratios are represented by the sentinel :data:`INFINITY` (``math.inf``), which
compares exactly with every ``Fraction``; no other float ever enters a computation.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Union

from pufferfish.models.errors import ModelError

INFINITY = math.inf
"""Sentinel for an unbounded ratio (``x / 0`` with ``x > 0``)."""

Ratio = Union[Fraction, float]
"""A non-negative exact ratio, or :data:`INFINITY`."""

MAX_DIGITS = 4000
"""The most decimal digits an exact number read from input may have in its numerator and in its
denominator (a decimal string ``"m.fEk"`` counts the digits of its value written out, so ``"1e-4000"``
is the smallest power of ten accepted).  Python refuses to convert integers of more than 4,300
digits to and from text, and such numbers make exact arithmetic slow without making a model more
precise; longer input is refused with this limit named."""

_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_DECIMAL_PARTS = re.compile(r"^[+-]?(\d*)\.?(\d*)(?:[eE]([+-]?)(\d+))?$")
_FRACTION = re.compile(r"^[+-]?\d+\s*/\s*[+-]?\d+$")
_EXPONENT_DIGITS = 9


def exact(value: object, path: str = "") -> Fraction:
    """Return ``value`` as an exact :class:`Fraction`.

    Accepts ``int``, ``Fraction``, sympy ``Rational``/``Integer``, and strings ``"3/8"``,
    ``"0.125"``, ``"1e-3"``, ``"7"``.  Refuses ``float`` (which cannot be trusted to be the number
    the user meant), ``bool`` and anything else, raising :class:`ModelError` located at ``path``.
    A string whose numerator or denominator would have more than :data:`MAX_DIGITS` digits is
    refused before any digit is converted (so ``"1e-999999999"`` is refused at once instead of
    building ``10**999999999``); cost O(length of the text) plus the conversion of at most
    :data:`MAX_DIGITS` digits.

    >>> exact("3/8"), exact("0.125"), exact(2)
    (Fraction(3, 8), Fraction(1, 8), Fraction(2, 1))
    >>> exact("1e-999999999", "epsilon")
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: epsilon: '1e-999999999' has 999,999,999 digits in its denominator written out; an exact number may have at most 4,000 digits
    """
    if isinstance(value, bool):
        raise ModelError(f"expected a number, got the boolean {value!r}", path)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        hint = _float_hint(value)
        raise ModelError(
            f"the float {value!r} is not accepted because it is not exact; write it as a string "
            f"such as {hint}", path)
    if isinstance(value, str):
        text = value.strip()
        if _FRACTION.match(text):
            for part, name in zip(text.split("/"), ("numerator", "denominator")):
                _check_digits(len(part.strip().lstrip("+-")), name, value, path)
            num, den = (int(part) for part in text.split("/"))
            if den == 0:
                raise ModelError(f"{value!r} divides by zero", path)
            return Fraction(num, den)
        if _DECIMAL.match(text):
            _check_decimal_size(text, value, path)
            return Fraction(text)
        raise ModelError(
            f"{value!r} is not a number; write an integer, a fraction \"3/8\" or a decimal \"0.125\"",
            path)
    if _is_sympy_rational(value):
        return Fraction(int(value.p), int(value.q))  # type: ignore[attr-defined]
    raise ModelError(f"expected a number, got {type(value).__name__} {value!r}", path)


def probability(value: object, path: str = "") -> Fraction:
    """Like :func:`exact`, and also checks ``0 <= value <= 1``."""
    number = exact(value, path)
    if number < 0 or number > 1:
        raise ModelError(f"probability {fraction_str(number)} is outside [0, 1]", path)
    return number


def ratio_key(ratio: Ratio) -> tuple[int, Fraction]:
    """A sort key that orders exact ratios with :data:`INFINITY` last (no float comparison).

    >>> ratio_key(INFINITY) > ratio_key(Fraction(10**100))
    True
    """
    if ratio == INFINITY:
        return (1, Fraction(0))
    return (0, ratio) if _transcendental(ratio) else (0, Fraction(ratio))


def _transcendental(value: object) -> bool:
    """Whether ``value`` is an exact number of ``Q(e^(1/n))`` that is not rational
    (:class:`~pufferfish.models.programs.exp_numbers.ExpNumber`; ordered by certified signs)."""
    return hasattr(value, "is_rational") and not value.is_rational()


def _enclosed(value: object) -> bool:
    """Whether ``value`` is a certified enclosure
    (:class:`~pufferfish.models.enclosures.Enclosure`, which imports this module: recognised by
    its exact ends)."""
    return isinstance(getattr(value, "lower", None), Fraction) and hasattr(value, "upper")


def exact_ratio(numerator, denominator):
    """``numerator / denominator`` (``denominator ≠ 0``) as a Fraction, or as an exact number of
    ``Q(e^(1/n))`` when either is one and the quotient is not rational."""
    if hasattr(numerator, "is_rational") or hasattr(denominator, "is_rational"):
        quotient = numerator / denominator
        return quotient.simplified() if hasattr(quotient, "simplified") else quotient
    if isinstance(numerator, int) and isinstance(denominator, int):
        return Fraction(numerator, denominator)
    return Fraction(numerator) / Fraction(denominator)


def fraction_str(value: Ratio) -> str:
    """Canonical text for an exact number: ``"3/8"``, ``"2"``, or ``"inf"``; an exact number of
    ``Q(e^(1/n))`` (:class:`~pufferfish.models.programs.exp_numbers.ExpNumber`) as its closed
    form, such as ``"(e^(1/2) - 1)/(e^(1/2) + 1)"``."""
    if _transcendental(value) or _enclosed(value):
        return str(value)
    if isinstance(value, float):
        if value == INFINITY:
            return "inf"
        raise TypeError(f"not an exact number: {value!r}")
    value = Fraction(value)
    if value.denominator == 1:
        return _integer_text(value.numerator)
    return f"{_integer_text(value.numerator)}/{_integer_text(value.denominator)}"


def _integer_text(number: int) -> str:
    """Decimal text of any integer.  ``str`` refuses integers of more than 4,300 digits (Python's
    conversion limit); results of exact arithmetic can be longer (``(1/3)**10000``), so those are
    written through :class:`decimal.Decimal`, whose conversion is exact and unlimited."""
    if number.bit_length() < 14000:
        return str(number)
    return str(Decimal(number))


def epsilon_str(ratio: Ratio) -> str:
    """The privacy level ``log(ratio)`` as exact text: ``"0"``, ``"log(9/2)"``, ``"inf"``."""
    if ratio == INFINITY:
        return "inf"
    if ratio == 1:
        return "0"
    form = ratio.log_form() if _transcendental(ratio) else None
    if form is not None:  # c·e^q: the level q + log(c), written exactly
        q, c = form
        if c == 1:
            return fraction_str(q)
        return f"{fraction_str(q)} {'+' if c > 1 else '-'} log({fraction_str(max(c, 1 / c))})"
    return f"log({fraction_str(ratio)})"


def epsilon_float(ratio: Ratio) -> float:
    """``log(ratio)`` as a float, for reading only (never for a verdict)."""
    if ratio == INFINITY:
        return math.inf
    if ratio == 0:
        return -math.inf
    if _transcendental(ratio):
        return math.log(float(ratio))
    return math.log(ratio.numerator) - math.log(ratio.denominator)  # type: ignore[union-attr]


def decimal_text(value, *, log: bool = False, digits: int = 6) -> str:
    """A number (its logarithm with ``log``) for reading: ``"≈ 0.693147"`` for a rational, and for
    an exact number of ``Q(e^(1/n))`` a certified decimal, ``"∈ [0.299604, 0.299606]"`` (ball
    bounds rounded outwards to ``digits`` significant digits)."""
    if _enclosed(value):
        low, high = value.lower, value.upper
        if log:
            low, high = _log_bounds(low, 96)[0], _log_bounds(high, 96)[1]
        return f"∈ [{_rounded(low, digits, -1)}, {_rounded(high, digits, 1)}]"
    if _transcendental(value):
        low, high = value.log_bounds(96) if log else value.bounds(96)
        return f"∈ [{_rounded(low, digits, -1)}, {_rounded(high, digits, 1)}]"
    number = epsilon_float(value) if log else float(value)
    return f"≈ {number:.{digits}g}"


def decimal_bound(value: Fraction, up: bool, digits: int = 6) -> str:
    """``value`` to ``digits`` significant digits, rounded up (``up``) or down: a decimal that
    is a certified bound of ``value``.

    >>> decimal_bound(Fraction(2, 3), up=True), decimal_bound(Fraction(2, 3), up=False)
    ('0.666667', '0.666666')
    """
    return _rounded(value, digits, 1 if up else -1)


def log_bound(value: Fraction, up: bool, digits: int = 6) -> str:
    """A certified decimal bound of ``log(value)`` for a rational ``value > 0``: rounded up
    (``up``) or down to ``digits`` significant digits.

    >>> log_bound(Fraction(2), up=False), log_bound(Fraction(2), up=True)
    ('0.693147', '0.693148')
    """
    low, high = _log_bounds(Fraction(value), 96)
    return _rounded(high, digits, 1) if up else _rounded(low, digits, -1)


def _log_bounds(value: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rational bounds on ``log(value)`` for ``value > 0`` (an arb ball's ends)."""
    from flint import arb, ctx, fmpq
    with ctx.workprec(bits):
        ball = arb(fmpq(value.numerator, value.denominator)).log()
        low, high = ball.lower().man_exp(), ball.upper().man_exp()
    return (Fraction(int(low[0])) * Fraction(2) ** int(low[1]),
            Fraction(int(high[0])) * Fraction(2) ** int(high[1]))


def _floor_log10(value: Fraction) -> int:
    """``⌊log10(value)⌋`` of a rational ``value > 0``, exactly (``math.log10`` of a Fraction goes
    through a float, which underflows below ``10^(−323)``); ``math.log10`` of each integer part
    is exact to far less than one, then corrected."""
    estimate = math.floor(math.log10(value.numerator) - math.log10(value.denominator))
    while Fraction(10) ** estimate > value:
        estimate -= 1
    while Fraction(10) ** (estimate + 1) <= value:
        estimate += 1
    return estimate


def _rounded(value: Fraction, digits: int, direction: int) -> str:
    """``value`` to ``digits`` significant digits, rounded down (``-1``) or up (``1``), written
    from integers (no float can move the bound the wrong way)."""
    if not value:
        return "0"
    exponent = _floor_log10(abs(Fraction(value))) - digits + 1
    steps = value / Fraction(10) ** exponent
    steps = math.floor(steps) if direction < 0 else math.ceil(steps)
    if exponent >= 0:
        return str(steps * 10 ** exponent)
    places = -exponent
    text = str(abs(steps)).rjust(places + 1, "0")
    return ("-" if steps < 0 else "") + f"{text[:-places]}.{text[-places:]}"


def ratio(numerator: Fraction, denominator: Fraction) -> Ratio:
    """``numerator / denominator`` for non-negative numbers, with ``x/0 = inf`` for ``x > 0``.

    ``0/0`` is a caller's decision (the Pufferfish condition is vacuous there), so it raises.
    """
    if denominator == 0:
        if numerator == 0:
            raise ZeroDivisionError("0/0 has no ratio; the caller must skip it")
        return INFINITY
    return Fraction(numerator) / denominator


def json_number(value: Ratio) -> str:
    """An exact number as it is written in JSON output (a string, ``"inf"`` for infinity)."""
    return fraction_str(value)


def _check_digits(digits: int, part: str, value: object, path: str) -> None:
    if digits > MAX_DIGITS:
        raise ModelError(f"{_short_text(value)} has {digits:,} digits in its {part}; an exact "
                         f"number may have at most {MAX_DIGITS:,} digits", path)


def _check_decimal_size(text: str, value: object, path: str) -> None:
    """Refuse a decimal string whose exact fraction has more than :data:`MAX_DIGITS` digits.

    ``"m.f e±k"`` is ``int(mf) · 10^(±k − len(f))``: the numerator has about ``len(mf) + shift``
    digits for a positive shift, the denominator ``−shift + 1`` for a negative one.
    """
    whole, fraction, sign, exponent = _DECIMAL_PARTS.match(text).groups()
    _check_digits(len(whole) + len(fraction), "numerator", value, path)
    if exponent is None:
        power = 0
    else:
        digits = exponent.lstrip("0")
        if len(digits) > _EXPONENT_DIGITS:
            raise ModelError(f"{_short_text(value)} has an exponent of {len(digits):,} digits; an "
                             f"exact number may have at most {MAX_DIGITS:,} digits", path)
        power = int(digits or "0") * (-1 if sign == "-" else 1)
    shift = power - len(fraction)
    if shift > 0:
        _check_digits(len(whole) + len(fraction) + shift, "numerator written out", value, path)
    elif shift < 0:
        _check_digits(-shift, "denominator written out", value, path)


def _short_text(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "...'"


def _float_hint(value: float) -> str:
    text = getattr(value, "text", None) or repr(value)
    if math.isfinite(value) or _DECIMAL.match(text):
        # The JSON text of the number (kept by the model-file reader) is exact as a string, even
        # when the float it would become overflows (1e400).
        exact_text = Fraction(text) if _is_small_decimal(text) else None
        if exact_text is not None and exact_text.denominator != 1 and len(text) < 30:
            return f"\"{text}\" (decimal strings are read exactly) or \"{exact_text.limit_denominator(10**6)}\""
        return f"\"{text}\" (decimal strings are read exactly)"
    return ("\"1/2\" (NaN and Infinity have no exact value; a JSON model file holds exact "
            "numbers only)")


def _is_small_decimal(text: str) -> bool:
    try:
        _check_decimal_size(text, text, "")
    except ModelError:
        return False
    return True


def _is_sympy_rational(value: object) -> bool:
    module = type(value).__module__
    return module.startswith("sympy") and bool(getattr(value, "is_Rational", False))
