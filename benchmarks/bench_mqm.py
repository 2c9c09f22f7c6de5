"""Benchmark: MQMExact (pufferfish.verify.quilts.chain_search.mqm_chain_exact) against the plain O(T^3) search.

Run as ``.venv/bin/python benchmarks/bench_mqm.py`` from the repository root (never run by CI).

Instances (Wang et al., Privacy-Preserving Analysis of Correlated Data, §4.1): a binary chain
p0 = 9/10, p1 = 4/5 started uniform, and a 10-state reversible chain (random symmetric integer
weights, diagonal boosted, seed 1) started uniform; T = 100, 1 000, 10 000; ε = 1.  σ_max over
**every** node (Algorithm 3).

Timed side by side (``time.perf_counter``):

* MQMExact: float tables O(T k^3), per node the pruned search O(n*² k²) (``n* = ε σ_i + 1``), reuse
  of the previous node's answer when its inputs are bitwise equal, then the certification of
  every node's chosen quilt (rounding-error bound + interval arithmetic) and an exact-rational
  re-check of the worst node when cheap;
* baseline: :func:`pufferfish.verify.quilts.chain_search.mqm_chain_exact_basic` — the same influences, every (a, b) for every
  node, no pruning and no reuse: O(T^3 k^2) (vectorised over b).  When its estimated time exceeds
  ``--budget`` seconds it runs on ``--sample`` evenly spaced nodes and the total is extrapolated
  linearly in the number of nodes (labelled "extrapolated"); σ of the sampled nodes is compared.

The command-line path is timed too (``--cli-length``, default T = 10 000): the whole
``pufferfish mqm MODEL --epsilon 1`` run with plain-text output in a subprocess, on
``examples/chain_binary_T100.json`` extended to T attributes (the same chain), against two
baselines measured in the same run: the library call alone (``mqm_chain_exact`` plus the
result's ``to_dict()`` and ``explain()``, in this process) and the command line's start-up
(``pufferfish --help`` in a subprocess).  Best of ``--cli-repeats`` runs each.

The authors' Octave MQMExact (O(T^3), no early stop) is not part of this repository and not run
here; the side-by-side comparison with it (σ_max agrees to 5.4e-16 relative; 23–116× faster at
T = 1000) is described in benchmarks/README.md, "Peer comparison".
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from fractions import Fraction


from pufferfish.examples import example_path  # noqa: E402
from pufferfish.models.bayesnet import MarkovChain, reversible_chain  # noqa: E402
from pufferfish.models.chain_family import ChainFamily  # noqa: E402
from pufferfish.verify.quilts.chain_search import mqm_chain_exact, mqm_chain_exact_basic  # noqa: E402


def ten_state(length: int) -> MarkovChain:
    rng = random.Random(1)
    k = 10
    W = [[0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i, k):
            W[i][j] = W[j][i] = rng.randint(1, 9) + (30 if i == j else 0)
    return reversible_chain(W, length, [Fraction(1, k)] * k, "10-state")


def binary(length: int) -> MarkovChain:
    return MarkovChain.binary("9/10", "4/5", length, ["1/2", "1/2"])


def _best_time(run, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


def command_line_timing(length: int, epsilon: str, repeats: int) -> None:
    """Time ``pufferfish mqm`` (plain text) at ``length`` against the library call and start-up."""
    with open(example_path("chain_binary_T100.json"), encoding="utf-8") as handle:
        model = json.load(handle)
    model["attributes"] = [f"x{t}" for t in range(1, length + 1)]
    model["description"] = f"chain_binary_T100.json extended to T = {length}"
    cli = [sys.executable, "-c", "import sys; from pufferfish.cli.main import main; sys.exit(main())"]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"chain_binary_T{length}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(model, handle)

        def run_cli(*arguments: str) -> None:
            subprocess.run(cli + list(arguments), check=True, stdout=subprocess.DEVNULL)

        t_cli = _best_time(lambda: run_cli("mqm", path, "--epsilon", epsilon), repeats)
        t_start = _best_time(lambda: run_cli("--help"), repeats)
    family = ChainFamily((MarkovChain.binary("9/10", "4/5", length, ["1/2", "1/2"]),))

    def library() -> None:
        result = mqm_chain_exact(family, epsilon)
        result.to_dict()
        result.explain()

    t_lib = _best_time(library, repeats)
    print(f"command line, T = {length}, plain text: pufferfish mqm {t_cli:.2f} s; library call "
          f"(mqm_chain_exact + to_dict + explain) {t_lib:.2f} s; start-up (pufferfish --help) "
          f"{t_start:.2f} s")
    print(f"ratio command line / library call: {t_cli / t_lib:.2f}; command line minus start-up: "
          f"{t_cli - t_start:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--sample", type=int, default=12, help="nodes timed when extrapolating")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="run the full baseline only if its estimate is below this (s)")
    parser.add_argument("--cli-length", type=int, default=10_000,
                        help="chain length of the command-line timing (0: skip it)")
    parser.add_argument("--cli-repeats", type=int, default=3, help="runs of each command-line timing")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"ε = {args.epsilon}; σ_max over every node; times in seconds")
    print(f"{'chain':10s} {'T':>6s} {'MQMExact':>10s} {'baseline':>12s} {'ratio':>8s}  σ_max (certified)")
    for make in (binary, ten_state):
        for T in sizes:
            chain = make(T)
            family = ChainFamily((chain,))
            t0 = time.perf_counter()
            result = mqm_chain_exact(family, args.epsilon)
            t_fast = time.perf_counter() - t0
            # estimate the baseline from a few nodes first
            nodes = sorted({max(1, min(T, round(1 + j * (T - 1) / (args.sample - 1))))
                            for j in range(args.sample)})
            t0 = time.perf_counter()
            sampled = mqm_chain_exact_basic(family, args.epsilon, nodes=nodes)
            t_sample = time.perf_counter() - t0
            estimate = t_sample * T / len(nodes)
            for i in nodes:
                choice = next(c for c in result.choices if c.node == i)
                assert abs(choice.score.upper - sampled[i][0]) <= 1e-8 * sampled[i][0], (i, choice, sampled[i])
            if estimate <= args.budget:
                t0 = time.perf_counter()
                full = mqm_chain_exact_basic(family, args.epsilon)
                t_base = time.perf_counter() - t0
                sigma_base = max(v[0] for v in full.values())
                assert result.sigma[0] <= sigma_base * (1 + 1e-12) <= result.sigma[1] * (1 + 1e-12)
                label = f"{t_base:10.2f}  "
            else:
                t_base = estimate
                label = f"{t_base:10.1f}* "
            print(f"{chain.name[:10]:10s} {T:6d} {t_fast:10.3f} {label} {t_base / t_fast:8.1f}  "
                  f"[{result.sigma[0]:.10g}, {result.sigma[1]:.10g}]")
    print("* extrapolated from the sampled nodes (linear in the number of nodes)")
    print("complexities: MQMExact O(T k^3 + T' n*^2 k^2), n* = ε σ_i + 1, T' <= T nodes searched; "
          "baseline O(T^3 k^2)")
    if args.cli_length:
        command_line_timing(args.cli_length, args.epsilon, args.cli_repeats)


if __name__ == "__main__":
    main()
