"""Benchmark: the structured exact audit (sum-product on the prior's junction tree) against the
enumerating audit of the same model, on the binary chain (p0 = 9/10, p1 = 4/5, uniform start)
releasing its sum with two-sided geometric noise (α = 1/2) clamped to [0, T], with entry pairs.

Run as ``.venv/bin/python benchmarks/bench_structured.py [--both 8 12 16 18]
[--structured 60 100 300 1000]`` from the repository root (never run by CI).

At every size in ``--both`` the two audits run one after the other in this process
(``pufferfish.audit(model, method=...)``: Pufferfish level, per-entry DP and leakage; one run each,
time.perf_counter and time.process_time) and must give the same levels (checked); the ratio
enumeration / structured is printed.  At the sizes in ``--structured`` only the structured audit
runs (the enumerating one would list 2^T datasets).
"""

from __future__ import annotations

import argparse
import json
import time

from pufferfish.api import audit
from pufferfish.examples import example_path
from pufferfish.models.numbers import epsilon_float


def chain(width: int) -> dict:
    """The shipped 60-attribute chain (``examples/chain_sum_T60.json``) at ``width`` attributes
    (the universe's attribute names are x1, x2, ...)."""
    data = json.loads(example_path("chain_sum_T60.json").read_text())
    data["attributes"] = [f"x{t}" for t in range(1, width + 1)]
    data["mechanisms"]["sum"]["noise"]["geometric"]["max"] = width
    return data


def timed(width: int, method: str):
    started, cpu = time.perf_counter(), time.process_time()
    result = audit(chain(width), method=method)
    return result, time.perf_counter() - started, time.process_time() - cpu


def levels(result) -> tuple:
    m = result.mechanisms[0]
    return m.pufferfish.max_ratio, m.leakage.worst_shift, tuple(d.max_ratio for d in m.dp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--both", type=int, nargs="*", default=[8, 12, 16, 18])
    parser.add_argument("--structured", type=int, nargs="*", default=[60, 100, 300, 1000])
    args = parser.parse_args()
    print(f"{'T':>5}  {'datasets':>12}  {'enumeration s':>13}  {'structured s':>12}  "
          f"{'(cpu s)':>8}  {'ratio':>7}  {'ε ≈':>8}")
    for width in args.both:
        enumerated, enumeration_seconds, _ = timed(width, "enumeration")
        structured, seconds, cpu = timed(width, "structured")
        assert levels(enumerated) == levels(structured), f"the audits disagree at T = {width}"
        epsilon = epsilon_float(structured.mechanisms[0].pufferfish.level_ratio)
        print(f"{width:>5}  {2 ** width:>12,}  {enumeration_seconds:>13.2f}  {seconds:>12.2f}  "
              f"{cpu:>8.2f}  {enumeration_seconds / seconds:>7.1f}  {epsilon:>8.4f}")
    for width in args.structured:
        structured, seconds, cpu = timed(width, "structured")
        epsilon = epsilon_float(structured.mechanisms[0].pufferfish.level_ratio)
        print(f"{width:>5}  {'2^' + str(width):>12}  {'-':>13}  {seconds:>12.2f}  {cpu:>8.2f}  "
              f"{'-':>7}  {epsilon:>8.4f}")


if __name__ == "__main__":
    main()
