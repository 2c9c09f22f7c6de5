"""``pufferfish audit MODEL [--epsilon E] [--group K]``: the Pufferfish, DP and leakage levels of
every mechanism of a model and of their joint release (``000_65109fe28ca61d17.txt`` §3–4; see
:func:`pufferfish.verify.privacy.audit.audit_model`).  Exit 1 when ``--epsilon`` is exceeded."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (add_common_options, emit, epsilon_help, parse_epsilon,
                                   positive_int, verdict)
from pufferfish.models.errors import ModelError
from pufferfish.verify.report import Progress


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("audit", help="Pufferfish, DP and leakage levels of every "
                                   "mechanism of a model, and of their joint release")
    parser.add_argument("model", help="model file (JSON)")
    parser.add_argument("--epsilon", help=epsilon_help(
        "budget to check; exit 1 if a mechanism or the joint release exceeds it"))
    parser.add_argument("--group", type=positive_int, help="also compute group-K DP")
    add_common_options(parser, datasets=True, outputs=True)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import load_model
    from pufferfish.verify.privacy.audit import audit_model

    budget = parse_epsilon(args.epsilon) if args.epsilon is not None else None
    model = load_model(args.model, max_datasets=args.max_datasets)
    if not model.mechanisms:
        raise ModelError("the model has no mechanisms: nothing was checked", "mechanisms")
    progress = Progress(len(model.mechanisms) + 1, "auditing")
    try:
        result = audit_model(model, budget, args.group, args.max_datasets, args.max_outputs,
                             progress.step)
    finally:
        progress.close()
    emit(args, result.to_dict(), result.explain(args.model))
    return verdict(result.holds)
