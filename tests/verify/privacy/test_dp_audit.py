"""A DP-only model (no priors, no secrets, no pairs): read, audited for its DP levels alone, with
the report leading with DP (its decimal and worst case), and refused by what needs priors."""

from __future__ import annotations

import json

import pytest

import pufferfish
from pufferfish.cli.main import main
from pufferfish.models.errors import ModelError

DP_ONLY = {"pufferfish_model": 1, "attributes": ["x1", "x2", "x3"], "domain": [0, 1],
           "datasets": "all",
           "mechanisms": {"noisy_sum": {"query": "sum", "noise": {"geometric": {
               "alpha": "1/2", "min": 0, "max": 3}}}}}


def test_a_model_without_priors_secrets_and_pairs_is_dp_only():
    model = pufferfish.load(DP_ONLY)
    assert model.dp_only and not model.priors and not model.pairs
    assert "DP only" in repr(model)


def test_its_audit_has_the_dp_levels_alone_with_their_witnesses():
    result = pufferfish.audit(DP_ONLY, neighbours=["entry", "linf:1"], epsilon_dp="log(4)")
    (audit,) = result.mechanisms
    assert audit.pufferfish is None and audit.leakage is None
    assert [(d.relation, d.epsilon) for d in audit.dp] == [("entry", "log(2)"),
                                                           ("linf:1", "log(8)")]
    assert result.holds is False and result.dp_only
    text = result.explain("m")
    assert text.splitlines()[2].split() == ["mechanism", "neighbours", "DP", "ε", "≈",
                                            "DP", "budget"]
    assert "pufferfish" not in text.lower().replace("pufferfish_model", "")
    assert "0.6931" in text and "2.0794" in text
    assert ("noisy_sum: linf:1 DP worst case output 0: Pr[ω|[0, 0, 0]] = 2/3 vs "
            "Pr[ω|[1, 1, 1]] = 1/12, ratio 8") in text
    assert result.to_dict()["mechanisms"][0]["pufferfish"] is None


def test_a_pufferfish_budget_or_a_pufferfish_analysis_is_refused():
    with pytest.raises(ModelError, match="DP-only"):
        pufferfish.audit(DP_ONLY, epsilon="1")
    with pytest.raises(ModelError, match="needs priors and secret pairs"):
        pufferfish.pufferfish_level(DP_ONLY, "noisy_sum")
    with pytest.raises(ModelError, match="needs priors and secret pairs"):
        pufferfish.composes(DP_ONLY, "1")


@pytest.mark.parametrize("edit, phrase", [
    ({"pairs": [["a", "b"]], "secrets": {"a": {"where": {"x1": 0}}, "b": {"where": {"x1": 1}}}},
     "no prior"),
    ({"priors": {"u": {"uniform": True}}}, "at least one secret pair")])
def test_half_a_pufferfish_model_is_still_refused(edit, phrase):
    with pytest.raises(ModelError, match=phrase):
        pufferfish.load({**DP_ONLY, **edit})


def test_the_command_line_audits_it_and_refuses_epsilon(tmp_path, capsys):
    path = tmp_path / "dp_only.json"
    path.write_text(json.dumps(DP_ONLY))
    assert main(["audit", str(path), "--epsilon-dp", "1"]) == 0
    out = capsys.readouterr().out
    assert "(DP only: the model has no priors or secret pairs)" in out
    assert "entry DP worst case output" in out
    assert main(["audit", str(path), "--epsilon", "1"]) == 2
    assert "--epsilon-dp" in capsys.readouterr().err
    assert main(["composes", str(path), "--epsilon", "1"]) == 2
    assert "DP-only model" in capsys.readouterr().err


def test_an_ordinary_audit_shows_each_dp_level_s_decimal_and_worst_case():
    text = pufferfish.audit("quickstart.json").explain("quickstart")
    assert "entry log(3) ≈1.0986" in text
    assert ("rr: entry DP worst case output [0, 0, 0]: Pr[ω|[0, 0, 0]] = 27/64 vs "
            "Pr[ω|[1, 0, 0]] = 9/64, ratio 3") in text
