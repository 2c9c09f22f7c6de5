"""``pufferfish dcp MODEL [--epsilon E] [--delta D]``: differential confounding privacy
(``004_acc5641f8e5f8c79.txt``; :mod:`pufferfish.verify.dcp.levels`,
:mod:`pufferfish.verify.dcp.composition`).

Prints each mechanism's exact DCP level, the composition table (true joint, product of effective
mechanisms, basic and optimal DP bounds) and the dependence term ``L^G``.  With both ``--epsilon``
and ``--delta`` it checks ``(E, D)``-DCP of the composition of the selected mechanisms and exits 1
when it is violated.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from pufferfish.cli.common import (EXIT_OK, EXIT_VIOLATED, RATIONAL_FORMS, add_common_options,
                                   emit, epsilon_help, names_option, parse_epsilon)
from pufferfish.models.numbers import INFINITY, epsilon_float, epsilon_str, fraction_str
from pufferfish.verify.report import table


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("dcp", help="differential confounding privacy (004): exact "
                                   "levels, composition table and L^G of a DCP model file")
    parser.add_argument("model", help="DCP model file (JSON, {\"dcp_model\": 1, ...})")
    parser.add_argument("--epsilon", help=epsilon_help(
        "compute delta(eps); with --delta, check (eps, delta)-DCP of the composition and exit 1 "
        "if violated"))
    parser.add_argument("--delta", help=f"compute the least eps for this delta in [0, 1] "
                                        f"({RATIONAL_FORMS}; default 0)")
    parser.add_argument("--mechanisms", help="comma-separated mechanisms to compose (default all)")
    parser.add_argument("--individual-delta", default="0",
                        help=f"delta_i in [0, 1] used for the individual levels fed to the DP "
                             f"bounds ({RATIONAL_FORMS}; default 0)")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def epsilon_text(ratio) -> str:
    """``log(r) (≈ x)`` or ``inf``."""
    return "inf" if ratio == INFINITY else f"{epsilon_str(ratio)} (≈ {epsilon_float(ratio):.6g})"


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
    from pufferfish.verify.dcp.composition import composition_audit, true_joint
    from pufferfish.verify.dcp.levels import dcp_check, dcp_delta, dcp_level, effective_mechanism

    delta = unit_rational(args.delta, "--delta") if args.delta is not None else Fraction(0)
    budget = parse_epsilon(args.epsilon) if args.epsilon is not None else None
    individual_delta = unit_rational(args.individual_delta, "--individual-delta")
    requested = names_option(args.mechanisms, "--mechanisms")
    model = load_dcp_model(args.model)
    names = requested or list(model.mechanisms)
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
    emit(args, data, _text(args, model, names, levels, audit, check, budget, delta,
                           individual_delta))
    if check is not None and not check.holds:
        return EXIT_VIOLATED
    return EXIT_OK


def _interval(lower, upper) -> str:
    return f"[{float(lower):.6g}, {float(upper):.6g}]"


def _text(args, model, names, levels, audit, check, budget, delta, individual_delta) -> str:
    lines = [f"DCP model {args.model}: {len(model.secrets)} secrets, {len(model.datasets)} "
             f"datasets, {len(model.pairs)} adjacent pair(s); {audit.reduction.reason}", ""]
    rows = []
    for lv, at in levels:
        witness = f"{lv.witness.pair[0]} vs {lv.witness.pair[1]}" if lv.witness else "-"
        row = [lv.mechanism, epsilon_text(lv.ratio), witness]
        if at is not None:
            row.append(fraction_str(at.value) if at.value is not None else
                       _interval(at.lower, at.upper))
        rows.append(row)
    headers = ["mechanism", f"least eps (delta={fraction_str(delta)})", "worst pair"]
    lines.append(table(headers + ([f"delta({budget.text})"] if budget else []), rows))
    lines.append("")
    lines.append(f"composition of {', '.join(names)} (individual delta_i = "
                 f"{fraction_str(individual_delta)}):")
    table_rows = []
    for r in audit.rows:
        d = "" if r.delta_lower is None else (fraction_str(r.delta_exact) if r.delta_exact is not None
                                              else _interval(r.delta_lower, r.delta_upper))
        cells = [r.method, "" if r.ratio is None else epsilon_text(r.ratio)]
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
    for message in audit.notes:
        lines.append(f"note: {message}")
    if check is not None:
        lines.append("")
        lines.append(check.explain())
    return "\n".join(lines)
