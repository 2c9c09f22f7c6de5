"""Subcommands ``dcp`` and ``dcp-design`` (``004_acc5641f8e5f8c79.txt``; see :mod:`pufferfish.verify.dcp.levels`,
:mod:`pufferfish.verify.dcp.composition`, :mod:`pufferfish.verify.dcp.inverse`).

``pufferfish dcp MODEL [--epsilon E] [--delta D]`` prints each mechanism's exact DCP level, the
composition table (true joint, product of effective mechanisms, basic and optimal DP bounds) and
the dependence term ``L^G``.  With both ``--epsilon`` and ``--delta`` it checks
``(E, D)``-DCP of the composition of the selected mechanisms and exits 1 when it is violated.

``pufferfish dcp-design MODEL --target-epsilon E --target-delta D`` solves Task 2 (closed form)
and Task 1 (alternating optimisation) and reports the exact audit of each design; exit 0 when a
verified Task-1 design exists, 1 otherwise.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from pufferfish.models.files.dcp_file import load_dcp_model
from pufferfish.models.numbers import INFINITY, epsilon_float, epsilon_str, exact, fraction_str
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.report import EXIT_OK, EXIT_VIOLATED, emit, table


def add_parser(subparsers, common) -> None:
    """Register ``dcp`` and ``dcp-design``."""
    dcp = subparsers.add_parser("dcp", help="differential confounding privacy (004): exact "
                                "levels, composition table and L^G of a DCP model file")
    dcp.add_argument("model", help="DCP model file (JSON, {\"dcp_model\": 1, ...})")
    dcp.add_argument("--epsilon", help="compute delta(eps) (0.5, 1/2, log(3)); with --delta, "
                     "check (eps, delta)-DCP of the composition and exit 1 if violated")
    dcp.add_argument("--delta", help="compute the least eps for this delta (default 0)")
    dcp.add_argument("--mechanisms", help="comma-separated mechanisms to compose (default all)")
    dcp.add_argument("--individual-delta", default="0",
                     help="delta_i used for the individual levels fed to the DP bounds (default 0)")
    common(dcp)
    dcp.set_defaults(handler=run_dcp)

    design = subparsers.add_parser("dcp-design", help="inverse composition (004 §IV): Task 2 "
                                   "closed form and a Task-1 design, each verified exactly")
    design.add_argument("model", help="DCP model file (JSON)")
    design.add_argument("--target-epsilon", required=True, help="target eps_g (0.5, log(3))")
    design.add_argument("--target-delta", required=True, help="target delta_g in [0, 1]")
    design.add_argument("--mechanisms", help="comma-separated existing mechanisms (default all)")
    design.add_argument("--outputs", type=int, default=2, help="outputs of the added mechanism")
    design.add_argument("--iterations", type=int, default=8, help="alternating steps (default 8)")
    common(design)
    design.set_defaults(handler=run_design)


def _names(args) -> list[str] | None:
    return [n.strip() for n in args.mechanisms.split(",") if n.strip()] if args.mechanisms else None


def _eps(ratio) -> str:
    return "inf" if ratio == INFINITY else f"{epsilon_str(ratio)} (≈ {epsilon_float(ratio):.6g})"


def run_dcp(args: argparse.Namespace) -> int:
    from pufferfish.models.errors import ModelError
    from pufferfish.verify.dcp.levels import dcp_check, dcp_delta, dcp_level, effective_mechanism
    from pufferfish.verify.dcp.composition import composition_audit, true_joint

    model = load_dcp_model(args.model)
    delta = exact(args.delta, "--delta") if args.delta is not None else Fraction(0)
    if not 0 <= delta <= 1:
        raise ModelError("delta must be in [0, 1]", "--delta")
    budget = parse_budget(args.epsilon) if args.epsilon is not None else None
    names = _names(args) or list(model.mechanisms)
    individual_delta = exact(args.individual_delta, "--individual-delta")
    directions = model.directions()
    levels = []
    for name in names:
        rows = effective_mechanism(model, model.mechanism(name))
        level = dcp_level(rows, directions, delta, name)
        at = dcp_delta(rows, directions, budget, name) if budget else None
        levels.append((level, at))
    audit = composition_audit(model, names, delta, budget, [individual_delta] * len(names))
    check = None
    if budget is not None and args.delta is not None:
        check = dcp_check(true_joint(model, [model.mechanism(n) for n in names]), directions,
                          budget, delta, "+".join(names))
    data = {"check": "dcp", "model": str(args.model),
            "mechanisms": [{"least_epsilon": lv.to_dict(),
                            "delta_at_epsilon": at.to_dict() if at else None} for lv, at in levels],
            "composition": audit.to_dict(),
            "verdict": check.to_dict() if check else None}
    lines = [f"DCP model {args.model}: {len(model.secrets)} secrets, {len(model.datasets)} "
             f"datasets, {len(model.pairs)} adjacent pair(s); {audit.reduction.reason}", ""]
    rows = []
    for lv, at in levels:
        witness = f"{lv.witness.pair[0]} vs {lv.witness.pair[1]}" if lv.witness else "-"
        row = [lv.mechanism, _eps(lv.ratio), witness]
        if at is not None:
            row.append(fraction_str(at.value) if at.value is not None else
                       f"[{float(at.lower):.6g}, {float(at.upper):.6g}]")
        rows.append(row)
    headers = ["mechanism", f"least eps (delta={fraction_str(delta)})", "worst pair"]
    lines.append(table(headers + ([f"delta({budget.text})"] if budget else []), rows))
    lines.append("")
    lines.append(f"composition of {', '.join(names)} (individual delta_i = "
                 f"{fraction_str(individual_delta)}):")
    table_rows = []
    for r in audit.rows:
        d = "" if r.delta_lower is None else (fraction_str(r.delta_exact) if r.delta_exact is not None
                                              else f"[{float(r.delta_lower):.6g}, "
                                                   f"{float(r.delta_upper):.6g}]")
        cells = [r.method, "" if r.ratio is None else _eps(r.ratio)]
        table_rows.append(cells + ([d] if budget else []) + [r.note])
    lines.append(table(["method", f"least eps (delta={fraction_str(delta)})"] +
                       ([f"delta({budget.text})"] if budget else []) + ["note"], table_rows))
    nonzero = [d for d in audit.dependence if d.nonzero]
    lines.append("")
    lines.append(f"dependence term L^G (eq. 11): nonzero on {len(nonzero)} of "
                 f"{len(audit.dependence)} ordered pairs" + (
                     "; " + ", ".join(f"{d.pair[0]}->{d.pair[1]}: Pr[L^G != 0] = "
                                      f"{fraction_str(d.nonzero_mass)}" for d in nonzero[:4])
                     if nonzero else ""))
    for note in audit.notes:
        lines.append(f"note: {note}")
    if check is not None:
        lines.append("")
        lines.append(check.explain())
    emit(args, data, "\n".join(lines))
    if check is not None and not check.holds:
        return EXIT_VIOLATED
    return EXIT_OK


def run_design(args: argparse.Namespace) -> int:
    from pufferfish.models.errors import ModelError
    from pufferfish.verify.dcp.inverse import task1, task2

    model = load_dcp_model(args.model)
    budget = parse_budget(args.target_epsilon, "--target-epsilon")
    delta = exact(args.target_delta, "--target-delta")
    if not 0 <= delta <= 1:
        raise ModelError("the target delta must be in [0, 1]", "--target-delta")
    if args.outputs < 1:
        raise ModelError("the added mechanism needs at least one output", "--outputs")
    names = _names(args)
    second = task2(model, names, delta)
    first = task1(model, names, budget, delta, outputs=args.outputs, iterations=args.iterations)
    data = {"check": "dcp_design", "model": str(args.model), "task2": second.to_dict(),
            "task1": first.to_dict()}
    text = "\n".join([second.explain(), first.explain(),
                      "(verdicts come from the exact DCP audit of each design; optimiser values "
                      "are numerical and never decide)"])
    emit(args, data, text)
    return EXIT_OK if first.holds else EXIT_VIOLATED
