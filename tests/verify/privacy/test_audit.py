"""The model audit (``000_65109fe28ca61d17.txt`` Definitions 1–5): a model with nothing to audit is
refused, never reported as holding; DP levels under the chosen neighbour relations, the chosen
mechanisms, and DP budgets."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.files.pufferfish_file import load_model, parse_model
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import UniformPrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.audit import audit_model
from pufferfish.verify.privacy.dp import dp_level


def empty_model() -> PufferfishModel:
    universe = Universe.product(["x1"], [[0, 1]])
    s0 = Secret.where("x1=0", universe, {"x1": 0})
    s1 = Secret.where("x1=1", universe, {"x1": 1})
    return PufferfishModel(universe, {"uniform": UniformPrior("uniform", universe)},
                           {"x1=0": s0, "x1=1": s1}, [SecretPair(s0, s1)])


@pytest.mark.parametrize("budget", [None, "1", "log(3)", "inf"])
def test_a_model_without_mechanisms_is_refused(budget):
    with pytest.raises(ModelError, match="no mechanisms") as info:
        audit_model(empty_model(), None if budget is None else parse_budget(budget))
    assert info.value.path == "mechanisms"


def test_the_command_line_exits_2_on_a_model_without_mechanisms(tmp_path):
    data = json.loads(example_path("composable_rr.json").read_text())
    data["mechanisms"] = {}
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(data))
    done = subprocess.run([sys.executable, "-c", "import sys; from pufferfish.cli.main import main; "
                           "sys.exit(main())", "audit", str(path), "--epsilon", "1"],
                          capture_output=True, text=True)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "holds" not in done.stdout


# --- neighbour relations, chosen mechanisms and DP budgets ----------------------------------------

def answers_model(**extra) -> dict:
    """Three numeric answers in {0, 1, 2}, independent uniform; a noisy sum (geometric α = 1/2 on
    [0, 6]: a change of the sum by Δ costs 2^Δ) and randomized response keeping 1/2 (2 per
    changed answer)."""
    return {"pufferfish_model": 1, "attributes": ["q1", "q2", "q3"], "domain": [0, 1, 2],
            "datasets": "all", "priors": {"uniform": {"uniform": True}}, "entry_pairs": True,
            "mechanisms": {
                "sum": {"query": "sum", "noise": {"geometric": {"alpha": "1/2", "min": 0,
                                                                 "max": 6}}},
                "rr": {"per_entry": {"randomized_response": {"keep": "1/2"}}}}, **extra}


def dp_of(audit) -> dict:
    return {m.name: [(d.relation, d.epsilon) for d in m.dp] for m in audit.mechanisms}


def test_the_model_relation_is_the_default_and_stated():
    model = parse_model(answers_model(neighbours="linf:1"))
    audit = audit_model(model)
    assert dp_of(audit) == {"sum": [("linf:1", "log(8)")], "rr": [("linf:1", "log(8)")]}
    assert audit.to_dict()["neighbours"] == ["linf:1"]
    for m in audit.mechanisms:
        assert m.dp[0] == dp_level(model.universe, model.mechanisms[m.name], "linf:1")
    # asked relations replace the model's; group K is added; repeats are dropped
    audit = audit_model(model, group=2, neighbours=["entry", "l1:2", "entry"])
    assert dp_of(audit)["sum"] == [("entry", "log(4)"), ("l1:2", "log(4)"), ("group 2", "log(16)")]
    assert audit.to_dict()["neighbours"] == ["entry", "l1:2", "group:2"]


def test_entry_levels_are_unchanged_by_the_new_options():
    model = load_model(example_path("quickstart.json"))
    plain = audit_model(model, parse_budget("log(3)")).to_dict()
    asked = audit_model(model, parse_budget("log(3)"), neighbours=["entry"],
                        mechanisms=["rr", "sum"]).to_dict()
    assert asked == plain and plain["neighbours"] == ["entry"]


def test_only_the_named_mechanisms_are_audited():
    model = parse_model(answers_model())
    everything = audit_model(model)
    one = audit_model(model, mechanisms=["rr"])
    assert [m.name for m in one.mechanisms] == ["rr"] and one.composition is None
    assert one.mechanisms[0].to_dict() == everything.mechanisms[1].to_dict()
    both = audit_model(model, mechanisms=["rr", "sum"])   # the model's order, joint release
    assert [m.name for m in both.mechanisms] == ["sum", "rr"]
    assert both.to_dict() == everything.to_dict()
    with pytest.raises(ModelError, match="unknown mechanism 'noise'; the model's mechanisms are "
                                         "'sum', 'rr'") as info:
        audit_model(model, mechanisms=["noise"])
    assert info.value.path == "mechanisms"
    assert set(model.mechanisms) == {"sum", "rr"}           # the model itself is not changed


def test_dp_budget_decides_every_level():
    model = parse_model(answers_model(neighbours="linf:1"))
    tight = audit_model(model, dp_budget=parse_budget("log(8)"))
    assert tight.holds is True and tight.dp_holds is True and tight.pufferfish_holds is None
    assert {d.budget.relation for m in tight.mechanisms for d in m.dp} == {"tight"}
    below = audit_model(model, dp_budget=parse_budget("2"), mechanisms=["sum"])  # log 8 > 2
    assert below.holds is False and below.to_dict()["dp_holds"] is False
    assert below.to_dict()["dp_budget"] == "2"
    text = below.explain()
    assert "DP budget ε = 2 (linf:1): VIOLATED" in text
    assert "sum: linf:1 DP level log(8) exceeds 2: output 0 on [0, 0, 0] vs [1, 1, 1]" in text
    # a Pufferfish budget that holds does not hide a violated DP budget
    both = audit_model(model, parse_budget("inf"), dp_budget=parse_budget("2"))
    assert (both.pufferfish_holds, both.dp_holds, both.holds) == (True, False, False)
    assert "budget ε = inf: holds" in both.explain()


def test_too_many_pairs_are_refused_before_any_block_runs():
    model = parse_model(answers_model())
    finished = []
    with pytest.raises(TooLargeError, match="316 ordered pairs"):
        audit_model(model, neighbours=["linf:1"], max_pairs=315,
                    block_progress=lambda done, total: finished.append(done))
    assert finished == []


def test_an_empty_list_of_relations_is_refused():
    with pytest.raises(ModelError, match="no neighbour relation given"):
        audit_model(parse_model(answers_model()), neighbours=[], dp_budget=parse_budget("1"))
