"""``pufferfish composes MODEL --epsilon E``: can these mechanisms compose linearly at ε?
(Theorem 4 of Bai et al., Composition for Pufferfish Privacy, §5.1; see
:mod:`pufferfish.verify.nfc.programs` and :mod:`pufferfish.verify.nfc.attack`.)

Exit 0 when the certified upper bound of the NfC value is <= ε (the necessary condition holds),
1 when the certified lower bound is > ε (linear composition at ε is impossible; a constructive
attack is searched), 3 when the certified interval contains ε, 2 on bad input.

The output is :class:`pufferfish.verify.nfc.report.CompositionReport` (the NfC result, the attack,
the premise of Theorem 4 and, with ``--runs``, the levels of repeated runs).

``pufferfish composes MODEL --epsilon E --region [--set ...] [--width W] [--out DIR]`` (a
parametric model): where the necessary condition NfC <= ε holds, where it fails, and the boundary
layer, as a function of the free parameters — certified numerically by interval-verified LP
certificates, not exact (:mod:`pufferfish.verify.symbolic.nfc_region`); intervals for one free
parameter, a map of boxes for several (``--out``: ``region.png`` for two); exit 0.
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import add_mechanism_option
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, RATIONAL_FORMS,
                                   UsageError, add_common_options, add_out_folder, emit,
                                   epsilon_help, parse_epsilon, positive_int)
from pufferfish.cli.common import add_parameter_options, load_pufferfish_model


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "composes", help="NfC linear programs (Theorem 4): can the mechanisms compose linearly at ε?")
    parser.add_argument("model", type=model_file, help=model_help("model file (JSON)"))
    parser.add_argument("--epsilon", type=budget_text, required=True,
                        help=epsilon_help("the per-mechanism budget ε"))
    add_mechanism_option(parser, "check these mechanisms (default: every mechanism)")
    parser.add_argument("--max-runs", type=positive_int, default=200,
                        help="attack search limit (runs; default 200)")
    parser.add_argument("--runs", type=positive_int, default=None,
                        help="also compute the exact level of 1..R runs of each mechanism "
                             "(output multisets)")
    parser.add_argument("--max-coefficients", type=positive_int, default=10**6,
                        help="refuse programs with more coefficients (default 10^6)")
    parser.add_argument("--region", action="store_true",
                        help="parametric model: where NfC <= ε holds / fails over the parameters "
                             "left free by --set (certified numerically, not exact)")
    parser.add_argument("--width", help=f"with --region: bisect undecided boxes until narrower "
                                         f"than this ({RATIONAL_FORMS}; default 1/64 of the "
                                         f"widest range)")
    add_out_folder(parser, "region.png, the map of a two-parameter --region")
    add_common_options(parser, datasets=True, outputs=True)
    add_parameter_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.verify.nfc.report import composition_report

    budget = parse_epsilon(args.epsilon)
    if args.region:
        return _region(args, budget)
    for option, value in (("--width", args.width), ("--out", args.out)):
        if value is not None:
            raise UsageError(f"{option} applies to --region only")
    model = load_pufferfish_model(args)
    names = args.mechanism or list(model.mechanisms)
    report = composition_report(model, [model.mechanism(n) for n in names], budget,
                                runs=args.runs or 0, max_runs=args.max_runs,
                                max_datasets=args.max_datasets, max_outputs=args.max_outputs,
                                max_coefficients=args.max_coefficients)
    emit(args, report.to_dict(), report.explain())
    return {"holds": EXIT_OK, "violated": EXIT_VIOLATED}.get(report.verdict, EXIT_UNDECIDED)


def _region(args: argparse.Namespace, budget) -> int:
    from pufferfish.cli.region import emit_region, parse_width, require_plottable
    from pufferfish.models.parametric import load_free_parameters
    from pufferfish.verify.symbolic.nfc_region import nfc_region

    if args.runs is not None:
        raise UsageError("--runs applies to a model at a point, not to --region")
    width = parse_width(args.width)
    model = load_free_parameters(args.model, args.assignments)
    require_plottable(args, model)
    return emit_region(args, nfc_region(model, budget, args.mechanism,
                                        width, args.max_datasets, args.max_outputs,
                                        args.max_coefficients))
