"""Benchmark: time per trial of each Top-K mechanism (Bai et al., Composition for Pufferfish
Privacy, §7.1.3), and the one-off setup (prior fit, certified a(b) curve, MQM calibration).

Sizes: the default synthetic shapes of ``pufferfish.proofs_check.paper_000.topk.sequences.SHAPES`` — check-ins (78 states, 12
countries, 150 users each, test sequences of at most 40 entries) and activities (11 states, 4 age
bands, 8 held-out participants of at most 240 epochs), K = 3, all six ε_puffer.  A "trial" of one
mechanism = one release and scoring per group and ε.  Baseline, measured in the same run: scoring
the exact Top-K (``true_ranking`` + metrics) for the same groups and ε — the cost of a trial without
any mechanism.  Prints the seconds per trial and the ratio to the baseline.  Not run by CI.

Run: .venv/bin/python benchmarks/bench_topk.py [--repeats R]
"""

import argparse
import time

import numpy as np


from pufferfish.proofs_check.paper_000.topk.prior_fit import fit_chain  # noqa: E402
from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate  # noqa: E402
from pufferfish.verify.influence.chains import stationary_chain_curve_bounds  # noqa: E402
from pufferfish.proofs_check.paper_000.topk.experiment import build_setup  # noqa: E402
from pufferfish.proofs_check.paper_000.topk.mechanisms import EPSILONS, MECHANISMS, calibrate_all, release  # noqa: E402
from pufferfish.proofs_check.paper_000.topk.metrics import metric_vector, true_ranking  # noqa: E402


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    for name in ("checkins", "activities"):
        data = generate(SHAPES[name], seed=0)
        T = data.max_length()
        chain, t_fit = timed(lambda: fit_chain(data.train_sequences(), data.states, T))
        curve, t_curve = timed(lambda: stationary_chain_curve_bounds([chain]))
        _, t_cal = timed(lambda: [calibrate_all(e, chain, curve, data.k, 3) for e in EPSILONS])
        setup = build_setup(data, 3)
        print(f"{name}: k = {data.k}, groups = {len(data.groups)}, T = {T}; setup: fit "
              f"{t_fit:.2f} s, curve {t_curve:.2f} s, calibrations (4 mechanisms × 6 ε) "
              f"{t_cal:.2f} s")
        rng = np.random.default_rng(0)

        def baseline():
            for _ in range(args.repeats):
                for _ in EPSILONS:
                    for counts in setup.counts:
                        metric_vector(true_ranking(counts, 3), counts, 3)

        _, t_base = timed(baseline)
        base = t_base / args.repeats
        print(f"  {'mechanism':<14} {'s/trial':>10} {'baseline':>10} {'ratio':>8}")
        for mech in MECHANISMS:
            def trials():
                for _ in range(args.repeats):
                    for eps in EPSILONS:
                        cal = setup.calibrations[(eps, mech)]
                        for counts in setup.counts:
                            metric_vector(release(cal, counts, rng), counts, 3)
            _, t = timed(trials)
            per = t / args.repeats
            print(f"  {mech:<14} {per:>10.5f} {base:>10.5f} {per / base:>8.2f}")


if __name__ == "__main__":
    main()
