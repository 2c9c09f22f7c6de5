"""Exact numbers (DESIGN.md "Exactness policy"): the entry point that turns input into Fractions.

A model never holds a float; integers, ``"3/8"``, ``"0.125"``, ``"1e-3"``, Fractions and sympy
rationals are read exactly, floats are refused with a message that says how to write the number.
Privacy levels are ``log`` of an exact ratio (``000_65109fe28ca61d17.txt`` §2, Definitions 1–5),
written by :func:`epsilon_str`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import (INFINITY, epsilon_float, epsilon_str, exact, fraction_str,
                            json_number, probability, ratio)


@pytest.mark.parametrize("value, expected", [
    (3, Fraction(3)),
    (0, Fraction(0)),
    (-7, Fraction(-7)),
    ("3/8", Fraction(3, 8)),
    (" 3 / 8 ", Fraction(3, 8)),
    ("-1/4", Fraction(-1, 4)),
    ("0.125", Fraction(1, 8)),
    (".5", Fraction(1, 2)),
    ("2.", Fraction(2)),
    ("7", Fraction(7)),
    ("1e-3", Fraction(1, 1000)),
    ("1E+2", Fraction(100)),
    ("2.5e-1", Fraction(1, 4)),
    (Fraction(5, 7), Fraction(5, 7)),
    (sympy.Rational(3, 8), Fraction(3, 8)),
    (sympy.Integer(2), Fraction(2)),
])
def test_exact_accepts_exact_forms(value, expected):
    result = exact(value)
    assert result == expected
    assert isinstance(result, Fraction)


def test_decimal_string_is_the_exact_decimal_not_the_float():
    # "0.1" is exactly 1/10, which no binary float equals
    assert exact("0.1") == Fraction(1, 10)
    assert exact("0.1") != Fraction(0.1)


@pytest.mark.parametrize("value", [0.5, 0.1, 1.0, 3.0e-3])
def test_exact_rejects_floats_and_suggests_a_string(value):
    with pytest.raises(ModelError) as info:
        exact(value, "priors.p.x1")
    message = str(info.value)
    assert "float" in message
    assert f'"{value!r}"' in message          # the suggested string form
    assert info.value.path == "priors.p.x1"


def test_float_hint_gives_a_fraction_too():
    with pytest.raises(ModelError, match=r'"1/10"'):
        exact(0.1)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_exact_rejects_non_finite_floats(value):
    with pytest.raises(ModelError, match="float"):
        exact(value)


@pytest.mark.parametrize("value", [True, False])
def test_exact_rejects_booleans(value):
    with pytest.raises(ModelError, match="boolean"):
        exact(value)


@pytest.mark.parametrize("value", ["abc", "", "1/2/3", "0x10", "nan", "inf", "1,5", None, [1],
                                   sympy.Float(0.5), sympy.Symbol("x")])
def test_exact_rejects_junk(value):
    with pytest.raises(ModelError):
        exact(value)


def test_exact_rejects_division_by_zero():
    with pytest.raises(ModelError, match="divides by zero"):
        exact("1/0")


def test_probability_range():
    assert probability("1/3") == Fraction(1, 3)
    assert probability(0) == 0 and probability(1) == 1
    with pytest.raises(ModelError, match="outside"):
        probability("3/2")
    with pytest.raises(ModelError, match="outside"):
        probability("-1/2")


def test_fraction_str_and_json_number():
    assert fraction_str(Fraction(3, 8)) == "3/8"
    assert fraction_str(Fraction(2)) == "2"
    assert fraction_str(INFINITY) == "inf"
    assert json_number(Fraction(9, 2)) == "9/2"
    with pytest.raises(TypeError):
        fraction_str(0.5)


def test_epsilon_str_definition_5_levels():
    """§2 Definition 5: the level is log of the worst ratio; ratio 1 means ε = 0."""
    assert epsilon_str(Fraction(1)) == "0"
    assert epsilon_str(Fraction(3)) == "log(3)"
    assert epsilon_str(Fraction(9, 2)) == "log(9/2)"
    assert epsilon_str(INFINITY) == "inf"


def test_epsilon_float_is_for_reading_only():
    assert epsilon_float(Fraction(3)) == pytest.approx(math.log(3))
    assert epsilon_float(INFINITY) == math.inf
    assert epsilon_float(Fraction(0)) == -math.inf
    # huge numerators and denominators do not overflow
    big = Fraction(3 ** 2000, 2 ** 3000)
    assert epsilon_float(big) == pytest.approx(2000 * math.log(3) - 3000 * math.log(2))


def test_ratio_zero_conventions():
    """x/0 = inf for x > 0; 0/0 must be decided by the caller (Definition 5 skips it)."""
    assert ratio(Fraction(1, 2), Fraction(1, 4)) == 2
    assert ratio(Fraction(0), Fraction(1, 4)) == 0
    assert ratio(Fraction(1, 2), Fraction(0)) == INFINITY
    with pytest.raises(ZeroDivisionError):
        ratio(Fraction(0), Fraction(0))


def test_infinity_compares_exactly_with_fractions():
    assert Fraction(10 ** 100) < INFINITY
    assert max(Fraction(5), INFINITY) == INFINITY
