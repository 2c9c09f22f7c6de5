"""Benchmark: certified Gaussian a†(L) / a*(b) (Bai et al., Composition for Pufferfish Privacy,
§6.3, Example 6.2, Theorem 9) against the numerical grid of the same quantities, in the same run.

Sizes (γ = 5, δ = 1/10 as in the paper):

1. tails — 2,000 enclosures of the normal tail Q(x) at x = k/100 − 10 (k < 2000), 128 bits:
   arb's ``erfc`` (python-flint) against the mpmath interval series / continued fraction
   (:class:`pufferfish.verify.influence.normal_masses.IntervalBackend`);
2. one a†(L) — certified bounds to width 1/100 with the arb backend and with the mpmath
   interval backend (same cell algorithm), against the numerical grid maximum
   (``leakage_through``, 201 points) on short, medium and long kernels;
3. Theorem 9 — every instance of the claims ``000.thm9.centre`` (n = 3..6, ℓ ∈ {1/2, 2, 5},
   b = 0..n) decided with certified enclosures, each instance on a fresh cache (cold) and with
   the shared cache the claim uses, against the numerical direct search over every coordinate
   and every L (grid of 41 points, the check the claim used before).

Prints each time beside its baseline with the ratio.  Not run by CI.

Run: .venv/bin/python benchmarks/bench_gaussian_bound.py [--skip-mpmath]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from itertools import combinations

from pufferfish.verify.influence.gaussian import GaussianSetting, direct_search, leakage_through
from pufferfish.verify.influence.gaussian_bound import LeakageCache, gaussian_leakage_bounds
from pufferfish.verify.influence.gaussian_compare import compare_minima
from pufferfish.verify.influence.normal_masses import ArbBackend, IntervalBackend


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def tails() -> None:
    points = [Fraction(k, 100) - 10 for k in range(2000)]
    arb, iv = ArbBackend(128), IntervalBackend(128)

    def run(backend):
        with backend.precision():
            return [backend.tail(backend.number(x)) for x in points]

    _, t_arb = timed(lambda: run(arb))
    _, t_iv = timed(lambda: run(iv))
    print(f"1. 2000 tails Q(x), 128 bits: arb {t_arb:.3f} s, mpmath iv {t_iv:.3f} s "
          f"(mpmath / arb = {t_iv / t_arb:.0f}×)")


CASES = ((3, Fraction(1, 2), 1, (0, 2)), (4, Fraction(2), 1, (3,)), (4, Fraction(2), 1, (0, 3)),
         (6, Fraction(5), 2, (0, 4, 5)), (6, Fraction(1, 2), 2, (5,)))


def one_set(skip_mpmath: bool) -> None:
    print("\n2. one a†(L) to width 1/100")
    print(f"{'n':>2} {'ℓ':>4} {'i':>2} {'L':<10} {'bounds (arb)':<28} {'arb s':>7} {'iv s':>7} "
          f"{'grid s':>7} {'grid value':>12} {'arb/grid':>8}")
    for n, ell, i, low in CASES:
        setting = GaussianSetting(n, ell)
        bound, t_arb = timed(lambda: gaussian_leakage_bounds(setting, i, low))
        t_iv = float("nan")
        if not skip_mpmath:
            _, t_iv = timed(lambda: gaussian_leakage_bounds(setting, i, low, backend="mpmath-iv"))
        grid, t_grid = timed(lambda: leakage_through(setting, i, low, grid=201))
        text = f"[{float(bound.lower):.6g}, {float(bound.upper):.6g}]"
        label = str([j + 1 for j in low])
        print(f"{n:>2} {str(ell):>4} {i + 1:>2} {label:<10} {text:<28} {t_arb:>7.3f} "
              f"{t_iv:>7.2f} {t_grid:>7.3f} {grid.value:>12.6g} {t_arb / t_grid:>8.2f}")


def _centre(setting: GaussianSetting, b: int, cache: LeakageCache) -> str:
    def sets(i):
        others = [j for j in range(setting.n) if j != i]
        return [(i, low) for low in combinations(others, setting.n - b)]

    verdicts = [compare_minima(cache, sets(setting.centre), sets(i)).verdict
                for i in range(setting.n) if i != setting.centre]
    return ("violated" if "violated" in verdicts else
            "undecided" if "undecided" in verdicts else "holds")


def theorem9() -> None:
    print("\n3. Theorem 9, centre claim, every instance (b = 0: a* = ∞ everywhere, not timed)")
    shared: dict[Fraction, LeakageCache] = {}
    rows, total = [], {"cold": 0.0, "warm": 0.0, "grid": 0.0}
    for n in (3, 4, 5, 6):
        for ell in (Fraction(1, 2), Fraction(2), Fraction(5)):
            setting = GaussianSetting(n, ell)
            cache = shared.setdefault(ell, LeakageCache(setting))
            for b in range(1, n + 1):
                verdict, t_cold = timed(lambda: _centre(setting, b, LeakageCache(setting)))
                _, t_warm = timed(lambda: _centre(setting, b, cache))
                _, t_grid = timed(lambda: direct_search(setting, b, grid=41))
                rows.append((n, ell, b, verdict, t_cold, t_warm, t_grid))
                total["cold"] += t_cold
                total["warm"] += t_warm
                total["grid"] += t_grid
    print(f"{'n':>2} {'ℓ':>4} {'b':>2} {'verdict':<9} {'cold s':>7} {'shared s':>8} {'grid s':>7}")
    for n, ell, b, verdict, t_cold, t_warm, t_grid in rows:
        print(f"{n:>2} {str(ell):>4} {b:>2} {verdict:<9} {t_cold:>7.3f} {t_warm:>8.3f} "
              f"{t_grid:>7.3f}")
    worst = max(rows, key=lambda r: r[4])
    print(f"{len(rows)} instances: certified cold {total['cold']:.2f} s (worst {worst[4]:.2f} s at "
          f"n={worst[0]}, ℓ={worst[1]}, b={worst[2]}), shared cache {total['warm']:.2f} s "
          f"(after the cold pass: refinements already made), numerical grid {total['grid']:.2f} s; "
          f"cold / grid = {total['cold'] / total['grid']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-mpmath", action="store_true",
                        help="skip the mpmath interval backend in part 2 (the slow baseline)")
    args = parser.parse_args()
    tails()
    one_set(args.skip_mpmath)
    theorem9()


if __name__ == "__main__":
    main()
