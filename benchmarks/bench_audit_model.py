"""Benchmark: the whole model audit (``pufferfish audit``: Pufferfish, DP, leakage and the joint
release) on the quickstart's mechanisms over 2^n binary attributes, with and without kernel-key
sharing (:meth:`pufferfish.models.mechanisms.Mechanism.kernel_key`).

Run as ``.venv/bin/python benchmarks/bench_audit_model.py [--attributes 12 14 16]`` from the
repository root (never run by CI).

Instance (the scalable audit instance): n binary attributes, the quickstart's ``fair`` (independent)
and ``sticky`` (Markov) priors, secrets ``x1 = 0`` / ``x1 = 1``, randomized response (keep 3/4) on
x1..x3 and a geometric sum (α = 1/2) clamped to [0, n].  Timed in this run (time.perf_counter,
one run each, the model parsed before timing):

* the audit as shipped: datasets with one kernel key share a distribution and a kernel row;
* baseline: the same audit where every mechanism copies its distribution for each dataset (a
  ``FunctionMechanism``), so no row is shared — the audit's cost before sharing, minus the cost
  of computing the distributions themselves.

Both results must be equal (the script checks it) and the ratio baseline / shipped is printed.
"""

from __future__ import annotations

import argparse
import time

from pufferfish.examples import quickstart_over
from pufferfish.models.distribution import Distribution
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.models.mechanisms import FunctionMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.verify.privacy.audit import audit_model


def model_dict(attributes: int) -> dict:
    """The instance: :func:`pufferfish.examples.quickstart_over` (the quickstart over n binary
    attributes, randomized response on x1..x3)."""
    return quickstart_over(attributes)


def unshared(model: PufferfishModel) -> PufferfishModel:
    def copy_of(mechanism):
        return FunctionMechanism(mechanism.name,
                                 lambda d: Distribution(dict(mechanism.distribution(d).items())))
    return PufferfishModel(model.universe, model.priors, model.secrets, model.pairs,
                           {name: copy_of(m) for name, m in model.mechanisms.items()})


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attributes", type=int, nargs="+", default=[12, 14, 16])
    args = parser.parse_args()
    print(f"{'datasets':>9}  {'shared s':>9}  {'unshared s':>10}  {'ratio':>6}")
    for n in args.attributes:
        limit = max(10**6, 2**n)
        shipped_time, shipped = timed(lambda: audit_model(parse_model(model_dict(n), max_datasets=limit),
                                                          max_datasets=limit))
        model = parse_model(model_dict(n), max_datasets=limit)
        for mechanism in model.mechanisms.values():  # distributions computed before timing
            for dataset in model.universe.datasets(limit):
                mechanism.distribution(dataset)
        plain_time, plain = timed(lambda: audit_model(unshared(model), max_datasets=limit))
        if shipped.to_dict() != plain.to_dict():
            raise SystemExit(f"results differ at 2^{n} datasets")
        print(f"{2**n:>9,}  {shipped_time:>9.2f}  {plain_time:>10.2f}  "
              f"{plain_time / shipped_time:>5.1f}x")


if __name__ == "__main__":
    main()
