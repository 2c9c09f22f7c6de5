"""Rigorous budget comparison (DESIGN.md "Exactness policy"; ``000_65109fe28ca61d17.txt`` §2,
Definitions 1–5 bound ratios by ``e^ε``).

``log(r) <= ε`` is decided without floats: exactly when the budget is ``log(q)``, by interval
arithmetic at increasing precision when ε is a rational (``e^ε`` is then irrational unless ε = 0).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY
from pufferfish.verify.numerics.certified import Budget, compare_ratio, parse_budget
from pufferfish.verify.numerics.intervals import log_enclosure as log_bounds

F = Fraction

# exp(1/3) = 1.395612425086089528628125319602586837597906515199406982617...
EXP_THIRD_30_DIGITS = "1.39561242508608952862812531960"      # rounded to 30 significant digits


# --------------------------------------------------------------------------------------------
# parse_budget


@pytest.mark.parametrize("text, epsilon", [("0.5", F(1, 2)), ("1/2", F(1, 2)), ("0", F(0)),
                                           ("1e-3", F(1, 1000)), (" 2 ", F(2)), (3, F(3)),
                                           (F(1, 3), F(1, 3))])
def test_parse_budget_rational_forms(text, epsilon):
    budget = parse_budget(text)
    assert budget.epsilon == epsilon and budget.ratio is None and not budget.infinite


@pytest.mark.parametrize("text, ratio", [("log(3)", F(3)), (" log( 9/2 ) ", F(9, 2)),
                                         ("log(1)", F(1)), ("log(2.5)", F(5, 2))])
def test_parse_budget_log_forms(text, ratio):
    budget = parse_budget(text)
    assert budget.ratio == ratio and budget.epsilon is None
    assert budget.to_dict() == {"budget": text.strip()}


@pytest.mark.parametrize("text", ["inf", "Infinity", " INF "])
def test_parse_budget_infinite(text):
    assert parse_budget(text).infinite


@pytest.mark.parametrize("text, message", [("-1", ">= 0"), ("log(1/2)", "negative"),
                                           ("log(x)", "not a number"), ("abc", "not a number"),
                                           (0.5, "float"), ("log(-3)", "negative")])
def test_parse_budget_rejects(text, message):
    with pytest.raises(ModelError, match=message) as info:
        parse_budget(text, path="--epsilon")
    assert info.value.path == "--epsilon"


# --------------------------------------------------------------------------------------------
# compare_ratio


@pytest.mark.parametrize("ratio, budget, relation", [
    (F(3), "1.0986", "above"),       # log 3 = 1.0986122886...
    (F(3), "1.0987", "below"),
    (F(3), "log(3)", "tight"),
    (F(3), "log(301/100)", "below"),
    (F(3), "log(299/100)", "above"),
    (F(1), "0", "tight"),
    (F(2), "0", "above"),
    (F(1, 2), "0", "below"),
    (F(0), "0.1", "below"),
    (INFINITY, "1000", "above"),
    (INFINITY, "log(1000)", "above"),
    (INFINITY, "inf", "tight"),
    (F(10 ** 9), "inf", "below"),
    (F(1), "1/1000000", "below"),
])
def test_compare_ratio(ratio, budget, relation):
    check = compare_ratio(ratio, parse_budget(budget))
    assert check.relation == relation
    assert check.holds is (relation != "above")


def test_compare_ratio_near_exp_at_high_precision():
    """r = exp(1/3) rounded to 30 digits is below exp(1/3) (the next digit is 2); r + 10^-29 is
    above.  Their distance to e^{1/3} is ~10^-30, far below float resolution."""
    budget = parse_budget("1/3")
    low = F(EXP_THIRD_30_DIGITS)
    assert compare_ratio(low, budget).relation == "below"
    assert compare_ratio(low + F(1, 10 ** 29), budget).relation == "above"
    # floats cannot tell them apart: the verdict must not come from a float
    assert float(low) == float(low + F(1, 10 ** 29)) == math.exp(1 / 3)


@pytest.mark.parametrize("digits", [60, 300])
def test_compare_ratio_near_exp_very_high_precision(digits):
    """Truncations of e^{1/2} to many digits (computed here with mpmath far beyond that precision)
    are decided correctly: floor(e^{1/2}·10^d)/10^d is below, one unit more is above."""
    with mpmath.workdps(digits + 40):
        scaled = int(mpmath.floor(mpmath.exp(mpmath.mpf(1) / 2) * mpmath.mpf(10) ** digits))
    budget = parse_budget("0.5")
    assert compare_ratio(F(scaled, 10 ** digits), budget).relation == "below"
    assert compare_ratio(F(scaled + 1, 10 ** digits), budget).relation == "above"


def test_compare_ratio_huge_numerator_and_denominator():
    """3^200/2^316 ≈ e^{0.688}: huge integers are enclosed rigorously, not rounded."""
    r = F(3 ** 200, 2 ** 316)
    assert 0.68 < 200 * math.log(3) - 316 * math.log(2) < 0.69
    assert compare_ratio(r, parse_budget("0.69")).relation == "below"
    assert compare_ratio(r, parse_budget("0.68")).relation == "above"


def test_budget_check_to_dict():
    check = compare_ratio(F(9, 2), parse_budget("log(9/2)"))
    assert check.to_dict() == {"budget": "log(9/2)", "relation": "tight", "holds": True,
                               "epsilon": "log(9/2)"}


def test_budget_dataclass_is_frozen():
    budget = Budget("1", epsilon=F(1))
    with pytest.raises(AttributeError):
        budget.epsilon = F(2)   # type: ignore[misc]


# --------------------------------------------------------------------------------------------
# log_bounds


@pytest.mark.parametrize("ratio", [F(3), F(9, 2), F(1, 7), F(1), F(10 ** 50 + 1, 10 ** 50)])
def test_log_bounds_enclose_the_log(ratio):
    low, high = log_bounds(ratio)
    with mpmath.workdps(60):
        value = mpmath.log(mpmath.mpf(ratio.numerator) / ratio.denominator)
        assert mpmath.mpf(low) <= value <= mpmath.mpf(high)
    assert high - low < 1e-12


def test_log_bounds_special_values():
    assert log_bounds(INFINITY) == (math.inf, math.inf)
    assert log_bounds(F(0)) == (-math.inf, -math.inf)


# --------------------------------------------------------------------------------------------
# messages and absurd magnitudes


@pytest.mark.parametrize("text", ["abc", "log(x)", "0.5.5", "1/2/3", ""])
def test_parse_budget_names_the_accepted_forms(text):
    with pytest.raises(ModelError, match=r"0\.5, 1/2, log\(3\), log\(9/2\) or inf"):
        parse_budget(text)


@pytest.mark.parametrize("text", ["1e999999999", "1e-999999999", "log(1e999999999)", "7E+1001"])
def test_parse_budget_refuses_huge_exponents_at_once(text):
    import time

    start = time.process_time()          # CPU time: a loaded machine does not stretch it
    with pytest.raises(ModelError, match="exponent") as info:
        parse_budget(text, path="--epsilon")
    assert time.process_time() - start < 1.0
    assert info.value.path == "--epsilon"


def test_parse_budget_refuses_very_long_numbers_at_once():
    with pytest.raises(ModelError, match="characters long"):
        parse_budget("1" * 5000)
    with pytest.raises(ModelError, match="characters long"):
        parse_budget("1/" + "3" * 5000)


def test_parse_budget_accepts_moderate_exponents():
    assert parse_budget("1e-30").epsilon == F(1, 10 ** 30)
    assert parse_budget("log(2e3)").ratio == F(2000)


def test_budget_level_is_the_exact_value():
    from pufferfish.verify.numerics.levels import LogValue

    assert parse_budget("log(9/2)").level == LogValue.log(F(9, 2))
    assert parse_budget("0.5").level == LogValue.rational(F(1, 2))
    assert parse_budget("inf").level.infinite
    assert parse_budget("log(1)").level.sign() == 0 and parse_budget("0").level.sign() == 0
