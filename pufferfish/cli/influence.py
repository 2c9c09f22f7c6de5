"""``pufferfish influence MODEL [--secret-pair FIRST,SECOND] [--max-b B] [--method
auto|brute|chain] [--out DIR]``: the exact a(b)-influence curve of a model's priors and secret
pairs with the minimising split of every point (Bai et al., Composition for Pufferfish Privacy, §6,
Definition 7).

``--out DIR`` writes ``influence_curve.json`` (a curve file for ``pufferfish translate``, see
:mod:`pufferfish.verify.influence.curve_file`) and ``influence_curve.png`` (its plot).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import (EXIT_OK, UsageError, add_common_options, add_out_folder, emit,
                                   nonnegative_int, output_file, prepare_folder, wrote)
from pufferfish.cli.common import (add_execution_options, add_parameter_options,
                                   execution_engine, load_pufferfish_model)

CURVE_FILE, PLOT_FILE = "influence_curve.json", "influence_curve.png"


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "influence", help="exact a(b)-influence curve of a model (Bai et al., Composition for "
        "Pufferfish Privacy, §6, Definition 7)")
    parser.add_argument("model", type=model_file, help=model_help("model file (JSON)"))
    parser.add_argument("--secret-pair", metavar="FIRST,SECOND",
                        help="only this pair of the model's secrets (both directions)")
    parser.add_argument("--max-b", type=nonnegative_int,
                        help="largest b (default: the number of entries)")
    parser.add_argument("--method", choices=["auto", "brute", "chain"], default="auto",
                        help="brute force over splits, structured Markov chain, or auto "
                             "(chain when every prior is a chain and secrets are entries)")
    add_out_folder(parser, f"the curve file {CURVE_FILE} (for translate) and its plot {PLOT_FILE}")
    parser.add_argument("--plot", type=output_file, help=argparse.SUPPRESS)
    parser.add_argument("--save-curve", type=output_file, help=argparse.SUPPRESS)
    add_common_options(parser, datasets=True)
    add_parameter_options(parser)
    add_execution_options(parser)  # the ordered secret pairs (brute) or table groups (chain)
    parser.set_defaults(handler=run)
    return parser


def _select_pairs(model, text: str | None):
    if text is None:
        return None
    from pufferfish.models.errors import ModelError
    from pufferfish.models.secrets import SecretPair

    names = [t.strip() for t in text.split(",")]
    if len(names) != 2:
        raise UsageError("--secret-pair: give the pair as FIRST,SECOND (two secret names)")
    for name in names:
        if name not in model.secrets:
            raise ModelError(f"unknown secret {name!r}; the model has {sorted(model.secrets)}",
                             "--secret-pair")
    return [SecretPair(model.secrets[names[0]], model.secrets[names[1]])]


def compute_curve(model, pairs, max_b, method: str, progress=None, engine=None):
    """The curve by the structured chain computation (``auto``, ``chain``) or the brute force,
    its independent parts run on ``engine`` (default: this process)."""
    from pufferfish.models.errors import UnsupportedError
    from pufferfish.verify.influence.chains import chain_influence_curve
    from pufferfish.verify.influence.curves import influence_curve

    if method in ("auto", "chain"):
        try:
            return chain_influence_curve(model, pairs, max_b, progress, engine=engine)
        except UnsupportedError:
            if method == "chain":
                raise
    return influence_curve(model, pairs, max_b, progress, engine=engine)


def run(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import Progress, table
    from pufferfish.verify.influence.curve_file import curve_document
    from pufferfish.models.files.pufferfish_file import write_json_atomically
    from pufferfish.models.numbers import INFINITY, epsilon_float

    model = load_pufferfish_model(args)
    pairs = _select_pairs(model, args.secret_pair)
    bar = Progress(100, "influence")

    def progress(done: int, total: int, what: str) -> None:
        if total:
            bar.update(100 * done // total, what)

    try:
        with execution_engine(args) as engine:
            curve = compute_curve(model, pairs, args.max_b, args.method, progress, engine)
    finally:
        bar.close()
    folder = prepare_folder(args) if args.out else None
    curve_target = folder / CURVE_FILE if folder else args.save_curve
    plot_target = folder / PLOT_FILE if folder else args.plot
    if plot_target:
        from pufferfish.verify.influence.plot import plot_influence_curve

        plot_influence_curve(curve, str(plot_target),
                             f"a(b)-influence curve of {Path(args.model).name}")
        wrote(args, plot_target)
    if curve_target:
        write_json_atomically(curve_document(curve, f"a(b)-influence curve of {args.model}"),
                              curve_target)
        wrote(args, curve_target)
    rows = []
    for p in curve.points:
        value = "" if p.max_ratio == INFINITY else f"{epsilon_float(p.max_ratio):.6g}"
        high = (f"{p.high[0]}..{p.high[-1]}" if len(p.high) > 6 else
                ",".join(model.universe.attributes[i] for i in p.high)) or "-"
        worst = ", ".join(f"{model.universe.attributes[i]}={v}" for i, v in (p.low_values or ()))
        rows.append([p.b, p.epsilon, value, p.pair, high, worst or "-"])
    text = (f"a(b)-influence curve ({curve.method}), |I| = {curve.entries}\n"
            + table(["b", "a(b)", "≈", "worst pair", "H", "worst D_L"], rows))
    emit(args, curve.to_dict(), text)
    return EXIT_OK
