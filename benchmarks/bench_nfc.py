"""Benchmark of the NfC programs (Bai et al., Composition for Pufferfish Privacy, §5.1, Theorem 4).

A model with one secret attribute ``s`` (2 values) and one attribute ``y`` with ``Y`` values, so
each secret holds on ``Y`` datasets, and a random mechanism with ``K`` outputs and no zero entries.
Every program has ``K`` output variables and ``Y`` constraints; there are ``2·Y`` programs (each
``D*`` in each direction).  Printed: the total time of :func:`pufferfish.verify.nfc.programs.nfc_programs` (build the
log table, build/solve/certify every program) beside the sum of the bare solver times reported by
the solver itself (HiGHS via CVXPY, primal + dual), and their ratio — the overhead of building,
certifying and reporting (target <= 3×).

Run: ``.venv/bin/python benchmarks/bench_nfc.py [--values Y] [--outputs K]``
"""

from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction

from pufferfish.models import (Distribution, PufferfishModel, SecretPair, TableMechanism, UniformPrior,
                    Universe, entry_secrets)
from pufferfish.verify.nfc.programs import nfc_programs


def build(values: int, outputs: int, seed: int = 1) -> tuple[PufferfishModel, TableMechanism]:
    rng = random.Random(seed)
    universe = Universe.product(["s", "y"], [[0, 1], list(range(values))])
    rows = {}
    for dataset in universe.datasets():
        weights = [rng.randint(1, 50) for _ in range(outputs)]
        total = sum(weights)
        rows[dataset] = Distribution({k: Fraction(w, total) for k, w in enumerate(weights)})
    mechanism = TableMechanism("random", rows)
    secrets = entry_secrets(universe)
    model = PufferfishModel(universe, {"uniform": UniformPrior("uniform", universe)}, secrets,
                            [SecretPair(secrets["s=0"], secrets["s=1"])], {"random": mechanism})
    return model, mechanism


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=200, help="datasets per secret (Y)")
    parser.add_argument("--outputs", type=int, default=200, help="outputs of the mechanism (K)")
    args = parser.parse_args()
    model, mechanism = build(args.values, args.outputs)
    print(f"instance: {2 * args.values} datasets ({args.values} per secret), {args.outputs} outputs, "
          f"{2 * args.values} programs of {args.outputs} variables × {args.values} constraints")
    start = time.perf_counter()
    result = nfc_programs(model, [mechanism])
    total = time.perf_counter() - start
    solver = sum(p.solver.solve_seconds for p in result.programs)
    print(f"{'measurement':<55}{'seconds':>10}{'ratio':>10}")
    print(f"{'bare solver time (HiGHS, primal + dual, summed)':<55}{solver:>10.3f}{1:>10.2f}")
    print(f"{'nfc_programs total (build, solve, certify, report)':<55}{total:>10.3f}"
          f"{total / solver:>10.2f}")
    print(f"NfC value in [{result.lower:.12g}, {result.upper:.12g}], largest certified gap "
          f"{max(p.gap for p in result.programs):.3g}, failures {len(result.failures)}")


if __name__ == "__main__":
    main()
