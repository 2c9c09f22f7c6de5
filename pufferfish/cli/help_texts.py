"""The description and the examples that every subcommand's ``--help`` shows.

The description is the command's one-line summary (the ``help`` it registers, which
``pufferfish --help`` lists) as a sentence; the examples are command lines on the shipped example
models (:mod:`pufferfish.examples`, read by name anywhere), each parsed by the command's parser
in the tests, so they cannot drift from the options.

>>> EXAMPLES["audit"][0]
'pufferfish audit quickstart.json --epsilon "log(3)"'
"""

from __future__ import annotations

import argparse

EXAMPLES: dict[str, tuple[str, ...]] = {
    "audit": ('pufferfish audit quickstart.json --epsilon "log(3)"',
              "pufferfish audit quickstart.json --certificate quickstart.certificate.json",
              'pufferfish audit quickstart.json --mechanism sum --neighbours linf:1 '
              '--epsilon-dp "log(8)"',
              "pufferfish audit survey_count.json --neighbours group:2"),
    "collapse": ("pufferfish collapse parity",),
    "theorems": ("pufferfish theorems --list --paper 004",
                 "pufferfish theorems --claim 002.lemB6"),
    "demo": ("pufferfish demo",),
    "composes": ("pufferfish composes hidden_coin.json --epsilon 0 --runs 2",
                 'pufferfish composes composable_rr.json --epsilon "log(3)" --mechanism rr'),
    "postprocess": ("pufferfish postprocess hidden_coin.json --mechanism coin --map map.json",),
    "influence": ("pufferfish influence influence_chain.json --max-b 3",),
    "translate": ("pufferfish translate --curve influence_curve.json --epsilon-dp 1/2",),
    "influence-figures": ("pufferfish influence-figures --out figures",),
    "quilts": ("pufferfish quilts bayesnet_vstructure.json --node A --epsilon 2",),
    "mqm": ("pufferfish mqm chain_binary_T100.json --epsilon 1",),
    "mqm-figures": ("pufferfish mqm-figures --out mqm --figure 4",),
    "mqm-price": ("pufferfish mqm-price --lengths 8,100 --epsilons 1 --out price",),
    "least-noise": ("pufferfish least-noise quickstart.json --mechanism sum --epsilon 1",
                    "pufferfish least-noise quickstart.json --epsilon 1 --query count"),
    "wasserstein": ("pufferfish wasserstein flu.json --query sum --epsilon 1",),
    "multiuser": ("pufferfish multiuser multiuser_bernoulli.json --pairs PQ --epsilon 1",),
    "dcp": ("pufferfish dcp dcp_two_secrets.json --epsilon 1 --delta 1/10",),
    "dcp-design": ('pufferfish dcp-design dcp_two_secrets.json --target-epsilon "log(5)" '
                   '--target-delta 0',),
    "design": ('pufferfish design quickstart.json --query sum --epsilon "log(3)"',),
    "experiment": ("pufferfish experiment topk --shape activities --trials 20",),
    "experiment topk": ("pufferfish experiment topk --shape activities --trials 20",),
    "region": ('pufferfish region quickstart_parametric.json --epsilon "log(3)" --mechanism rr',),
    "approximate-dp": ("pufferfish approximate-dp dp_benchmarks/laplace_suite.json --mechanism "
                       "svt6 --epsilon 1/2 --delta 1/100",
                       "pufferfish approximate-dp quickstart.json --mechanism rr --delta 1/4"),
    "check-certificate": ("pufferfish check-certificate quickstart.certificate.json",),
    "epsilon-range": ("pufferfish epsilon-range dp_benchmarks/laplace_suite.json --mechanism svt3 "
                      "--low 1/10 --high 4 --factor 3/2",),
}
"""Command (``"experiment topk"`` for a nested one) → its example command lines."""


def describe(parser: argparse.ArgumentParser, command: str, summary: str | None) -> None:
    """Give ``parser`` (the parser of ``command``) a description — its ``summary``, unless it has
    one already — and an epilog with its examples (:data:`EXAMPLES`), keeping their lines."""
    if not parser.description and summary:
        parser.description = summary[0].upper() + summary[1:] + "."
    examples = EXAMPLES.get(command, ())
    if examples:
        lines = "\n".join(f"  {example}" for example in examples)
        parser.epilog = "examples:\n" + lines + (f"\n\n{parser.epilog}" if parser.epilog else "")
        if not issubclass(parser.formatter_class, argparse.RawDescriptionHelpFormatter):
            parser.formatter_class = _KeepEpilog  # a raw formatter keeps the epilog already


def describe_all(subparsers: argparse._SubParsersAction, prefix: str = "") -> None:
    """:func:`describe` every command of ``subparsers`` and of the subcommands nested in them."""
    summaries = {action.dest: action.help for action in subparsers._choices_actions}
    for name, parser in subparsers.choices.items():
        command = f"{prefix}{name}"
        describe(parser, command, summaries.get(name))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                describe_all(action, f"{command} ")


class _KeepEpilog(argparse.HelpFormatter):
    """Wrap the description and the options' help, but print the epilog (the examples) as it is
    written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)
