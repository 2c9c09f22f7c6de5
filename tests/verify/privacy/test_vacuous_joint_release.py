"""A joint release whose every Pufferfish level is vacuous (no secret pair applies under any
prior) says so, on the enumeration path and on the structured one: its ``ε = 0`` is not "within
the linear bound"."""

from __future__ import annotations

import pytest

from pufferfish.api import load
from pufferfish.cli.main import main
from pufferfish.verify.privacy.audit import audit_model

MODEL = {"pufferfish_model": 1, "attributes": ["x1", "x2"], "domain": [0, 1], "datasets": "all",
         "priors": {"p": {"independent": {"x1": {"0": "1"}, "x2": {"0": "1/2", "1": "1/2"}}}},
         "secrets": {"x1=0": {"where": {"x1": 0}}, "x1=1": {"where": {"x1": 1}}},
         "pairs": [["x1=0", "x1=1"]],
         "mechanisms": {"a": {"query": "sum"},
                        "b": {"query": "sum", "noise": {"geometric": {"alpha": "1/2", "min": 0,
                                                                      "max": 2}}}}}


@pytest.mark.parametrize("method", ["enumeration", "structured"])
def test_a_vacuous_joint_release_says_so(method):
    audit = audit_model(load(MODEL), method=method)
    composition = audit.composition
    assert composition.vacuous and composition.joint.vacuous
    assert all(r.vacuous for r in composition.individual)
    text = composition.explain()
    assert text.startswith("joint release of a, b: Pufferfish level vacuous: no secret pair "
                           "applies")
    assert "within the linear bound" not in text and "ε = 0" not in text
    assert composition.to_dict()["vacuous"] is True
    # a level that constrains nothing proves nothing: no verdict, in Python and in JSON
    assert composition.holds is None and composition.to_dict()["holds"] is None


def test_a_constrained_joint_release_keeps_its_comparison():
    model = dict(MODEL, priors={"p": {"independent": {"x1": {"0": "1/2", "1": "1/2"},
                                                       "x2": {"0": "1/2", "1": "1/2"}}}})
    composition = audit_model(load(model)).composition
    assert not composition.vacuous and composition.to_dict()["vacuous"] is False
    assert composition.to_dict()["holds"] is True
    assert "vs sum of levels" in composition.explain()


def test_the_command_prints_the_vacuous_joint_release(tmp_path, capsys):
    import json

    path = tmp_path / "vacuous.json"
    path.write_text(json.dumps(MODEL))
    assert main(["audit", str(path), "--epsilon", "1"]) == 3
    out = capsys.readouterr().out
    assert "joint release of a, b: Pufferfish level vacuous" in out
    assert "within the linear bound" not in out
