"""Every budget option's help lists exactly the forms its command accepts: each one is run with
``inf`` (accepted — any exit but 2 — exactly when the help lists it) and with an unreadable
value (refused with exit 2, and the message never suggests ``inf`` where it is refused)."""

from __future__ import annotations

import argparse
import json

import pytest

from pufferfish.cli.common import budget_text
from pufferfish.cli.main import build_parser, main

CURVE = {"influence_curve": 1, "entries": 3, "points": [
    {"b": 0, "a": "inf"}, {"b": 1, "a": "log(4)"}, {"b": 2, "a": "log(2)"}, {"b": 3, "a": "0"}]}

BUDGET_OPTIONS = {
    ("audit", "--epsilon"): "audit quickstart.json --epsilon {}",
    ("audit", "--epsilon-dp"): "audit quickstart.json --epsilon-dp {}",
    ("composes", "--epsilon"): "composes composable_rr.json --mechanism rr --epsilon {}",
    ("translate", "--epsilon-puffer"): "translate --curve {curve} --epsilon-puffer {}",
    ("translate", "--epsilon-dp"): "translate --curve {curve} --epsilon-dp {}",
    ("quilts", "--epsilon"): "quilts bayesnet_vstructure.json --node A --epsilon {}",
    ("mqm", "--epsilon"): "mqm chain_binary_T100.json --epsilon {}",
    ("mqm-figures", "--epsilons"): "mqm-figures --out {tmp} --figure 4 --epsilons {}",
    ("mqm-price", "--epsilons"): "mqm-price --lengths 8 --epsilons {}",
    ("least-noise", "--epsilon"): "least-noise quickstart.json --epsilon {}",
    ("wasserstein", "--epsilon"): "wasserstein flu.json --query sum --epsilon {}",
    ("multiuser", "--epsilon"): "multiuser multiuser_bernoulli.json --pairs PQ --epsilon {}",
    ("dcp", "--epsilon"): "dcp dcp_two_secrets.json --delta 1/10 --epsilon {}",
    ("dcp-design", "--target-epsilon"):
        "dcp-design dcp_two_secrets.json --target-delta 0 --target-epsilon {}",
    ("design", "--epsilon"): "design quickstart.json --query sum --epsilon {}",
    ("design", "--epsilon-dp"):
        "design quickstart.json --query sum --epsilon 1 --composable dp-style --epsilon-dp {}",
    ("design", "--epsilons"):
        "design quickstart.json --query sum --epsilon 1 --compare --out {tmp} --epsilons 1,{}",
    ("region", "--epsilon"): "region quickstart_parametric.json --mechanism rr --epsilon {}",
    ("approximate-dp", "--epsilon"): "approximate-dp quickstart.json --mechanism rr --epsilon {}",
}
"""One invocation of every budget option (``{}``: the value tried)."""


def _budget_options():
    parser = build_parser()
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)][0]
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.type is budget_text and action.help is not argparse.SUPPRESS:
                yield (name, action.option_strings[0]), action.help


HELPS = dict(_budget_options())


def test_every_budget_option_is_tried():
    assert set(HELPS) == set(BUDGET_OPTIONS)


def _run(key, value, tmp_path, capsys) -> tuple[int, str]:
    curve = tmp_path / "curve.json"
    curve.write_text(json.dumps(CURVE))
    argv = BUDGET_OPTIONS[key].replace("{curve}", str(curve))
    argv = argv.replace("{tmp}", str(tmp_path / "out"))
    code = main(argv.format(value).split() + ["--json", "--quiet"])
    return code, capsys.readouterr().err


def _lists_inf(help_text: str) -> bool:
    forms = help_text.split("accepted forms: ")[-1]
    return forms.endswith(" inf")


@pytest.mark.parametrize("key", sorted(BUDGET_OPTIONS))
def test_inf_is_accepted_exactly_where_the_help_lists_it(key, tmp_path, capsys):
    code, err = _run(key, "inf", tmp_path, capsys)
    assert (code != 2) == _lists_inf(HELPS[key]), (key, code, err)
    if code == 2:
        assert "Traceback" not in err and key[1] in err, err


@pytest.mark.parametrize("key", sorted(BUDGET_OPTIONS))
def test_an_unreadable_budget_is_refused_with_the_forms_of_the_help(key, tmp_path, capsys):
    code, err = _run(key, "half", tmp_path, capsys)
    assert code == 2 and "'half'" in err, (key, err)
    if not _lists_inf(HELPS[key]):
        assert "inf" not in err.replace("info", ""), (key, err)
        assert "accepted forms: " + HELPS[key].split("accepted forms: ")[-1] in " ".join(
            err.split()), (key, err)
