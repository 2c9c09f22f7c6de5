"""``pufferfish least-noise``: the brackets of the Python function, their ends checked against
the structured audit of the model with that noise, and its refusals."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import pufferfish
from pufferfish.examples import example_path


def test_the_command_prints_the_brackets_of_the_python_function(cli):
    code, out, err = cli("least-noise", example_path("quickstart.json"), "--epsilon", "1",
                         "--tolerance", "1/100", "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["command"] == "least-noise" and document["query"] == "sum"
    python = pufferfish.least_noise("quickstart.json", "1", tolerance="1/100").to_dict()
    for noise in ("geometric", "laplace"):
        for end in ("ok", "fail"):
            assert document[noise][end] == python[noise][end]
        assert document[noise]["least"] is True


def _audit_with_alpha(alpha: str, width: int) -> Fraction:
    model = json.loads(example_path("chain_sum_T60.json").read_text())
    model["attributes"] = model["attributes"][:width]
    model["mechanisms"]["sum"]["noise"]["geometric"].update({"alpha": alpha, "max": width})
    return pufferfish.audit(model, method="structured").mechanisms[0].pufferfish.max_ratio


def test_the_geometric_ends_are_what_the_audit_finds(cli, tmp_path):
    """α_ok is ε-private and α_fail is not, by the structured audit of the same chain."""
    model = json.loads(example_path("chain_sum_T60.json").read_text())
    model["attributes"] = model["attributes"][:20]
    model["mechanisms"]["sum"]["noise"]["geometric"]["max"] = 20
    path = tmp_path / "chain20.json"
    path.write_text(json.dumps(model))
    code, out, err = cli("least-noise", path, "--epsilon", "log(4)", "--noise", "geometric",
                         "--tolerance", "1/100", "--json")
    assert code == 0, err
    bracket = json.loads(out)["geometric"]
    ok, fail = bracket["ok"]["parameter"], bracket["fail"]["parameter"]
    assert Fraction(fail) < Fraction(ok)
    assert _audit_with_alpha(ok, 20) <= 4 < _audit_with_alpha(fail, 20)
    assert Fraction(bracket["ok"]["ratio"]["upper"]) == _audit_with_alpha(ok, 20)


def test_the_text_names_the_query_and_both_brackets(cli):
    code, out, _ = cli("least-noise", example_path("bayesnet_rain.json"), "--epsilon", "1",
                       "--query", "count", "--value", "yes", "--attributes", "sprinkler,wet",
                       "--tolerance", "1/100")
    assert code == 0
    assert out.startswith("least noise of count of sprinkler, wet:")
    assert "geometric noise, ε = 1: α_fail = " in out and "laplace noise, ε = 1: b_fail = " in out


@pytest.mark.parametrize("argv, phrase", [
    (["flu.json", "--epsilon", "1"], "has no factored form"),
    (["quickstart.json", "--epsilon", "0"], "ε must be in [1e-9, 100]"),
    (["quickstart.json", "--epsilon", "1", "--tolerance", "2"], "tolerance must be in (0, 1)"),
    (["quickstart.json", "--epsilon", "1", "--attributes", "x9"], "unknown attributes"),
    (["quickstart.json", "--epsilon", "1", "--query", "count", "--value", "7"],
     "is not a value of the attributes"),
    (["quickstart.json", "--epsilon", "1", "--min", "3", "--max", "1"], "is empty"),
])
def test_bad_input_is_refused_with_its_place(argv, phrase, cli):
    code, out, err = cli("least-noise", example_path(argv[0]), *argv[1:])
    assert code == 2 and out == "" and phrase in err and "Traceback" not in err, err


# --- the model's own mechanism, and what to use ---------------------------------------------

E_LOW, E_HIGH = Fraction(2718281828, 10**9), Fraction(2718281829, 10**9)   # e is between them


def _level_at_most_one(ratio: Fraction) -> bool:
    """log(ratio) <= 1, decided by rational bounds on e (never at the ambiguous gap)."""
    assert not E_LOW <= ratio <= E_HIGH
    return ratio < E_LOW


def test_the_mechanism_gives_the_query_and_the_clamp(cli):
    code, out, err = cli("least-noise", "quickstart.json", "--mechanism", "sum", "--epsilon", "1",
                         "--tolerance", "1/100", "--json")
    assert code == 1, err  # the mechanism's own α = 1/2 is not private at ε = 1
    document = json.loads(out)
    code, flags, _ = cli("least-noise", "quickstart.json", "--query", "sum", "--min", "0",
                         "--max", "3", "--noise", "geometric", "--epsilon", "1",
                         "--tolerance", "1/100", "--json")
    flags = json.loads(flags)
    assert document["laplace"] is None and flags["mechanism"] is None      # geometric only
    for end in ("ok", "fail"):
        assert document["geometric"][end] == flags["geometric"][end]
    # the mechanism's own α = 1/2: its level, by the exact audit, exceeds ε = 1
    own = pufferfish.pufferfish_level("quickstart.json", "sum").max_ratio
    mechanism = document["mechanism"]
    assert (mechanism["name"], mechanism["alpha"], mechanism["min"], mechanism["max"]) == \
        ("sum", "1/2", 0, 3)
    assert Fraction(mechanism["level"]["ratio"]["upper"]) == own
    assert mechanism["verdict"] == ("private" if _level_at_most_one(own) else "not private")


def test_it_says_plainly_which_alpha_to_use_and_the_audit_agrees(cli):
    code, out, _ = cli("least-noise", "quickstart.json", "--mechanism", "sum", "--epsilon", "1",
                       "--tolerance", "1/100")
    assert code == 1  # the search succeeds; the mechanism's own α fails its check
    first, = [line.strip() for line in out.splitlines() if line.strip().startswith("use α >= ")]
    alpha = first.split()[3]
    assert first.startswith(f"use α >= {alpha} (the level at α = {alpha} is exactly at most ε")
    assert "mechanism sum: geometric noise α = 1/2 on [0, 3] is not private at ε = 1" in out
    assert "certified bracket" in out
    model = json.loads(example_path("quickstart.json").read_text())
    for larger in (Fraction(alpha), (Fraction(alpha) + 1) / 2, Fraction(99, 100)):
        model["mechanisms"]["sum"]["noise"]["geometric"]["alpha"] = str(larger)
        assert _level_at_most_one(pufferfish.pufferfish_level(model, "sum").max_ratio), larger


def test_a_count_mechanism_gives_its_attributes_and_value(cli, tmp_path):
    model = json.loads(example_path("bayesnet_rain.json").read_text())
    model["mechanisms"] = {"wet_count": {
        "query": {"count": {"attributes": ["sprinkler", "wet"], "value": "yes"}},
        "noise": {"geometric": {"alpha": "1/3", "min": 0, "max": 2}}}}
    path = tmp_path / "rain.json"
    path.write_text(json.dumps(model))
    (tmp_path / "rain.bif").write_text(example_path("rain.bif").read_text())
    code, out, err = cli("least-noise", path, "--mechanism", "wet_count", "--epsilon", "1",
                         "--tolerance", "1/100", "--json")
    assert code == 0, err
    _, flags, _ = cli("least-noise", example_path("bayesnet_rain.json"), "--query", "count",
                      "--value", "yes", "--attributes", "sprinkler,wet", "--noise", "geometric",
                      "--epsilon", "1", "--tolerance", "1/100", "--json")
    document, flags = json.loads(out), json.loads(flags)
    assert document["query"] == flags["query"] == "count of sprinkler, wet"
    assert document["geometric"]["ok"] == flags["geometric"]["ok"]
    assert document["geometric"]["use_at_least"] == document["geometric"]["ok"]["parameter"]


def test_a_narrow_clamp_says_use_this_alpha_not_at_least(cli):
    code, out, _ = cli("least-noise", "quickstart.json", "--epsilon", "1", "--min", "1",
                       "--max", "2", "--noise", "geometric", "--tolerance", "1/100", "--json")
    geometric = json.loads(out)["geometric"]
    assert code == 0 and geometric["use_at_least"] is None and not geometric["least"]
    assert geometric["advice"].startswith(f"use α = {geometric['ok']['parameter']}: ")
    assert "a larger α is not proved private" in geometric["advice"]


def test_the_help_names_the_bracket_and_what_is_exact(capsys):
    from pufferfish.cli.main import main

    with pytest.raises(SystemExit):
        main(["least-noise", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "certified brackets around the least geometric noise α (exact levels at their ends)" \
        in text.lower()
    assert "--mechanism NAME" in text and "(exact)" not in text


@pytest.mark.parametrize("argv, phrase", [
    (["--mechanism", "sum", "--query", "count"], "leave out --query"),
    (["--mechanism", "sum", "--min", "0", "--max", "3"], "leave out --min, --max"),
    (["--mechanism", "rr"], "mechanisms.rr: the least noise is searched for a sum or a count"),
    (["--mechanism", "nope"], "no mechanism 'nope'"),
    (["--mechanism", "sum", "--mechanism", "rr"], "reads one mechanism"),
])
def test_a_mechanism_that_cannot_be_read_is_refused(argv, phrase, cli):
    code, out, err = cli("least-noise", "quickstart.json", "--epsilon", "1", *argv)
    assert code == 2 and out == "" and phrase in err and "Traceback" not in err, err
