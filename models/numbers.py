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
from fractions import Fraction
from typing import Union

from pufferfish.models.errors import ModelError

INFINITY = math.inf
"""Sentinel for an unbounded ratio (``x / 0`` with ``x > 0``)."""

Ratio = Union[Fraction, float]
"""A non-negative exact ratio, or :data:`INFINITY`."""

_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_FRACTION = re.compile(r"^[+-]?\d+\s*/\s*[+-]?\d+$")


def exact(value: object, path: str = "") -> Fraction:
    """Return ``value`` as an exact :class:`Fraction`.

    Accepts ``int``, ``Fraction``, sympy ``Rational``/``Integer``, and strings ``"3/8"``,
    ``"0.125"``, ``"1e-3"``, ``"7"``.  Refuses ``float`` (which cannot be trusted to be the number
    the user meant), ``bool`` and anything else, raising :class:`ModelError` located at ``path``.

    >>> exact("3/8"), exact("0.125"), exact(2)
    (Fraction(3, 8), Fraction(1, 8), Fraction(2, 1))
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
            num, den = (int(part) for part in text.split("/"))
            if den == 0:
                raise ModelError(f"{value!r} divides by zero", path)
            return Fraction(num, den)
        if _DECIMAL.match(text):
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
    return (1, Fraction(0)) if ratio == INFINITY else (0, Fraction(ratio))


def fraction_str(value: Ratio) -> str:
    """Canonical text for an exact number: ``"3/8"``, ``"2"``, or ``"inf"``."""
    if isinstance(value, float):
        if value == INFINITY:
            return "inf"
        raise TypeError(f"not an exact number: {value!r}")
    return str(value)


def epsilon_str(ratio: Ratio) -> str:
    """The privacy level ``log(ratio)`` as exact text: ``"0"``, ``"log(9/2)"``, ``"inf"``."""
    if ratio == INFINITY:
        return "inf"
    if ratio == 1:
        return "0"
    return f"log({fraction_str(ratio)})"


def epsilon_float(ratio: Ratio) -> float:
    """``log(ratio)`` as a float, for reading only (never for a verdict)."""
    if ratio == INFINITY:
        return math.inf
    if ratio == 0:
        return -math.inf
    return math.log(ratio.numerator) - math.log(ratio.denominator)  # type: ignore[union-attr]


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


def _float_hint(value: float) -> str:
    if math.isfinite(value):
        text = repr(value)
        return f"\"{text}\" (decimal strings are read exactly) or \"{Fraction(text).limit_denominator(10**6)}\""
    return "\"1/2\""


def _is_sympy_rational(value: object) -> bool:
    module = type(value).__module__
    return module.startswith("sympy") and bool(getattr(value, "is_Rational", False))
