"""Tests of the model-file reader and writer (DESIGN.md, "Model files")."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest

import pufferfish.models.files.pufferfish_file as modelfile
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.mechanisms import (Composition, FunctionMechanism, PostProcessed, RandomizedResponse,
                               Repeated, TableMechanism)
from pufferfish.models.model import PufferfishModel
from pufferfish.models.neighbours import AnswerDistance
from pufferfish.models.files.pufferfish_file import dump_model, load_model, model_to_dict, parse_model, schema
from pufferfish.models.priors import IndependentPrior, IntervalFamily, MarkovPrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe

ROOT = Path(__file__).resolve().parents[3]
QUICKSTART = ROOT / "examples" / "quickstart.json"


def quickstart() -> dict:
    return json.loads(QUICKSTART.read_text())


def error_of(data: dict, **kwargs) -> ModelError:
    with pytest.raises(ModelError) as info:
        parse_model(data, **kwargs)
    return info.value


# --- the example file -----------------------------------------------------------------------

def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.validate(quickstart(), schema(), cls=jsonschema.Draft202012Validator)


def test_quickstart_matches_design_md():
    design = (ROOT / "docs" / "design.md")
    if not design.exists():
        pytest.skip("DESIGN.md not available")
    text = design.read_text()
    block = text.split("```json\n", 1)[1].split("```", 1)[0]
    assert QUICKSTART.read_text() == block


def test_quickstart_loads():
    model = load_model(QUICKSTART)
    assert model.universe.attributes == ("x1", "x2", "x3")
    assert model.universe.size == 8
    assert len(list(model.universe.datasets())) == 8
    assert set(model.priors) == {"fair", "sticky"}
    assert len(model.pairs) == 1 and not model.pairs[0].directed
    assert set(model.mechanisms) == {"rr", "sum"}
    sticky = model.priors["sticky"]
    assert isinstance(sticky, MarkovPrior) and sticky.homogeneous
    assert sticky.probability((0, 0, 0)) == Fraction(1, 2) * Fraction(9, 10) * Fraction(9, 10)
    assert sticky.probability((0, 0, 0)) == Fraction(81, 200)
    assert sticky.probability((0, 1, 0)) == Fraction(1, 2) * Fraction(1, 10) * Fraction(1, 10)
    assert sum(p for _, p in sticky.support()) == 1
    assert model.priors["fair"].probability((1, 0, 1)) == Fraction(1, 8)
    # Two-sided geometric noise: Pr[Z = 0] = (1 - a)/(1 + a) = 1/3 for a = 1/2.
    assert model.mechanisms["sum"].prob((1, 1, 0), 2) == Fraction(1, 3)
    assert sum(model.mechanisms["sum"].distribution((1, 1, 0)).values()) == 1
    rr = model.mechanisms["rr"]
    assert isinstance(rr, RandomizedResponse)
    assert rr.prob((0, 0, 0), (0, 0, 0)) == Fraction(27, 64)
    assert rr.prob((0, 0, 0), (1, 0, 0)) == Fraction(9, 64)
    secret = model.secrets["x1=0"]
    assert secret.holds((0, 1, 1)) and not secret.holds((1, 0, 0))


# --- round trip -----------------------------------------------------------------------------

def test_round_trip_dict():
    model = load_model(QUICKSTART)
    first = model_to_dict(model)
    again = parse_model(first)
    assert model_to_dict(again) == first
    assert again.universe == model.universe
    assert {n: p.to_dict() for n, p in again.priors.items()} == \
        {n: p.to_dict() for n, p in model.priors.items()}
    assert again.secrets == model.secrets
    assert [(p.first.name, p.second.name, p.directed) for p in again.pairs] == \
        [(p.first.name, p.second.name, p.directed) for p in model.pairs]
    assert {n: m.to_dict() for n, m in again.mechanisms.items()} == \
        {n: m.to_dict() for n, m in model.mechanisms.items()}


def test_round_trip_file(tmp_path):
    model = load_model(QUICKSTART)
    target = tmp_path / "out.json"
    dump_model(model, target)
    again = load_model(target)
    assert model_to_dict(again) == model_to_dict(model)
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def rich_model() -> dict:
    """Every kind of prior, secret, pair and mechanism in one file."""
    return {
        "pufferfish_model": 1,
        "description": "all kinds",
        "attributes": ["a", "b"],
        "domain": {"a": [0, 1], "b": ["u", "v", "w"]},
        "datasets": [[0, "u"], [0, "v"], [1, "u"], [1, "w"]],
        "records": [["a", "b"]],
        "priors": {
            "t": {"table": [[[0, "u"], "1/2"], [[1, "w"], "0.5"]]},
            "i": {"independent": {"a": {"0": "1/3", "1": "2/3"}, "b": {"u": 1}}},
            "u": {"uniform": True},
            "iv": {"interval": {
                "a0": [{"datasets": [[0, "u"]], "mass": ["1/4", "3/4"]},
                       {"rest": True, "mass": [0, 1]}],
                "a1": [{"where": {"b": "u"}, "mass": ["1/10", "9/10"]},
                       {"where": {"b": ["v", "w"]}, "mass": ["1/10", 1]}]}},
        },
        "secrets": {
            "a0": {"where": {"a": 0}},
            "a1": {"where": {"a": [1]}},
            "listed": {"datasets": [[0, "v"], [1, "w"]]},
        },
        "pairs": [["a0", "a1"], {"pair": ["listed", "a0"], "directed": True}],
        "mechanisms": {
            "post": {"postprocess": {"mechanism": "both", "map": [
                [[0, [0]], [[0, 1]]], [[0, [1]], [[1, "1/2"], [0, "1/2"]]],
                [[1, [0]], [[1, "1/2"], [0, "1/2"]]], [[1, [1]], [[1, 1]]]]}},
            "both": {"compose": ["first", "first_again"]},
            "first_again": {"repeat": {"mechanism": "first", "times": 1}},
            "first": {"query": {"attribute": "a"}},
            "count": {"query": {"count": {"value": "u", "attributes": ["b"]}},
                      "noise": {"geometric": {"alpha": "1/3", "min": 0, "max": 1}}},
            "tab": {"table": [[[0, "u"], [[["x", 1], 1]]], [[0, "v"], [["y", "1/2"], ["z", "1/2"]]],
                              [[1, "u"], [["y", 1]]], [[1, "w"], [["z", 1]]]]},
            "rr_b": {"per_entry": {"randomized_response": {"keep": "1/2", "attributes": ["b"]}}},
        },
    }


def test_rich_model_loads_and_round_trips(tmp_path):
    model = parse_model(rich_model())
    assert model.description == "all kinds"
    assert model.universe.records == ((0, 1),)
    assert model.priors["t"].probability((1, "w")) == Fraction(1, 2)
    family = model.priors["iv"]
    assert isinstance(family, IntervalFamily)
    assert [b.datasets for b in family.blocks["a0"]] == [((0, "u"),), ((0, "v"),)]
    assert [b.datasets for b in family.blocks["a1"]] == [((1, "u"),), ((1, "w"),)]
    assert model.pairs[1].directed and model.pairs[1].first.name == "listed"
    assert isinstance(model.mechanisms["both"], Composition)
    assert isinstance(model.mechanisms["first_again"], Repeated)
    assert isinstance(model.mechanisms["post"], PostProcessed)
    assert model.mechanisms["post"].prob((1, "u"), 1) == 1
    assert model.mechanisms["post"].prob((0, "u"), 0) == 1
    assert model.mechanisms["tab"].prob((0, "u"), ("x", 1)) == 1
    assert model.mechanisms["count"].prob((1, "u"), 1) == Fraction(3, 4)
    assert model.mechanisms["rr_b"].prob((0, "u"), ("v",)) == Fraction(1, 4)
    written = model_to_dict(model)
    assert model_to_dict(parse_model(written)) == written
    dump_model(model, tmp_path / "rich.json")
    assert model_to_dict(load_model(tmp_path / "rich.json")) == written


def test_writer_tabulates_function_mechanisms_and_writes_parts():
    universe = Universe.product(["x"], [[0, 1]])
    secrets = {"x=0": Secret.where("x=0", universe, {"x": 0}),
               "x=1": Secret.where("x=1", universe, {"x": 1})}
    flip = FunctionMechanism("flip", lambda d: Distribution({d[0]: "3/4", 1 - d[0]: "1/4"}))
    twice = Composition("twice", [flip, flip])
    coarse = PostProcessed("coarse", flip, lambda o: Distribution.point(0))
    prior = IndependentPrior("u", ("x",), (Distribution({0: "1/2", 1: "1/2"}),))
    model = PufferfishModel(universe, {"u": prior}, secrets, [SecretPair(secrets["x=0"], secrets["x=1"])],
        {"twice": twice, "coarse": coarse})
    written = model_to_dict(model)
    assert written["mechanisms"]["twice"] == {"compose": ["flip", "flip"]}
    assert "table" in written["mechanisms"]["flip"]
    assert written["mechanisms"]["coarse"] == {"table": [[[0], [[0, "1"]]], [[1], [[0, "1"]]]]}
    again = parse_model(written)
    assert isinstance(again.mechanisms["flip"], TableMechanism)
    assert again.mechanisms["twice"].prob((0,), (0, 1)) == Fraction(3, 16)
    assert model_to_dict(again) == written


def test_entry_pairs():
    data = quickstart()
    data["entry_pairs"] = True
    model = parse_model(data)
    assert len(model.pairs) == 1 + 3
    assert {"x1=0", "x1=1", "x2=0", "x2=1", "x3=0", "x3=1"} <= set(model.secrets)
    # The user's x1=0 is the same as the generated one, so it is shared.
    assert model.pairs[1].first is model.secrets["x1=0"]
    del data["pairs"]
    assert len(parse_model(data).pairs) == 3
    data["secrets"]["x2=0"] = {"where": {"x2": 1}}
    error = error_of(data)
    assert error.path == "secrets.x2=0" and "differently" in str(error)


def test_large_markov_model_loads_without_enumerating():
    n = 1000
    data = {
        "pufferfish_model": 1,
        "attributes": [f"x{i}" for i in range(1, n + 1)],
        "domain": [0, 1],
        "datasets": "all",
        "priors": {"chain": {"markov": {"initial": {"0": "1/2", "1": "1/2"},
                                        "transition": {"0": {"0": "9/10", "1": "1/10"},
                                                       "1": {"0": "1/10", "1": "9/10"}}}}},
        "entry_pairs": True,
        "mechanisms": {"sum": {"query": "sum",
                               "noise": {"geometric": {"alpha": "1/2", "min": 0, "max": n}}}},
    }
    model = parse_model(data)
    assert model.universe.width == n
    assert len(model.pairs) == n
    dataset = (0,) * n
    assert model.priors["chain"].probability(dataset) == Fraction(1, 2) * Fraction(9, 10) ** (n - 1)
    assert model.mechanisms["sum"].prob(dataset, 0) == Fraction(2, 3)


# --- bad input ------------------------------------------------------------------------------

def test_malformed_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"pufferfish_model": 1,\n  "attributes": [}\n')
    with pytest.raises(ModelError) as info:
        load_model(bad)
    assert "not valid JSON" in str(info.value) and "line 2" in str(info.value)
    assert "column" in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ModelError, match="cannot read"):
        load_model(tmp_path / "nothing.json")


def test_duplicate_key(tmp_path):
    bad = tmp_path / "dup.json"
    bad.write_text('{"pufferfish_model": 1, "pufferfish_model": 1}')
    with pytest.raises(ModelError, match="appears twice"):
        load_model(bad)


def test_wrong_version():
    data = quickstart()
    data["pufferfish_model"] = 2
    error = error_of(data)
    assert error.path == "pufferfish_model"
    assert "supports version 1" in str(error)


def test_missing_version():
    data = quickstart()
    del data["pufferfish_model"]
    error = error_of(data)
    assert "'pufferfish_model'" in str(error) and "missing" in str(error)


def test_unknown_top_level_key():
    data = quickstart()
    data["colour"] = "blue"
    error = error_of(data)
    assert error.path == ""
    assert "unknown key 'colour'" in str(error)


def test_unknown_key_inside_prior():
    data = quickstart()
    data["priors"]["sticky"]["markov"]["stationary"] = True
    error = error_of(data)
    assert error.path == "priors.sticky.markov"
    assert "unknown key 'stationary'" in str(error) and "'transition'" in str(error)


def test_unknown_prior_kind():
    data = quickstart()
    data["priors"]["g"] = {"gaussian": {}}
    error = error_of(data)
    assert error.path == "priors.g" and "unknown key 'gaussian'" in str(error)


def test_two_prior_kinds():
    data = quickstart()
    data["priors"]["both"] = {"uniform": True, "table": [[[0, 0, 0], 1]]}
    error = error_of(data)
    assert error.path == "priors.both" and "exactly one" in str(error)


def test_transition_row_not_summing_to_one():
    data = quickstart()
    data["priors"]["sticky"]["markov"]["transition"]["1"] = {"0": "2/10", "1": "9/10"}
    error = error_of(data)
    assert error.path == "priors.sticky.markov.transition.1"
    assert str(error) == ("priors.sticky.markov.transition.1: probabilities sum to 11/10, "
                          "must sum to 1")


def test_negative_probability():
    data = quickstart()
    data["priors"]["fair"]["independent"]["x2"] = {"0": "-1/2", "1": "3/2"}
    error = error_of(data)
    assert error.path == "priors.fair.independent.x2.0"
    assert "-1/2" in str(error) and "outside [0, 1]" in str(error)


def test_float_probability():
    data = quickstart()
    data["mechanisms"]["rr"]["per_entry"]["randomized_response"]["keep"] = 0.75
    error = error_of(data)
    assert error.path == "mechanisms.rr.per_entry.randomized_response.keep"
    assert "float" in str(error) and "as a string" in str(error) and '"0.75"' in str(error)


def test_float_domain_value():
    data = quickstart()
    data["domain"] = [0, 0.5]
    error = error_of(data)
    assert error.path == "domain.1" and "as a string" in str(error)


def test_unknown_value_key():
    data = quickstart()
    data["priors"]["sticky"]["markov"]["initial"] = {"0": "1/2", "2": "1/2"}
    error = error_of(data)
    assert error.path == "priors.sticky.markov.initial.2"
    assert "unknown value '2'" in str(error) and "[0, 1]" in str(error)


def test_markov_transitions_list_needs_one_kernel_per_step():
    data = quickstart()
    kernel = data["priors"]["sticky"]["markov"].pop("transition")
    data["priors"]["sticky"]["markov"]["transitions"] = [kernel]
    error = error_of(data)
    assert error.path == "priors.sticky.markov.transitions" and "needs 2" in str(error)
    other = {"0": {"0": 1}, "1": {"1": 1}}
    data["priors"]["sticky"]["markov"]["transitions"] = [kernel, other]
    model = parse_model(data)
    assert not model.priors["sticky"].homogeneous
    assert model.priors["sticky"].probability((0, 1, 1)) == Fraction(1, 20)
    assert model_to_dict(parse_model(model_to_dict(model))) == model_to_dict(model)


def test_markov_missing_row():
    data = quickstart()
    del data["priors"]["sticky"]["markov"]["transition"]["1"]
    error = error_of(data)
    assert error.path == "priors.sticky.markov.transition" and "no transition row" in str(error)


def test_independent_needs_every_attribute():
    data = quickstart()
    del data["priors"]["fair"]["independent"]["x3"]
    error = error_of(data)
    assert error.path == "priors.fair.independent" and "'x3'" in str(error)


def test_secret_matching_no_dataset():
    data = quickstart()
    data["datasets"] = [[0, 0, 0], [0, 1, 1]]
    data["priors"] = {"u": {"uniform": True}}
    error = error_of(data)
    assert error.path == "secrets.x1=1" and "matches no dataset" in str(error)


def test_secret_value_outside_domain():
    data = quickstart()
    data["secrets"]["x1=1"] = {"where": {"x1": 7}}
    error = error_of(data)
    assert error.path == "secrets.x1=1.where.x1" and "not in the domain" in str(error)


def test_pair_naming_unknown_secret():
    data = quickstart()
    data["pairs"].append(["x1=0", "x9=1"])
    error = error_of(data)
    assert error.path == "pairs.1.1" and "unknown secret 'x9=1'" in str(error)


def test_no_pairs():
    data = quickstart()
    data["pairs"] = []
    error = error_of(data)
    assert error.path == "pairs" and "at least one secret pair" in str(error)


def test_table_mechanism_missing_dataset():
    data = quickstart()
    rows = [[[a, b, c], [[a, 1]]] for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    data["mechanisms"]["tab"] = {"table": rows}
    assert parse_model(data).mechanisms["tab"].prob((1, 0, 0), 1) == 1
    data["mechanisms"]["tab"] = {"table": rows[:5] + rows[6:]}
    error = error_of(data)
    assert error.path == "mechanisms.tab.table"
    assert "kernel missing dataset [1, 0, 1]" in str(error)


def test_table_mechanism_dataset_outside_universe():
    data = quickstart()
    data["mechanisms"]["tab"] = {"table": [[[0, 0, 2], [[0, 1]]]]}
    error = error_of(data)
    assert error.path == "mechanisms.tab.table.0.0" and "not in its domain" in str(error)


def wide(n: int) -> dict:
    return {
        "pufferfish_model": 1,
        "attributes": [f"x{i}" for i in range(1, n + 1)],
        "domain": [0, 1],
        "datasets": "all",
        "priors": {"u": {"uniform": True}},
        "secrets": {"x1=0": {"where": {"x1": 0}}, "x1=1": {"where": {"x1": 1}}},
        "pairs": [["x1=0", "x1=1"]],
    }


def test_interval_family_on_a_too_large_universe():
    data = wide(30)
    data["priors"]["iv"] = {"interval": {"x1=0": [{"rest": True, "mass": [0, 1]}]}}
    with pytest.raises(TooLargeError) as info:
        parse_model(data)
    assert info.value.path == "priors.iv.interval"
    assert "10^9" in str(info.value) and "--max-datasets" in str(info.value)
    data = wide(4)
    data["priors"]["iv"] = {"interval": {"x1=0": [{"rest": True, "mass": [0, 1]}]}}
    with pytest.raises(TooLargeError, match="limit of 10"):
        parse_model(data, max_datasets=10)
    assert parse_model(data, max_datasets=16).priors["iv"].blocks["x1=0"][0].datasets[0] == (0,) * 4


def test_table_mechanism_on_a_wide_universe_is_incomplete():
    data = wide(30)
    data["mechanisms"] = {"tab": {"table": [[[0] * 30, [[0, 1]]]]}}
    error = error_of(data)
    assert error.path == "mechanisms.tab.table" and "kernel missing dataset" in str(error)


def test_explicit_universe_table_prior_outside():
    data = quickstart()
    data["datasets"] = [[0, 0, 0], [1, 1, 1]]
    data["priors"] = {"t": {"table": [[[0, 0, 0], "1/2"], [[0, 1, 0], "1/2"]]}}
    data["mechanisms"] = {}
    error = error_of(data)
    assert error.path == "priors.t.table.1.0" and "not in the universe" in str(error)


def test_structured_prior_outside_explicit_universe():
    data = quickstart()
    data["datasets"] = [[0, 0, 0], [1, 1, 1]]
    error = error_of(data)
    assert error.path == "priors.fair.independent" and "not in the universe" in str(error)


def test_unknown_mechanism_reference():
    data = quickstart()
    data["mechanisms"]["both"] = {"compose": ["rr", "summ"]}
    error = error_of(data)
    assert error.path == "mechanisms.both.compose.1"
    assert "unknown mechanism 'summ'" in str(error)


def test_mechanism_cycle():
    data = quickstart()
    data["mechanisms"]["a"] = {"compose": ["rr", "b"]}
    data["mechanisms"]["b"] = {"repeat": {"mechanism": "c", "times": 2}}
    data["mechanisms"]["c"] = {"postprocess": {"mechanism": "a", "map": [[0, [[0, 1]]]]}}
    error = error_of(data)
    assert "cycle" in str(error) and "a -> b -> c -> a" in str(error)
    assert error.path == "mechanisms.c.postprocess.mechanism"


def test_mechanism_self_reference():
    data = quickstart()
    data["mechanisms"]["a"] = {"repeat": {"mechanism": "a", "times": 2}}
    error = error_of(data)
    assert "cycle" in str(error) and "a -> a" in str(error)


def test_noise_without_query():
    data = quickstart()
    data["mechanisms"]["rr"]["noise"] = {"geometric": {"alpha": "1/2", "min": 0, "max": 1}}
    error = error_of(data)
    assert error.path == "mechanisms.rr.noise"


def interval_data(blocks: list) -> dict:
    data = quickstart()
    data["priors"]["iv"] = {"interval": {"x1=0": blocks}}
    return data


def test_interval_family_blocks_overlap():
    error = error_of(interval_data([
        {"where": {"x2": 0}, "mass": [0, 1]},
        {"datasets": [[0, 0, 1], [0, 1, 1]], "mass": [0, 1]},
        {"rest": True, "mass": [0, 1]}]))
    assert error.path == "priors.iv.interval.x1=0.1" and "disjoint" in str(error)


def test_interval_family_blocks_do_not_cover():
    error = error_of(interval_data([
        {"where": {"x2": 0}, "mass": [0, 1]},
        {"datasets": [[0, 1, 1]], "mass": [0, 1]}]))
    assert error.path == "priors.iv.interval.x1=0"
    assert "do not cover dataset [0, 1, 0]" in str(error)


def test_interval_family_lower_bounds_too_large():
    error = error_of(interval_data([
        {"where": {"x2": 0}, "mass": ["2/3", 1]},
        {"rest": True, "mass": ["1/2", 1]}]))
    assert error.path == "priors.iv.interval.x1=0"
    assert "lower bounds sum to 7/6" in str(error)


def test_interval_family_lower_above_upper():
    error = error_of(interval_data([
        {"where": {"x2": 0}, "mass": ["2/3", "1/3"]},
        {"rest": True, "mass": [0, 1]}]))
    assert error.path == "priors.iv.interval.x1=0.0.mass"


def test_interval_family_dataset_outside_secret():
    error = error_of(interval_data([
        {"datasets": [[1, 0, 0]], "mass": [0, 1]},
        {"rest": True, "mass": [0, 1]}]))
    assert error.path == "priors.iv.interval.x1=0.0.datasets.0"
    assert "does not satisfy" in str(error)


def test_interval_family_secrets_must_be_disjoint():
    data = interval_data([{"rest": True, "mass": [0, 1]}])
    data["secrets"]["x2=0"] = {"where": {"x2": 0}}
    data["priors"]["iv"]["interval"]["x2=0"] = [{"rest": True, "mass": [0, 1]}]
    error = error_of(data)
    assert error.path == "priors.iv.interval" and "must be disjoint" in str(error)


def test_interval_family_unknown_secret():
    data = interval_data([{"rest": True, "mass": [0, 1]}])
    data["priors"]["iv"]["interval"]["nope"] = [{"rest": True, "mass": [0, 1]}]
    error = error_of(data)
    assert error.path == "priors.iv.interval.nope" and "unknown secret" in str(error)


def test_interval_family_extremes():
    model = parse_model(interval_data([
        {"where": {"x2": 0}, "mass": ["1/4", "1/2"]},
        {"rest": True, "mass": ["1/2", "3/4"]}]))
    family = model.priors["iv"]
    values = {d: Fraction(d[1]) for d in model.universe.datasets()}
    assert family.extreme_conditional("x1=0", values, maximize=True)[0] == Fraction(3, 4)
    assert family.extreme_conditional("x1=0", values, maximize=False)[0] == Fraction(1, 2)


# --- atomic writing -------------------------------------------------------------------------

def test_dump_model_never_leaves_a_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "model.json"
    target.write_text("previous content\n")

    def broken_dump(obj, handle, **kwargs):
        handle.write('{"pufferfish_model": 1, "attri')
        raise OSError("disk full")

    monkeypatch.setattr(modelfile.json, "dump", broken_dump)
    with pytest.raises(OSError, match="disk full"):
        dump_model(load_model(QUICKSTART), target)
    assert target.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]


def test_dump_model_unwritable_model_keeps_old_file(tmp_path):
    target = tmp_path / "model.json"
    target.write_text("previous content\n")
    model = load_model(QUICKSTART)
    model.mechanisms["bad"] = FunctionMechanism("bad", lambda d: Distribution.point(object()))
    with pytest.raises(TypeError):
        dump_model(model, target)
    assert target.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]


def test_model_to_dict_does_not_mutate_model():
    model = load_model(QUICKSTART)
    before = copy.copy(model.mechanisms)
    model_to_dict(model)
    assert model.mechanisms == before


def test_dump_model_keeps_permissions_of_the_replaced_file(tmp_path):
    target = tmp_path / "model.json"
    target.write_text("{}")
    target.chmod(0o644)
    dump_model(load_model(QUICKSTART), target)
    assert target.stat().st_mode & 0o777 == 0o644


def test_version_must_be_the_integer_one():
    data = quickstart()
    data["pufferfish_model"] = 1.0
    assert error_of(data).path == "pufferfish_model"
    data["pufferfish_model"] = True
    assert error_of(data).path == "pufferfish_model"


# --- the neighbour relation of the DP levels ------------------------------------------------------

def answers_file(**extra) -> dict:
    return {"pufferfish_model": 1, "attributes": ["q1", "q2", "q3"], "domain": [0, 1, 2],
            "datasets": "all", "priors": {"u": {"uniform": True}}, "entry_pairs": True, **extra}


@pytest.mark.parametrize("relation, label", [
    ("entry", "entry"), ("record", "record"), ("group:2", "group 2"), ("linf:1", "linf:1"),
    ("l1:3/2", "l1:3/2"), ("monotone:1", "monotone:1"), ({"pairs": [[[0, 0, 0], [1, 1, 1]]]}, "listed pairs (1)"),
    ({"add_remove": {"absent": 0}}, "add_remove:0")])
def test_neighbours_are_read_and_written_back(relation, label):
    model = parse_model(answers_file(neighbours=relation))
    assert model.neighbours.label == label
    written = model_to_dict(model)
    assert written["neighbours"] == relation
    jsonschema.validate(written, schema(), cls=jsonschema.Draft202012Validator)
    assert parse_model(written).neighbours == model.neighbours


def test_no_neighbours_key_is_the_default():
    model = parse_model(answers_file())
    assert model.neighbours is None and "neighbours" not in model_to_dict(model)


@pytest.mark.parametrize("relation, path, message", [
    ({"pairs": [[[0, 0, 0], [0, 0, 3]]]}, "neighbours.pairs.0.1",
     "value 3 of attribute 'q3' is not in its domain"),
    ({"pairs": [[[0, 0, 0], [0, 0]]]}, "neighbours.pairs.0.1", "must list 3 values"),
    ({"pairs": [[[0, 0, 0], [1, 0, 0]], [[1, 0, 0], [0, 0, 0]]]}, "neighbours.pairs.1",
     "already listed (as pair 0; pairs are undirected)"),
    ({"pairs": [[[0, 0, 0]]]}, "neighbours.pairs.0", "is too short"),
    ({"add_remove": {"absent": "-"}}, "neighbours",
     "the absent value '-' is not in the domain [0, 1, 2] of attribute 'q1'"),
    ({"add_remove": {}}, "neighbours.add_remove", "'absent' is required"),
    ({"pairs": [], "add_remove": {"absent": 0}}, "neighbours", "exactly one of the keys"),
    ("pairs:other.json", "neighbours", 'written {"pairs": [[dataset, dataset], ...]}'),
    ("add_remove:0", "neighbours", 'written {"add_remove": {"absent": VALUE}}'),
    ("hamming", "neighbours", "unknown neighbour relation 'hamming'"),
    ("linf:0", "neighbours", "must be positive"),
    ("group:x", "neighbours", "unknown neighbour relation"),
    (1, "neighbours", "expected string or object")])
def test_bad_neighbours_are_located(relation, path, message):
    error = error_of(answers_file(neighbours=relation))
    assert error.path == path and message in error.reason, (error.path, error.reason)


def test_answer_relations_need_numeric_domains():
    data = answers_file(neighbours="linf:1", domain=["low", "mid", "high"])
    error = error_of(data)
    assert error.path == "neighbours"
    assert "linf:1 compares numeric query answers" in error.reason and "'low'" in error.reason


def test_listed_pairs_must_be_in_an_explicit_universe():
    data = answers_file(datasets=[[0, 0, 0], [1, 1, 1]],
                        neighbours={"pairs": [[[0, 0, 0], [2, 2, 2]]]})
    error = error_of(data)
    assert error.path == "neighbours.pairs.0.1" and "[2, 2, 2] is not in the universe" in error.reason


def test_a_relation_built_in_code_is_checked():
    model = parse_model(answers_file(domain=["a", "b"]))
    with pytest.raises(ModelError, match="numeric query answers"):
        PufferfishModel(model.universe, model.priors, model.secrets, model.pairs,
                        neighbours=AnswerDistance("linf", Fraction(1)))
