"""``pufferfish region MODEL --epsilon E [--mechanism M] [--set NAME=VALUE] [--width W]
[--out DIR]``: the parameter values of a parametric model where a Pufferfish budget holds
(``000_65109fe28ca61d17.txt`` Definition 5; :func:`pufferfish.verify.symbolic.region.budget_region`):
exact intervals with algebraic endpoints for one free parameter, a certified map of boxes for
several (with ``--out``, a picture of it for two)."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, RATIONAL_FORMS, UsageError, add_common_options,
                                   add_out_folder, emit, epsilon_help, parse_epsilon,
                                   prepare_folder, wrote)
from pufferfish.cli.common import add_parameter_options


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("region", help="parameter values of a parametric model where "
                                   "a Pufferfish budget holds (exact for one parameter)")
    parser.add_argument("model", help="parametric model file (JSON with \"parameters\")")
    parser.add_argument("--epsilon", required=True, help=epsilon_help("the budget"))
    parser.add_argument("--mechanism", help="one mechanism (default: every mechanism and their "
                                            "joint release, as audit --epsilon checks)")
    add_parameter_options(parser)
    parser.add_argument("--width", help=f"several parameters: bisect undecided boxes until "
                                         f"narrower than this ({RATIONAL_FORMS}; default 1/64 "
                                         f"of the widest range)")
    add_out_folder(parser, "region.png, the map of a two-parameter region")
    add_common_options(parser, datasets=True, outputs=True)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.numbers import exact
    from pufferfish.models.parametric import load_free_parameters
    from pufferfish.verify.symbolic.region import budget_region

    budget = parse_epsilon(args.epsilon)
    width = None
    if args.width is not None:
        width = exact(args.width, "--width")
        if width <= 0:
            raise UsageError("--width must be positive")
    model = load_free_parameters(args.model, args.assignments)
    if args.out is not None and len(model.box.names) != 2:
        raise UsageError(f"--out draws a two-parameter map; this region has "
                         f"{len(model.box.names)} free parameter(s)")
    result = budget_region(model, budget, args.mechanism, width, args.max_datasets,
                           args.max_outputs)
    if args.out is not None:
        from pufferfish.verify.symbolic.plot import plot_region

        path = prepare_folder(args) / "region.png"
        plot_region(result, path)
        wrote(args, path)
    emit(args, result.to_dict(), result.explain(args.model))
    return EXIT_OK
