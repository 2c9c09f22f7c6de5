"""Benchmark: the CheckDP benchmark (``examples/dp_benchmarks/checkdp_suite.json``), every program's
exact DP level under its precondition at ε = 1/2, beside CheckDP's published verdict, against
sampled runs of the same program in the same run.

Run as ``.venv/bin/python benchmarks/bench_checkdp.py [--only NAME ...] [--samples 2000]`` from
the repository root (never run by CI).  For each program of
:data:`~pufferfish.examples.dp_benchmarks.checkdp_suite.BENCHMARK`:

* **exact**: ``pufferfish.dp_level`` (every dataset's exact output law, every ordered pair of the
  precondition), wall-clock seconds (``time.perf_counter``: the laws are computed in the
  program's sandbox, a child process whose CPU time the parent's clock does not see);
* **sampled**: the program run ``--samples`` times on one dataset with its noise drawn by
  Python's ``random`` (Laplace by inversion, the discrete Laplace as a difference of geometric
  draws): what a statistical tester (StatDP, DP-Sniper) pays per sample, here as the number of
  sampled runs the exact level costs (``exact / time per sampled run``).

It prints a Markdown table: the level, whether the claim holds, CheckDP's verdict and whether
the two agree (the script exits 1 on a disagreement).  With ``--against-exact-comparisons`` the
DP scan alone (the laws computed beforehand) is timed twice: with its comparisons decided on
balls first (:func:`~pufferfish.models.programs.exp_numbers.product_exceeds`) and with every
comparison ``a·d > n·b`` made on the exact reduced products; the two levels must be equal.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from fractions import Fraction

import pufferfish
from pufferfish.examples import example_path
from pufferfish.examples.dp_benchmarks import checkdp_suite, laplace_suite, sums_suite
from pufferfish.examples.dp_benchmarks.checkdp_suite import BENCHMARK

SUITE = example_path("dp_benchmarks/checkdp_suite.json")
MODULES = {"checkdp_suite.py": checkdp_suite, "laplace_suite.py": laplace_suite,
           "sums_suite.py": sums_suite}


def _laplace(scale) -> float:
    u = random.random() - 0.5
    return -float(scale) * math.copysign(1.0, u) * math.log(1 - 2 * abs(u))


def _discrete_laplace(epsilon, one_sided=False) -> int:
    p = 1 - math.exp(-float(epsilon))

    def geometric():
        return int(math.log(1 - random.random()) / math.log(1 - p)) if p < 1 else 0
    return geometric() if one_sided else geometric() - geometric()


def sampled_seconds(entry: dict, dataset: tuple, samples: int) -> float:
    """Seconds per run of the program with its noise sampled (module names patched)."""
    module = MODULES[entry["file"]]
    saved = {name: getattr(module, name, None) for name in ("laplace", "discrete_laplace")}
    module.laplace, module.discrete_laplace = _laplace, _discrete_laplace
    try:
        function = getattr(module, entry["function"])
        arguments = {k: (Fraction(v) if k == "epsilon" else v)
                     for k, v in entry["arguments"].items()}
        start = time.perf_counter()
        for _ in range(samples):
            function(dataset, **arguments)
        return (time.perf_counter() - start) / samples
    finally:
        for name, value in saved.items():
            if value is not None:
                setattr(module, name, value)


def scan_seconds(model, mechanism: str, relation: str) -> tuple[float, float]:
    """Seconds of the DP scan alone (the laws computed beforehand and kept by the mechanism),
    with comparisons decided on balls first and with every comparison exact; the two levels must
    be equal."""
    from pufferfish.models.kernel import KernelTable
    from pufferfish.verify.privacy.dp import dp_level

    program = model.mechanisms[mechanism]
    dp_level(model.universe, program, relation)          # the laws, computed once

    def timed():
        start = time.perf_counter()
        level = dp_level(model.universe, program, relation)
        return time.perf_counter() - start, level

    balls, level = timed()

    def exact_test(self):
        return None if not self.transcendental or self.enclosed else (
            lambda a, d, n, b: a * d > n * b)
    saved = KernelTable.ratio_test
    KernelTable.ratio_test = exact_test
    try:
        exact, plain = timed()
    finally:
        KernelTable.ratio_test = saved
    assert plain.max_ratio == level.max_ratio, mechanism
    return balls, exact


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="mechanisms to run")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--against-exact-comparisons", action="store_true",
                        help="also time each level with exact comparisons only")
    options = parser.parse_args(argv)
    model = pufferfish.load(SUITE)
    programs = json.loads(SUITE.read_text())["mechanisms"]
    dataset = next(iter(model.universe.datasets()))
    print("| CheckDP example | mechanism | precondition | claim | exact level at ε = 1/2 | "
          "holds | CheckDP | agree | exact s | sampled runs per exact level |")
    print("|---|---|---|---|---|---|---|---|---:|---:|")
    disagreements = 0
    for example, mechanism, relation, factor, verdict in BENCHMARK:
        if options.only and mechanism not in options.only:
            continue
        start = time.perf_counter()
        level = pufferfish.dp_level(SUITE, mechanism, relation,
                                    epsilon=Fraction(factor, 2))
        exact = time.perf_counter() - start
        per_run = sampled_seconds(programs[mechanism]["program"], dataset, options.samples)
        if options.against_exact_comparisons:
            balls, exact_only = scan_seconds(model, mechanism, relation)
            print(f"  {mechanism}: scan with balls first {balls:.2f} s, with exact comparisons "
                  f"{exact_only:.2f} s, ratio {exact_only / balls:.1f}", file=sys.stderr,
                  flush=True)
        as_float = level.to_dict()["epsilon_float"]
        shown = "∞" if math.isinf(as_float) else f"{as_float:.4f}"
        agree = level.holds is (verdict == "proof")
        disagreements += not agree
        claim = "ε" if factor == 1 else f"{factor}ε"
        print(f"| {example} | {mechanism} | {relation} | {claim} | {shown} | "
              f"{'yes' if level.holds else 'no'} | {verdict} | {'yes' if agree else 'NO'} | "
              f"{exact:.1f} | {exact / per_run:,.0f} |", flush=True)
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
