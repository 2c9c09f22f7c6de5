"""``pufferfish audit MODEL [--epsilon E] [--group K]``: the Pufferfish, DP and leakage levels of
every mechanism of a model and of their joint release (``000_65109fe28ca61d17.txt`` §3–4; see
:func:`pufferfish.verify.privacy.audit.audit_model`).  Exit 1 when ``--epsilon`` is exceeded."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (add_common_options, emit, epsilon_help, parse_epsilon,
                                   positive_int, verdict)
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import epsilon_float, fraction_str
from pufferfish.verify.report import Progress, compact, table


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
    emit(args, result.to_dict(), audit_text(args.model, result))
    return verdict(result.holds)


def _epsilon_text(ratio) -> str:
    value = epsilon_float(ratio)
    return "inf" if value == float("inf") else f"{value:.4f}"


def audit_text(source: str, result) -> str:
    """The plain-text report of an :class:`~pufferfish.verify.privacy.audit.AuditResult`."""
    rows = []
    for m in result.mechanisms:
        p = m.pufferfish
        rows.append([m.name, compact(p.epsilon), _epsilon_text(p.level_ratio),
                     ", ".join(f"{d.relation} {compact(d.epsilon)}" for d in m.dp),
                     "zero" if m.leakage.zero_leakage else compact(fraction_str(m.leakage.worst_shift)),
                     "-" if p.holds is None else ("ok" if p.holds else "VIOLATED")])
    lines = [f"Audit of {source}", "",
             table(["mechanism", "pufferfish ε", "≈", "DP ε", "leakage (max shift)", "budget"],
                   rows), ""]
    for m in result.mechanisms:
        if m.pufferfish.witness is not None:
            lines.append(f"  {m.name}: worst case {m.pufferfish.witness.explain()}")
        for skipped in m.pufferfish.skipped[:3]:
            lines.append(f"  {m.name}: skipped {skipped[0]} under {skipped[1]} ({skipped[2]})")
    if result.composition is not None:
        lines += ["", result.composition.explain()]
    elif result.composition_note:
        lines += ["", result.composition_note]
    if result.budget is not None:
        lines += ["", f"budget ε = {result.budget.text}: "
                      f"{'holds' if result.holds else 'VIOLATED'}"]
    return "\n".join(lines)
