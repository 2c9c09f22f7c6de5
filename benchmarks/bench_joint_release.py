"""Benchmark: the joint release of two noisy queries on the structured path against the audits of
each query alone, and against the mixture over the joint codes (a product distribution per code)
that the one-mechanism-at-a-time elimination replaces.

The model: a binary chain of T attributes (stay probabilities 9/10 and 4/5, uniform start, entry
pairs) releasing the sum of all T attributes and the count of ones among the first 21, each with
two-sided geometric noise (α = 1/2), clamped to [0, T] and [4, 16].

Run as ``.venv/bin/python benchmarks/bench_joint_release.py [--widths 40 150 1000]
[--reference 40]`` from the repository root (never run by CI).  For each T, in this process, CPU
time (``time.process_time``), one run each:

* ``sum``, ``count``: ``pufferfish.audit`` of a model with that mechanism alone (Pufferfish level,
  per-entry DP, leakage);
* ``joint``: the joint release alone — the laws of the composition (``output_laws``) and its
  Pufferfish level (``structured_pufferfish``), as the audit of both computes it;
* ``reference``: the same with ``factored=False`` (the mixture over the joint codes), at the
  widths in ``--reference`` only; its level must equal the joint's (checked);
* ``both``: ``pufferfish.audit`` of the model with both mechanisms (both audits and the joint);

and the ratio joint / (sum + count).
"""

from __future__ import annotations

import argparse
import time

from pufferfish.api import audit, load
from pufferfish.models.mechanisms import compose
from pufferfish.verify.structured.audit import structured_pufferfish
from pufferfish.verify.structured.laws import output_laws


def chain(width: int, count: int = 21, low: int = 4, high: int = 16) -> dict:
    """The benchmark's model at ``width`` attributes."""
    names = [f"x{t}" for t in range(1, width + 1)]
    noise = {"alpha": "1/2"}
    return {
        "pufferfish_model": 1, "attributes": names, "domain": [0, 1], "datasets": "all",
        "priors": {"chain": {"markov": {
            "initial": {"0": "1/2", "1": "1/2"},
            "transition": {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/5", "1": "4/5"}}}}},
        "entry_pairs": True,
        "mechanisms": {
            "sum": {"query": "sum", "noise": {"geometric": {**noise, "min": 0, "max": width}}},
            "count": {"query": {"count": {"attributes": names[:count]}},
                      "noise": {"geometric": {**noise, "min": low, "max": high}}}}}


def alone(data: dict, name: str) -> float:
    single = dict(data, mechanisms={name: data["mechanisms"][name]})
    started = time.process_time()
    audit(single, method="structured")
    return time.process_time() - started


def joint(data: dict, factored: bool = True):
    model = load(data)
    mechanism = compose(list(model.mechanisms.values()))
    started = time.process_time()
    level = structured_pufferfish(model, mechanism,
                                  output_laws(model, mechanism, factored=factored)).max_ratio
    return level, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--widths", type=int, nargs="*", default=[40, 150])
    parser.add_argument("--reference", type=int, nargs="*", default=[40])
    args = parser.parse_args()
    print(f"{'T':>5}  {'sum s':>7}  {'count s':>7}  {'joint s':>7}  {'reference s':>11}  "
          f"{'both s':>7}  {'joint/parts':>11}")
    for width in args.widths:
        data = chain(width)
        first, second = alone(data, "sum"), alone(data, "count")
        level, seconds = joint(data)
        reference = "-"
        if width in args.reference:
            expected, reference_seconds = joint(data, factored=False)
            assert expected == level, f"the joint levels differ at T = {width}"
            reference = f"{reference_seconds:.2f}"
        started = time.process_time()
        result = audit(data, method="structured")
        both = time.process_time() - started
        assert result.composition.joint.max_ratio == level
        print(f"{width:>5}  {first:>7.2f}  {second:>7.2f}  {seconds:>7.2f}  {reference:>11}  "
              f"{both:>7.2f}  {seconds / (first + second):>11.2f}")


if __name__ == "__main__":
    main()
