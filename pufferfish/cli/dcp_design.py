"""``pufferfish dcp-design MODEL --target-epsilon E --target-delta D``: inverse composition
(Zhang et al., Differential Confounding Privacy and Inverse Composition, §IV;
:mod:`pufferfish.verify.dcp.inverse`).  Solves Task 2 (closed form) and Task 1 (alternating
optimisation) and reports the exact audit of each design; exit 0 when a verified Task-1 design
exists, 1 otherwise."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import add_mechanism_option
from pufferfish.cli.common import FINITE_EPSILON_FORMS
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, EXIT_VIOLATED, RATIONAL_FORMS, add_common_options,
                                   emit, epsilon_help, parse_epsilon,
                                   positive_int)
from pufferfish.cli.dcp import unit_rational


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("dcp-design", help="inverse composition (Zhang et al., "
                                   "Differential Confounding Privacy and Inverse Composition, "
                                   "§IV): Task 2 closed form and a Task-1 design, each verified "
                                   "exactly")
    parser.add_argument("model", type=model_file, help=model_help("DCP model file (JSON)"))
    parser.add_argument("--target-epsilon", type=budget_text, required=True,
                        help=epsilon_help("target eps_g", FINITE_EPSILON_FORMS))
    parser.add_argument("--target-delta", required=True,
                        help=f"target delta_g in [0, 1] ({RATIONAL_FORMS})")
    add_mechanism_option(parser, "the existing mechanisms to compose with the added one "
                                 "(default: every mechanism)")
    parser.add_argument("--outputs", type=positive_int, default=2,
                        help="outputs of the added mechanism (default 2)")
    parser.add_argument("--iterations", type=positive_int, default=8,
                        help="alternating steps (default 8)")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.files.dcp_file import load_dcp_model
    from pufferfish.verify.dcp.report import dcp_design_report

    budget = parse_epsilon(args.target_epsilon, "--target-epsilon", FINITE_EPSILON_FORMS)
    delta = unit_rational(args.target_delta, "--target-delta")
    names = args.mechanism
    report = dcp_design_report(load_dcp_model(args.model), names, budget, delta,
                               outputs=args.outputs, iterations=args.iterations,
                               source=str(args.model))
    emit(args, report.to_dict(), report.explain())
    return EXIT_OK if report.holds else EXIT_VIOLATED
