"""The composition report (000_65109fe28ca61d17.txt §5.1, Theorem 4): NfC result, attack, premise
of the theorem and repeated-run levels in one result object."""

from __future__ import annotations

import pytest

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError
from pufferfish.models.files.pufferfish_file import load_model
from pufferfish.verify.nfc.report import composition_report, premise_levels
from pufferfish.verify.numerics.certified import parse_budget


def test_hidden_coin_violates_at_zero_with_an_attack_and_no_premise_failure():
    model = load_model(example_path("hidden_coin.json"))
    report = composition_report(model, list(model.mechanisms.values()), parse_budget("0"),
                                runs=3)
    assert report.verdict == "violated" and report.attack is not None and report.attack.found
    assert [p.within_budget for p in report.premise] == [True] and report.premise_notes == []
    data = report.to_dict()
    assert data["pufferfish_levels"] == [{"mechanism": "coin", "epsilon": "0",
                                          "within_budget": True}]
    assert [len(r["runs"]) for r in data["repeated_runs"]] == [3]
    assert "Exact levels of r runs" in report.explain() and "attack:" in report.explain()


def test_premise_failure_is_a_note_in_both_outputs():
    model = load_model(example_path("composable_rr.json"))
    mechanisms = list(model.mechanisms.values())
    premise = premise_levels(model, mechanisms, parse_budget("log(3)"))
    assert {p.mechanism: p.within_budget for p in premise} == {"rr": False, "rr_x1": True}
    report = composition_report(model, mechanisms, parse_budget("log(3)"))
    note = "rr is not ε-Pufferfish at this budget (single-run level log(49/3))"
    assert any(n.startswith(note) for n in report.to_dict()["notes"])
    assert f"  note: {note}" in report.explain()
    assert "repeated_runs" not in report.to_dict()


def test_no_mechanisms_is_refused():
    model = load_model(example_path("hidden_coin.json"))
    with pytest.raises(ModelError, match="no mechanisms"):
        composition_report(model, [], parse_budget("1"))
