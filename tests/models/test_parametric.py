"""Parametric model files (issue 14): parameters, rational expressions, symbolic validation
with located errors, instantiation at a point and partial restriction."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError
from pufferfish.models.files.pufferfish_file import load_model, parse_model
from pufferfish.models.parametric import (load_model_at, load_parametric_model,
                                          parse_expression, parse_parameters,
                                          parse_parametric_model)

QUICK = json.loads(example_path("quickstart_parametric.json").read_text())


def changed(edit) -> dict:
    data = copy.deepcopy(QUICK)
    edit(data)
    return data


def test_instantiating_at_the_quickstart_point_gives_the_quickstart():
    model = load_parametric_model(example_path("quickstart_parametric.json"))
    point = model.instantiate({"p": "3/4", "q": "9/10"})
    original = load_model(example_path("quickstart.json"))
    for d in original.universe.datasets():
        assert point.priors["sticky"].probability(d) == original.priors["sticky"].probability(d)
        assert point.mechanisms["rr"].distribution(d) == original.mechanisms["rr"].distribution(d)


def test_ordinary_loader_refuses_a_parametric_model_naming_the_commands():
    with pytest.raises(ModelError) as error:
        load_model(example_path("quickstart_parametric.json"))
    assert error.value.path == "parameters"
    assert "audit MODEL --symbolic" in str(error.value) and "region" in str(error.value)
    assert "--set" in str(error.value)


def test_load_model_at_needs_every_parameter_inside_its_range():
    path = example_path("quickstart_parametric.json")
    assert load_model_at(path, ["p=3/4", "q=1"]).mechanisms["rr"].keep == Fraction(3, 4)
    for argv, phrase in ((["p=3/4"], "no value given for parameter 'q'"),
                         (["p=2", "q=1"], "outside its range"),
                         (["p=3/4", "q=1", "r=1"], "no parameter 'r'"),
                         (["p"], "--set NAME=VALUE"), ([], "declares parameters")):
        with pytest.raises(ModelError, match=phrase):
            load_model_at(path, argv)
    with pytest.raises(ModelError, match="declares no parameters"):
        load_model_at(example_path("quickstart.json"), ["p=1/2"])


def test_restrict_fixes_some_parameters():
    model = load_parametric_model(example_path("quickstart_parametric.json")).restrict({"q": "9/10"})
    assert model.box.names == ("p",)
    assert str(model.expression(("priors", "sticky", "markov", "transition", "0", "1"))) == "1/10"
    with pytest.raises(ModelError, match="every parameter is fixed"):
        model.restrict({"p": "1/2"})


def test_expression_grammar():
    box = parse_parameters({"p": [0, 1], "q": ["1/4", "0.5"]})
    assert str(parse_expression("(1-q)/2 + p**2*0.25", box, "x")) == "p**2/4 - q/2 + 1/2"
    assert parse_expression(3, box, "x") == 3
    for text, phrase in (("p**q", "integer"), ("abs(p)", "not a rational expression"),
                         ("p +", "neither an exact number"), ("r", "used but not declared"),
                         ("p/0", "divides by zero"), ("p**100", "integer between")):
        with pytest.raises(ModelError, match=phrase):
            parse_expression(text, box, "here")
    with pytest.raises(ModelError, match="not accepted because it is not exact"):
        parse_expression(0.5, box, "here")


@pytest.mark.parametrize("edit, path, phrase", [
    (lambda d: d["mechanisms"]["rr"]["per_entry"]["randomized_response"].update(keep="r"),
     "mechanisms.rr.per_entry.randomized_response.keep", "parameter 'r' is used but not declared"),
    (lambda d: d["parameters"].update(p=["1", "1/2"]), "parameters.p", "is empty"),
    (lambda d: d["parameters"].update(p=["1/2"]), "parameters.p", "[low, high]"),
    (lambda d: d["priors"]["sticky"]["markov"]["transition"]["0"].update({"1": "1-q/2"}),
     "priors.sticky.markov.transition.0", "not identically 1"),
    (lambda d: d["parameters"].update(q=["0", "1"]) or
     d["priors"]["sticky"]["markov"]["transition"]["0"].update({"0": "2*q-1", "1": "2-2*q"}),
     "priors.sticky.markov.transition.0.0", "is negative at q = 0"),
    (lambda d: d["priors"]["sticky"]["markov"]["transition"]["0"].update(
        {"0": "p-q", "1": "1-p+q"}),
     "priors.sticky.markov.transition.0.0", "is negative at p = 1/2, q = 1"),
    (lambda d: d["mechanisms"]["sum"]["noise"]["geometric"].update(alpha="q"),
     "mechanisms.sum.noise.geometric.alpha", "is 0 at q = 1, must be positive"),
    (lambda d: d["mechanisms"]["rr"]["per_entry"]["randomized_response"].update(keep="p*q+1/2"),
     "mechanisms.rr.per_entry.randomized_response.keep", "1 - (p*q + 1/2) is negative at"),
    (lambda d: d["priors"]["fair"]["independent"]["x1"].update({"0": "1/(2*p-1)",
                                                                "1": "1-1/(2*p-1)"}),
     "priors.fair.independent.x1.0", "undefined at p = 1/2"),
])
def test_validation_errors_are_located(edit, path, phrase):
    with pytest.raises(ModelError) as error:
        parse_parametric_model(changed(edit))
    assert error.value.path == path, str(error.value)
    assert phrase in str(error.value)


def test_one_parameter_entry_that_touches_zero_is_accepted():
    data = changed(lambda d: d["parameters"].pop("q") and d["priors"]["sticky"]["markov"]
                   ["transition"].update({"0": {"0": "(2*p-1)**2", "1": "1-(2*p-1)**2"},
                                          "1": {"0": "1/2", "1": "1/2"}}))
    model = parse_parametric_model(data)
    assert model.box.names == ("p",)


def test_negative_only_at_an_irrational_point_region_is_found_at_a_rational_value():
    data = changed(lambda d: d["parameters"].pop("q") and d["priors"]["sticky"]["markov"]
                   ["transition"].update({"0": {"0": "2*p**2 - 1", "1": "2 - 2*p**2"},
                                          "1": {"0": "1/2", "1": "1/2"}}))
    with pytest.raises(ModelError, match=r"is negative at p = \d+/\d+"):
        parse_parametric_model(data)


def test_table_mechanism_and_postprocess_entries_can_be_parametric():
    data = {"pufferfish_model": 1, "parameters": {"t": ["0", "1/2"]}, "attributes": ["x"],
            "domain": [0, 1], "datasets": "all", "priors": {"u": {"uniform": True}},
            "secrets": {"a": {"where": {"x": 0}}, "b": {"where": {"x": 1}}},
            "pairs": [["a", "b"]],
            "mechanisms": {"m": {"table": [[[0], [["y", "1-t"], ["n", "t"]]],
                                           [[1], [["y", "t"], ["n", "1-t"]]]]},
                           "post": {"postprocess": {"mechanism": "m", "map": [
                               ["y", [["Y", "1"]]], ["n", [["Y", "t"], ["N", "1-t"]]]]}}}}
    model = parse_parametric_model(data)
    point = model.instantiate({"t": "1/4"})
    assert point.mechanisms["m"].distribution((0,)).prob("n") == Fraction(1, 4)
    assert point.mechanisms["post"].distribution((0,)).prob("N") == Fraction(3, 16)


def test_parse_model_is_unchanged_for_files_without_parameters():
    data = json.loads(example_path("quickstart.json").read_text())
    assert parse_model(data).mechanisms["rr"].keep == Fraction(3, 4)
