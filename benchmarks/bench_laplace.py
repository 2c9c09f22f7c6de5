"""Benchmark: the price of exact Laplace-type noise in programs.

Run as ``.venv/bin/python benchmarks/bench_laplace.py [--sizes 2 3 4]`` from the repository root
(never run by CI).

Sparse Vector (Lyu, Su and Li, Algorithm 1, c = 1) and report noisy max (the index) at m query
answers in {0, 1, 2}: the exact output law of the program on every one of the 3^m datasets, then
the exact DP level under ``linf:1``, timed in this run (time.process_time, one core) with three
noises of the same shape:

* **geometric**: two-sided geometric noise at the rational α = 1/2 (the baseline: rational
  arithmetic, python-flint's fmpq);
* **discrete Laplace**: the same noise at the transcendental α = e^(−1/2) (arithmetic in
  ``Q(e^(1/n))``, certified signs);
* **Laplace**: continuous Laplace noise of scale 2 (integrals instead of sums).

The ratios discrete/geometric and Laplace/geometric are the price of exactness at a
transcendental parameter.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from pufferfish.models import Universe
from pufferfish.models.programs import (ProgramMechanism, discrete_laplace, geometric, laplace)
from pufferfish.verify.privacy.dp import dp_level

NOISES = {"geometric": lambda: geometric("1/2"),
          "discrete Laplace": lambda: discrete_laplace(Fraction(1, 2)),
          "Laplace": lambda: laplace(2)}


def sparse_vector(queries, draw):
    rho = draw()
    out = []
    for q in queries:
        if q + draw() >= 1 + rho:
            out.append(True)
            break
        out.append(False)
    return out


def noisy_max(queries, draw):
    best_index, best = None, None
    for i, q in enumerate(queries):
        value = q + draw()
        if best is None or value > best:
            best_index, best = i, value
    return best_index


def measure(program, m: int, noise: str) -> tuple[float, float]:
    """CPU seconds for the laws on every dataset plus the linf:1 DP level, and the level."""
    universe = Universe.product([f"q{i + 1}" for i in range(m)], [[0, 1, 2]] * m)
    mechanism = ProgramMechanism(program.__name__, program, {"draw": NOISES[noise]})
    started = time.process_time()
    level = dp_level(universe, mechanism, "linf:1")
    return time.process_time() - started, level.to_dict()["epsilon_float"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args()
    print(f"{'program':14} {'m':>2} {'geometric s':>12} {'discrete s':>11} {'ratio':>6} "
          f"{'Laplace s':>10} {'ratio':>6}   levels (geometric, discrete, Laplace)")
    for program in (sparse_vector, noisy_max):
        for m in args.sizes:
            results = {noise: measure(program, m, noise) for noise in NOISES}
            base = results["geometric"][0]
            print(f"{program.__name__:14} {m:>2} {base:12.2f} "
                  f"{results['discrete Laplace'][0]:11.2f} "
                  f"{results['discrete Laplace'][0] / base:6.1f} {results['Laplace'][0]:10.2f} "
                  f"{results['Laplace'][0] / base:6.1f}   "
                  + ", ".join(f"{results[n][1]:.4f}" for n in NOISES), flush=True)


if __name__ == "__main__":
    main()
