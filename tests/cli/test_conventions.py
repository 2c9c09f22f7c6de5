"""One set of option conventions for every subcommand (issue 13), checked by walking the parser:
``--json``, ``--output FILE`` (regular files, checked at parse time), ``--out DIR`` for further
files, ``--quiet``, ``--debug``; enumeration limits only where they apply; budget options list
their accepted forms; counts are typed; exit statuses and ``--version`` at the top level."""

from __future__ import annotations

import argparse

import pytest

import pufferfish
from pufferfish.cli.common import (EPSILON_FORMS, FINITE_EPSILON_FORMS, RATIONAL_EPSILON_FORMS,
                                   budget_text, input_file, input_folder, model_file,
                                   nonnegative_int, output_file, output_folder, positive_int)
from pufferfish.cli.main import COMMANDS, build_parser, main

BLOCKS_OF_DATASETS = {"audit"}
ENUMERATE_DATASETS = {"approximate-dp", "epsilon-range", "composes", "postprocess",
                      "influence", "quilts", "mqm", "wasserstein", "design", "region"}
ENUMERATE_OUTPUTS = {"audit", "approximate-dp", "epsilon-range", "composes", "postprocess",
                     "region"}
EARLIER_FILE_OPTIONS = {"--write", "--save-curve", "--plot"}
COUNT_TYPES = (positive_int, nonnegative_int)


def _subcommands(parser: argparse.ArgumentParser, prefix: str = ""):
    """``(name, parser)`` of every leaf command (``experiment topk`` included)."""
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not actions:
        yield prefix.strip(), parser
        return
    for name, sub in actions[0].choices.items():
        yield from _subcommands(sub, f"{prefix} {name}")


PARSER = build_parser()
LEAVES = dict(_subcommands(PARSER))


def _options(parser) -> dict[str, argparse.Action]:
    return {s: a for a in parser._actions for s in a.option_strings}


def _visible(action: argparse.Action) -> bool:
    return action.help is not argparse.SUPPRESS


def test_every_command_is_walked():
    assert {name.split()[0] for name in LEAVES} == set(COMMANDS)
    assert "experiment topk" in LEAVES


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_common_options(name):
    options = _options(LEAVES[name])
    for flag in ("--json", "--quiet", "--debug"):
        assert flag in options and options[flag].nargs == 0, (name, flag)
    assert options["--output"].type is output_file
    if "--out" in options:
        assert options["--out"].type is output_folder and options["--out"].metavar == "DIR"


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_enumeration_limits_only_where_they_apply(name):
    options = _options(LEAVES[name])
    visible = {flag for flag, action in options.items() if _visible(action)}
    assert ("--max-datasets" in visible) == (name in ENUMERATE_DATASETS), name
    assert ("--block-datasets" in visible) == (name in BLOCKS_OF_DATASETS), name
    assert ("--max-outputs" in options) == (name in ENUMERATE_OUTPUTS), name


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_files_are_written_through_output_or_out_only(name):
    for flag, action in _options(LEAVES[name]).items():
        if flag in EARLIER_FILE_OPTIONS:
            assert not _visible(action), f"{name} {flag} should be a hidden alias of --out"
        if action.metavar == "FILE" and _visible(action):
            # a FILE the command writes is --output (or audit's --certificate, the evidence
            # written beside it); any other FILE is an input it reads
            assert flag == "--output" or (name, flag) == ("audit", "--certificate") or (
                action.type is not output_file), (name, flag)


INPUT_FILES = {"--map", "--constraints", "--curve", "--loss-table", "--foursquare",
               "certificate"}


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_files_read_are_checked_to_be_regular_at_parse_time(name):
    """Every file a command reads is typed :func:`input_file` (a FIFO or a device is refused by
    ``os.stat`` before anything opens it), a model :func:`model_file` (the same check, after a
    shipped example's name is resolved), every folder it reads :func:`input_folder`."""
    for action in LEAVES[name]._actions:
        names = set(action.option_strings) or {action.dest}
        if names & INPUT_FILES:
            assert action.type is input_file, (name, names)
        if names == {"model"}:
            assert action.type is model_file, name
            assert "shipped example" in action.help, name
        if "--capture24" in names:
            assert action.type is input_folder, (name, names)


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_budget_options_list_the_accepted_forms(name):
    for flag, action in _options(LEAVES[name]).items():
        if flag in ("--epsilon", "--target-epsilon", "--epsilons"):
            forms = [f for f in (EPSILON_FORMS, FINITE_EPSILON_FORMS, RATIONAL_EPSILON_FORMS)
                     if action.help.endswith(f"accepted forms: {f}")]
            assert forms, (name, flag)


@pytest.mark.parametrize("name, flag", [("mqm", "--epsilon"), ("least-noise", "--epsilon"),
                                        ("mqm-price", "--epsilons"), ("quilts", "--epsilon"),
                                        ("dcp-design", "--target-epsilon"),
                                        ("wasserstein", "--epsilon"), ("multiuser", "--epsilon")])
def test_a_budget_option_that_refuses_inf_does_not_list_it(name, flag):
    assert not _options(LEAVES[name])[flag].help.endswith(" or inf")
    assert not _options(LEAVES[name])[flag].help.endswith(", inf")


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_budget_options_refuse_an_empty_budget_when_parsed(name):
    for flag, action in _options(LEAVES[name]).items():
        if flag.startswith(("--epsilon", "--target-epsilon")):
            assert action.type is budget_text, (name, flag)


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_counts_are_typed(name):
    for flag, action in _options(LEAVES[name]).items():
        if action.type is int:
            assert action.choices, f"{name} {flag}: use positive_int or nonnegative_int"
        if flag in ("--runs", "--iterations", "--trials", "--workers", "--outputs", "--grid",
                    "--repetitions", "--length", "--max-runs", "--max-coefficients",
                    "--max-quilts", "--group", "--size", "--max-b", "--seed"):
            assert action.type in COUNT_TYPES, (name, flag)


def test_collapse_has_one_size_option():
    options = _options(LEAVES["collapse"])
    assert _visible(options["--size"])
    assert not _visible(options["--n"]) and not _visible(options["--bits"])
    assert options["--n"].dest == options["--bits"].dest == "size"


def test_top_level_help_lists_the_exit_statuses(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for status in ("0 ", "1 ", "2 ", "3 ", "4 ", "130", "143"):
        assert f"\n  {status}" in out, status


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"pufferfish {pufferfish.__version__}"
