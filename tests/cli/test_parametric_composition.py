"""``composes --region``, ``postprocess --symbolic``, ``region --joint`` and ``region --map`` on
the parametric quickstart, and their bad input (exit 2, located, no traceback)."""

from __future__ import annotations

import json

from pufferfish.examples import example_path

QUICK = str(example_path("quickstart_parametric.json"))
PLAIN = str(example_path("quickstart.json"))
FIRST_BIT = {"map": [[[a, b, c], [[a, "1"]]] for a in (0, 1) for b in (0, 1) for c in (0, 1)]}


def test_composes_region_one_parameter(cli):
    code, out, _ = cli("composes", QUICK, "--epsilon", "log(3)", "--region", "--mechanisms", "rr",
                       "--set", "q=9/10", "--width", "1/32")
    assert code == 0
    assert "certified numerically, not exact" in out
    assert "holds (NfC <= ε proved): [1/2, " in out and "fails (NfC > ε proved): " in out


def test_composes_region_json_and_two_parameter_picture(cli, tmp_path):
    code, out, err = cli("composes", QUICK, "--epsilon", "log(3)", "--region", "--mechanisms",
                         "rr", "--width", "1/8", "--out", tmp_path / "map", "--json")
    document = json.loads(out)
    assert code == 0 and document["check"] == "nfc_region"
    assert document["method"] == "certified_numerical" and set(document["area"]) == {
        "holds", "fails", "boundary"}
    assert (tmp_path / "map" / "region.png").stat().st_size > 1000 and "wrote" in err


def test_postprocess_symbolic(cli, tmp_path):
    (tmp_path / "map.json").write_text(json.dumps(FIRST_BIT))
    code, out, _ = cli("postprocess", QUICK, "--mechanism", "rr", "--map", tmp_path / "map.json",
                       "--symbolic", "--set", "q=9/10")
    assert code == 0
    assert "after: Pufferfish level\n  1/2 < p < 1:  ε = log(p/(1 - p))" in out


def test_region_of_joint_release_and_of_postprocessed_mechanism(cli, tmp_path):
    (tmp_path / "map.json").write_text(json.dumps(FIRST_BIT))
    code, out, _ = cli("region", QUICK, "--epsilon", "log(3)", "--mechanism", "rr", "--map",
                       tmp_path / "map.json", "--set", "q=9/10")
    assert code == 0 and "[1/2, 3/4]" in out
    code, out, _ = cli("region", QUICK, "--epsilon", "log(12)", "--joint", "rr,sum",
                       "--set", "q=9/10")
    assert code == 0 and "the joint release of rr, sum" in out


def test_bad_input_exits_2(cli, tmp_path):
    (tmp_path / "map.json").write_text(json.dumps(FIRST_BIT))
    mapping = str(tmp_path / "map.json")
    cases = [
        (["composes", PLAIN, "--epsilon", "1", "--region"], "declares no"),
        (["composes", QUICK, "--epsilon", "1", "--region", "--runs", "2"], "--runs"),
        (["composes", PLAIN, "--epsilon", "1", "--width", "1/8"], "--region only"),
        (["composes", QUICK, "--epsilon", "1", "--region", "--width", "0"], "positive"),
        (["composes", QUICK, "--epsilon", "1", "--region", "--set", "q=1", "--out",
          tmp_path / "o"], "two-parameter map"),
        (["composes", QUICK, "--epsilon", "1", "--region", "--mechanisms", "nobody"],
         "no mechanism 'nobody'"),
        (["postprocess", PLAIN, "--mechanism", "rr", "--map", mapping, "--symbolic"],
         "declares no"),
        (["postprocess", QUICK, "--mechanism", "nobody", "--map", mapping, "--symbolic"],
         "nobody"),
        (["region", QUICK, "--epsilon", "1", "--mechanism", "rr", "--mechanism", "nobody"],
         "no mechanism 'nobody'"),
        (["region", QUICK, "--epsilon", "1", "--joint", "rr,sum", "--mechanism", "rr"],
         "named twice"),
        (["region", QUICK, "--epsilon", "1", "--map", mapping], "--mechanism M too"),
    ]
    for argv, phrase in cases:
        code, out, err = cli(*argv)
        assert code == 2 and phrase in err and "Traceback" not in err, (argv, err)
