"""Every command's ``--json`` output validates against its shipped, versioned JSON Schema
(``pufferfish/cli/schemas/<command>.json``), on the shipped examples."""

from __future__ import annotations

import json
from importlib.resources import files

import jsonschema
import pytest

from pufferfish.cli.common import OUTPUT_VERSION
from pufferfish.cli.main import COMMANDS

def schema_of(command: str) -> dict:
    return json.loads((files("pufferfish.cli") / "schemas" / f"{command}.json").read_text())


def test_every_command_has_a_case_and_a_schema(tmp_path, command_cases):
    assert {command for command, _ in command_cases(tmp_path)} == set(COMMANDS)
    for command in COMMANDS:
        schema = schema_of(command)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["properties"]["pufferfish_output"]["const"] == OUTPUT_VERSION
        assert f"/{OUTPUT_VERSION}" in schema["$id"]


def test_outputs_validate_against_their_schema(json_outputs):
    """Every case's ``--json`` document, from the subprocess runs of ``test_pure_json.py``."""
    for command, argv, code, text, err in json_outputs:
        assert code in (0, 1, 3), (argv, code, err)
        document = json.loads(text)
        assert document["pufferfish_output"] == OUTPUT_VERSION and document["command"]
        jsonschema.validate(document, schema_of(command))


def test_schemas_are_not_empty():
    for command in COMMANDS:
        schema = schema_of(command)
        assert schema["type"] == "object" and len(schema["required"]) >= 3, command
        assert all("type" in p or "const" in p for p in schema["properties"].values()), command


def test_audit_schema_covers_relations_chosen_mechanisms_and_dp_budgets(tmp_path, cli):
    """``audit --neighbours --mechanism --epsilon-dp --json`` validates, states the relations and
    the DP verdicts, and the schema refuses a DP level without its relation."""
    model = {"pufferfish_model": 1, "attributes": ["q1", "q2"], "domain": [0, 1, 2],
             "datasets": "all", "priors": {"u": {"uniform": True}}, "entry_pairs": True,
             "neighbours": {"add_remove": {"absent": 0}},
             "mechanisms": {"rr": {"per_entry": {"randomized_response": {"keep": "1/2"}}},
                            "sum": {"query": "sum"}}}
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(model))
    pairs = tmp_path / "pairs.json"
    pairs.write_text(json.dumps({"pairs": [[[0, 0], [2, 2]]]}))
    schema = schema_of("audit")
    for options, status in ((["--mechanism", "rr", "--epsilon-dp", "log(2)"], 0),
                            (["--neighbours", "linf:1", "--neighbours", f"pairs:{pairs}",
                              "--epsilon-dp", "1", "--epsilon", "inf"], 1),
                            ([], 0)):
        code, out, _ = cli("audit", path, *options, "--json")
        document = json.loads(out)
        assert code == status, options
        jsonschema.validate(document, schema)
        assert document["neighbours"] and all(d["neighbours"] for m in document["mechanisms"]
                                              for d in m["dp"])
        assert ("dp_holds" in document) == ("--epsilon-dp" in options)
    del document["mechanisms"][0]["dp"][0]["neighbours"]
    with pytest.raises(jsonschema.ValidationError, match="'neighbours' is a required property"):
        jsonschema.validate(document, schema)
