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

``--merging 2 3 4 5 6 7`` (with ``--merging-names rnm1 …``, ``--plain-up-to M``) times instead
the laws of the report-noisy-max programs, which declare their stepwise form
(:mod:`pufferfish.models.programs.steps`), on all 3^m datasets, in this process:

* **plain**: today's engine, one run per path (the same function without its declaration,
  skipped above ``--plain-up-to``);
* **merged**: the stepwise engine, paths merged by state and live noise;

then audits each set of laws as a ``table`` mechanism and checks that the laws are the same
Fractions and that both give the same DP and Pufferfish levels; the ratio is plain / merged.
"""

from __future__ import annotations

import argparse
import json
import time
import types
from pathlib import Path

from pufferfish.api import audit
from pufferfish.examples import example_path
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.models.mechanisms import TableMechanism
from pufferfish.models.numbers import epsilon_float
from pufferfish.models.programs import load_program, program_distribution
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


def timed_laws(name: str, m: int, plain: bool) -> tuple[float, float | None, float, str]:
    """Seconds of the merged laws, of the plain laws (``None`` when not run), of the audit of
    the merged laws as a table, and the DP level; the two sets of laws and levels must agree."""
    data, _ = model_data(name, m)
    spec = data["mechanisms"][name]["program"]
    program = load_program(spec["file"], spec["function"], FOLDER)
    function = getattr(program, "__wrapped__", program)
    assert getattr(function, "stepwise", None) is not None, name
    undeclared = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                                    function.__defaults__, function.__closure__)
    datasets = list(parse_model(data, base=FOLDER).universe.datasets())
    arguments = spec["arguments"]
    started = time.perf_counter()
    merged = {d: program_distribution(program, d, arguments) for d in datasets}
    merged_seconds = time.perf_counter() - started
    plain_seconds = None
    if plain:
        started = time.perf_counter()
        laws = {d: program_distribution(undeclared, d, arguments) for d in datasets}
        plain_seconds = time.perf_counter() - started
        assert all(dict(laws[d].items()) == dict(merged[d].items()) for d in datasets), name
    results = []
    for rows in ([merged, laws] if plain else [merged]):
        tabled = parse_model(data, base=FOLDER)
        tabled.mechanisms[name] = TableMechanism(name, rows)
        started = time.perf_counter()
        results.append((audit(tabled).mechanisms[0], time.perf_counter() - started))
    first = results[0][0]
    for other, _ in results[1:]:
        assert first.dp[0].max_ratio == other.dp[0].max_ratio, name
        assert first.pufferfish.max_ratio == other.pufferfish.max_ratio, name
    return merged_seconds, plain_seconds, results[0][1], first.dp[0].epsilon


def merging(names: list[str], sizes: list[int], plain_up_to: int) -> None:
    print(f"{'program':8} {'m':>2} {'datasets':>8} {'plain s':>9} {'merged s':>9} {'ratio':>6} "
          f"{'audit s':>8}  DP level (linf:1, the same for both)")
    for name in names:
        for m in sizes:
            merged, plain, audit_seconds, level = timed_laws(name, m, m <= plain_up_to)
            plain_text = "-" if plain is None else f"{plain:.2f}"
            ratio = "-" if plain is None else f"{plain / merged:.1f}"
            print(f"{name:8} {m:>2} {3 ** m:>8} {plain_text:>9} {merged:9.2f} {ratio:>6} "
                  f"{audit_seconds:8.2f}  {level}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--levels", type=int, nargs="*", default=[])
    parser.add_argument("--merging", type=int, nargs="*", default=[])
    parser.add_argument("--merging-names", nargs="+", default=["rnm1", "rnm2", "rnm3", "rnm4"])
    parser.add_argument("--plain-up-to", type=int, default=6)
    args = parser.parse_args()
    if args.merging:
        merging(args.merging_names, args.merging, args.plain_up_to)
        return
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
