"""Benchmark: exact W∞ and the certified Laplace-mixture supremum (pufferfish.verify.transport.w_infinity,
pufferfish.verify.transport.laplace_level; Wang et al., Privacy-Preserving Analysis of Correlated
Data, §3).

Run as ``.venv/bin/python benchmarks/bench_wasserstein.py`` from the repository root (never run by
CI).  Options: ``--sizes 10,40,120`` (atoms per distribution), ``--repeats R`` (best of R),
``--seed S``.

Instances: two random distributions with ``n`` atoms each on the integers ``0..3n`` (weights
1..9, seeded, exact Fractions).  Printed side by side, all measured in this run with
``time.perf_counter``:

* ``w_infinity`` — the comonotone coupling, exact, ``O(n log n)``;
* baseline 1: bisection over the ``n^2`` candidate distances with a float LP feasibility problem
  (scipy ``linprog``/HiGHS, ``n^2`` variables) — ratio LP / exact; the values must agree;
* baseline 2: the exact integer max-flow cross-check ``w_infinity_by_max_flow`` (networkx, all
  candidates in order; skipped above 40 atoms) — ratio max-flow / exact;
* ``laplace_mixture_sup_ratio`` (80-bit certified intervals, ``O(n)``) at ``σ = W∞`` versus a
  dense numerical grid of 200,001 points (numpy floats, not certified) — ratio grid / certified.

``agree`` says that the LP and max-flow values equal the exact W∞ and that the grid maximum lies
in ``[lower·(1 − 10^-4), upper]`` of the certified supremum (the grid misses the support points).
"""

from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction


import numpy as np  # noqa: E402
from scipy.optimize import linprog  # noqa: E402

from pufferfish.verify.transport.laplace_level import laplace_mixture_sup_ratio  # noqa: E402
from pufferfish.verify.transport.w_infinity import w_infinity, w_infinity_by_max_flow  # noqa: E402


def distribution(rng: random.Random, n: int) -> dict[Fraction, Fraction]:
    values = rng.sample(range(0, 3 * n + 1), n)
    weights = [rng.randint(1, 9) for _ in values]
    total = sum(weights)
    return {Fraction(v): Fraction(w, total) for v, w in zip(values, weights)}


def lp_w_infinity(first, second) -> Fraction:
    a, b = sorted(first), sorted(second)
    candidates = sorted({abs(x - y) for x in a for y in b})
    fa = np.array([float(first[x]) for x in a])
    fb = np.array([float(second[y]) for y in b])
    distance = np.abs(np.subtract.outer(np.array([float(x) for x in a]), np.array([float(y) for y in b])))

    def feasible(d: Fraction) -> bool:
        mask = distance <= float(d) + 1e-12
        index = np.argwhere(mask)
        rows = np.zeros((len(a) + len(b), len(index)))
        rows[index[:, 0], np.arange(len(index))] = 1
        rows[len(a) + index[:, 1], np.arange(len(index))] = 1
        res = linprog(np.zeros(len(index)), A_eq=rows, b_eq=np.concatenate([fa, fb]),
                      bounds=(0, None), method="highs")
        return res.status == 0

    low, high = 0, len(candidates) - 1
    while low < high:
        middle = (low + high) // 2
        if feasible(candidates[middle]):
            high = middle
        else:
            low = middle + 1
    return candidates[low]


def grid_sup(first, second, scale) -> float:
    points = np.array([float(v) for v in sorted(set(first) | set(second))])
    grid = np.linspace(points[0] - 5 * float(scale), points[-1] + 5 * float(scale), 200_001)
    s = float(scale)

    def dens(measure):
        out = np.zeros_like(grid)
        for v, p in measure.items():
            out += float(p) * np.exp(-np.abs(grid - float(v)) / s)
        return out
    return float(np.max(dens(first) / dens(second)))


def best(function, repeats: int):
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,40,120")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2017)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"{'n':>5} {'exact W∞ s':>11} {'LP s':>9} {'LP/exact':>9} {'maxflow s':>10} "
          f"{'flow/exact':>10} {'cert sup s':>11} {'grid s':>8} {'grid/cert':>9}  agree")
    for n in (int(x) for x in args.sizes.split(",")):
        first, second = distribution(rng, n), distribution(rng, n)
        t_exact, result = best(lambda: w_infinity(first, second), args.repeats)
        t_lp, lp_value = best(lambda: lp_w_infinity(first, second), 1)
        agree = lp_value == result.value
        if n <= 40:
            t_flow, flow_value = best(lambda: w_infinity_by_max_flow(first, second), 1)
            agree = agree and flow_value == result.value
            flow_text = f"{t_flow:10.4f} {t_flow / t_exact:10.0f}"
        else:
            flow_text = f"{'-':>10} {'-':>10}"
        scale = result.value if result.value else Fraction(1)
        t_cert, bound = best(lambda: laplace_mixture_sup_ratio(first, second, scale), args.repeats)
        t_grid, numeric = best(lambda: grid_sup(first, second, scale), args.repeats)
        # the grid misses the support points, so it may fall short of the supremum by its resolution
        agree = agree and float(bound.lower) * (1 - 1e-4) <= numeric <= float(bound.upper) * (1 + 1e-9)
        print(f"{n:5d} {t_exact:11.5f} {t_lp:9.3f} {t_lp / t_exact:9.0f} {flow_text} "
              f"{t_cert:11.5f} {t_grid:8.4f} {t_grid / t_cert:9.1f}  {agree}")


if __name__ == "__main__":
    main()
