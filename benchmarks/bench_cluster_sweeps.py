"""Benchmark: influence grids and the Markov Quilt Mechanism over many nodes on one process and on
a local Dask cluster of 2 worker processes (``--workers 2``), in the same run, with the answers
checked equal.

Run as ``.venv/bin/python benchmarks/bench_cluster_sweeps.py [--entries 13] [--chain 400]
[--mqm-length 6000] [--only brute chain mqm]`` from the repository root (never run by CI);
``--only`` runs only the named jobs.

Instances (every entry's value a secret, ``entry_pairs``):

* **brute-force curve**: ``--entries`` binary entries under two Markov priors (the kernel of
  Example 6.1 started at (1/4, 3/4), and a fast-mixing one), ``a*(b)`` for every ``b``: one task
  per ordered pair (``2·entries`` tasks), the pruning across ``b`` inside each;
* **structured chain curve**: the same two priors on ``--chain`` entries, ``b ≤ 40``; neither
  prior starts stationary, so each position has its own side tables (one group per position and
  value pair, about four tasks per worker);
* **MQM over a chain family**: MQMExact (Wang et al., Privacy-Preserving Analysis of Correlated
  Data, Algorithm 3) on two slow-mixing binary chains of ``--mqm-length`` nodes at ε = 1, runs of
  nodes cut by estimated cost as tasks (:mod:`pufferfish.verify.quilts.chain_runs`).  The run also
  prints the runs (first node, length, predicted cost) and, for the float tables shared by the
  quilts of all nodes, times building them against shipping them: ``shared=`` (built once in the
  driver, scattered) against rebuilt in every task.

Each timed with ``time.perf_counter`` after the model is parsed and the cluster has started; the
speed-up is one process's time over the cluster's.
"""

from __future__ import annotations

import argparse
import pickle
import time

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.verify.execution import InProcessEngine, engine_from
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.influence.curves import influence_curve
from pufferfish.verify.quilts import chain_runs, chain_search
from pufferfish.verify.quilts.chain_search import mqm_chain_exact
from pufferfish.verify.quilts.scores import as_budget, eps_float


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def chain_model(length: int) -> dict:
    names = [f"x{k}" for k in range(1, length + 1)]
    priors = {"slow": {"markov": {"initial": {"0": "1/4", "1": "3/4"},
                                  "transition": {"0": {"0": "4/5", "1": "1/5"},
                                                 "1": {"0": "1/10", "1": "9/10"}}}},
              "fast": {"markov": {"initial": {"0": "1/2", "1": "1/2"},
                                  "transition": {"0": {"0": "2/5", "1": "3/5"},
                                                 "1": {"0": "1/2", "1": "1/2"}}}}}
    return {"pufferfish_model": 1, "attributes": names, "domain": [0, 1], "datasets": "all",
            "priors": priors, "entry_pairs": True}


def mqm_family(length: int) -> ChainFamily:
    return ChainFamily((MarkovChain.binary("99/100", "97/100", length, ["1/2", "1/2"]),
                        MarkovChain.binary("19/20", "99/100", length, ["1/3", "2/3"])), "given")


def rebuild_and_search(family, T, eps, lead, nodes):
    """A run of nodes with the float tables rebuilt in the task (the alternative to shared=)."""
    return chain_search._search_run(chain_search._ExactEvaluator(family), T, eps, lead, nodes)


def compare(name: str, job, cluster) -> None:
    alone_time, alone = timed(lambda: job(InProcessEngine()))
    cluster_time, clustered = timed(lambda: job(cluster))
    print(f"{name:<44} {alone_time:8.2f} s {cluster_time:8.2f} s "
          f"{alone_time / cluster_time:6.2f}×  equal: {alone == clustered}")


def mqm_details(family: ChainFamily, cluster) -> None:
    """The runs MQMExact is cut into, and the float tables shipped against rebuilt per task."""
    build, evaluator = timed(lambda: chain_search._ExactEvaluator(family))
    size = len(pickle.dumps(evaluator))
    T, eps = family.length, eps_float(as_budget("1"))
    nodes = list(range(1, T + 1))
    costs = chain_runs.node_costs(evaluator, T, eps, nodes)
    runs = chain_runs.cut_runs(nodes, costs, chain_runs.RUNS_PER_WORKER * cluster.workers)
    cost_of = dict(zip(nodes, costs))
    print("\nMQM runs (first node, nodes, predicted cost): " + ", ".join(
        f"{run[0]}+{len(run)}:{sum(cost_of[i] for i in run):.0f}" for run in runs))
    leads = [None] + [run[-1] for run in runs[:-1]]
    tasks = [(T, eps, lead, run) for lead, run in zip(leads, runs)]
    shipped, _ = timed(lambda: cluster.map(chain_search._search_run, tasks, shared=evaluator))
    rebuilt, _ = timed(lambda: cluster.map(rebuild_and_search,
                                           [(family, *task) for task in tasks]))
    print(f"MQM float tables: built in {build:.3f} s, {size / 1e3:.0f} kB pickled; "
          f"{len(runs)} runs with the tables shipped once (shared=) {shipped:.2f} s, "
          f"rebuilt in every task {rebuilt:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=13)
    parser.add_argument("--chain", type=int, default=400)
    parser.add_argument("--mqm-length", type=int, default=6000)
    parser.add_argument("--only", nargs="+", choices=["brute", "chain", "mqm"],
                        default=["brute", "chain", "mqm"])
    args = parser.parse_args()
    brute = parse_model(chain_model(args.entries))
    chain = parse_model(chain_model(args.chain))
    family = mqm_family(args.mqm_length)
    start, cluster = timed(lambda: engine_from(workers=2))
    with cluster:
        print(f"local cluster of 2 workers started in {start:.2f} s\n")
        print(f"{'job':<44} {'1 process':>10} {'2 workers':>10} {'speed-up':>8}")
        if "brute" in args.only:
            compare(f"brute-force curve, {args.entries} entries, {2 * args.entries} pairs",
                    lambda engine: influence_curve(brute, engine=engine).to_dict(), cluster)
        if "chain" in args.only:
            compare(f"chain curve, {args.chain} entries, b <= 40",
                    lambda engine: chain_influence_curve(chain, max_b=40,
                                                         engine=engine).to_dict(), cluster)
        if "mqm" in args.only:
            mqm_chain_exact(mqm_family(300), "1", engine=cluster)    # the workers import the code
            compare(f"MQMExact, 2 chains of {args.mqm_length} nodes, ε = 1",
                    lambda engine: mqm_chain_exact(family, "1", engine=engine).to_dict(),
                    cluster)
            mqm_details(family, cluster)


if __name__ == "__main__":
    main()
