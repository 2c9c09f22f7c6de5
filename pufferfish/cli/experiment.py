"""``pufferfish experiment topk``: the noisy Top-K experiment of Bai et al., Composition for
Pufferfish Privacy, §7 and Appendix D.

``pufferfish experiment topk [--shape checkins|activities] [--K 3|5] [--trials N] [--seed S]
[--out DIR] [--workers N | --scheduler ADDRESS] [--foursquare CHECKINS POIS | --capture24 DIR] [--strict]``

Runs :func:`pufferfish.proofs_check.paper_000.topk.experiment.run_trials` on synthetic data of
the shape (default) or on the real files, prints the calibrations, the paper's two table layouts
with 95% confidence intervals, the Majority baseline and the claim cells, and writes
``topk_<shape>_K<K>.csv`` and ``.png`` in ``--out`` (checked before the trials run).  Exit 0 (it
computes); with ``--strict``, exit 1 when a qualitative claim fails in some cell.
"""

from __future__ import annotations

import argparse
import time

from pufferfish.cli.common import (EXIT_OK, EXIT_VIOLATED, add_common_options,
                                   add_execution_options, add_out_folder, emit, execution_engine,
                                   nonnegative_int, note, positive_int, prepare_folder, wrote)
from pufferfish.cli.common import input_file, input_folder

DEFAULT_OUT = "topk_results"


class _Shapes:
    """The names of the synthetic data shapes, read from
    :data:`pufferfish.proofs_check.paper_000.topk.sequences.SHAPES` only when ``--shape`` is
    checked or its help is shown (that module loads numpy, which ``pufferfish --help`` does not
    need)."""

    def _names(self) -> list[str]:
        from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES

        return sorted(SHAPES)

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self):
        return iter(self._names())


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("experiment", help="the experiments of the composition paper "
                                   "(Bai et al., Composition for Pufferfish Privacy, §7)")
    sub = parser.add_subparsers(dest="experiment", metavar="EXPERIMENT", required=True,
                                parser_class=type(parser))
    topk = sub.add_parser("topk", help="noisy Top-K: Ours-Exp vs MQM vs group DP (Tables 2–5, 7–8)")
    topk.add_argument("--shape", choices=_Shapes(), default="checkins", metavar="SHAPE",
                      help="synthetic data shaped like the check-ins (78 states) or activities "
                      "(11 states) data: %(choices)s")
    topk.add_argument("--K", type=int, choices=[3, 5], default=3, help="Top-K size")
    topk.add_argument("--trials", type=positive_int, default=200,
                      help="trials (mechanism randomness; default 200)")
    topk.add_argument("--seed", type=nonnegative_int, default=0, help="seed of data and trials")
    add_out_folder(topk, "the CSV table and the plot", default=DEFAULT_OUT)
    real = topk.add_mutually_exclusive_group()
    real.add_argument("--foursquare", type=input_file, nargs=2, metavar=("CHECKINS", "POIS"),
                      help="use the real Foursquare global check-in files instead")
    real.add_argument("--capture24", type=input_folder, metavar="DIR",
                      help="use a real Capture24 directory instead")
    topk.add_argument("--strict", action="store_true", help="exit 1 when a claim fails somewhere")
    add_common_options(topk)
    add_execution_options(topk)  # chunks of trials are the tasks; results do not depend on it
    topk.set_defaults(handler=run_topk, command_name="experiment topk")
    return parser


def _load(args) -> tuple:
    from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate

    if args.foursquare:
        from pufferfish.proofs_check.paper_000.topk.real_data import load_foursquare
        return load_foursquare(*args.foursquare), "foursquare"
    if args.capture24:
        from pufferfish.proofs_check.paper_000.topk.real_data import load_capture24
        return load_capture24(args.capture24), "capture24"
    return generate(SHAPES[args.shape], args.seed), args.shape


def run_topk(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import Progress
    from pufferfish.proofs_check.paper_000.topk.experiment import (build_setup, calibration_text,
                                                                   claims_text, run_trials,
                                                                   summarise, tables_text,
                                                                   write_csv, write_plot)
    start = time.time()
    folder = prepare_folder(args)
    data, name = _load(args)
    setup = build_setup(data, args.K)
    bar = Progress(args.trials, "trials")
    try:
        with execution_engine(args) as engine:
            samples = run_trials(setup, args.trials, args.seed, engine,
                                 lambda done, total: bar.update(done, f"{time.time() - start:.0f} s"))
    finally:
        bar.close()
    result = summarise(setup, samples, args.trials, args.seed)
    stem = folder / f"topk_{name}_K{args.K}"
    write_csv(result, stem.with_suffix(".csv"))
    wrote(args, stem.with_suffix(".csv"))
    write_plot(result, stem.with_suffix(".png"))
    wrote(args, stem.with_suffix(".png"))
    s = setup.data_summary
    maj = setup.majority
    acc = [maj[f"acc@{k}"] for k in range(1, args.K + 1)]
    text = "\n".join([
        f"Top-{args.K} experiment (Bai et al., Composition for Pufferfish Privacy, §7) on "
        f"{s['source']}: {s['groups']} "
        f"groups, {s['states']} states, {s['test_sequences']} test sequences "
        f"(T = {s['test_max_length']}), {s['train_entries']} training entries; {args.trials} "
        f"trials, seed {args.seed}",
        "", "Calibrations (per ε_puffer):", calibration_text(result), "",
        tables_text(result),
        f"Majority baseline (training Top-{args.K}): Acc@k = "
        + ", ".join(f"{100 * a:.1f}%" for a in acc)
        + f" (mean {100 * sum(acc) / len(acc):.1f}%), HR = {100 * maj['hr']:.1f}%, "
        f"NDCG = {maj['ndcg']:.3f}, ℓ1 = {maj['l1']:.0f}",
        "", "Paper's qualitative claims, cell by cell:", claims_text(result)])
    note(args, f"({time.time() - start:.1f} s)")
    emit(args, result.to_dict(), text)
    return EXIT_VIOLATED if args.strict and not result.holds else EXIT_OK
