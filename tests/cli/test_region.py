"""``pufferfish region``: exact intervals, enclosures, certified maps with a picture, and its bad
input (exit 2, located)."""

from __future__ import annotations

import json

from pufferfish.examples import example_path

QUICK = str(example_path("quickstart_parametric.json"))


def test_one_parameter_region_is_exact(cli):
    code, out, _ = cli("region", QUICK, "--epsilon", "log(3)", "--mechanism", "rr",
                       "--set", "q=9/10")
    assert code == 0
    assert "exact: 1 closed interval(s)" in out
    assert "[1/2, root of 320*p**3 - 704*p**2 + 708*p - 243 in [1/2, 2/3]]" in out


def test_json_endpoints_carry_polynomial_and_interval(cli):
    code, out, _ = cli("region", QUICK, "--epsilon", "log(3)", "--mechanism", "rr",
                       "--set", "q=9/10", "--json")
    document = json.loads(out)
    assert code == 0 and document["method"] == "exact"
    high = document["intervals"][0]["high"]
    assert set(high) == {"polynomial", "interval", "approx"}


def test_rational_budget_is_enclosed(cli):
    code, out, _ = cli("region", QUICK, "--epsilon", "1", "--mechanism", "rr", "--set", "q=9/10")
    assert code == 0 and "certified: e^ε is transcendental" in out and "within (r_hi):" in out


def test_two_parameter_map_and_picture(cli, tmp_path):
    code, out, err = cli("region", QUICK, "--epsilon", "log(3)", "--mechanism", "rr",
                         "--width", "1/16", "--out", tmp_path / "map")
    assert code == 0 and "certified map" in out
    assert (tmp_path / "map" / "region.png").stat().st_size > 1000
    assert "wrote" in err


def test_bad_input_exits_2(cli, tmp_path):
    cases = [
        (["region", str(example_path("quickstart.json")), "--epsilon", "1"], "declares no"),
        (["region", QUICK, "--epsilon", "1", "--mechanism", "nobody"], "no mechanism 'nobody'"),
        (["region", QUICK, "--epsilon", "1", "--width", "0"], "--width must be positive"),
        (["region", QUICK, "--epsilon", "1", "--set", "q=2"], "outside its range"),
        (["region", QUICK, "--epsilon", "1", "--set", "q=1", "--out", tmp_path / "o"],
         "two-parameter map"),
        (["region", QUICK, "--epsilon", "abc"], "accepted forms"),
    ]
    for argv, phrase in cases:
        code, out, err = cli(*argv)
        assert code == 2 and phrase in err and "Traceback" not in err, (argv, err)
