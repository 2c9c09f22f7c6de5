"""Interval families with parametric bounds: validation, the guarded envelope of their level
(checked against the exact point audit at rational points, across a guard switch), and the
exact differing set / certified map of two envelopes (checked at rational points inside, outside
and at the endpoints' rational neighbours)."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.models.parametric import parse_parametric_model
from pufferfish.proofs_check.paper_000.collapse_examples import interval_example
from pufferfish.proofs_check.paper_000.collapse_report import theorem3_ratios
from pufferfish.proofs_check.paper_000.symbolic_claims import (example43_file,
                                                                theorem3_envelope)
from pufferfish.verify.privacy.pufferfish import pufferfish_level
from pufferfish.verify.symbolic.compare import Branch, Envelope, differing_map, differing_set
from pufferfish.verify.symbolic.evaluate import SymbolicModel
from pufferfish.verify.symbolic.families import family_envelope, mass_vertices

GUARDED = {
    "pufferfish_model": 1, "parameters": {"u": ["1/2", "9/10"]},
    "attributes": ["s", "b"], "domain": [0, 1, 2], "datasets": "all",
    "priors": {"theta": {"interval": {
        "one": [{"where": {"b": 0}, "mass": ["1/4", "u"]}, {"where": {"b": 1}, "mass": ["1/4", "1/2"]},
                {"rest": True, "mass": ["0", "1/4"]}],
        "zero": [{"where": {"b": 0}, "mass": ["1/3", "1/2"]}, {"rest": True, "mass": ["1/2", "2/3"]}],
        "two": [{"where": {"b": 2}, "mass": ["1/3", "1/2"]}, {"rest": True, "mass": ["1/2", "2/3"]}]}}},
    "secrets": {"one": {"where": {"s": 1}}, "zero": {"where": {"s": 0}}, "two": {"where": {"s": 2}}},
    "pairs": [["one", "zero"], ["one", "two"]],
    "mechanisms": {"noisy": {"table": [
        [[s, b], [[0, "1/2" if b == 0 else "1/6"], [1, "1/2" if b == 1 else "1/6"],
                  [2, "1/3" if b < 2 else "2/3"]]]
        for s in range(3) for b in range(3)]}}}
"""A family whose vertex priors switch feasibility inside the range: for secret ``one`` the
vertex with blocks b=1, b=2 at their lower bounds gives block b=0 the mass ``1 − 1/4 − 0 = 3/4``,
a prior of the family only for ``u >= 3/4`` (a guard changing sign at u = 3/4)."""


def _exact_level(data: dict, u: Fraction) -> Fraction:
    model = parse_parametric_model(data).instantiate({"u": u})
    return pufferfish_level(model, model.mechanism("noisy")).level_ratio


def _points(low: Fraction, high: Fraction, extra=()) -> list[Fraction]:
    step = (high - low) / 16
    grid = [low + k * step for k in range(17)]
    return sorted(set(grid) | {x for x in extra if low <= x <= high})


def test_guarded_envelope_matches_the_point_audit_across_a_guard_switch():
    symbolic = SymbolicModel(parse_parametric_model(GUARDED))
    envelope = family_envelope(symbolic, "noisy", "theta")
    assert any(b.guards for b in envelope.branches)
    near = (Fraction(3, 4), Fraction(3, 4) - Fraction(1, 10**6), Fraction(3, 4) + Fraction(1, 10**6))
    for u in _points(Fraction(1, 2), Fraction(9, 10), near):
        value, _ = envelope.value_at((u,))
        assert value == max(Fraction(1), _exact_level(GUARDED, u)), u


def test_mass_vertices_of_a_segment():
    from sympy import QQ
    field = QQ.frac_field(*parse_parametric_model(GUARDED).box.symbols)
    one = field.one
    half = one / 2
    vertices = mass_vertices([half / 2, half / 2], [half, one - half / 2], one)
    assert {tuple(str(m.as_expr()) for m in masses) for masses, _ in vertices} == {
        ("1/4", "3/4"), ("1/2", "1/2")}


@pytest.mark.parametrize("change, where, reason", [
    (("one", 0, ["u", "1/4"]), "priors.theta.interval.one.0.mass", "must be nonempty"),
    (("one", 1, ["u", "9/10"]), "priors.theta.interval.one", "lower bounds must sum to at most 1"),
    (("zero", 1, ["1/3", "1/2 - u/10"]), "priors.theta.interval.zero", "upper bounds must sum"),
    (("zero", 1, ["1/2", "u + 1/5"]), "priors.theta.interval.zero.1.mass.1", "not a probability"),
])
def test_bad_parametric_intervals_are_located_errors(change, where, reason):
    data = copy.deepcopy(GUARDED)
    secret, k, mass = change
    data["priors"]["theta"]["interval"][secret][k]["mass"] = mass
    with pytest.raises(ModelError) as error:
        parse_parametric_model(data)
    assert error.value.path == where and reason in str(error.value)


def _mutant_ratio(lt, ut, lf, uf) -> Fraction:
    return max([Fraction(1)] + [max(x, 1 / x) for _, x in theorem3_ratios(lt, ut, lf, uf)[:4]])


def _first_four(v, one):
    return [(v["UT"], v["LF"]), (v["LT"], v["UF"]), (one - v["UT"], v["UF"]),
            (one - v["LT"], v["LF"])]


@pytest.mark.parametrize("bounds, expected", [
    ({"LT": ("1/100", "2/5"), "UT": "2/5", "LF": "3/10", "UF": "1/2"}, "[1/100, 3/10)"),
    ({"LT": "1/5", "UT": "2/5", "LF": ("1/100", "1/2"), "UF": "1/2"}, "(1/5, 1/2)"),
])
def test_differing_set_agrees_with_exact_evaluation(monkeypatch, bounds, expected):
    import pufferfish.proofs_check.paper_000.symbolic_claims as claims

    monkeypatch.setattr(claims, "_theorem3_paper_ratios", _first_four)
    model = parse_parametric_model(example43_file(bounds))
    symbolic = SymbolicModel(model)
    result = differing_set(family_envelope(symbolic, "collapse", "theta"),
                           theorem3_envelope(symbolic, bounds), model.box.symbols,
                           model.box.low, model.box.high)
    assert result.text() == expected
    name = model.box.names[0]
    ends = [e.value for i in result.intervals for e in (i.low, i.high)]
    tiny = Fraction(1, 10**9)
    extra = [e + d for e in ends for d in (-tiny, 0, tiny)]
    for x in _points(model.box.low[0], model.box.high[0], extra):
        values = {n: Fraction(v) if not isinstance(v, tuple) else x for n, v in bounds.items()}
        instance = interval_example(values["LT"], values["UT"], values["LF"], values["UF"])
        exact = pufferfish_level(instance, instance.mechanism("collapse")).level_ratio
        paper = _mutant_ratio(values["LT"], values["UT"], values["LF"], values["UF"])
        assert (max(Fraction(1), exact) != paper) == result.contains(x), (name, x)


def test_certified_map_boxes_agree_with_exact_evaluation():
    from sympy import QQ
    import sympy

    p, q = sympy.symbols("p q", real=True)
    field = QQ.frac_field(p, q)
    one = field.one
    first = Envelope((Branch(one, one), Branch(field.from_sympy(p), field.from_sympy(q))))
    second = Envelope((Branch(one, one),))
    bounds = ((Fraction(1, 4), Fraction(1)), (Fraction(1, 4), Fraction(1)))
    found = differing_map(first, second, ("p", "q"), bounds, Fraction(1, 32))
    assert found.differing and found.equal and found.boundary
    for kind, boxes in (("equal", found.equal), ("differing", found.differing)):
        for box in boxes:
            for x in (box[0][0], box[0][1]):
                for y in (box[1][0], box[1][1]):
                    assert (x / y > 1) == (kind == "differing") or x == y, (kind, box)
    areas = found.areas()
    assert sum(areas.values()) == Fraction(9, 16)
