"""``pufferfish multiuser MODEL --pairs {ab,a-absent,P-absent,PQ} --epsilon E``
(Ding et al., Multi-user Pufferfish Privacy, §4).

Reads a multi-user model file (:mod:`pufferfish.models.files.multiuser_file`), computes the exact
conditional distributions of the aggregate for every non-vacuous pair of the chosen pair set, and
prints every applicable calibrator's θ (exact multiple of 1/ε, or a certified interval), the
certified actual Pufferfish level of ``X + Lap(θ)`` next to ε, and the minimal θ achieving ε
(:func:`pufferfish.verify.multiuser.report.multiuser_report`).

Exit status: 0 when every calibrator's θ achieves ε, 1 when one is proved not to (a failed
sufficient condition), 3 when a comparison stays undecided, 2 on bad input — including a pair set
that leaves no pair to check (nothing would be verified).
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import RATIONAL_EPSILON_FORMS
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, add_common_options,
                                   emit, epsilon_help, parse_epsilon)
from pufferfish.models.multiuser import PAIR_SETS


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "multiuser", help="multi-user Pufferfish (Ding et al., Multi-user Pufferfish Privacy, "
        "§4): every calibrator's Laplace scale θ, "
        "the certified actual level of X + Lap(θ), and the minimal θ")
    parser.add_argument("model", type=model_file,
                        help=model_help("multi-user model file (JSON, \"multiuser_model\": 1)"))
    parser.add_argument("--pairs", required=True, choices=PAIR_SETS,
                        help="secret pair set: ab = S_{a,b}, a-absent = S_{a,⊥}, "
                        "P-absent = S_{P,⊥}, PQ = S_{P,Q}")
    parser.add_argument("--epsilon", type=budget_text, required=True,
                        help=epsilon_help("privacy budget ε > 0 (rational)",
                                          RATIONAL_EPSILON_FORMS))
    parser.add_argument("--no-minimal", action="store_true",
                        help="skip the bisection for the minimal θ")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import Progress
    from pufferfish.models.files.multiuser_file import load_multiuser_model
    from pufferfish.verify.multiuser.report import multiuser_report

    budget = parse_epsilon(args.epsilon, "--epsilon", RATIONAL_EPSILON_FORMS)
    model = load_multiuser_model(args.model)
    progress = Progress(11, "calibrators")
    try:
        report = multiuser_report(model, args.pairs, budget, minimal=not args.no_minimal,
                                  progress=lambda name: progress.step(name),
                                  source=str(args.model))
    finally:
        progress.close()
    emit(args, report.to_dict(), report.explain())
    holds = report.holds
    return EXIT_VIOLATED if holds is False else EXIT_UNDECIDED if holds is None else EXIT_OK
