"""Benchmark: exact budget regions of parametric models against grids of exact point audits.

Run as ``.venv/bin/python benchmarks/bench_symbolic.py`` from the repository root (never run by
CI).  Two instances, each measured with time.perf_counter in the same run as its baseline:

* **one parameter, 2^10 datasets**: 10 binary attributes, a Markov prior whose stay probability
  ``q`` ranges over [1/2, 19/20] (plus the uniform prior), the secret pair x1 = 0 vs 1, and the
  sum query with two-sided geometric noise (alpha = 1/2) clamped to [0, 10].  ``pufferfish
  region`` computes the exact set of q where the budget log(3) holds (endpoints algebraic
  numbers).  Baseline: the grid of exact point audits (``pufferfish_level`` on the instantiated
  model) with spacing ``range/N``; the grid only brackets each endpoint within one spacing, so
  the exact region is compared with grids of N = 64 and N = 256 points (resolution 2^-7 and
  2^-9 of the range), and the grid's count of holding points is checked against the region.
* **two parameters**: the quickstart's randomized response with keep ``p`` and stay ``q`` (each
  in [1/2, 1]) at log(3): the certified map with boundary boxes narrower than 1/64 against the
  grid of point audits with the same spacing (33 x 33 points).
"""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction
from pathlib import Path

from pufferfish.models.parametric import parse_parametric_model
from pufferfish.models.polynomials import below
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.pufferfish import pufferfish_level
from pufferfish.verify.symbolic.region import budget_region

ROOT = Path(__file__).resolve().parent.parent


def chain_model(attributes: int) -> dict:
    return {
        "pufferfish_model": 1, "parameters": {"q": ["1/2", "19/20"]},
        "attributes": [f"x{i}" for i in range(1, attributes + 1)], "domain": [0, 1],
        "datasets": "all",
        "priors": {"uniform": {"uniform": True},
                   "sticky": {"markov": {"initial": {"0": "1/2", "1": "1/2"},
                                         "transition": {"0": {"0": "q", "1": "1-q"},
                                                        "1": {"0": "1-q", "1": "q"}}}}},
        "secrets": {"x1=0": {"where": {"x1": 0}}, "x1=1": {"where": {"x1": 1}}},
        "pairs": [["x1=0", "x1=1"]],
        "mechanisms": {"sum": {"query": "sum", "noise": {"geometric": {
            "alpha": "1/2", "min": 0, "max": attributes}}}}}


def timed(function):
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def contains(intervals, x: Fraction) -> bool:
    for i in intervals:
        above_low = i.low.value <= x if i.low.is_rational else below(i.low, x)
        below_high = x <= i.high.value if i.high.is_rational else not below(i.high, x)
        if above_low and below_high:
            return True
    return False


def grid_holds(model, name_values, budget: str, mechanism: str) -> bool:
    instance = model.instantiate(name_values)
    return pufferfish_level(instance, instance.mechanisms[mechanism], parse_budget(budget)).holds


def one_parameter(attributes: int, budget: str, grids: list[int]) -> None:
    model = parse_parametric_model(chain_model(attributes))
    seconds, region = timed(lambda: budget_region(model, budget, "sum"))
    print(f"one parameter, {2 ** attributes} datasets, ε = {budget}: exact region in "
          f"{seconds:.2f} s")
    for interval in region.intervals:
        print(f"  [{interval.low}, {interval.high}]")
    low, high = model.box.low[0], model.box.high[0]
    for n in grids:
        points = [low + (high - low) * k / n for k in range(n + 1)]
        grid_seconds, verdicts = timed(lambda: [grid_holds(model, {"q": x}, budget, "sum")
                                                for x in points])
        agree = all(v == contains(region.intervals, x) for v, x in zip(verdicts, points))
        print(f"  grid of {n + 1} point audits (spacing (range)/{n}): {grid_seconds:.2f} s, "
              f"ratio grid/region {grid_seconds / seconds:.1f}x, agrees with the region: {agree}")


def two_parameters(budget: str, width: Fraction) -> None:
    data = json.loads((ROOT / "examples" / "quickstart_parametric.json").read_text())
    model = parse_parametric_model(data)
    seconds, region = timed(lambda: budget_region(model, budget, "rr", width))
    print(f"two parameters (quickstart rr), ε = {budget}, width {width}: certified map in "
          f"{seconds:.2f} s ({len(region.inside)} inside, {len(region.outside)} outside, "
          f"{len(region.boundary)} boundary boxes)")
    n = int((model.box.high[0] - model.box.low[0]) / width)
    points = [(model.box.low[0] + k * width, model.box.low[1] + j * width)
              for k in range(n + 1) for j in range(n + 1)]
    grid_seconds, _ = timed(lambda: [grid_holds(model, {"p": p, "q": q}, budget, "rr")
                                     for p, q in points])
    print(f"  grid of {len(points)} point audits with spacing {width}: {grid_seconds:.2f} s, "
          f"ratio grid/map {grid_seconds / seconds:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attributes", type=int, default=10)
    args = parser.parse_args()
    one_parameter(args.attributes, "log(3)", [64, 256])
    two_parameters("log(3)", Fraction(1, 64))


if __name__ == "__main__":
    main()
