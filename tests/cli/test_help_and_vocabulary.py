"""Every subcommand's ``--help`` has a description and examples that parse; one option name has
one meaning across the command line (the same type, arity, action, metavar and destination on
every subcommand, and the same help for the options every command shares); the old spellings
(``--mechanisms A,B``, ``region --joint A,B``, ``design --neighbours group-K``, ``audit
--max-datasets N`` for ``--block-datasets N``) are still read, with a note."""

from __future__ import annotations

import argparse
import json
import shlex
from collections import defaultdict

import pytest

from pufferfish.cli.common import MECHANISM_HELP
from pufferfish.cli.help_texts import EXAMPLES
from pufferfish.cli.main import COMMANDS, build_parser, main

PARSER = build_parser()
SHARED_HELP = ("--json", "--output", "--quiet", "--debug", "--workers", "--scheduler",
               "--max-outputs", "--max-datasets", "--set", "--out")
"""Options whose help is the same text wherever they appear (``--out`` up to its folder's
contents): one name, one meaning — ``--max-datasets`` is a refusal limit on every command that
shows it, never a block size (``audit --block-datasets``)."""


def _leaves(parser: argparse.ArgumentParser, prefix: str = ""):
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not actions:
        yield prefix.strip(), parser
        return
    for name, sub in actions[0].choices.items():
        yield from _leaves(sub, f"{prefix} {name}")


LEAVES = dict(_leaves(PARSER))


def test_every_command_is_covered():
    assert {name.split()[0] for name in LEAVES} == set(COMMANDS)


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_help_has_a_description_and_examples(name):
    text = LEAVES[name].format_help()
    description = LEAVES[name].description
    assert description and len(description.split()) >= 4, name
    assert description.split()[0] in text, name
    assert "examples:\n  pufferfish " + name in text, name


@pytest.mark.parametrize("command, example", [(c, e) for c, examples in EXAMPLES.items()
                                              for e in examples])
def test_every_example_parses(command, example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("map.json", "influence_curve.json",        # inputs a reader would have written
                 "quickstart.certificate.json"):
        (tmp_path / name).write_text("{}")
    words = shlex.split(example)
    assert words[0] == "pufferfish" and " ".join(words[1:]).startswith(command)
    args = PARSER.parse_args(words[1:])
    assert args.command_name.split()[0] == command.split()[0]


def _signatures() -> dict[str, dict[tuple, list[str]]]:
    found: dict[str, dict[tuple, list[str]]] = defaultdict(lambda: defaultdict(list))
    for name, parser in LEAVES.items():
        for action in parser._actions:
            if action.help is argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                signature = (action.type, action.nargs, type(action).__name__, action.metavar,
                             action.dest)
                found[flag][signature].append(name)
    return found


def test_one_option_name_has_one_type_arity_action_and_destination():
    mixed = {flag: dict(signatures) for flag, signatures in _signatures().items()
             if len(signatures) > 1}
    assert not mixed, mixed


@pytest.mark.parametrize("flag", SHARED_HELP)
def test_shared_options_have_one_help(flag):
    helps = {action.help.split(";")[0] if flag == "--out" else action.help
             for parser in LEAVES.values() for action in parser._actions
             if flag in action.option_strings and action.help is not argparse.SUPPRESS}
    if flag == "--out":
        helps = {text.split(" for ")[0] for text in helps}
    assert len(helps) == 1, helps


def test_every_mechanism_option_is_repeatable_with_one_meaning():
    options = [action for parser in LEAVES.values() for action in parser._actions
               if "--mechanism" in action.option_strings]
    assert len(options) >= 6
    for action in options:
        assert isinstance(action, argparse._AppendAction) and action.metavar == "NAME"
        assert action.help.startswith(MECHANISM_HELP)


def test_no_help_spells_group_with_a_hyphen():
    for name, parser in LEAVES.items():
        assert "group-K" not in parser.format_help(), name


@pytest.mark.parametrize("argv", [
    ["composes", "composable_rr.json", "--epsilon", "log(3)", "--mechanisms", "rr"],
    ["region", "quickstart_parametric.json", "--epsilon", "log(3)", "--joint", "rr,sum",
     "--set", "q=9/10"],
    ["design", "quickstart.json", "--query", "sum", "--epsilon", "1", "--composable", "dp-style",
     "--neighbours", "group-2"]])
def test_old_spellings_are_read_with_a_note(argv, capsys):
    new = [word for word in argv]
    assert main(argv + ["--json"]) in (0, 1, 3)
    err = capsys.readouterr().err
    assert "deprecated" in err or "old spelling" in err, err
    assert new == argv


def test_a_limit_and_a_block_size_have_different_names():
    """Every visible ``--max-datasets`` refuses (its help says so); a help that speaks of the
    datasets one task holds belongs to ``--block-datasets`` only."""
    for name, parser in LEAVES.items():
        for action in parser._actions:
            if action.help is argparse.SUPPRESS or not action.option_strings:
                continue
            if "--max-datasets" in action.option_strings:
                assert action.help.startswith("refuse to enumerate more datasets"), name
            if "one task holds" in action.help:
                assert action.option_strings == ["--block-datasets"], (name, action.help)


def test_the_old_block_spelling_is_read_with_a_note(capsys):
    old = PARSER.parse_args(["audit", "quickstart.json", "--max-datasets", "64"])
    err = capsys.readouterr().err
    new = PARSER.parse_args(["audit", "quickstart.json", "--block-datasets", "64"])
    assert old.max_datasets == new.max_datasets == 64
    assert "deprecated" in err and "--block-datasets" in err
    assert main(["audit", "quickstart.json", "--max-datasets", "64", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["command"] == "audit" and "deprecated" in err


def test_the_old_and_new_spellings_name_the_same_mechanisms():
    old = PARSER.parse_args(["dcp", "dcp_two_secrets.json", "--mechanisms", "m1,m2"])
    new = PARSER.parse_args(["dcp", "dcp_two_secrets.json", "--mechanism", "m1",
                             "--mechanism", "m2"])
    assert old.mechanism == new.mechanism == ["m1", "m2"]


DISTRIBUTED = {"audit", "approximate-dp", "epsilon-range", "design", "experiment topk",
               "influence", "influence-figures", "mqm", "mqm-figures", "quilts", "theorems"}
"""The commands whose work is split into independent tasks (a program's laws, prior blocks,
claims, curves, trials, quilt searches)."""


def test_workers_and_scheduler_appear_together_where_work_is_distributed():
    for name, parser in LEAVES.items():
        flags = {flag: action for action in parser._actions for flag in action.option_strings}
        has = {"--workers" in flags, "--scheduler" in flags}
        assert len(has) == 1, name  # both or neither
        if "--workers" in flags:
            assert flags["--workers"].metavar == "N" and flags["--scheduler"].metavar == "ADDRESS"
            groups = [g for g in parser._mutually_exclusive_groups
                      if flags["--workers"] in g._group_actions]
            assert groups and flags["--scheduler"] in groups[0]._group_actions, name
    with_workers = {name for name, parser in LEAVES.items()
                    if any("--workers" in a.option_strings for a in parser._actions)}
    assert DISTRIBUTED <= with_workers, DISTRIBUTED - with_workers
