"""Value identity: outputs and domain values compare as JSON compares them.

A verifier compares outputs all the time — a distribution's support, a kernel table's columns, a
post-processing map, the tuples of a joint release, a witness — and it must never merge two
outputs that a reader of the model tells apart: a mechanism that answers ``true`` on one dataset
and ``1`` on its neighbour reveals which one it ran on.  Python merges them (``True == 1`` and
``hash(True) == hash(1)``), so every value the toolkit holds goes through :func:`canonical_value`
first, which gives the one notion of identity used everywhere:

* JSON ``true`` / ``false`` (Python ``True`` / ``False``, NumPy booleans) become :data:`TRUE` /
  :data:`FALSE`, objects equal only to themselves;
* integers (Python or NumPy), :class:`~fractions.Fraction`, strings and ``None`` (JSON
  ``null``) stay as they are: two of them are equal when their values are (``Fraction(2) == 2``:
  an exact number is one number however it is written);
* lists and tuples become tuples of canonical values, recursively (JSON has one kind of array);
* floats are refused: they are not exact, and ``1.0 == 1`` would merge outputs again.

Two canonical values are equal exactly when their JSON texts (:func:`json_value`) denote the same
value, so Python's ``==`` and ``hash`` on canonical values are safe for dictionaries and sets.

>>> canonical_value([True, 1, None]) == canonical_value([1, 1, None])
False
>>> len({canonical_value(True), canonical_value(1), canonical_value(False), canonical_value(0)})
4
>>> json_value(canonical_value((True, (1, "a"))))
[True, [1, 'a']]
>>> value_text(TRUE), value_text(canonical_value([False, None]))
('true', '[false, null]')
"""

from __future__ import annotations

import json
from fractions import Fraction
from numbers import Integral

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import fraction_str

__all__ = ["JsonBool", "TRUE", "FALSE", "canonical_value", "json_value", "value_text"]


class JsonBool:
    """A JSON boolean as the toolkit holds it: ``TRUE`` and ``FALSE`` are the only instances, and
    each is equal only to itself (never to ``1``, ``0``, ``True`` or ``False``).

    It is truthy as its value, orders ``FALSE < TRUE`` among booleans, prints as JSON does, and
    unpickles to the same instance (tasks on other processes keep the identity).

    >>> TRUE == 1, TRUE == True, TRUE is JsonBool(True), bool(FALSE)
    (False, False, True, False)
    """

    __slots__ = ("value",)
    _instances: dict[bool, "JsonBool"] = {}

    def __new__(cls, value: bool) -> "JsonBool":
        value = bool(value)
        instance = cls._instances.get(value)
        if instance is None:
            instance = super().__new__(cls)
            object.__setattr__(instance, "value", value)
            cls._instances[value] = instance
        return instance

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("JsonBool is immutable")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return 0x5F3759DF if self.value else 0x2545F491  # neither 0 nor 1: no bucket shared with ints

    def __lt__(self, other: object) -> bool:
        if isinstance(other, JsonBool):
            return self.value < other.value
        return NotImplemented

    def __bool__(self) -> bool:
        return self.value

    def __repr__(self) -> str:
        return "true" if self.value else "false"

    def __reduce__(self):
        return JsonBool, (self.value,)


TRUE = JsonBool(True)
"""JSON ``true`` as the toolkit holds it."""

FALSE = JsonBool(False)
"""JSON ``false`` as the toolkit holds it."""


def canonical_value(value: object, path: str = "") -> object:
    """``value`` in the toolkit's form, in which Python equality is JSON equality (module
    docstring).  Cost: O(size of the value).

    Raises :class:`~pufferfish.models.errors.ModelError` (at ``path``) for a float, a dict or a
    value that cannot be hashed.

    >>> canonical_value(True) is TRUE, canonical_value([0, [False]])
    (True, (0, (false,)))
    >>> canonical_value(0.5)
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: the value 0.5 is a float; write an output or domain value as an integer, a string, true/false, null or a list of them
    """
    kind = type(value)
    if kind is int or kind is str or value is None or kind is Fraction or kind is JsonBool:
        return value
    if kind is bool:
        return TRUE if value else FALSE
    if kind is tuple or kind is list:
        return tuple(canonical_value(item, path) for item in value)
    if isinstance(value, float):
        raise ModelError(f"the value {value!r} is a float; write an output or domain value as "
                         f"an integer, a string, true/false, null or a list of them", path)
    if type(value).__name__ == "bool_":  # NumPy's boolean, without importing NumPy
        return TRUE if value else FALSE
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, dict):
        raise ModelError(f"the value {value!r} is an object; an output or domain value is an "
                         f"integer, a string, true/false, null or a list of them", path)
    try:
        hash(value)
    except TypeError:
        raise ModelError(f"the value {value!r} cannot be compared by value (it is not "
                         f"hashable)", path) from None
    return value


def json_value(value: object) -> object:
    """A canonical value as JSON holds it: :data:`TRUE`/:data:`FALSE` become ``True``/``False``,
    tuples lists and Fractions strings (``"1/2"``)."""
    if isinstance(value, tuple):
        return [json_value(item) for item in value]
    if isinstance(value, JsonBool):
        return value.value
    if isinstance(value, Fraction):
        return fraction_str(value)
    return value


def value_text(value: object) -> str:
    """A canonical value as its JSON text, for messages and reports (``true``, ``null``,
    ``[0, 1]``, ``"a"``)."""
    return json.dumps(json_value(value), ensure_ascii=False)
