"""Benchmark: the Markov Quilt Mechanism on Bayesian networks, the screened search (certified float
bounds of every quilt's max-influence, exact max-influences only where a quilt can still win;
:func:`pufferfish.verify.quilts.bayesnet_mqm.node_search`) against the exhaustive exact search
(one exact max-influence per quilt, ``screen=False``), on the bnlearn networks pgmpy ships.

Run as ``.venv/bin/python benchmarks/bench_network_mqm.py [--cases sachs:2:1 sachs:none:1 ...]
[--exhaustive-up-to 400]`` from the repository root (never run by CI; pgmpy 1.1.2 installed as
the Makefile does).  A case is ``NETWORK:MAX_QUILT_SIZE:EPSILON`` (``none``: no size limit);
every node is searched (one process), CPU time (``time.process_time``).  The exhaustive search
runs when the network has at most ``--exhaustive-up-to`` quilts per node on average; its σ_max
and every node's choice must equal the screened search's (checked).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pufferfish.models.bayesnet import BayesNetFamily  # noqa: E402
from pufferfish.models.bif import load_bif  # noqa: E402
from pufferfish.verify.quilts.bayesnet_mqm import node_search  # noqa: E402
from pufferfish.verify.quilts.markov_quilts import enumerate_quilts  # noqa: E402
from pufferfish.verify.quilts.scores import as_budget, sigma_of  # noqa: E402
from tests.models.conftest import bnlearn_path  # noqa: E402


def search(family, size, budget, screen):
    started = time.process_time()
    choices = [node_search(family, node, budget, size, 10**6, False, screen)[0]
               for node in family.nodes]
    return choices, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="*",
                        default=["asia:none:1", "sachs:2:1", "sachs:3:10", "sachs:none:1",
                                 "sachs:none:10"])
    parser.add_argument("--exhaustive-up-to", type=int, default=200)
    args = parser.parse_args()
    print(f"{'network':>8}  {'size':>4}  {'ε':>4}  {'quilts':>7}  {'screened s':>10}  "
          f"{'exhaustive s':>12}  {'ratio':>6}  σ_max")
    for case in args.cases:
        name, size_text, epsilon = case.split(":")
        size = None if size_text == "none" else int(size_text)
        family = BayesNetFamily((load_bif(bnlearn_path(name), renormalise=True),))
        budget = as_budget(epsilon)
        quilts = sum(len(enumerate_quilts(family.graph, node, max_size=size,
                                          max_candidates=10**6).quilts)
                     for node in family.nodes)
        screened, seconds = search(family, size, budget, True)
        exhaustive, ratio = "-", "-"
        if quilts <= args.exhaustive_up_to * len(family.nodes):
            expected, exhaustive_seconds = search(family, size, budget, False)
            assert expected == screened, f"the searches differ on {case}"
            exhaustive, ratio = f"{exhaustive_seconds:.2f}", f"{exhaustive_seconds / seconds:.1f}"
        sigma = sigma_of(screened)
        print(f"{name:>8}  {size_text:>4}  {epsilon:>4}  {quilts:>7}  {seconds:>10.2f}  "
              f"{exhaustive:>12}  {ratio:>6}  [{sigma[0]:.6g}, {sigma[1]:.6g}]", flush=True)


if __name__ == "__main__":
    main()
