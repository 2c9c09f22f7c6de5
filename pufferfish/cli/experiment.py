"""Command-line subcommand ``experiment topk`` (``000_65109fe28ca61d17.txt`` §7, Appendix D).

``pufferfish experiment topk [--shape checkins|activities] [--K 3|5] [--trials N] [--seed S]
[--out DIR] [--workers W] [--foursquare CHECKINS POIS | --capture24 DIR] [--strict]``

Runs :func:`pufferfish.proofs_check.paper_000.topk.experiment.run_experiment` on synthetic data of the shape (default) or on the
real files, prints the calibrations, the paper's two table layouts with 95% confidence intervals,
the Majority baseline and the claim cells, and writes ``topk_<shape>_K<K>.csv`` and ``.png`` in
``--out``.  Exit 0 (it computes); with ``--strict``, exit 1 when a qualitative claim fails in some
cell.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pufferfish.models.errors import ModelError
from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate
from pufferfish.verify.report import EXIT_OK, EXIT_VIOLATED, emit


def add_parser(subparsers, common) -> None:
    parser = subparsers.add_parser("experiment", help="the experiments of the composition paper "
                                   "(000_65109fe28ca61d17.txt §7)")
    sub = parser.add_subparsers(dest="experiment", required=True)
    topk = sub.add_parser("topk", help="noisy Top-K: Ours-Exp vs MQM vs group DP (Tables 2–5, 7–8)")
    topk.add_argument("--shape", choices=sorted(SHAPES), default="checkins",
                      help="synthetic data shaped like the check-ins (78 states) or activities "
                      "(11 states) data")
    topk.add_argument("--K", type=int, choices=[3, 5], default=3, help="Top-K size")
    topk.add_argument("--trials", type=int, default=200, help="trials (mechanism randomness)")
    topk.add_argument("--seed", type=int, default=0, help="seed of data and trials")
    topk.add_argument("--out", default="topk_results", help="directory for the CSV and the plot")
    topk.add_argument("--workers", type=int, default=2, help="worker processes (results do not "
                      "depend on it)")
    real = topk.add_mutually_exclusive_group()
    real.add_argument("--foursquare", nargs=2, metavar=("CHECKINS", "POIS"),
                      help="use the real Foursquare global check-in files instead")
    real.add_argument("--capture24", metavar="DIR", help="use a real Capture24 directory instead")
    topk.add_argument("--strict", action="store_true", help="exit 1 when a claim fails somewhere")
    common(topk)
    topk.set_defaults(handler=run_topk)


def _load(args) -> tuple:
    if args.foursquare:
        from pufferfish.proofs_check.paper_000.topk.real_data import load_foursquare
        return load_foursquare(*args.foursquare), "foursquare"
    if args.capture24:
        from pufferfish.proofs_check.paper_000.topk.real_data import load_capture24
        return load_capture24(args.capture24), "capture24"
    return generate(SHAPES[args.shape], args.seed), args.shape


def run_topk(args: argparse.Namespace) -> int:
    from pufferfish.proofs_check.paper_000.topk.experiment import (build_setup, calibration_text, claims_text, run_trials,
                                   summarise, tables_text, write_csv, write_plot)
    if args.trials < 1:
        raise ModelError("--trials must be at least 1", "--trials")
    if args.workers < 1:
        raise ModelError("--workers must be at least 1", "--workers")
    start = time.time()
    data, name = _load(args)
    setup = build_setup(data, args.K)

    def progress(done: int, total: int) -> None:
        sys.stderr.write(f"\rtrials {done}/{total}  ({time.time() - start:.0f} s)")
        sys.stderr.flush()

    samples = run_trials(setup, args.trials, args.seed, args.workers, progress)
    sys.stderr.write("\n")
    result = summarise(setup, samples, args.trials, args.seed)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ModelError(f"cannot create the output directory: {error.strerror}", "--out") from None
    stem = out / f"topk_{name}_K{args.K}"
    write_csv(result, stem.with_suffix(".csv"))
    write_plot(result, stem.with_suffix(".png"))
    s = setup.data_summary
    maj = setup.majority
    acc = [maj[f"acc@{k}"] for k in range(1, args.K + 1)]
    text = "\n".join([
        f"Top-{args.K} experiment (000_65109fe28ca61d17.txt §7) on {s['source']}: {s['groups']} "
        f"groups, {s['states']} states, {s['test_sequences']} test sequences "
        f"(T = {s['test_max_length']}), {s['train_entries']} training entries; {args.trials} "
        f"trials, seed {args.seed}",
        "", "Calibrations (per ε_puffer):", calibration_text(result), "",
        tables_text(result),
        f"Majority baseline (training Top-{args.K}): Acc@k = "
        + ", ".join(f"{100 * a:.1f}%" for a in acc)
        + f" (mean {100 * sum(acc) / len(acc):.1f}%), HR = {100 * maj['hr']:.1f}%, "
        f"NDCG = {maj['ndcg']:.3f}, ℓ1 = {maj['l1']:.0f}",
        "", "Paper's qualitative claims, cell by cell:", claims_text(result), "",
        f"wrote {stem.with_suffix('.csv')} and {stem.with_suffix('.png')} "
        f"({time.time() - start:.1f} s)"])
    emit(args, result.to_dict(), text)
    return EXIT_VIOLATED if args.strict and not result.holds else EXIT_OK
