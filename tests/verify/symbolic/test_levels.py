"""Closed-form levels agree with the exact point audit at rational points of every piece, and
leakage zero-sets with the point leakage check."""

from __future__ import annotations

import copy
import math
import json
from fractions import Fraction

import pytest
import sympy

from pufferfish.examples import example_path
from pufferfish.models.parametric import load_parametric_model, parse_parametric_model
from pufferfish.verify.privacy.audit import audit_model
from pufferfish.verify.symbolic.levels import symbolic_audit

QUICK = json.loads(example_path("quickstart_parametric.json").read_text())


def value(ratio, point: dict):
    if ratio is None:
        return math.inf
    number = ratio.xreplace({sympy.Symbol(n, real=True): sympy.Rational(v.numerator, v.denominator)
                             for n, v in point.items()})
    return Fraction(int(number.p), int(number.q))


def pieces_samples(piece) -> list[Fraction]:
    low = piece.low.refined(Fraction(1, 2 ** 20)).high
    high = piece.high.refined(Fraction(1, 2 ** 20)).low
    return [low + (high - low) * k / 5 for k in range(1, 5)]


@pytest.mark.parametrize("fixed", [{"q": "9/10"}, {"p": "3/4"}, {"q": "1/2"}, {"p": "1"}])
def test_pieces_match_the_point_audit(fixed):
    model = load_parametric_model(example_path("quickstart_parametric.json")).restrict(fixed)
    name = model.box.names[0]
    result = symbolic_audit(model)
    levels = [(m.name, m.pufferfish, m.dp) for m in result.mechanisms]
    for mechanism, puffer, dp in levels:
        for piece in puffer.pieces:
            for x in pieces_samples(piece):
                audit = audit_model(model.instantiate({name: x}))
                point = next(m for m in audit.mechanisms if m.name == mechanism)
                expected = point.pufferfish.level_ratio
                assert value(piece.ratio, {name: x}) == expected, (mechanism, x)
        for piece in dp.pieces:
            for x in pieces_samples(piece):
                audit = audit_model(model.instantiate({name: x}))
                point = next(m for m in audit.mechanisms if m.name == mechanism)
                assert value(piece.ratio, {name: x}) == max(Fraction(1), point.dp[0].max_ratio) \
                    if point.dp[0].max_ratio != math.inf else value(piece.ratio, {name: x}) == math.inf
    for piece in result.joint.pieces:
        for x in pieces_samples(piece):
            audit = audit_model(model.instantiate({name: x}))
            assert value(piece.ratio, {name: x}) == audit.composition.joint.level_ratio


def test_breakpoint_between_two_ratios_is_exact():
    data = copy.deepcopy(QUICK)
    data["parameters"] = {"p": ["0", "1"]}
    del data["priors"]["sticky"]
    result = symbolic_audit(parse_parametric_model(data))
    rr = result.mechanisms[0].pufferfish
    assert [(str(p.low), str(p.high), str(p.ratio)) for p in rr.pieces] == [
        ("0", "1/2", "(1 - p)/p"), ("1/2", "1", "p/(1 - p)")]
    assert [str(p) for p in result.mechanisms[0].leakage.points] == ["1/2"]


def test_leakage_zero_set_matches_point_leakage():
    model = load_parametric_model(example_path("quickstart_parametric.json")).restrict({"q": "9/10"})
    result = symbolic_audit(model)
    rr = result.mechanisms[0]
    assert [str(p) for p in rr.leakage.points] == ["1/2"]
    for x, zero in ((Fraction(1, 2), True), (Fraction(51, 100), False), (Fraction(1), False)):
        audit = audit_model(model.instantiate({"p": x}))
        assert audit.mechanisms[0].leakage.zero_leakage == zero


def test_two_parameters_give_candidate_ratios_whose_maximum_is_the_level():
    model = load_parametric_model(example_path("quickstart_parametric.json"))
    result = symbolic_audit(model)
    rr = result.mechanisms[0].pufferfish
    assert rr.pieces is None and len(rr.ratios) == 10
    for p, q in ((Fraction(3, 4), Fraction(9, 10)), (Fraction(2, 3), Fraction(3, 5))):
        audit = audit_model(model.instantiate({"p": p, "q": q}))
        best = max(value(r, {"p": p, "q": q}) for r, _ in rr.ratios)
        assert max(Fraction(1), best) == audit.mechanisms[0].pufferfish.level_ratio
    assert result.mechanisms[0].leakage.polynomial is not None
    data = result.to_dict()
    assert data["symbolic"] is True and data["composition"]["candidate_ratios"]


def test_parametric_interval_family_level_matches_the_point_audit():
    from pufferfish.proofs_check.paper_000.symbolic_claims import example43_file
    from pufferfish.verify.privacy.pufferfish import pufferfish_level

    model = parse_parametric_model(example43_file(
        {"LT": "1/5", "UT": ("2/5", "9/10"), "LF": "3/10", "UF": "1/2"}))
    audit = symbolic_audit(model)
    pieces = audit.mechanisms[0].pufferfish.pieces
    assert [(str(p.low), str(p.high), str(p.ratio)) for p in pieces] == [
        ("2/5", "4/5", "7/2"), ("4/5", "9/10", "7/(10*(1 - UT))")]
    assert audit.mechanisms[0].leakage is None
    for ut in (Fraction(2, 5), Fraction(1, 2), Fraction(4, 5), Fraction(17, 20), Fraction(9, 10)):
        point = model.instantiate({"UT": ut})
        exact = pufferfish_level(point, point.mechanism("collapse")).level_ratio
        expected = max(Fraction(7, 2), Fraction(7, 10) / (1 - ut))
        assert exact == expected, ut


def test_regions_refuse_interval_families():
    from pufferfish.proofs_check.paper_000.symbolic_claims import example43_file
    from pufferfish.models.errors import ModelError
    from pufferfish.verify.symbolic.region import budget_region

    model = parse_parametric_model(example43_file(
        {"LT": "1/5", "UT": ("2/5", "9/10"), "LF": "3/10", "UF": "1/2"}))
    with pytest.raises(ModelError, match="interval family"):
        budget_region(model, "log(4)", mechanism="collapse")
