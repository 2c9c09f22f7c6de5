"""Benchmark: ``pufferfish design`` (pufferfish.verify.design.report.design_mechanism) against the
bare solver time, on Markov chains of n binary attributes (2^n datasets).

Run as ``.venv/bin/python benchmarks/bench_design.py [--lengths 6,8,10,12]`` from the repository
root (never run by CI).

Instance: n binary attributes, two Markov-chain priors (the data prior: stay 4/5, and a skewed
chain), every entry a secret (2n ordered pairs), the query ``sum`` (n + 1 outputs), loss l1, ε =
log 3.  The program has 2^n·(n+1) variables and about 2·2n·(n+1) Pufferfish constraints of 2^(n-1)
terms each.  Printed per n, all in this run with time.perf_counter:

* solve: the HiGHS solve alone (the baseline, inside the same run);
* total: the whole design — build the exact program, solve, the exact vertex and roundings, the
  exact dual bound, the exact re-audit;
* ratio total/solve (the issue's goal: exact re-verification costs at most 2× the solve), and
  the gap (0 when optimality is proved).
"""

from __future__ import annotations

import argparse
import time

from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.verify.design.report import design_mechanism
from pufferfish.verify.numerics.certified import parse_budget


def chain_model(length: int):
    names = [f"x{i}" for i in range(1, length + 1)]
    return parse_model({
        "pufferfish_model": 1, "attributes": names, "domain": [0, 1], "datasets": "all",
        "priors": {
            "chain": {"markov": {"initial": {"0": "1/2", "1": "1/2"},
                                 "transition": {"0": {"0": "4/5", "1": "1/5"},
                                                "1": {"0": "1/5", "1": "4/5"}}}},
            "skewed": {"markov": {"initial": {"0": "3/4", "1": "1/4"},
                                  "transition": {"0": {"0": "9/10", "1": "1/10"},
                                                 "1": {"0": "3/10", "1": "7/10"}}}}},
        "entry_pairs": True, "mechanisms": {}})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="6,8,10,12")
    parser.add_argument("--epsilon", default="log(3)")
    args = parser.parse_args()
    budget = parse_budget(args.epsilon)
    design_mechanism(chain_model(3), "sum", budget)          # warm-up: imports CVXPY and HiGHS
    print(f"{'n':>3} {'datasets':>8} {'vars':>7} {'constr':>6} {'solve s':>8} {'total s':>8} "
          f"{'total/solve':>11} {'method':>14} {'gap':>9} verified")
    for length in (int(t) for t in args.lengths.split(",")):
        model = chain_model(length)
        start = time.perf_counter()
        result = design_mechanism(model, "sum", budget)
        total = time.perf_counter() - start
        variables, constraints = result.problem.size
        print(f"{length:>3} {2 ** length:>8} {variables:>7} {constraints:>6} "
              f"{result.solve_seconds:>8.3f} {total:>8.3f} {total / result.solve_seconds:>11.1f} "
              f"{result.design.method:>14} {float(result.gap):>9.2g} {result.holds}", flush=True)


if __name__ == "__main__":
    main()
