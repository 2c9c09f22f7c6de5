"""Certified NfC regions agree with the point computation (``composes`` at ``--set`` rational
points): the NfC programs of the instance are solved and certified there, and their verdict at ε
must be the region's, inside every box proved to hold or to fail, at its ends and at the ends'
rational neighbours inside it."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.parametric import load_parametric_model, parse_parametric_model
from pufferfish.verify.nfc.programs import nfc_programs
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.symbolic.nfc_region import CERTIFICATION, nfc_region

QUICK = example_path("quickstart_parametric.json")


def point_verdict(model, point: dict, budget: str, mechanisms: list[str]) -> str:
    instance = model.instantiate(point)
    return nfc_programs(instance, [instance.mechanism(m) for m in mechanisms],
                        parse_budget(budget)).verdict


def interval_samples(low: Fraction, high: Fraction) -> list[Fraction]:
    step = Fraction(1, 2 ** 20)
    return sorted({low, low + step, (low + high) / 2, high - step, high})


@pytest.mark.parametrize("budget, mechanisms", [("log(3)", ["rr"]), ("log(3)", ["rr", "sum"]),
                                                ("11/10", ["rr"])])
def test_one_parameter_intervals_agree_with_point_programs(budget, mechanisms):
    model = load_parametric_model(QUICK).restrict({"q": "9/10"})
    region = nfc_region(model, budget, mechanisms, width=Fraction(1, 32))
    assert region.intervals("holds") and region.intervals("fails")
    total = sum((b - a for kind in ("holds", "fails", "boundary")
                 for a, b in region.intervals(kind)), Fraction(0))
    assert total == Fraction(1, 2)                      # the three kinds tile [1/2, 1]
    for kind, expected in (("holds", "holds"), ("fails", "violated")):
        for low, high in region.intervals(kind):
            for x in interval_samples(low, high):
                assert point_verdict(model, {"p": x}, budget, mechanisms) == expected, (kind, x)
    for low, high in region.intervals("boundary"):
        assert high - low <= 2 * Fraction(1, 32) or high == 1


def test_boundary_contains_the_switch_of_randomized_response():
    """rr alone: the NfC value is log(p/(1−p)) (DP-style, one-hot β), = log 3 at p = 3/4."""
    model = load_parametric_model(QUICK).restrict({"q": "9/10"})
    region = nfc_region(model, "log(3)", ["rr"], width=Fraction(1, 128))
    assert any(a <= Fraction(3, 4) <= b for a, b in region.intervals("boundary"))
    assert region.intervals("holds")[0][0] == Fraction(1, 2)
    assert Fraction(3, 4) - region.intervals("holds")[-1][1] <= Fraction(1, 64)


def test_two_parameter_map_agrees_at_box_centres_and_corners():
    model = load_parametric_model(QUICK)
    region = nfc_region(model, "log(3)", ["rr", "sum"], width=Fraction(1, 16))
    assert region.inside and region.outside
    for boxes, expected in ((region.inside, "holds"), (region.outside, "violated")):
        for (a, b), (c, d) in boxes[:: max(1, len(boxes) // 6)]:
            for x, y in (((a + b) / 2, (c + d) / 2), (a, c), (b, d)):
                assert point_verdict(model, {"p": x, "q": y}, "log(3)", ["rr", "sum"]) == expected
    data = region.to_dict()
    assert data["method"] == "certified_numerical" and data["certification"] == CERTIFICATION
    areas = sum(Fraction(v) for v in data["area"].values())
    assert areas == Fraction(1, 4)


def test_explain_says_numerical_not_exact():
    model = load_parametric_model(QUICK).restrict({"q": "9/10"})
    text = nfc_region(model, "log(3)", ["rr"], width=Fraction(1, 8)).explain()
    assert "certified numerically, not exact" in text and "piecewise" in text


def test_zero_pattern_change_is_never_decided():
    """At p = 1 randomized response never flips: outputs become impossible, the programs
    change; a box containing p = 1 is never proved either way."""
    model = load_parametric_model(QUICK).restrict({"q": "9/10"})
    region = nfc_region(model, "log(3)", ["rr"], width=Fraction(1, 16))
    assert region.intervals("boundary")[-1][1] == 1


def test_bad_input_is_located():
    model = load_parametric_model(QUICK)
    with pytest.raises(ModelError) as error:
        nfc_region(model, "log(3)", ["nobody"])
    assert error.value.path == "--mechanism"
    with pytest.raises(ModelError):
        nfc_region(model, "log(3)", ["rr"], width=Fraction(0))
    family = json.loads(example_path("collapse_interval_family.json").read_text())
    family["parameters"] = {"t": ["1/4", "1/2"]}
    with pytest.raises(UnsupportedError) as unsupported:
        nfc_region(parse_parametric_model(family), "log(3)")
    assert unsupported.value.path.startswith("priors.")
