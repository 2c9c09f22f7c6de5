"""``pufferfish audit MODEL [--epsilon E] [--epsilon-dp E] [--neighbours RELATION]
[--mechanism NAME] [--group K] [--symbolic] [--set NAME=VALUE] [--certificate FILE]``: the Pufferfish, DP and leakage
levels of every mechanism of a model (or of the ``--mechanism`` named) and of their joint release
(Bai et al., Composition for Pufferfish Privacy, §3–4; see
:func:`pufferfish.verify.privacy.audit.audit_model`). DP levels are taken under the ``--neighbours``
relations (:mod:`pufferfish.models.neighbours`), else the model's ``neighbours``, else per entry.
Exit 1 when ``--epsilon`` or ``--epsilon-dp`` is exceeded.  ``--certificate FILE`` also writes
the audit's certificate, which ``pufferfish check-certificate`` checks independently
(:mod:`pufferfish.verify.privacy.certificate`, docs/certificates.md).

A parametric model (``"parameters"``, :mod:`pufferfish.models.parametric`) is audited at a point
with ``--set p=3/4`` (every parameter), or in closed form with ``--symbolic``
(:func:`pufferfish.verify.symbolic.levels.symbolic_audit`; ``--set`` then fixes some parameters
and leaves the others free)."""

from __future__ import annotations

import argparse
import time

from pufferfish.cli.common import add_mechanism_option
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.block_option import add_block_option
from pufferfish.cli.common import (UsageError, add_common_options, add_execution_options,
                                   add_parameter_options, budget_text, emit, epsilon_help,
                                   execution_engine, load_pufferfish_model, note,
                                   output_file, parse_epsilon, positive_int, relation_status,
                                   verdict, wrote)
from pufferfish.models.errors import ModelError
from pufferfish.models.neighbours import DEFAULT_MAX_PAIRS, RELATION_FORMS


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("audit", help="Pufferfish, DP and leakage levels of every "
                                   "mechanism of a model, and of their joint release")
    parser.add_argument("model", type=model_file, help=model_help("model file (JSON)"))
    parser.add_argument("--epsilon", type=budget_text, help=epsilon_help(
        "budget to check; exit 1 if a mechanism or the joint release exceeds it"))
    parser.add_argument("--epsilon-dp", type=budget_text, help=epsilon_help(
        "DP budget to check: exit 1 if a mechanism's DP level under an audited neighbour "
        "relation exceeds it"))
    parser.add_argument("--neighbours", action="append", metavar="RELATION",
                        help=f"take DP levels under this neighbour relation (repeatable; default: "
                             f"the model's \"neighbours\", else entry and, with multi-attribute "
                             f"records, record): {RELATION_FORMS}")
    add_mechanism_option(parser, "audit only these; their joint release is audited when two "
                                 "or more are named (default: every mechanism)", old=())
    parser.add_argument("--group", type=positive_int, metavar="K",
                        help="also compute group DP with K entries changed (as --neighbours group:K)")
    parser.add_argument("--method", choices=("auto", "structured", "enumeration"),
                        default="auto",
                        help="how the priors are read: 'structured' follows a chain's or "
                             "network's structure (sum-product with the mechanism's statistic "
                             "as a polynomial; for chains, product priors and Bayesian networks, "
                             "mechanisms reading a sum, count or a few attributes, per-entry DP) "
                             "and never lists the universe; 'enumeration' lists each prior's "
                             "support; 'auto' (default) takes the structured path when it "
                             "applies and the universe is larger than one enumeration block")
    add_parameter_options(parser)
    parser.add_argument("--symbolic", action="store_true",
                        help="parametric models: each level as a closed-form (piecewise, for one "
                             "free parameter) expression in the parameters")
    add_common_options(parser, outputs=True)
    add_block_option(parser, (
        "a block of a prior, or a block or column slice of the universe (the whole universe "
        "for explicit universes, records, --group and the --neighbours relations linf, l1, monotone and "
        "add_remove); the universe's size is not limited: its memory and time are estimated "
        "first, and it is refused only beyond this machine's memory"))
    parser.add_argument("--max-pairs", type=positive_int, default=DEFAULT_MAX_PAIRS,
                        help=f"refuse a neighbour relation other than entry, record and group "
                             f"with more ordered pairs of datasets to compare "
                             f"(default {DEFAULT_MAX_PAIRS:,})")
    parser.add_argument("--certificate", metavar="FILE", type=output_file,
                        help="also write the audit's certificate (the exact evidence of every "
                             "level and verdict) to FILE, atomically; check it with `pufferfish "
                             "check-certificate FILE`")
    add_execution_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.errors import TooLargeError

    try:
        return run_symbolic(args) if args.symbolic else run_exact(args)
    except TooLargeError as error:  # a refusal at the limit of one block names audit's spelling
        if "--max-datasets" not in error.reason:
            raise
        raise TooLargeError(error.reason.replace("--max-datasets", "--block-datasets"),
                            error.path) from None


def run_exact(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import Progress
    from pufferfish.models.neighbours import parse_neighbours
    from pufferfish.verify.privacy.audit import audit_model, selected_mechanisms

    budget = parse_epsilon(args.epsilon) if args.epsilon is not None else None
    dp_budget = (parse_epsilon(args.epsilon_dp, "--epsilon-dp") if args.epsilon_dp is not None
                 else None)
    if args.certificate and args.assignments:
        raise UsageError("--certificate names the model file its checker reads, and a checker "
                         "reads no parameters: write the model at this point to a file and "
                         "audit that")
    model = load_pufferfish_model(args, dp_only=True)
    if model.dp_only and budget is not None:
        raise UsageError("--epsilon is a Pufferfish budget, and this model has no priors or "
                         "secret pairs (a DP-only model): check its DP levels with --epsilon-dp")
    if not model.mechanisms:
        raise ModelError("the model has no mechanisms: nothing was checked", "mechanisms")
    chosen = selected_mechanisms(model, args.mechanism, "--mechanism")
    relations = (None if args.neighbours is None else
                 [parse_neighbours(text, model.universe, "--neighbours") for text in args.neighbours])
    blocks = Progress(100, "prior blocks")
    progress = Progress(len(chosen) + 1, "auditing")

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
                                 progress.step, engine, block_done, announce,
                                 mechanisms=chosen if args.mechanism else None,
                                 neighbours=relations,
                                 dp_budget=dp_budget, max_pairs=args.max_pairs,
                                 method=args.method)
    finally:
        blocks.close()
        progress.close()
    if args.certificate:
        from pufferfish.verify.privacy.certificate import audit_certificate, write_certificate

        write_certificate(audit_certificate(model, result, args.model,
                                            max_datasets=args.max_datasets,
                                            max_outputs=args.max_outputs),
                          args.certificate, "--certificate")
        wrote(args, args.certificate)
    emit(args, result.to_dict(), result.explain(args.model))
    # With a budget, a vacuous level (no secret pair applies) is undecided: exit 3, never 0.
    return (verdict(result.holds) if budget is None and dp_budget is None
            else relation_status(result.holds))


def run_symbolic(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import Progress
    from pufferfish.models.parametric import load_free_parameters
    from pufferfish.verify.symbolic.levels import symbolic_audit

    if args.certificate:
        raise UsageError("--certificate certifies the exact audit at a point (--set); a closed "
                         "form has no certificate")
    if args.scheduler or args.workers:
        raise UsageError("--symbolic runs in this process; --scheduler and --workers apply to "
                         "the exact audit at a point")
    if args.epsilon is not None or args.group is not None:
        raise UsageError("--symbolic computes closed-form levels; for the parameter values "
                         "where a budget holds use `pufferfish region MODEL --epsilon E`, and "
                         "for group DP audit at a point with --set")
    if args.epsilon_dp is not None or args.neighbours or args.mechanism:
        raise UsageError("--symbolic computes every mechanism's closed-form per-entry DP level; "
                         "--epsilon-dp, --neighbours and --mechanism apply to the exact audit at "
                         "a point (--set)")
    model = load_free_parameters(args.model, args.assignments)
    if model.data.get("neighbours", "entry") != "entry":
        raise UsageError("--symbolic computes per-entry DP levels, but the model declares the "
                         f"neighbour relation {model.data['neighbours']!r}; audit it at a point "
                         "with --set")
    if not model.data.get("mechanisms"):
        raise ModelError("the model has no mechanisms: nothing was checked", "mechanisms")
    progress = Progress(len(model.data["mechanisms"]) + 1, "closed forms")
    try:
        result = symbolic_audit(model, args.max_datasets, args.max_outputs, progress.step)
    finally:
        progress.close()
    emit(args, result.to_dict(), result.explain(args.model))
    return 0
