"""``--set NAME=VALUE`` on every command that reads a Pufferfish model file: the parametric
quickstart at p = 3/4, q = 9/10 is the quickstart, so every result must be identical."""

from __future__ import annotations

import json

import pytest

from pufferfish.cli.main import main
from pufferfish.examples import example_path

POINT = ["--set", "p=3/4", "--set", "q=9/10"]
COMMANDS = [
    ["audit", "--epsilon", "log(3)"],
    ["composes", "--epsilon", "log(12)"],
    ["wasserstein", "--query", "sum", "--epsilon", "1"],
    ["influence"],
    ["design", "--query", "sum", "--epsilon", "log(3)"],
]


def run_json(capsys, argv: list[str]) -> tuple[int, dict]:
    code = main(argv + ["--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_parametric_model_at_a_point_is_the_exact_model(capsys, command):
    name, *options = command
    plain_code, plain = run_json(capsys, [name, str(example_path("quickstart.json")), *options])
    at_code, at_point = run_json(capsys, [name, str(example_path("quickstart_parametric.json")),
                                          *options, *POINT])
    assert at_code == plain_code
    at_point.pop("model", None), plain.pop("model", None)     # the file name, where reported
    assert at_point == plain


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_set_is_refused_on_a_model_without_parameters(capsys, command):
    name, *options = command
    code = main([name, str(example_path("quickstart.json")), *options, "--set", "p=1/2"])
    assert code == 2
    assert "declares no parameters" in capsys.readouterr().err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_parametric_model_without_set_names_the_commands_that_take_it(capsys, command):
    name, *options = command
    code = main([name, str(example_path("quickstart_parametric.json")), *options])
    assert code == 2
    err = capsys.readouterr().err
    assert "--symbolic" in err and "--set" in err and "Traceback" not in err
