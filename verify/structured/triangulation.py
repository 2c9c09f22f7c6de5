"""Junction trees of Bayesian networks from greedy elimination orders.

Sum-product on a junction tree costs about the total size of its cliques' tables
(``Σ_C Π_{v ∈ C} |dom v|``), so the triangulation of the moral graph decides the cost.  The
greedy heuristics of Koller & Friedman, Probabilistic Graphical Models, §9.4.3 (greedy
orderings, "min-fill" and "min-weight") eliminate one node at a time: the node whose elimination
adds the fewest fill edges between its remaining neighbours (ties: the smallest table of the node
and its neighbours), or the node whose table is smallest (ties: the fewest fill edges).  Both
orders are computed and the one whose cliques hold fewer table entries is kept; ties between
nodes are broken by their names, so the tree is deterministic.  The cliques of the eliminated
nodes (node and remaining neighbours) that no other contains are the maximal cliques of a
chordal completion of the moral graph, and a maximum spanning tree of their intersection graph
is a junction tree (ibid. §10.4).

Cost: ``O(n · d²)`` set operations per order for ``n`` nodes of at most ``d`` neighbours
during elimination (only the neighbours of an eliminated node and theirs are rescored), then
``O(c²)`` for the spanning tree of ``c`` cliques.

>>> import networkx as nx
>>> graph = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")])
>>> cliques, edges = junction_tree(graph)
>>> sorted(sorted(c) for c in cliques), len(edges)
([['a', 'b', 'c'], ['c', 'd']], 1)
>>> elimination_order(nx.moral_graph(graph), {"a": 2, "b": 2, "c": 2, "d": 2})
['d', 'a', 'b', 'c']
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import networkx as nx


def _fill(adjacent: dict, v) -> int:
    """The fill edges eliminating ``v`` adds: pairs of its neighbours not yet adjacent."""
    others = list(adjacent[v])
    missing = 0
    for i, a in enumerate(others):
        near = adjacent[a]
        for b in others[i + 1:]:
            if b not in near:
                missing += 1
    return missing


def _weight(adjacent: dict, sizes: Mapping[Hashable, int], v) -> int:
    """The entries of the table over ``v`` and its neighbours."""
    weight = sizes[v]
    for other in adjacent[v]:
        weight *= sizes[other]
    return weight


def elimination_order(graph: nx.Graph, sizes: Mapping[Hashable, int],
                      rule: str = "fill") -> list:
    """A greedy elimination order of the undirected ``graph`` whose nodes have ``sizes`` values:
    ``rule`` ``"fill"`` (min-fill, ties by weight) or ``"weight"`` (min-weight, ties by fill)."""
    adjacent = {v: set(graph[v]) - {v} for v in graph}
    rank = {v: k for k, v in enumerate(sorted(graph, key=str))}

    def score(v):
        fill, weight = _fill(adjacent, v), _weight(adjacent, sizes, v)
        return ((fill, weight) if rule == "fill" else (weight, fill)) + (rank[v],)

    scores = {v: score(v) for v in adjacent}
    order = []
    while scores:
        v = min(scores, key=scores.__getitem__)
        order.append(v)
        neighbours = adjacent.pop(v)
        del scores[v]
        for a in neighbours:
            adjacent[a].discard(v)
            adjacent[a] |= neighbours - {a}
        touched = set(neighbours)
        for a in neighbours:
            touched |= adjacent[a]
        for a in touched:
            scores[a] = score(a)
    return order


def _cliques(graph: nx.Graph, order: list) -> list[frozenset]:
    """The maximal cliques of eliminating ``graph``'s nodes in ``order``."""
    adjacent = {v: set(graph[v]) - {v} for v in graph}
    cliques: list[frozenset] = []
    for v in order:
        neighbours = adjacent.pop(v)
        clique = frozenset(neighbours | {v})
        if not any(clique <= other for other in cliques):
            cliques.append(clique)
        for a in neighbours:
            adjacent[a].discard(v)
            adjacent[a] |= neighbours - {a}
    return [c for c in cliques if not any(c < other for other in cliques)]


def best_order(graph: nx.Graph, sizes: Mapping[Hashable, int]) -> list:
    """The min-fill or min-weight order whose cliques hold fewer table entries (min-fill on a
    tie)."""
    best, best_size = None, None
    for rule in ("fill", "weight"):
        order = elimination_order(graph, sizes, rule)
        size = sum(_table(c, sizes) for c in _cliques(graph, order))
        if best_size is None or size < best_size:
            best, best_size = order, size
    return best


def _table(clique, sizes) -> int:
    entries = 1
    for v in clique:
        entries *= sizes[v]
    return entries


def junction_tree(graph: nx.DiGraph, sizes: Mapping[Hashable, int] | None = None
                  ) -> tuple[list[frozenset], list[tuple[int, int]]]:
    """A junction tree of a Bayesian network's graph whose nodes have ``sizes`` values (2 each
    when not given): the maximal cliques of the moral graph triangulated by :func:`best_order`,
    joined by a maximum spanning tree of the clique graph weighted by separator size.
    Independent parts of the network are joined by empty separators."""
    moral = nx.moral_graph(graph)
    sizes = sizes if sizes is not None else {v: 2 for v in moral}
    cliques = _cliques(moral, best_order(moral, sizes))
    cliques.sort(key=lambda c: sorted(map(str, c)))
    weighted = nx.Graph()
    weighted.add_nodes_from(range(len(cliques)))
    for a in range(len(cliques)):
        for b in range(a + 1, len(cliques)):
            # every pair is joined (an empty separator has weight 0): the tree spans the parts
            weighted.add_edge(a, b, weight=len(cliques[a] & cliques[b]))
    tree = nx.maximum_spanning_tree(weighted)
    return cliques, [(a, b) for a, b in tree.edges()]


__all__ = ["junction_tree", "elimination_order", "best_order"]
