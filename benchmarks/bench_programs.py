"""Benchmark: the Sparse Vector and report-noisy-max programs of ``examples/dp_benchmarks/``
audited as programs, against the same mechanisms given as explicit tables, at m query answers.

Run as ``.venv/bin/python benchmarks/bench_programs.py [--sizes 3 5] [--levels 2 3 4 5]`` from
the repository root (never run by CI).

For each program and each m (answers in {0, 1, 2}, relation ``linf:1``, uniform prior with
``entry_pairs``), timed in this run (time.perf_counter, one run each, one core):

* **program**: ``pufferfish audit`` of the model file as shipped (scaled to m answers): the exact
  output law of the program on each of the 3^m datasets, then the DP level under ``linf:1``,
  the Pufferfish level and leakage;
* **table**: the same audit with the mechanism replaced by a ``table`` mechanism holding the laws
  the program run produced (the baseline: an audit that reads a kernel it is given).

Both audits must give the same DP and Pufferfish levels (the script checks it); the ratio
program / table is the price of computing the laws.  ``--levels`` prints the exact DP level of
each program at each m beside its claimed budget (the README's table).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from pufferfish.api import audit
from pufferfish.examples import example_path
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.models.mechanisms import TableMechanism
from pufferfish.models.numbers import epsilon_float
from pufferfish.verify.numerics.certified import compare_ratio, parse_budget

NAMES = ["svt1", "svt3", "svt4", "svt5", "svt6", "rnm1", "rnm2", "rnm3", "rnm4"]
FOLDER = example_path("dp_benchmarks/svt1.json").parent


def model_data(name: str, m: int) -> tuple[dict, str]:
    """The shipped model file of ``name`` with ``m`` query answers, and its claimed budget."""
    data = json.loads((FOLDER / f"{name}.json").read_text())
    data["attributes"] = [f"q{i + 1}" for i in range(m)]
    claimed = data["description"].rsplit("claimed budget ", 1)[1].rstrip(".")
    return data, claimed


def timed_audits(name: str, m: int) -> tuple[float, float, str]:
    data, _ = model_data(name, m)
    model = parse_model(data, base=FOLDER)
    started = time.perf_counter()
    as_program = audit(model)
    program_seconds = time.perf_counter() - started
    mechanism = model.mechanisms[name]
    rows = {d: mechanism.distribution(d) for d in model.universe.datasets()}
    tabled = parse_model(data, base=FOLDER)
    tabled.mechanisms[name] = TableMechanism(name, rows)
    started = time.perf_counter()
    as_table = audit(tabled)
    table_seconds = time.perf_counter() - started
    first, second = as_program.mechanisms[0], as_table.mechanisms[0]
    assert first.dp[0].max_ratio == second.dp[0].max_ratio, name
    assert first.pufferfish.max_ratio == second.pufferfish.max_ratio, name
    return program_seconds, table_seconds, first.dp[0].epsilon


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--levels", type=int, nargs="*", default=[])
    args = parser.parse_args()
    print(f"{'program':8} {'m':>2} {'program s':>10} {'table s':>8} {'ratio':>6}  DP level (linf:1)")
    for name in NAMES:
        for m in args.sizes:
            program_seconds, table_seconds, level = timed_audits(name, m)
            print(f"{name:8} {m:>2} {program_seconds:10.2f} {table_seconds:8.2f} "
                  f"{program_seconds / table_seconds:6.1f}  {level}")
    if args.levels:
        print()
        print("| program | claimed | " + " | ".join(f"m = {m}" for m in args.levels) + " |")
        print("|---|---|" + "---|" * len(args.levels))
        for name in NAMES:
            cells = []
            claimed = None
            for m in args.levels:
                data, claimed = model_data(name, m)
                dp = audit(parse_model(data, base=FOLDER)).mechanisms[0].dp[0]
                within = compare_ratio(dp.max_ratio, parse_budget(claimed)).holds
                approx = epsilon_float(dp.max_ratio)
                cells.append(f"{dp.epsilon} ≈ {approx:.3f} ({'within' if within else 'beyond'})"
                             if approx != float("inf") else "inf (beyond)")
            print(f"| `{name}` | {claimed} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
