"""``--set NAME=VALUE`` on every command that reads a Pufferfish model file: the parametric
quickstart at p = 3/4, q = 9/10 is the quickstart, so every result must be identical."""

from __future__ import annotations

import json

import pytest

from pufferfish.cli.main import main
from pufferfish.examples import example_path

POINT = ["--set", "p=3/4", "--set", "q=9/10"]
MAP = {"map": [[[a, b, c], [[int(a + b + c >= 2), "1"]]]
                for a in (0, 1) for b in (0, 1) for c in (0, 1)]}
"""Majority of randomized response's three reports (a post-processing map)."""
COMMANDS = [
    ["audit", "--epsilon", "log(3)"],
    ["postprocess", "--mechanism", "rr", "--map", "{map}"],
    ["quilts", "--node", "x2"],
    ["mqm", "--epsilon", "1"],
    ["composes", "--epsilon", "log(12)"],
    ["wasserstein", "--query", "sum", "--epsilon", "1"],
    ["influence"],
    ["design", "--query", "sum", "--epsilon", "log(3)"],
]


@pytest.fixture
def options(tmp_path):
    """A command's options with the map file written to ``tmp_path``."""
    path = tmp_path / "map.json"
    path.write_text(json.dumps(MAP))
    return lambda given: [str(path) if o == "{map}" else o for o in given]


def run_json(capsys, argv: list[str]) -> tuple[int, dict]:
    code = main(argv + ["--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_parametric_model_at_a_point_is_the_exact_model(capsys, options, command):
    name, *given = command
    given = options(given)
    plain_code, plain = run_json(capsys, [name, str(example_path("quickstart.json")), *given])
    at_code, at_point = run_json(capsys, [name, str(example_path("quickstart_parametric.json")),
                                          *given, *POINT])
    assert at_code == plain_code
    at_point.pop("model", None), plain.pop("model", None)     # the file name, where reported
    assert at_point == plain


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_set_is_refused_on_a_model_without_parameters(capsys, options, command):
    name, *given = command
    given = options(given)
    code = main([name, str(example_path("quickstart.json")), *given, "--set", "p=1/2"])
    assert code == 2
    assert "declares no parameters" in capsys.readouterr().err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_parametric_model_without_set_names_the_commands_that_take_it(capsys, options,
                                                                        command):
    name, *given = command
    given = options(given)
    code = main([name, str(example_path("quickstart_parametric.json")), *given])
    assert code == 2
    err = capsys.readouterr().err
    assert "--symbolic" in err and "--set" in err and "Traceback" not in err
