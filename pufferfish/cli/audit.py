"""``pufferfish audit MODEL [--epsilon E] [--group K] [--symbolic] [--set NAME=VALUE]``: the
Pufferfish, DP and leakage levels of every mechanism of a model and of their joint release
(``000_65109fe28ca61d17.txt`` §3–4; see :func:`pufferfish.verify.privacy.audit.audit_model`).
Exit 1 when ``--epsilon`` is exceeded.

A parametric model (``"parameters"``, :mod:`pufferfish.models.parametric`) is audited at a point
with ``--set p=3/4`` (every parameter), or in closed form with ``--symbolic``
(:func:`pufferfish.verify.symbolic.levels.symbolic_audit`; ``--set`` then fixes some parameters
and leaves the others free)."""

from __future__ import annotations

import argparse
import time

from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (UsageError, add_common_options, emit, epsilon_help, note,
                                   parse_epsilon, positive_int, verdict)
from pufferfish.cli.common import input_file
from pufferfish.cli.common import (add_execution_options, add_parameter_options,
                                    execution_engine)
from pufferfish.models.errors import ModelError
from pufferfish.verify.report import Progress


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("audit", help="Pufferfish, DP and leakage levels of every "
                                   "mechanism of a model, and of their joint release")
    parser.add_argument("model", type=input_file, help="model file (JSON)")
    parser.add_argument("--epsilon", type=budget_text, help=epsilon_help(
        "budget to check; exit 1 if a mechanism or the joint release exceeds it"))
    parser.add_argument("--group", type=positive_int, help="also compute group-K DP")
    add_parameter_options(parser)
    parser.add_argument("--symbolic", action="store_true",
                        help="parametric models: each level as a closed-form (piecewise, for one "
                             "free parameter) expression in the parameters")
    add_common_options(parser, outputs=True, datasets=(
        "the most datasets one task holds: a block of a prior, or a block or column slice of "
        "the universe (the whole universe for explicit universes, records and --group); the "
        "universe's size is not limited: its memory and time are estimated first, and it is "
        "refused only beyond this machine's memory"))
    add_execution_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.symbolic:
        return run_symbolic(args)
    from pufferfish.models.parametric import load_model_at
    from pufferfish.verify.privacy.audit import audit_model

    budget = parse_epsilon(args.epsilon) if args.epsilon is not None else None
    model = load_model_at(args.model, args.assignments, max_datasets=args.max_datasets)
    if not model.mechanisms:
        raise ModelError("the model has no mechanisms: nothing was checked", "mechanisms")
    blocks = Progress(100, "prior blocks")
    progress = Progress(len(model.mechanisms) + 1, "auditing")

    started = time.perf_counter()

    def block_done(done: int, total: int) -> None:
        left = (time.perf_counter() - started) * (total - done) / done
        blocks.update(100 * done // total, f"{done}/{total}, about {left:.0f} s left")
        if done == total:
            blocks.close()
    def announce(plan) -> None:
        if plan.is_split:  # the work is split: say how, and what it will need
            note(args, plan.explain(engine.workers))
    try:
        with execution_engine(args) as engine:
            result = audit_model(model, budget, args.group, args.max_datasets, args.max_outputs,
                                 progress.step, engine, block_done, announce)
    finally:
        blocks.close()
        progress.close()
    emit(args, result.to_dict(), result.explain(args.model))
    return verdict(result.holds)


def run_symbolic(args: argparse.Namespace) -> int:
    from pufferfish.models.parametric import load_free_parameters
    from pufferfish.verify.symbolic.levels import symbolic_audit

    if args.scheduler or args.workers:
        raise UsageError("--symbolic runs in this process; --scheduler and --workers apply to "
                         "the exact audit at a point")
    if args.epsilon is not None or args.group is not None:
        raise UsageError("--symbolic computes closed-form levels; for the parameter values "
                         "where a budget holds use `pufferfish region MODEL --epsilon E`, and "
                         "for group DP audit at a point with --set")
    model = load_free_parameters(args.model, args.assignments)
    if not model.data.get("mechanisms"):
        raise ModelError("the model has no mechanisms: nothing was checked", "mechanisms")
    progress = Progress(len(model.data["mechanisms"]) + 1, "closed forms")
    try:
        result = symbolic_audit(model, args.max_datasets, args.max_outputs, progress.step)
    finally:
        progress.close()
    emit(args, result.to_dict(), result.explain(args.model))
    return 0
