"""The Python API's budgets (:func:`pufferfish.budget`): the command line's strings, exact
numbers, and floats read by their shortest decimal form; probabilities in models stay exact."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

import pufferfish
from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError


@pytest.mark.parametrize("value, exact", [
    (1.0, Fraction(1)), (0.1, Fraction(1, 10)), (0.5, Fraction(1, 2)), (2.5, Fraction(5, 2)),
    (1e-07, Fraction(1, 10 ** 7)), (0.0, Fraction(0)), (-0.0, Fraction(0)),
    (1e300, Fraction(10 ** 300)),
])
def test_a_float_budget_is_its_shortest_decimal(value, exact):
    budget = pufferfish.budget(value)
    assert budget.epsilon == exact
    assert budget.level == pufferfish.budget(str(exact)).level


def test_a_float_budget_is_not_the_binary_double():
    assert pufferfish.budget(0.1).epsilon != Fraction(0.1)


def test_a_float_budget_reads_as_the_command_line_reads_its_text():
    assert pufferfish.budget(0.1).text == "0.1"
    assert pufferfish.budget(1.0).text == "1.0"


@pytest.mark.parametrize("value, message", [
    (math.nan, "NaN"), (math.inf, 'write the string "inf"'), (-math.inf, "must be >= 0"),
    (-0.5, "must be >= 0"),
])
def test_nan_infinite_and_negative_float_budgets_are_refused(value, message):
    with pytest.raises(ModelError, match=message) as refusal:
        pufferfish.budget(value)
    assert refusal.value.path == "epsilon"


def test_audit_with_a_float_budget_is_the_audit_with_its_decimal():
    with_float = pufferfish.audit("quickstart.json", epsilon=1.0)
    with_text = pufferfish.audit("quickstart.json", epsilon="1")
    assert with_float.holds is with_text.holds is False
    assert [m.pufferfish.max_ratio for m in with_float.mechanisms] == \
        [m.pufferfish.max_ratio for m in with_text.mechanisms]
    assert pufferfish.audit("quickstart.json", epsilon=4.0).holds is True  # joint log(1194/31)


def test_every_budget_argument_accepts_a_float():
    # rr is log(3)-DP, log 3 = 1.098612...: decided exactly against the decimals 1.0987 and 1.0986
    assert pufferfish.dp_level("quickstart.json", "rr", epsilon=1.0987).holds is True
    assert pufferfish.dp_level("quickstart.json", "rr", epsilon=1.0986).holds is False
    assert pufferfish.composes("hidden_coin.json", 0.0).verdict == "violated"


def test_probabilities_in_a_model_still_refuse_floats():
    data = json.loads(example_path("quickstart.json").read_text(encoding="utf-8"))
    data["mechanisms"]["rr"]["per_entry"]["randomized_response"]["keep"] = 0.75
    with pytest.raises(ModelError, match="float"):
        pufferfish.load(data)


# --- region: the options of `pufferfish region` ------------------------------------------------

FIRST_BIT = [[[a, b, c], [[a, "1"]]] for a in (0, 1) for b in (0, 1) for c in (0, 1)]


def _cli_region(capsys, *argv):
    from pufferfish.cli.main import main

    assert main(["region", str(example_path("quickstart_parametric.json")), *argv, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    return {k: v for k, v in document.items() if k not in ("pufferfish_output", "command")}


def test_region_takes_the_options_of_the_command(capsys, tmp_path):
    (tmp_path / "map.json").write_text(json.dumps({"map": FIRST_BIT}))
    cases = [
        (dict(mechanism="rr", set={"q": "9/10"}), ["--mechanism", "rr", "--set", "q=9/10"]),
        (dict(mechanism="rr", set=["q=9/10"]), ["--mechanism", "rr", "--set", "q=9/10"]),
        (dict(joint=["rr", "sum"], set={"q": "9/10"}), ["--joint", "rr,sum", "--set", "q=9/10"]),
        (dict(joint="rr,sum", set={"q": "9/10"}), ["--joint", "rr,sum", "--set", "q=9/10"]),
        (dict(mechanism="rr", map=tmp_path / "map.json", set={"q": "9/10"}),
         ["--mechanism", "rr", "--map", str(tmp_path / "map.json"), "--set", "q=9/10"]),
        (dict(mechanism="rr", map={"map": FIRST_BIT}, width=Fraction(1, 4)),
         ["--mechanism", "rr", "--map", str(tmp_path / "map.json"), "--width", "1/4"]),
    ]
    for options, argv in cases:
        epsilon = "log(12)" if "joint" in options else "log(3)"
        result = pufferfish.region("quickstart_parametric.json", epsilon, **options)
        assert result.to_dict() == _cli_region(capsys, "--epsilon", epsilon, *argv), options


def test_region_maps_a_parametric_model_object_and_refuses_what_it_cannot():
    model = pufferfish.load_parametric("quickstart_parametric.json")
    result = pufferfish.region(model, "log(3)", mechanism="rr", map=FIRST_BIT, set={"q": "9/10"})
    assert result.to_dict()["intervals"][0]["high"]["exact"] == "3/4"
    with pytest.raises(ModelError, match="give mechanism= too"):
        pufferfish.region(model, "log(3)", map=FIRST_BIT)
    with pytest.raises(ModelError, match="restrict"):
        pufferfish.region(model.restrict({"q": "9/10"}), "log(3)", mechanism="rr", map=FIRST_BIT)
    with pytest.raises(ModelError, match="two or more"):
        pufferfish.region(model, "log(3)", joint=["rr"])
    with pytest.raises(ModelError, match="outside its range"):
        pufferfish.region(model, "log(3)", set={"q": 2})


def test_nfc_region_fixes_parameters_as_composes_region_set_does():
    result = pufferfish.nfc_region("quickstart_parametric.json", "log(3)", mechanisms=["rr"],
                                   set={"q": "9/10"}, width=Fraction(1, 32))
    assert result.names == ("p",)
