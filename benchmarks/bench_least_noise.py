"""Benchmark: the least noise of a chain's sum (pufferfish.verify.structured.least_noise) against
one exact level of the structured audit, and against the enumerating audit.

Run as ``.venv/bin/python benchmarks/bench_least_noise.py`` from the repository root (never run
by CI; the tests never assert timings).

Instance: a binary chain ``p0 = 9/10, p1 = 4/5`` started in its stationary law, of ``T``
attributes (``--lengths``, default 100 and 1000), the entry pairs "x_i = 0" vs "x_i = 1", the sum;
ε = 1 (``--epsilon``); the anti-correlated chain ``p0 = p1 = 1/10`` with ``--anti`` (pairs out of
likelihood-ratio order: the every-output path).

Timed side by side (``time.perf_counter``, one run each):

* baseline: ``pufferfish.audit(model, method="structured")`` of the sum with geometric noise at
  one α (the exact level of that one mechanism: the rational junction tree, every secret's
  law, the output laws, every ratio; DP and leakage are skipped by asking for the Pufferfish
  level only);
* ``NoiseLevels``: the build (integer tree, every pair's likelihood-ratio order, its level
  without noise and ``W_∞``), then one exact geometric level at the same α (asserted equal to
  the baseline's), one certified Laplace level;
* the two searches to a relative tolerance of 1/1000: ``least_geometric_noise`` (exact) and
  ``least_laplace_scale`` (certified), with their number of evaluations;
* with ``--enumeration T`` (default 14): the enumerating audit of the same mechanism on a chain
  of T attributes against the build plus one evaluation.

``--ends-only T`` (default 10 000; 0 to skip) times the ends-only build and Laplace search at
that length (the lower bound the table of ``pufferfish mqm-price`` uses beyond T = 1000).
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import pufferfish
from pufferfish.models import MarkovPrior, Universe, entry_pairs
from pufferfish.models.mechanisms import GeometricNoise, Query, QueryMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.verify.structured.least_noise import least_geometric_noise, least_laplace_scale
from pufferfish.verify.structured.noise_level import NoiseLevels


def chain(T: int, p0: Fraction, p1: Fraction, alpha: Fraction | None = None) -> PufferfishModel:
    u = Universe.product([f"x{i}" for i in range(1, T + 1)], [[0, 1]] * T)
    start = (1 - p1) / (2 - p0 - p1)
    prior = MarkovPrior.homogeneous("chain", u, {0: start, 1: 1 - start},
                                    {0: {0: p0, 1: 1 - p0}, 1: {0: 1 - p1, 1: p1}})
    mechanisms = []
    if alpha is not None:
        mechanisms = [QueryMechanism("sum", u, Query("sum", u), GeometricNoise(alpha, 0, T))]
    return PufferfishModel.build(u, [prior], entry_pairs(u), mechanisms)


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def structured_level(model) -> Fraction:
    from pufferfish.verify.structured.audit import output_laws, structured_pufferfish

    mechanism = model.mechanisms["sum"]
    return structured_pufferfish(model, mechanism, output_laws(model, mechanism)).max_ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="100,1000")
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--alpha", default="9/10", help="the α of the single-level baseline")
    parser.add_argument("--anti", action="store_true", help="the chain p0 = p1 = 1/10")
    parser.add_argument("--enumeration", type=int, default=14)
    parser.add_argument("--ends-only", type=int, default=10_000)
    args = parser.parse_args()
    p0, p1 = (Fraction(1, 10), Fraction(1, 10)) if args.anti else (Fraction(9, 10), Fraction(4, 5))
    alpha = Fraction(args.alpha)
    print(f"chain p0 = {p0}, p1 = {p1}, stationary start; sum; ε = {args.epsilon}; α = {alpha}")
    for T in (int(t) for t in args.lengths.split(",")):
        model = chain(T, p0, p1, alpha)
        baseline, t_base = timed(lambda: structured_level(model))
        levels, t_build = timed(lambda: NoiseLevels(model, "sum"))
        level, t_eval = timed(lambda: levels.geometric(alpha))
        assert level.ratio_upper == baseline, (level.ratio_upper, baseline)
        _, t_laplace = timed(lambda: levels.laplace(Fraction(10)))
        geometric, t_geo = timed(lambda: least_geometric_noise(levels, args.epsilon))
        laplace, t_lap = timed(lambda: least_laplace_scale(levels, args.epsilon))
        unordered = sum(p.order is None for p in levels.pairs)
        print(f"\nT = {T}: {len(levels.pairs)} pairs, {unordered} out of likelihood-ratio order")
        print(f"  baseline: structured audit, one level      {t_base:9.2f} s   1.00")
        print(f"  NoiseLevels build                          {t_build:9.2f} s   "
              f"{t_build / t_base:.2f}")
        print(f"  one geometric level (equal to baseline)    {t_eval:9.3f} s   "
              f"{t_eval / t_base:.4f}")
        print(f"  one Laplace level (b = 10)                 {t_laplace:9.3f} s   "
              f"{t_laplace / t_base:.4f}")
        print(f"  least geometric noise, {len(geometric.probes)} evaluations      "
              f"{t_geo:9.2f} s   {t_geo / t_base:.3f}   α ∈ ({geometric.fail.parameter}, "
              f"{geometric.ok.parameter}]")
        print(f"  least Laplace scale, {len(laplace.probes)} evaluations        "
              f"{t_lap:9.2f} s   {t_lap / t_base:.3f}   b ∈ ({laplace.fail.parameter}, "
              f"{laplace.ok.parameter}]")
    if args.enumeration:
        T = args.enumeration
        model = chain(T, p0, p1, alpha)
        enumerated, t_enum = timed(lambda: pufferfish.audit(model, method="enumeration"))
        level, t_ours = timed(lambda: NoiseLevels(model, "sum").geometric(alpha))
        assert level.ratio_upper == enumerated.mechanisms[0].pufferfish.max_ratio
        print(f"\nT = {T}: enumerating audit (2^{T} datasets, with DP and leakage) "
              f"{t_enum:.2f} s; build + one level {t_ours:.3f} s ({t_enum / t_ours:.0f}×)")
    if args.ends_only:
        T = args.ends_only
        model = chain(T, p0, p1)
        levels, t_build = timed(lambda: NoiseLevels(model, "sum", ends_only=True))
        laplace, t_lap = timed(lambda: least_laplace_scale(levels, args.epsilon))
        print(f"\nT = {T}, ends only: build {t_build:.2f} s, Laplace search "
              f"({len(laplace.probes)} evaluations) {t_lap:.2f} s: least scale > "
              f"{float(laplace.fail.parameter):.6g}")


if __name__ == "__main__":
    main()
