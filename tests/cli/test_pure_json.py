"""``pufferfish COMMAND ... --json`` prints JSON and nothing else on stdout, checked in a
subprocess for every command on the examples: a native library writing to file descriptor 1 (a
solver banner) would break ``| python -m json.tool`` and is invisible to in-process capture."""

from __future__ import annotations

import json

import pytest

from pufferfish.cli.main import COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_json_output_is_pure(command, command_cases, pufferfish_process, tmp_path):
    cases = [argv for name, argv in command_cases(tmp_path) if name == command]
    assert cases
    for argv in cases:
        code, out, err = pufferfish_process(argv + ["--json"], timeout=600)
        assert code in (0, 1, 3), (argv, code, err)
        document = json.loads(out)  # the whole of stdout is one JSON document
        assert document["pufferfish_output"] == 1
