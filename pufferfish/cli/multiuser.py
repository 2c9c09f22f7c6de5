"""``pufferfish multiuser MODEL --pairs {ab,a-absent,P-absent,PQ} --epsilon E``
(``001_3a97785a86d61e37.txt`` §4).

Reads a multi-user model file (:mod:`pufferfish.models.files.multiuser_file`), computes the exact
conditional distributions of the aggregate for every non-vacuous pair of the chosen pair set, and
prints every applicable calibrator's θ (exact multiple of 1/ε, or a certified interval), the
certified actual Pufferfish level of ``X + Lap(θ)`` next to ε, and the minimal θ achieving ε
(:func:`pufferfish.verify.multiuser.calibration.calibrate`).

Exit status: 0 when every calibrator's θ achieves ε, 1 when one is proved not to (a failed
sufficient condition), 3 when a comparison stays undecided, 2 on bad input — including a pair set
that leaves no pair to check (nothing would be verified).
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, add_common_options,
                                   emit, epsilon_help, parse_epsilon)
from pufferfish.models.multiuser import PAIR_SETS
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.report import Progress, table


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "multiuser", help="multi-user Pufferfish (001 §4): every calibrator's Laplace scale θ, "
        "the certified actual level of X + Lap(θ), and the minimal θ")
    parser.add_argument("model", help="multi-user model file (JSON, \"multiuser_model\": 1)")
    parser.add_argument("--pairs", required=True, choices=PAIR_SETS,
                        help="secret pair set: ab = S_{a,b}, a-absent = S_{a,⊥}, "
                        "P-absent = S_{P,⊥}, PQ = S_{P,Q}")
    parser.add_argument("--epsilon", required=True,
                        help=epsilon_help("privacy budget ε > 0 (rational)"))
    parser.add_argument("--no-minimal", action="store_true",
                        help="skip the bisection for the minimal θ")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.errors import ModelError
    from pufferfish.models.files.multiuser_file import load_multiuser_model
    from pufferfish.verify.multiuser.calibration import calibrate

    budget = parse_epsilon(args.epsilon)
    model = load_multiuser_model(args.model)
    progress = Progress(11, "calibrators")
    try:
        result = calibrate(model, args.pairs, budget, minimal=not args.no_minimal,
                           progress=lambda name: progress.step(name))
    finally:
        progress.close()
    if not result.pairs:
        raise ModelError(f"the pair set {args.pairs} gives no pair to check on this model "
                         f"({len(result.vacuous)} vacuous): nothing was verified", "--pairs")
    emit(args, {"model": str(args.model), **result.to_dict()}, _text(args, result))
    holds = result.holds
    return EXIT_VIOLATED if holds is False else EXIT_UNDECIDED if holds is None else EXIT_OK


def _text(args, result) -> str:
    eps = result.epsilon
    lines = [f"model {args.model}: pair set {result.pair_set}, ε = {fraction_str(eps)}, other "
             f"users' absence read as {result.others!r}",
             f"{len(result.pairs)} pair(s) checked in both directions"
             + (f"; {len(result.vacuous)} vacuous (a secret of prior probability 0): "
                + ", ".join(p.label for p in result.vacuous) if result.vacuous else "")]
    rows = []
    for c in result.calibrations:
        if not c.applicable:
            rows.append([c.name, "-", "-", f"n/a: {c.reason}"])
            continue
        theta = c.theta
        if theta.coefficient is not None:
            text = f"{fraction_str(theta.coefficient)}/ε = {fraction_str(theta.lower)}"
        else:
            text = f"[{float(theta.lower):.10g}, {float(theta.upper):.10g}]"
        level = c.check.level
        verdict = {"below": "holds", "tight": "holds (tight)", "above": "VIOLATED",
                   "undecided": "UNDECIDED"}[c.check.relation]
        rows.append([c.name, text, f"[{level.epsilon_lower:.6f}, {level.epsilon_upper:.6f}]",
                     verdict])
    lines += ["", table(["calibrator", "θ", "actual level ε", f"vs ε = {fraction_str(eps)}"], rows)]
    if result.minimal is not None:
        m = result.minimal
        lines.append("")
        lines.append(f"minimal θ ∈ ({float(m.lower):.10g}, {float(m.upper):.10g}]  "
                     f"(θ·ε ∈ ({float(m.lower * eps):.8g}, {float(m.upper * eps):.8g}]; "
                     f"{m.steps} certified level evaluations)")
        for c in result.calibrations:
            if c.applicable and m.upper > 0:
                lines.append(f"  {c.name}: θ / θ_min ≈ {float(c.theta.upper / m.upper):.4f}")
    for label, rel in result.relaxed.items():
        lines.append(f"relaxed condition (20) at Lemma 2's θ for {label}: forward "
                     f"{rel['forward']['holds']}, backward {rel['backward']['holds']}")
    return "\n".join(lines)
