"""Exact laws of a statistic and each secret on the bnlearn networks, against pgmpy's floats.

For every Bayesian network of the Bayesian Network Repository (bnlearn) that pgmpy's wheel ships
and the structured audit accepts, the statistic ``K = #{nodes in their first state}`` over the
first ``--counted`` nodes of the network's file (5 unless told; over all of them pgmpy's tables
grow with the counts' ranges squared per clique and it takes minutes from insurance on), and
every secret of the model's entry pairs (``node = value``), this times, in one run:

- ``exact``: the toolkit's exact laws ``Pr[node = value ∧ K = k | θ]`` for every secret and
  ``k``: the network's factors, its junction tree and calibration
  (:class:`pufferfish.verify.structured.elimination.JunctionTree`), then one law per secret;
- ``pgmpy``: the float reference, pgmpy's ``VariableElimination`` on the network extended with
  deterministic partial-count nodes (each the sum of two terms: a node's indicator
  ``[X_v in its first state]`` or another partial count), one query ``P(X_v, K)`` per node.
  The partial counts follow the toolkit's junction tree (a clique's count sums its subtree), and
  pgmpy is given the elimination order the toolkit's heuristic
  (:func:`pufferfish.verify.structured.triangulation.best_order`) finds for the extended
  network.  (With the counts in a chain along a topological order, one query on alarm takes
  minutes: the chain makes pgmpy's factors span the path width of the network, not its tree
  width.)

pgmpy runs in its own virtual environment (it is never installed with its dependencies in the
repository's): the network's probabilities are handed to it as doubles, and its answers must
agree with the exact laws to 1e-9 (asserted).  Setup and run::

    python3 -m venv /tmp/pgvenv && /tmp/pgvenv/bin/pip install pgmpy==1.1.2
    .venv/bin/python benchmarks/bench_network_laws.py --pgmpy /tmp/pgvenv/bin/python
    .venv/bin/python benchmarks/bench_network_laws.py --pgmpy /tmp/pgvenv/bin/python asia alarm \\
        --before /work/main/.venv/bin/python     # today's code too, from the main checkout

Times are the best of ``--repeat`` runs, in CPU seconds of this process (exact) and of the
reference's process (pgmpy, model construction and queries, not the JSON exchange).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from itertools import product
from pathlib import Path

NETWORKS = ["cancer", "earthquake", "survey", "asia", "sachs", "child", "insurance", "alarm",
            "hailfinder", "hepar2", "win95pts", "water", "pathfinder", "mildew", "barley",
            "andes", "pigs", "munin1", "munin2", "munin3", "munin4", "diabetes", "link",
            "munin"]
TOLERANCE = 1e-9


# ------------------------------------------------------------------------------------------------
# the reference (runs in pgmpy's environment: imports nothing of the toolkit)
# ------------------------------------------------------------------------------------------------

def reference(spec: dict) -> dict:
    """pgmpy's float laws ``P(X_v = x, K = k)`` for every node ``v`` of ``spec``."""
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork

    best = None
    for _ in range(spec["repeat"]):
        start = time.process_time()
        nodes, parents, sizes = spec["nodes"], spec["parents"], spec["sizes"]
        edges = [(p, v) for v in nodes for p in parents[v]]
        cpds = [TabularCPD(v, sizes[v], spec["cpts"][v], evidence=parents[v] or None,
                           evidence_card=[sizes[p] for p in parents[v]] or None)
                for v in nodes]
        top = {}                       # the largest value of a partial count
        for name, terms in spec["sums"]:   # name = Σ terms: a node's indicator or a count
            ranges = [range(sizes[t]) if t in sizes else range(top[t] + 1) for t in terms]
            top[name] = sum(1 if t in sizes else top[t] for t in terms)
            columns = []
            for values in product(*ranges):
                total = sum(int(x == 0) if t in sizes else x for t, x in zip(terms, values))
                columns.append([float(total == k) for k in range(top[name] + 1)])
            rows = [list(row) for row in zip(*columns)]
            cpds.append(TabularCPD(name, top[name] + 1, rows, evidence=terms,
                                   evidence_card=[len(r) for r in ranges]))
            edges += [(t, name) for t in terms]
        model = DiscreteBayesianNetwork(edges)
        model.add_nodes_from(nodes)
        model.add_cpds(*cpds)
        inference = VariableElimination(model)
        laws, root = {}, spec["root"]
        for v in nodes:
            order = [u for u in spec["order"] if u not in (v, root)]
            factor = inference.query([v, root], elimination_order=order, show_progress=False)
            values = factor.values if factor.variables[0] == v else factor.values.T
            laws[v] = values.tolist()
        elapsed = time.process_time() - start
        best = elapsed if best is None else min(best, elapsed)
    return {"seconds": best, "laws": laws}


# ------------------------------------------------------------------------------------------------
# the toolkit's exact laws
# ------------------------------------------------------------------------------------------------

def model_of(name: str):
    """The model of network ``name`` (rows renormalised as read), with entry pairs."""
    import importlib.util

    import pufferfish
    from pufferfish.models.bif import load_bif

    spec = importlib.util.find_spec("pgmpy")      # its wheel ships the networks (not imported)
    folder = Path(list(spec.submodule_search_locations)[0]) / "utils" / "example_models"
    path = folder / f"{name}.bif.gz"
    network = load_bif(path, renormalise=True)
    model = pufferfish.load({
        "pufferfish_model": 1, "attributes": list(network.nodes),
        "domain": {node: list(network.domains[node]) for node in network.nodes},
        "datasets": "all",
        "priors": {name: {"bayesnet": {"bif": str(path), "renormalise": True}}},
        "entry_pairs": True, "mechanisms": {}})
    return model, network


def exact_laws(model, name: str, counted: int) -> dict:
    """``{(position, value): fmpq_poly}``: the law of ``K`` jointly with each secret."""
    from pufferfish.verify.privacy.blocks import audited_secrets
    from pufferfish.verify.structured.elimination import JunctionTree

    universe, prior = model.universe, model.finite_priors[name]
    weights = [{x: int(k == 0 and v < counted) for k, x in enumerate(domain)}
               for v, domain in enumerate(universe.domains)]
    tree = JunctionTree.of_prior(prior, universe, weights)
    laws = {}
    for secret in audited_secrets(model):
        ((position, allowed),) = secret.conditions
        (value,) = allowed
        laws[(position, value)] = tree.law({position: frozenset(allowed)})
    return laws


def spec_of(network, repeat: int, counted: int) -> dict:
    """The network as doubles in pgmpy's layout (a column per parents' assignment, the last
    parent varying fastest), its partial counts along the toolkit's junction tree (a clique's
    count adds its own nodes' indicators and its children's counts, two terms per node), and an
    elimination order of the extended network (the toolkit's heuristic on its moral graph)."""
    import networkx as nx

    from pufferfish.verify.structured.triangulation import best_order, junction_tree

    sizes = {v: len(network.domains[v]) for v in network.nodes}
    cpts = {}
    for node in network.nodes:
        parents = network.parents[node]
        columns = list(product(*(network.domains[p] for p in parents)))
        cpts[node] = [[float(network.cpts[node][column][x]) if x in network.cpts[node][column]
                       else 0.0 for column in columns] for x in network.domains[node]]
    cliques, edges = junction_tree(network.graph, sizes)
    neighbours = {k: [] for k in range(len(cliques))}
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    owner = {}
    for k, clique in enumerate(cliques):
        for v in sorted(clique, key=str):
            owner.setdefault(v, k)
    sums, read = [], set(list(network.nodes)[:counted])

    def count(k, parent):                # the count node of clique k's subtree (or None)
        terms = [v for v in sorted(cliques[k], key=str) if owner[v] == k and v in read]
        terms += [c for c in (count(child, k) for child in neighbours[k] if child != parent)
                  if c is not None]
        if not terms:
            return None
        if len(terms) == 1 and terms[0] not in sizes:
            return terms[0]
        name = f"__sum{len(sums)}"
        sums.append([name, terms[:1]])
        for term in terms[1:]:
            previous, name = name, f"__sum{len(sums)}"
            sums.append([name, [previous, term]])
        return name

    root = count(0, None)
    extended = nx.DiGraph(network.graph)
    extended.add_edges_from((t, name) for name, terms in sums for t in terms)
    top = {}
    for name, terms in sums:
        top[name] = sum(1 if t in sizes else top[t] for t in terms)
    order = best_order(nx.moral_graph(extended), {**sizes, **{n: t + 1 for n, t in top.items()}})
    return {"nodes": list(network.nodes), "repeat": repeat,
            "parents": {v: list(network.parents[v]) for v in network.nodes},
            "sizes": sizes, "cpts": cpts, "sums": sums, "root": root, "order": order}


def compare(model, laws: dict, floats: dict) -> float:
    """The largest difference between an exact coefficient and pgmpy's double."""
    worst = 0.0
    for (position, value), law in laws.items():
        node = model.universe.attributes[position]
        row = floats[node][model.universe.domains[position].index(value)]
        coefficients = [float(c) for c in law.coeffs()]
        for k in range(max(len(row), len(coefficients))):
            exact = coefficients[k] if k < len(coefficients) else 0.0
            approx = row[k] if k < len(row) else 0.0
            worst = max(worst, abs(exact - approx))
    return worst


def timed(compute, repeat: int) -> tuple[float, object]:
    """The least CPU seconds of ``repeat`` calls, and the last result."""
    best, result = None, None
    for _ in range(repeat):
        start = time.process_time()
        result = compute()
        elapsed = time.process_time() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, result


def before(python: str, name: str, args) -> str:
    """Today's exact laws (another checkout's Python), CPU seconds or ``> timeout``."""
    try:
        done = subprocess.run([python, __file__, "--exact", name, "--counted", str(args.counted),
                               "--repeat", str(args.repeat)], capture_output=True, text=True,
                              check=True, timeout=args.timeout, cwd="/")
    except subprocess.TimeoutExpired:
        return f"> {args.timeout:.0f}"
    except subprocess.CalledProcessError as error:
        return "refused" if "TooLargeError" in error.stderr else "failed"
    return f"{json.loads(done.stdout)['seconds']:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("networks", nargs="*", default=NETWORKS)
    parser.add_argument("--pgmpy", default="/tmp/pgvenv/bin/python",
                        help="the Python of a virtual environment with pgmpy and its dependencies")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--counted", type=int, default=5,
                        help="K counts the first COUNTED nodes of the network's file")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds the reference may take on one network")
    parser.add_argument("--max-entries", type=int, default=10**6,
                        help="skip a network whose junction tree's tables hold more entries")
    parser.add_argument("--before", help="the Python of another checkout (today's code), whose "
                                         "exact laws are timed too (run from outside this one)")
    parser.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--exact", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reference:
        json.dump(reference(json.load(sys.stdin)), sys.stdout)
        return
    if args.exact:
        model, _ = model_of(args.exact)
        json.dump({"seconds": timed(lambda: exact_laws(model, args.exact, args.counted),
                                    args.repeat)[0]}, sys.stdout)
        return
    from pufferfish.models.errors import TooLargeError

    print("| network | nodes | secrets | max clique | before s | exact s | pgmpy s | "
          "exact / pgmpy | max |exact − pgmpy| |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    from pufferfish.verify.structured.triangulation import junction_tree

    for name in args.networks:
        model, network = model_of(name)
        sizes = {v: len(network.domains[v]) for v in network.nodes}
        cliques, _ = junction_tree(network.graph, sizes)
        entries = sum(math.prod(sizes[v] for v in clique) for clique in cliques)
        if entries > args.max_entries:
            print(f"| {name} | {len(network.nodes)} | — | {max(map(len, cliques))} | — | "
                  f"not run: {entries:,} table entries | | | |", flush=True)
            continue
        try:
            best, laws = timed(lambda: exact_laws(model, name, args.counted), args.repeat)
        except TooLargeError as error:
            print(f"| {name} | {len(network.nodes)} | — | — | — | refused: {error} | | | |",
                  flush=True)
            continue
        old = before(args.before, name, args) if args.before else "—"
        spec = json.dumps(spec_of(network, args.repeat, args.counted))
        try:
            done = subprocess.run([args.pgmpy, __file__, "--reference"], input=spec, text=True,
                                  capture_output=True, check=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"| {name} | {len(network.nodes)} | {len(laws)} | "
                  f"{max(map(len, cliques))} | {old} | {best:.3f} | > {args.timeout:.0f} | — "
                  f"| — |",
                  flush=True)
            continue
        result = json.loads(done.stdout)
        worst = compare(model, laws, result["laws"])
        assert worst <= TOLERANCE, (name, worst)
        print(f"| {name} | {len(network.nodes)} | {len(laws)} | {max(map(len, cliques))} | "
              f"{old} | {best:.3f} | {result['seconds']:.3f} | {best / result['seconds']:.2f} | "
              f"{worst:.1e} |", flush=True)


if __name__ == "__main__":
    main()
