"""Exact regions agree with dense exact point audits (issue 14, "Done when"): sample inside and
outside every returned interval and at rational neighbours of every endpoint, instantiate the
model there and run the ordinary exact audit."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from pufferfish.examples import example_path
from pufferfish.models.parametric import load_parametric_model, parse_parametric_model
from pufferfish.models.polynomials import below
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.audit import audit_model
from pufferfish.verify.privacy.pufferfish import pufferfish_level
from pufferfish.verify.symbolic.region import budget_region

QUICK = json.loads(example_path("quickstart_parametric.json").read_text())


def keep_over(low: str, high: str) -> dict:
    data = copy.deepcopy(QUICK)
    data["parameters"] = {"p": [low, high]}
    del data["priors"]["sticky"]
    return data


def holds_at(model, point: dict, budget: str, mechanism: str | None) -> bool:
    instance = model.instantiate({n: v for n, v in point.items() if n in model.box.names})
    if mechanism is not None:
        return pufferfish_level(instance, instance.mechanisms[mechanism], parse_budget(budget)).holds
    return audit_model(instance, parse_budget(budget)).holds


def contains(intervals, x: Fraction) -> bool:
    for interval in intervals:
        low_ok = interval.low.is_rational and interval.low.value <= x or \
            (not interval.low.is_rational and below(interval.low, x))
        high_ok = interval.high.is_rational and x <= interval.high.value or \
            (not interval.high.is_rational and not below(interval.high, x))
        if low_ok and high_ok:
            return True
    return False


def samples(result, low: Fraction, high: Fraction) -> list[Fraction]:
    """Rational points: the range ends, a point in and between every interval, and the rational
    neighbours (within 2^-30) on both sides of every endpoint."""
    points = {low, high, (low + high) / 2}
    step = Fraction(1, 2 ** 30)
    for interval in result.intervals + result.outer:
        for end in (interval.low, interval.high):
            refined = end.refined(step)
            for x in (refined.low - step, refined.low, refined.high, refined.high + step):
                if low <= x <= high:
                    points.add(x)
        a = interval.low.refined(step).high
        b = interval.high.refined(step).low
        if a < b:
            points.add((a + b) / 2)
    for k in range(1, 16):
        points.add(low + (high - low) * k / 16)
    return sorted(points)


CASES = [
    (keep_over("0", "1"), "log(3)", "rr", None),
    (keep_over("0", "1"), "log(3)", None, None),
    (keep_over("1/2", "1"), "log(2)", "rr", None),
    (QUICK, "log(3)", "rr", {"q": "9/10"}),
    (QUICK, "log(3)", "rr", {"q": "1/2"}),
    (QUICK, "log(7)", "sum", {"p": "3/4"}),
    (QUICK, "log(20)", None, {"q": "3/5"}),
    (json.loads(example_path("geometric_parametric.json").read_text()), "log(4)", None, None),
]


@pytest.mark.parametrize("data, budget, mechanism, fixed", CASES)
def test_exact_region_agrees_with_point_audits(data, budget, mechanism, fixed):
    model = parse_parametric_model(data)
    if fixed:
        model = model.restrict(fixed)
    result = budget_region(model, budget, mechanism)
    assert result.method == "exact"
    name = model.box.names[0]
    low, high = model.box.low[0], model.box.high[0]
    for x in samples(result, low, high):
        point = {name: x, **(fixed or {})}
        assert contains(result.intervals, x) == holds_at(model, point, budget, mechanism), (x, budget)


def test_randomized_response_region_is_the_textbook_interval():
    result = budget_region(parse_parametric_model(keep_over("0", "1")), "log(3)", "rr")
    assert [(str(i.low), str(i.high)) for i in result.intervals] == [("1/4", "3/4")]


def test_algebraic_endpoint_comes_with_polynomial_and_isolating_interval():
    model = load_parametric_model(example_path("quickstart_parametric.json")).restrict({"q": "9/10"})
    result = budget_region(model, "log(3)", "rr")
    (interval,) = result.intervals
    data = interval.high.to_dict()
    assert data["polynomial"] == "320*p**3 - 704*p**2 + 708*p - 243"
    assert Fraction(data["interval"][0]) < Fraction(data["interval"][1])
    assert 0.6121 < data["approx"] < 0.6122


def test_rational_epsilon_gives_an_enclosure_that_agrees_with_point_audits():
    model = load_parametric_model(example_path("quickstart_parametric.json")).restrict({"q": "9/10"})
    result = budget_region(model, "1", "rr")
    assert result.method == "enclosed"
    low, high = result.ratio_bounds
    assert low < high and high - low < Fraction(1, 2 ** 50)
    for x in samples(result, Fraction(1, 2), Fraction(1)):
        truth = holds_at(model, {"p": x, "q": "9/10"}, "1", "rr")
        if contains(result.intervals, x):
            assert truth
        if not contains(result.outer, x):
            assert not truth


def test_infinite_and_negative_budgets():
    model = parse_parametric_model(keep_over("0", "1"))
    assert [(str(i.low), str(i.high)) for i in budget_region(model, "inf", "rr").intervals] == \
        [("0", "1")]
    assert [(str(i.low), str(i.high)) for i in budget_region(model, "0", "rr").intervals] == \
        [("1/2", "1/2")]


def test_two_parameter_map_is_certified_by_point_audits():
    model = load_parametric_model(example_path("quickstart_parametric.json"))
    result = budget_region(model, "log(3)", "rr", width=Fraction(1, 32))
    assert result.method == "map" and result.inside and result.outside and result.boundary
    area = sum((b - a) * (d - c) for (a, b), (c, d) in result.inside + result.outside + result.boundary)
    assert area == Fraction(1, 4)
    for boxes, expected in ((result.inside, True), (result.outside, False)):
        for (a, b), (c, d) in boxes[:: max(1, len(boxes) // 6)]:
            for p, q in ((a, c), (b, d), ((a + b) / 2, (c + d) / 2)):
                assert holds_at(model, {"p": p, "q": q}, "log(3)", "rr") == expected, (p, q)
    assert all(b - a <= Fraction(1, 32) for (a, b), _ in result.boundary)
