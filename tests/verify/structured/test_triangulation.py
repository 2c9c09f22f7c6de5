"""Junction trees from greedy elimination orders
(:mod:`pufferfish.verify.structured.triangulation`): on random small networks, the tree's
exact laws ``Pr[s ∧ code = k]`` equal the enumeration of every assignment, for secrets read on
a separator, inside a clique and across cliques; the tree has the running-intersection
property."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import networkx as nx
from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pufferfish.verify.structured.elimination import JunctionTree
from pufferfish.verify.structured.triangulation import best_order, junction_tree


def _law(draw, size: int) -> list[Fraction]:
    weights = [draw(st.integers(0, 4)) for _ in range(size)]
    if not any(weights):
        weights[0] = 1
    return [Fraction(w, sum(weights)) for w in weights]


@st.composite
def networks(draw):
    n = draw(st.integers(1, 7))
    sizes = [draw(st.integers(1, 3)) for _ in range(n)]
    parents = [[u for u in range(v) if draw(st.booleans())] for v in range(n)]
    factors = []
    for v in range(n):
        table = {}
        for key in product(*(range(sizes[u]) for u in parents[v])):
            for x, p in enumerate(_law(draw, sizes[v])):
                table[key + (x,)] = p
        factors.append((tuple(parents[v]) + (v,), table))
    weights = [{x: draw(st.integers(0, 2)) for x in range(sizes[v])} for v in range(n)]
    secret_vars = draw(st.sets(st.integers(0, n - 1), max_size=3))
    conditions = {v: frozenset(draw(st.sets(st.integers(0, sizes[v] - 1), min_size=1)))
                  for v in secret_vars}
    return sizes, parents, factors, weights, conditions


def _brute_force(sizes, factors, weights, conditions) -> dict[int, Fraction]:
    law: dict[int, Fraction] = {}
    for values in product(*(range(s) for s in sizes)):
        if not all(values[v] in allowed for v, allowed in conditions.items()):
            continue
        p = Fraction(1)
        for scope, table in factors:
            p *= table[tuple(values[v] for v in scope)]
        if p:
            code = sum(weights[v][x] for v, x in enumerate(values))
            law[code] = law.get(code, Fraction(0)) + p
    return law


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_laws_on_the_greedy_junction_tree_equal_enumeration(network):
    sizes, parents, factors, weights, conditions = network
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(sizes)))
    graph.add_edges_from((u, v) for v in range(len(sizes)) for u in parents[v])
    cliques, edges = junction_tree(graph, dict(enumerate(sizes)))
    # running intersection: the cliques holding a variable are connected in the tree
    tree_graph = nx.Graph(edges)
    tree_graph.add_nodes_from(range(len(cliques)))
    assert nx.is_tree(tree_graph)
    for v in range(len(sizes)):
        assert nx.is_connected(tree_graph.subgraph([k for k, c in enumerate(cliques) if v in c]))
    tree = JunctionTree([range(s) for s in sizes], factors,
                        [tuple(sorted(c)) for c in cliques], edges, weights)
    law = tree.law(conditions)
    expected = _brute_force(sizes, factors, weights, conditions)
    got = {k: c for k, c in enumerate(law.coeffs()) if c}
    assert got == {k: fmpq(p.numerator, p.denominator) for k, p in expected.items() if p}


def test_the_greedy_order_prefers_the_smaller_tables():
    """A star whose centre has 10 values: eliminating the binary leaves first keeps every table
    at 20 entries; the centre first would join all leaves in one table of 10·2^4."""
    graph = nx.Graph([("c", leaf) for leaf in "abde"])
    sizes = {"c": 10, **{leaf: 2 for leaf in "abde"}}
    order = best_order(graph, sizes)
    assert order[-1] == "c" or order.index("c") >= 3
