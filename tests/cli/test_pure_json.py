"""``pufferfish COMMAND ... --json`` prints JSON and nothing else on stdout, checked in a
subprocess for every command on the examples: a native library writing to file descriptor 1 (a
solver banner) would break ``| python -m json.tool`` and is invisible to in-process capture."""

from __future__ import annotations

import json

import pytest

from pufferfish.cli.main import COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_json_output_is_pure(command, json_outputs):
    cases = [run for run in json_outputs if run[0] == command]
    assert cases
    for _, argv, code, out, err in cases:
        assert code in (0, 1, 3), (argv, code, err)
        document = json.loads(out)  # the whole of stdout is one JSON document
        assert document["pufferfish_output"] == 1
