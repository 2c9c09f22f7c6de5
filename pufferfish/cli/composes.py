"""``pufferfish composes MODEL --epsilon E``: can these mechanisms compose linearly at ε?
(Theorem 4 of ``000_65109fe28ca61d17.txt`` §5.1; see :mod:`pufferfish.verify.nfc.programs` and
:mod:`pufferfish.verify.nfc.attack`.)

Exit 0 when the certified upper bound of the NfC value is <= ε (the necessary condition holds),
1 when the certified lower bound is > ε (linear composition at ε is impossible; a constructive
attack is searched), 3 when the certified interval contains ε, 2 on bad input.

The JSON output is :meth:`NfcResult.to_dict` with three additions made here until the library's
result carries them: ``pufferfish_levels`` (each mechanism's single-run level against ε, the
premise of Theorem 4), premise ``notes``, and ``repeated_runs`` with ``--runs``.
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, add_common_options,
                                   emit, epsilon_help, names_option, parse_epsilon,
                                   positive_int)
from pufferfish.verify.report import Progress, table


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "composes", help="NfC linear programs (Theorem 4): can the mechanisms compose linearly at ε?")
    parser.add_argument("model", help="model file (JSON)")
    parser.add_argument("--epsilon", required=True,
                        help=epsilon_help("the per-mechanism budget ε"))
    parser.add_argument("--mechanisms", help="comma-separated mechanism names (default: all)")
    parser.add_argument("--max-runs", type=positive_int, default=200,
                        help="attack search limit (runs; default 200)")
    parser.add_argument("--runs", type=positive_int, default=None,
                        help="also compute the exact level of 1..R runs of each mechanism "
                             "(output multisets)")
    parser.add_argument("--max-coefficients", type=positive_int, default=10**6,
                        help="refuse programs with more coefficients (default 10^6)")
    add_common_options(parser, datasets=True, outputs=True)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from pufferfish.models.errors import ModelError
    from pufferfish.models.files.pufferfish_file import load_model
    from pufferfish.verify.nfc.attack import composition_attack, repeated_run_levels
    from pufferfish.verify.nfc.programs import nfc_programs

    budget = parse_epsilon(args.epsilon)
    model = load_model(args.model, max_datasets=args.max_datasets)
    names = names_option(args.mechanisms, "--mechanisms") or list(model.mechanisms)
    if not names:
        raise ModelError("the model has no mechanisms: nothing was checked", "mechanisms")
    mechanisms = [model.mechanism(n) for n in names]
    progress = Progress(1, "programs")
    try:
        result = nfc_programs(model, mechanisms, budget, args.max_datasets, args.max_outputs,
                              args.max_coefficients)
    finally:
        progress.close()
    if result.verdict == "violated" and result.witness is not None:
        attack = composition_attack(model, mechanisms, result.witness, budget, args.max_runs,
                                    args.max_datasets)
        result = replace(result, attack=attack)
    data = result.to_dict()
    text = result.explain()
    levels, notes = _premise(model, mechanisms, budget, args)
    data["pufferfish_levels"] = levels
    if notes:
        data["notes"] = data["notes"] + notes
        text += "\n" + "\n".join(f"  note: {n}" for n in notes)
    if args.runs:
        runs = [repeated_run_levels(model, m, args.runs, args.max_datasets, args.max_outputs)
                for m in mechanisms]
        data["repeated_runs"] = [lv.to_dict() for lv in runs]
        rows = [[lv.mechanism, k, f"{e:.6g}", f"{e / k:.6g}"]
                for lv in runs for k, e in enumerate((r * k for k, r in
                                                      enumerate(lv.per_run(), start=1)), start=1)]
        text += "\n\nExact levels of r runs (ε_r / r tends to the largest program value):\n"
        text += table(["mechanism", "r", "ε_r", "ε_r / r"], rows)
    if result.verdict == "undecided":
        text += (f"\n  the certified interval [{result.lower!r}, {result.upper!r}] contains ε; its "
                 f"width {result.upper - result.lower:.3g} comes from the solver tolerance and "
                 f"double-precision certificates: the budget is within that distance of the value")
    emit(args, data, text)
    return {"holds": EXIT_OK, "violated": EXIT_VIOLATED}.get(result.verdict, EXIT_UNDECIDED)


def _premise(model, mechanisms, budget, args) -> tuple[list, list]:
    """Each mechanism's exact single-run Pufferfish level, and a note where it already exceeds ε
    (then Theorem 4's premise — every mechanism is ε-Pufferfish — fails before any composition)."""
    from pufferfish.models.errors import UnsupportedError
    from pufferfish.verify.numerics.certified import compare_ratio
    from pufferfish.verify.privacy.pufferfish import pufferfish_level

    levels, notes = [], []
    for mechanism in mechanisms:
        try:
            level = pufferfish_level(model, mechanism, None, args.max_datasets, args.max_outputs)
        except UnsupportedError:
            continue
        check = compare_ratio(level.level_ratio, budget)
        levels.append({"mechanism": mechanism.name, "epsilon": level.epsilon,
                       "within_budget": check.holds})
        if not check.holds:
            notes.append(f"{mechanism.name} is not ε-Pufferfish at this budget (single-run level "
                         f"{level.epsilon}): the premise of Theorem 4 already fails for one run")
    return levels, notes
