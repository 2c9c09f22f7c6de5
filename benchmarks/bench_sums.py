"""Benchmark: sums of noisy values and cycles of comparisons in programs, against a windowed brute
force in the same run.

Run as ``.venv/bin/python benchmarks/bench_sums.py [--steps 2 3 4 8 12] [--brute-up-to 4]`` from
the repository root (never run by CI).  Timed with time.perf_counter, one run each, one core:

* **running sum**: the law of "the first step at which the running sum ``Σ_{j ≤ i} (q_j + Z_j)``
  reaches 2" for T steps of two-sided geometric noise at α = 1/2 (T comparisons of a chain of T
  sum variables: messages that are correlations, ``ExpPoly.correlate``);
* **cycle**: whether T noisy answers are pairwise within 1 (every pair compared: the comparisons
  form cycles, each path's mass certified by conditioning, ``pufferfish.models.programs.cycles``);
* **brute**: the same laws summed over the window ``|Z_i| ≤ W`` with W the least window whose
  missing mass is below 10^-6 (``(2W+1)^T`` noise vectors, exact rationals), up to
  ``--brute-up-to`` steps.

The script checks that every exact (or certified) probability lies within the brute force's
window bounds (``brute ≤ p ≤ brute + missing``) and prints the ratio brute / engine.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from itertools import combinations, product

from pufferfish.models.enclosures import Enclosure
from pufferfish.models.programs import geometric, program_distribution
from pufferfish.models.values import canonical_value

ALPHA = Fraction(1, 2)


def crossing(data):
    total = 0
    for step, q in enumerate(data):
        total = total + q + geometric(ALPHA)
        if total >= 2:
            return step
    return None


def crossing_brute(data, zs):
    total = 0
    for step, (q, z) in enumerate(zip(data, zs)):
        total += q + z
        if total >= 2:
            return step
    return None


def close_together(data):
    x = [q + geometric(ALPHA) for q in data]
    return [x[i] - x[j] <= 1 and x[j] - x[i] <= 1 for i, j in combinations(range(len(x)), 2)]


def close_brute(data, zs):
    x = [q + z for q, z in zip(data, zs)]
    return [abs(x[i] - x[j]) <= 1 for i, j in combinations(range(len(x)), 2)]


def window_for(steps: int) -> int:
    """The least W with Pr[some |Z_i| > W] ≤ steps·2α^(W+1)/(1+α) below 10^-6."""
    w = 0
    while steps * 2 * ALPHA ** (w + 1) / (1 + ALPHA) > Fraction(1, 10**6):
        w += 1
    return w


def brute(program, data, steps: int) -> tuple[dict, Fraction]:
    w = window_for(steps)
    scale = (1 + ALPHA) ** steps / (1 - ALPHA) ** steps
    law: dict = {}
    for zs in product(range(-w, w + 1), repeat=steps):
        key = canonical_value(program(data, zs))
        law[key] = law.get(key, 0) + (1 << (steps * w - sum(abs(z) for z in zs)))
    total = {k: Fraction(v, 1 << (steps * w)) / scale for k, v in law.items()}
    return total, 1 - sum(total.values())


def measure(name, program, program_brute, steps: int, brute_up_to: int) -> None:
    data = tuple([1, 0] * steps)[:steps]
    start = time.perf_counter()
    law = program_distribution(program, data)
    engine = time.perf_counter() - start
    line = f"| {name} | {steps} | {len(law)} | {engine:.3f} |"
    if steps <= brute_up_to:
        start = time.perf_counter()
        reference, missing = brute(program_brute, data, steps)
        seconds = time.perf_counter() - start
        for output, p in law.items():
            enclosure = Enclosure.of(p)
            lower = reference.get(output, Fraction(0))
            assert enclosure.upper >= lower and enclosure.lower <= lower + missing, output
        line += f" {window_for(steps)} | {seconds:.2f} | {seconds / engine:.2f} |"
    else:
        line += " — | — | — |"
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[2, 3, 4, 8, 12])
    parser.add_argument("--cycle-steps", type=int, nargs="+", default=[3])
    parser.add_argument("--brute-up-to", type=int, default=4)
    arguments = parser.parse_args()
    print("| program | T | outputs | engine s | W | brute s | brute / engine |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for steps in arguments.steps:
        measure("running sum", crossing, crossing_brute, steps, arguments.brute_up_to)
    for steps in arguments.cycle_steps:
        measure("cycle", close_together, close_brute, steps, min(arguments.brute_up_to, 3))


if __name__ == "__main__":
    main()
