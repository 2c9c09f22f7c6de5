"""The DCP report (004_acc5641f8e5f8c79.txt): levels, composition table, L^G and the verdict."""

from __future__ import annotations

from fractions import Fraction

from pufferfish.examples import example_path
from pufferfish.models.files.dcp_file import load_dcp_model
from pufferfish.verify.dcp.report import dcp_report
from pufferfish.verify.numerics.certified import parse_budget


def test_verdict_only_with_epsilon_and_delta():
    model = load_dcp_model(example_path("dcp_xor.json"))
    only_epsilon = dcp_report(model, budget=parse_budget("1/2"), source="x")
    assert only_epsilon.check is None and only_epsilon.holds is None
    checked = dcp_report(model, budget=parse_budget("1/2"), delta=Fraction(0), source="x")
    assert checked.holds is False and checked.to_dict()["verdict"]["holds"] is False
    assert checked.explain().startswith("DCP model x: ")


def test_selected_mechanisms_and_source():
    model = load_dcp_model(example_path("dcp_two_secrets.json"))
    name = list(model.mechanisms)[0]
    report = dcp_report(model, [name], source="two.json")
    data = report.to_dict()
    assert data["model"] == "two.json" and len(data["mechanisms"]) == 1
    assert data["mechanisms"][0]["delta_at_epsilon"] is None
