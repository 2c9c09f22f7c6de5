"""Benchmark: the Markov Quilt Mechanism on Bayesian networks, the search of
:func:`pufferfish.verify.quilts.bayesnet_mqm.node_search` (irreducible candidates only, score floors
inherited from subsets and certified float bounds, exact max-influences only where a quilt can
still win) against the exhaustive exact search (one exact max-influence per quilt,
``screen=False``) and, optionally, against the search of an earlier commit, on the bnlearn
networks pgmpy ships.

Run as ``.venv/bin/python benchmarks/bench_network_mqm.py [--cases alarm:none:1 ...]
[--exhaustive-up-to 200] [--previous REV --previous-up-to 10000]`` from the repository root
(never run by CI; pgmpy 1.1.2 installed as the Makefile does).  A case is
``NETWORK:MAX_QUILT_SIZE:EPSILON`` (``none``: no size limit); every node is searched (one
process) with the default ``--max-quilts`` (200,000 candidates per node), CPU time
(``time.process_time``).  ``candidates`` is the number of candidate quilts examined over all
nodes and ``irreducible`` the number the search visits (counted in a separate pass, not timed).
The exhaustive search runs when a node has at most ``--exhaustive-up-to`` candidates on average;
with ``--previous REV``, ``node_search`` as the file ``verify/quilts/bayesnet_mqm.py`` was at the
git revision ``REV`` (loaded from ``git show``; it must import only names that still exist) runs
when a node has at most ``--previous-up-to`` candidates.  Each reference's σ_max and every node's
choice (quilt, exact ratio, certified score, note) must equal the search's (checked); ``ratio`` is
the previous search's time over the search's (the exhaustive one's when the previous did not
run).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pufferfish.models.bayesnet import BayesNetFamily  # noqa: E402
from pufferfish.models.bif import load_bif  # noqa: E402
from pufferfish.verify.quilts.bayesnet_mqm import node_search  # noqa: E402
from pufferfish.verify.quilts.markov_quilts import DEFAULT_MAX_CANDIDATES  # noqa: E402
from pufferfish.verify.quilts.quilt_candidates import QuiltCandidates  # noqa: E402
from pufferfish.verify.quilts.scores import as_budget, sigma_of  # noqa: E402
from tests.models.conftest import bnlearn_path  # noqa: E402


def search(function, family, size, budget, **options):
    started = time.process_time()
    found = [function(family, node, budget, size, DEFAULT_MAX_CANDIDATES, False, **options)
             for node in family.nodes]
    return found, time.process_time() - started


def candidates(family, size) -> int:
    """The candidates examined over all nodes (the enumeration's count, without enumerating)."""
    others = len(family.nodes) - 1
    largest = others if size is None else min(size, others)
    return len(family.nodes) * min(DEFAULT_MAX_CANDIDATES,
                                   sum(comb(others, s) for s in range(largest + 1)))


def irreducible(family, size) -> int:
    return sum(sum(1 for _ in QuiltCandidates(family.graph, node, max_size=size))
               for node in family.nodes)


def previous_search(revision: str):
    """``node_search`` of ``verify/quilts/bayesnet_mqm.py`` at the git ``revision``."""
    source = subprocess.run(["git", "show", f"{revision}:verify/quilts/bayesnet_mqm.py"],
                            cwd=ROOT, check=True, capture_output=True, text=True).stdout
    module = types.ModuleType(f"bayesnet_mqm_{revision}")
    exec(compile(source, f"{revision}:verify/quilts/bayesnet_mqm.py", "exec"), module.__dict__)
    return module.node_search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="*",
                        default=["asia:none:1", "sachs:2:1", "sachs:3:10", "sachs:none:1",
                                 "sachs:none:10", "alarm:2:1", "alarm:3:1", "alarm:none:1",
                                 "alarm:none:10"])
    parser.add_argument("--exhaustive-up-to", type=int, default=200)
    parser.add_argument("--previous", metavar="REV")
    parser.add_argument("--previous-up-to", type=int, default=10_000)
    args = parser.parse_args()
    previous = previous_search(args.previous) if args.previous else None
    print(f"{'network':>8}  {'size':>4}  {'ε':>4}  {'candidates':>10}  {'irreducible':>11}  "
          f"{'search s':>8}  {'exhaustive s':>12}  {'previous s':>10}  {'ratio':>6}  σ_max")
    for case in args.cases:
        name, size_text, epsilon = case.split(":")
        size = None if size_text == "none" else int(size_text)
        family = BayesNetFamily((load_bif(bnlearn_path(name), renormalise=True),))
        budget = as_budget(epsilon)
        count = candidates(family, size)
        found, seconds = search(node_search, family, size, budget)
        exhaustive = old = ratio = "-"
        if count <= args.exhaustive_up_to * len(family.nodes):
            expected, exhaustive_seconds = search(node_search, family, size, budget, screen=False)
            assert expected == found, f"the exhaustive search differs on {case}"
            exhaustive, ratio = f"{exhaustive_seconds:.2f}", f"{exhaustive_seconds / seconds:.1f}"
        if previous is not None and count <= args.previous_up_to * len(family.nodes):
            expected, old_seconds = search(previous, family, size, budget)
            assert expected == found, f"the search of {args.previous} differs on {case}"
            old, ratio = f"{old_seconds:.2f}", f"{old_seconds / seconds:.1f}"
        sigma = sigma_of([choice for choice, _ in found])
        print(f"{name:>8}  {size_text:>4}  {epsilon:>4}  {count:>10,}  "
              f"{irreducible(family, size):>11,}  {seconds:>8.2f}  {exhaustive:>12}  {old:>10}  "
              f"{ratio:>6}  [{sigma[0]:.6g}, {sigma[1]:.6g}]", flush=True)


if __name__ == "__main__":
    main()
