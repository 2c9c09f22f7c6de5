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
