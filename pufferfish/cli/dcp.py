"""``pufferfish dcp MODEL [--epsilon E] [--delta D]``: differential confounding privacy
(Zhang et al., Differential Confounding Privacy and Inverse Composition;
:mod:`pufferfish.verify.dcp.report`).

Prints each mechanism's exact DCP level, the composition table (true joint, product of effective
mechanisms, basic and optimal DP bounds) and the dependence term ``L^G``.  With both ``--epsilon``
and ``--delta`` it checks ``(E, D)``-DCP of the composition of the selected mechanisms and exits 1
when it is violated.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from pufferfish.cli.common import add_mechanism_option
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, EXIT_VIOLATED, RATIONAL_FORMS, add_common_options,
                                   emit, epsilon_help, parse_epsilon)


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("dcp", help="differential confounding privacy (Zhang et al., "
                                   "Differential Confounding Privacy and Inverse Composition): "
                                   "exact levels, composition table and L^G of a DCP model file")
    parser.add_argument("model", type=model_file,
                        help=model_help("DCP model file (JSON, {\"dcp_model\": 1, ...})"))
    parser.add_argument("--epsilon", type=budget_text, help=epsilon_help(
        "compute delta(eps); with --delta, check (eps, delta)-DCP of the composition and exit 1 "
        "if violated"))
    parser.add_argument("--delta", help=f"compute the least eps for this delta in [0, 1] "
                                        f"({RATIONAL_FORMS}; default 0)")
    add_mechanism_option(parser, "compose these mechanisms (default: every mechanism)")
    parser.add_argument("--individual-delta", default="0",
                        help=f"delta_i in [0, 1] used for the individual levels fed to the DP "
                             f"bounds ({RATIONAL_FORMS}; default 0)")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def unit_rational(text: str, option: str) -> Fraction:
    """An exact rational in [0, 1] given to ``option``."""
    from pufferfish.models.errors import ModelError
    from pufferfish.models.numbers import exact

    value = exact(text, option)
    if not 0 <= value <= 1:
        raise ModelError(f"must be in [0, 1], got {text}", option)
    return value


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.files.dcp_file import load_dcp_model
    from pufferfish.verify.dcp.report import dcp_report

    delta = unit_rational(args.delta, "--delta") if args.delta is not None else None
    budget = parse_epsilon(args.epsilon) if args.epsilon is not None else None
    individual_delta = unit_rational(args.individual_delta, "--individual-delta")
    requested = args.mechanism
    model = load_dcp_model(args.model)
    report = dcp_report(model, requested, delta=delta, budget=budget,
                        individual_delta=individual_delta, source=str(args.model))
    emit(args, report.to_dict(), report.explain())
    return EXIT_VIOLATED if report.holds is False else EXIT_OK
