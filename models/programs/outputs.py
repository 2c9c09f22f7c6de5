"""The outputs a program may return: JSON values, one output per JSON text.

Every output of a program is checked at the door (:func:`program_output`) before it is keyed in
its law: it must be a JSON value — an integer, a string, ``True``/``False``, ``None``, or a list
or tuple of them — so that every output the toolkit reports can be written, read back and told
apart.  Identity is the JSON text's (:mod:`~pufferfish.models.values`): ``True`` and ``1`` are
two outputs.  An exact number is one value however it is written: a
:class:`~fractions.Fraction` with denominator 1 is the integer, and any other
:class:`~fractions.Fraction` is the string JSON holds it as (``Fraction(1, 2)`` and ``"1/2"`` are
the same output, since they print the same and a reader of the report could not tell them
apart).  Refused, with the reason: floats, dictionaries, sets, arbitrary objects, and integers
longer than :data:`MAX_OUTPUT_DIGITS` digits (Python cannot print them).

>>> from fractions import Fraction
>>> program_output([Fraction(1, 2), Fraction(4, 2), True]) == program_output(("1/2", 2, True))
True
>>> program_output(frozenset({1}))
Traceback (most recent call last):
...
ValueError: it returned a frozenset, which is not a JSON value (an integer, a string, true/false, null or a list of them)
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Integral

from pufferfish.models.numbers import fraction_str
from pufferfish.models.values import FALSE, TRUE, JsonBool

__all__ = ["program_output", "MAX_OUTPUT_DIGITS", "mass_text"]

MAX_OUTPUT_DIGITS = 4_000
"""The most decimal digits of an integer output (Python refuses to print more than 4,300)."""

_MAX_BITS = int(MAX_OUTPUT_DIGITS * 3.3219280948873626)  # below 10^4000


def program_output(value: object) -> object:
    """``value`` as the toolkit keys it (module docstring); ``ValueError`` with the reason when
    it is not a JSON value."""
    kind = type(value)
    if kind is str or value is None or kind is JsonBool:
        return value
    if kind is bool or kind.__name__ == "bool_":  # Python's and NumPy's booleans
        return TRUE if value else FALSE
    if isinstance(value, Integral) and not isinstance(value, bool):
        number = int(value)
        if number.bit_length() > _MAX_BITS:
            raise ValueError(f"it returned an integer of about "
                             f"{int(number.bit_length() / 3.3219280948873626):,} digits, more "
                             f"than the {MAX_OUTPUT_DIGITS:,} an output may have")
        return number
    if kind is Fraction:
        return program_output(value.numerator) if value.denominator == 1 else fraction_str(value)
    if isinstance(value, list | tuple):
        return tuple(program_output(item) for item in value)
    if isinstance(value, float):
        what = f"the float {value!r}"
    elif isinstance(value, dict):
        what = "a dict (a JSON object: an output is compared by value, so it cannot be one)"
    else:
        what = f"a{'n' if kind.__name__[:1] in 'aeiou' else ''} {kind.__name__}"
    raise ValueError(f"it returned {what}, which is not a JSON value (an integer, a string, "
                     f"true/false, null or a list of them)")


def mass_text(mass: Fraction) -> str:
    """An exact probability for a message: the fraction when it is short, else a bound
    (``less than 2^-k``, ``more than 1 − 2^-k``).

    >>> tiny = Fraction(1, 2**200)
    >>> mass_text(Fraction(1, 3)), mass_text(tiny), mass_text(1 - tiny)
    ('1/3', 'less than 2^-199', 'more than 1 − 2^-199')
    """
    text = fraction_str(mass)
    if len(text) <= 40:
        return text
    if mass > Fraction(1, 2):
        return f"more than 1 − 2^-{_log2_below(1 - mass)}"
    return f"less than 2^-{_log2_below(mass)}"


def _log2_below(mass: Fraction) -> int:
    """A ``k`` with ``mass < 2^-k`` (``mass`` > 0)."""
    return max(mass.denominator.bit_length() - mass.numerator.bit_length() - 1, 0)
