"""Closed forms of post-processed mechanisms and regions of joint releases agree with the exact
point computation at rational parameter values (``postprocess``/``audit`` at ``--set``)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError
from pufferfish.models.parametric import add_postprocessed, parse_parametric_model
from pufferfish.models.polynomials import below
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.privacy.pufferfish import pufferfish_level
from pufferfish.verify.symbolic.postprocess import symbolic_postprocess
from pufferfish.verify.symbolic.region import budget_region

QUICK = json.loads(example_path("quickstart_parametric.json").read_text())
FIRST_BIT = {"map": [[[a, b, c], [[a, "1"]]] for a in (0, 1) for b in (0, 1) for c in (0, 1)]}
NOISY_BIT = {"map": [[[a, b, c], [[a, "t"], [1 - a, "1-t"]]]
                     for a in (0, 1) for b in (0, 1) for c in (0, 1)]}


def piece_value(level, x: Fraction):
    """The closed-form level ratio at a rational ``x`` inside one of its open pieces."""
    for piece in level.pieces:
        symbol = next(iter(piece.ratio.free_symbols), sympy.Symbol(level.parameter))
        at_high = piece.high.is_rational and piece.high.value == x
        if below(piece.low, x) and not below(piece.high, x) and not at_high:
            value = piece.ratio.xreplace({symbol: sympy.Rational(x.numerator, x.denominator)})
            return Fraction(int(value.p), int(value.q))
    raise AssertionError(f"{x} is on no open piece")


@pytest.mark.parametrize("mapping, fixed, free", [(FIRST_BIT, {"q": "9/10"}, "p"),
                                                  (FIRST_BIT, {"p": "3/4"}, "q")])
def test_postprocessed_closed_forms_agree_with_point_levels(mapping, fixed, free):
    data, name = add_postprocessed(QUICK, "rr", mapping)
    model = parse_parametric_model(data).restrict(fixed)
    result = symbolic_postprocess(model, "rr", name)
    for x in (Fraction(5, 8), Fraction(2, 3), Fraction(7, 8), Fraction(99, 100)):
        instance = model.instantiate({free: x})
        for levels, mechanism in ((result.before, "rr"), (result.after, name)):
            point = pufferfish_level(instance, instance.mechanisms[mechanism])
            assert piece_value(levels.pufferfish, x) == max(1, point.level_ratio)
            dp = dp_level(instance.universe, instance.mechanisms[mechanism], "entry")
            assert piece_value(levels.dp, x) == max(1, dp.max_ratio)


def test_parametric_map_uses_the_model_parameters():
    data = json.loads(json.dumps(QUICK))
    data["parameters"]["t"] = ["1/2", "1"]
    data, name = add_postprocessed(data, "rr", NOISY_BIT)
    model = parse_parametric_model(data).restrict({"q": "9/10", "p": "3/4"})
    result = symbolic_postprocess(model, "rr", name)
    assert [str(p.ratio) for p in result.after.dp.pieces] == ["(2*t + 1)/(3 - 2*t)"]
    assert result.to_dict()["after"]["dp"]["parameter"] == "t"


def test_map_row_not_summing_to_one_is_refused():
    data = json.loads(json.dumps(QUICK))
    bad = {"map": [[[a, b, c], [[a, "p"], [1 - a, "p"]]]
                   for a in (0, 1) for b in (0, 1) for c in (0, 1)]}
    data, _ = add_postprocessed(data, "rr", bad)
    with pytest.raises(ModelError) as error:
        parse_parametric_model(data)
    assert "postprocess.map" in error.value.path


def test_joint_region_agrees_with_point_audits_of_the_joint_release():
    data = json.loads(json.dumps(QUICK))
    data["mechanisms"]["both"] = {"compose": ["rr", "sum"]}
    model = parse_parametric_model(data).restrict({"q": "9/10"})
    joint = budget_region(model, "log(12)", joint=("rr", "sum"))
    composed = budget_region(model, "log(12)", mechanism="both")
    assert joint.to_dict()["intervals"] == composed.to_dict()["intervals"]
    assert joint.scope == "the joint release of rr, sum"
    assert joint.intervals
    ends = [e for i in joint.intervals for e in (i.low, i.high)]
    points = {Fraction(1, 2), Fraction(3, 5), Fraction(3, 4), Fraction(9, 10), Fraction(1)}
    for end in ends:
        refined = end.refined(Fraction(1, 2 ** 30))
        points |= {x for x in (refined.low, refined.high) if Fraction(1, 2) <= x <= 1}
    seen = set()
    for x in sorted(points):
        instance = model.instantiate({"p": x})
        holds = pufferfish_level(instance, instance.mechanisms["both"],
                                 parse_budget("log(12)")).holds
        contained = any((i.low.is_rational and i.low.value <= x or below(i.low, x)) and
                        not below(i.high, x) for i in joint.intervals)
        assert holds == contained, x
        seen.add(holds)
    assert seen == {True, False}


def test_joint_and_mechanism_are_exclusive_and_checked():
    model = parse_parametric_model(QUICK)
    with pytest.raises(ModelError, match="not both"):
        budget_region(model, "log(3)", mechanism="rr", joint=("rr", "sum"))
    with pytest.raises(ModelError, match="two or more"):
        budget_region(model, "log(3)", joint=("rr",))


def test_joint_release_dp_closed_form_agrees_with_point_dp_levels():
    data = json.loads(json.dumps(QUICK))
    data["mechanisms"]["both"] = {"compose": ["rr", "sum"]}
    model = parse_parametric_model(data).restrict({"q": "9/10"})
    from pufferfish.verify.symbolic.levels import symbolic_audit

    joint_dp = symbolic_audit(parse_parametric_model(QUICK).restrict({"q": "9/10"})).joint_dp
    assert [str(p.ratio) for p in joint_dp.pieces] == ["2*p/(1 - p)"]
    for x in (Fraction(5, 8), Fraction(3, 4), Fraction(9, 10)):
        instance = model.instantiate({"p": x})
        point = dp_level(instance.universe, instance.mechanisms["both"], "entry")
        assert piece_value(joint_dp, x) == max(1, point.max_ratio)
