"""``pufferfish audit --symbolic`` and ``--set`` on parametric models."""

from __future__ import annotations

import json

from pufferfish.examples import example_path

QUICK = str(example_path("quickstart_parametric.json"))


def test_set_audits_the_model_at_a_point_like_the_quickstart(cli):
    code, at_point, _ = cli("audit", QUICK, "--set", "p=3/4", "--set", "q=9/10")
    code2, original, _ = cli("audit", str(example_path("quickstart.json")))
    assert code == code2 == 0
    assert at_point.splitlines()[1:] == original.splitlines()[1:]


def test_symbolic_audit_prints_pieces(cli):
    code, out, _ = cli("audit", QUICK, "--symbolic", "--set", "q=9/10")
    assert code == 0
    assert "1/2 < p < 1:  ε = log(p/(1 - p))" in out
    assert "rr: leakage zero only at 1/2" in out


def test_symbolic_audit_json(cli):
    code, out, _ = cli("audit", QUICK, "--symbolic", "--json")
    document = json.loads(out)
    assert code == 0 and document["symbolic"] is True
    assert document["parameters"] == {"p": ["1/2", "1"], "q": ["1/2", "1"]}
    assert document["mechanisms"][0]["pufferfish"]["candidate_ratios"]


def test_parametric_model_without_symbolic_or_set_is_refused_with_the_commands(cli):
    code, out, err = cli("audit", QUICK)
    assert code == 2 and "--symbolic" in err and "region" in err and "--set" in err


def test_symbolic_refuses_budget_and_ordinary_models(cli):
    code, _, err = cli("audit", QUICK, "--symbolic", "--epsilon", "1")
    assert code == 2 and "pufferfish region" in err
    code, _, err = cli("audit", str(example_path("quickstart.json")), "--symbolic")
    assert code == 2 and "declares no" in err


def test_other_commands_refuse_a_parametric_model_naming_the_commands(cli):
    code, _, err = cli("composes", QUICK, "--epsilon", "log(3)")
    assert code == 2 and "audit MODEL --symbolic" in err


def _interval_family_file(tmp_path, upper: str):
    from pufferfish.proofs_check.paper_000.symbolic_claims import example43_file

    data = example43_file({"LT": "1/5", "UT": ("2/5", "9/10"), "LF": "3/10", "UF": "1/2"})
    data["priors"]["theta"]["interval"]["s1"][0]["mass"][1] = upper
    path = tmp_path / "family.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_parametric_interval_family_bad_bound_is_a_located_error(cli, tmp_path):
    code, _, err = cli("audit", _interval_family_file(tmp_path, "UT - 1/4"), "--symbolic")
    assert code == 2 and "priors.theta.interval.s1.0.mass" in err and "nonempty" in err
    assert "Traceback" not in err


def test_parametric_interval_family_audits_and_instantiates(cli, tmp_path):
    path = _interval_family_file(tmp_path, "UT")
    code, out, _ = cli("audit", path, "--set", "UT=1/2")
    assert code == 0 and "collapse" in out
    code, out, _ = cli("audit", path, "--symbolic")
    assert code == 0 and "4/5 < UT < 9/10:  ε = log(7/(10*(1 - UT)))" in out
    code, _, err = cli("region", path, "--epsilon", "log(4)")
    assert code == 2 and "interval family" in err
