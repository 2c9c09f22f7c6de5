"""``pufferfish translate --curve FILE (--epsilon-puffer E [--rule theorem|algorithm] |
--epsilon-dp E)``: Theorem 6 of Bai et al., Composition for Pufferfish Privacy, §6 in either
direction, from a curve file (:mod:`pufferfish.verify.influence.curve_file`;
:mod:`pufferfish.verify.influence.translation`)."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import budget_text
from pufferfish.cli.common import add_common_options, emit, verdict
from pufferfish.cli.common import input_file

LOG_FORMS = "a non-negative rational (1, 1/2, 0.25), log(R) with rational R >= 1, or inf"


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "translate", help="Theorem 6: largest ε_DP for an ε_puffer, or ε_puffer of an ε_DP")
    parser.add_argument("--curve", type=input_file, metavar="FILE", required=True,
                        help="curve file (JSON; pufferfish influence --out DIR writes one)")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--epsilon-puffer", type=budget_text, metavar="E",
                       help=f"target ε_puffer; accepted forms: {LOG_FORMS}")
    group.add_argument("--epsilon-dp", type=budget_text,
                       help=f"per-entry ε_DP of a mechanism; accepted forms: {LOG_FORMS}")
    parser.add_argument("--rule", choices=["theorem", "algorithm"], default="theorem",
                        help="theorem: best point; algorithm: Algorithms 1–2 literally (min)")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import table
    from pufferfish.verify.influence.curve_file import read_curve_file
    from pufferfish.verify.influence.translation import (LogValue, epsilon_dp_for,
                                                         epsilon_puffer_for)

    points, entries, numerical = read_curve_file(args.curve)
    note = ("\n(the curve is numerical: the translation is only as good as its a values)"
            if numerical else "")
    if args.epsilon_puffer is not None:
        target = LogValue.parse(args.epsilon_puffer, "--epsilon-puffer")
        choice = epsilon_dp_for(target, points, entries, args.rule)
        rows = [[pt.b, pt.a.text, e.text if e else "unusable (a >= ε_puffer)",
                 f"{e.to_float():.6g}" if e else ""] for pt, e in choice.candidates]
        text = (choice.explain() + "\n" + table(["b", "a", "ε_DP = (ε_puffer − a)/b", "≈"], rows)
                + note)
        emit(args, {**choice.to_dict(), "numerical_curve": numerical}, text)
        return verdict(choice.holds)
    eps_dp = LogValue.parse(args.epsilon_dp, "--epsilon-dp")
    result = epsilon_puffer_for(eps_dp, points)
    rows = [[pt.b, pt.a.text, e.text, f"{e.to_float():.6g}"] for pt, e in result.candidates]
    text = result.explain() + "\n" + table(["b", "a", "b·ε_DP + a", "≈"], rows) + note
    emit(args, {**result.to_dict(), "numerical_curve": numerical}, text)
    return verdict(result.holds)
