"""The candidate Markov quilts of one node in the enumeration's order, with the candidates that
repeat a smaller one skipped by proof (Wang et al., Privacy-Preserving Analysis of Correlated Data,
§4, Definition 4.2 and Algorithm 2).

:func:`~pufferfish.verify.quilts.markov_quilts.enumerate_quilts` examines every ``X_Q ⊆ V∖{X_i}``
by increasing size, each size in the lexicographic order of the sorted nodes, and cuts the
enumeration after ``max_candidates`` candidates.  :class:`QuiltCandidates` walks exactly the same
candidates in the same order, counts them the same way (``examined``, ``complete``, ``message``
are those of the enumeration), and yields only the **irreducible** ones: ``X_Q`` such that every
member ``v`` is d-connected to ``X_i`` given ``X_Q∖{v}``.  A reducible candidate needs neither a
partition nor an influence:

**Lemma.**  If ``v ∈ X_Q`` is d-separated from ``X_i`` given ``S = X_Q∖{v}``, then ``X_Q`` and
``S`` have the same nearby set ``X_N`` and the same max-influence, ``e(X_Q|X_i) = e(S|X_i)``.

*Proof.*  d-separation satisfies the graphoid axioms (Pearl, *Probabilistic Reasoning in
Intelligent Systems*, §3.3): for ``w ∉ X_Q ∪ {X_i}``, ``i ⊥ w | S`` with ``i ⊥ v | S`` gives
``i ⊥ {v, w} | S`` (d-separation of sets is pairwise) and by weak union ``i ⊥ w | S ∪ {v}``;
conversely ``i ⊥ w | S ∪ {v}`` with ``i ⊥ v | S`` gives ``i ⊥ {v, w} | S`` by contraction and
``i ⊥ w | S`` by decomposition.  So ``X_R(X_Q) = X_R(S)∖{v}`` and, ``v`` being remote for ``S``,
``X_N(X_Q) = X_N(S)``.  Every member of the family factorises over the one graph, so
``X_v ⊥ X_i | X_S`` holds in each (Koller & Friedman, *Probabilistic Graphical Models*, §3.3.2,
Theorem 3.3): where ``P(x_S, a) > 0``, ``P(x_S, x_v | a) = P(x_S | a)·P(x_v | x_S)``; hence a
``x_Q = (x_S, x_v)`` with ``P(x_Q | a) > 0`` has the ratio ``P(x_Q|a)/P(x_Q|b)`` of ``x_S`` (both
infinite when ``P(x_S | b) = 0``), every ``x_S`` with ``P(x_S | a) > 0`` is extended by some
``x_v``, and the maxima of Definition 4.1 agree.  ∎

Reducibility is decided from the partitions of the immediate subsets ``X_Q∖{v}`` (all of them
earlier candidates: the order is by size and a cut falls in the largest size), kept as bit masks:
``X_Q`` is reducible iff some member ``v`` lies outside ``X_N(X_Q∖{v})``.  A reducible candidate
costs ``|X_Q|`` dictionary look-ups; an irreducible one also a reachability pass
(:meth:`SeparationGraph.nearby`, the Bayes ball of Koller & Friedman, §3.3.3, Algorithm 3.1, on bit
masks).  Each candidate, reducible or not, has a *root*: itself when irreducible, else the root of
a reducing subset, an earlier irreducible candidate with the same ``X_N`` and max-influence.

Complexity: ``O(C·m)`` look-ups for ``C`` candidates of at most ``m`` nodes, plus ``O(|V| + |E|)``
bit operations per irreducible candidate; memory ``O(C)`` (the masks of the candidates smaller
than the largest size).

>>> import networkx as nx
>>> g = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "d")])
>>> found = QuiltCandidates(g, "a")
>>> [sorted(c.quilt) for c in found], found.examined, found.complete
([[], ['b'], ['c'], ['d']], 8, True)

(``{b, c}`` is ``{b}`` plus ``c``, remote for ``{b}``; likewise every larger candidate.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

from pufferfish.models.bayesnet import Node
from pufferfish.models.errors import ModelError
from pufferfish.verify.quilts.markov_quilts import (DEFAULT_MAX_CANDIDATES, Quilt, size_note,
                                                    sort_key, stop_note)

if TYPE_CHECKING:  # networkx is imported where a graph is searched
    import networkx as nx


def _bits(mask: int) -> Iterator[int]:
    """The positions of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class SeparationGraph:
    """A DAG as bit masks over its nodes (sorted as the enumeration sorts them), for
    reachability passes in ``O(|V| + |E|)`` operations on Python integers.

    >>> import networkx as nx
    >>> g = SeparationGraph(nx.DiGraph([("a", "c"), ("b", "c")]))
    >>> g.nodes_of(g.nearby(g.index["a"], 0)), g.nodes_of(g.nearby(g.index["a"], g.mask(["c"])))
    (['a', 'c'], ['a', 'b'])
    """

    def __init__(self, graph: nx.DiGraph) -> None:
        import networkx as nx

        self.nodes: list[Node] = sorted(graph, key=sort_key)
        self.index = {v: k for k, v in enumerate(self.nodes)}
        self.parents = [self.mask(graph.predecessors(v)) for v in self.nodes]
        self.children = [self.mask(graph.successors(v)) for v in self.nodes]
        self.ancestors = [self.mask(nx.ancestors(graph, v)) | 1 << k
                          for k, v in enumerate(self.nodes)]

    def mask(self, nodes) -> int:
        """The bit mask of ``nodes``."""
        result = 0
        for v in nodes:
            result |= 1 << self.index[v]
        return result

    def nodes_of(self, mask: int) -> list[Node]:
        """The nodes of ``mask`` in the sorted order."""
        return [self.nodes[k] for k in _bits(mask)]

    def nearby(self, node: int, given: int) -> int:
        """The mask of the nodes d-connected to node number ``node`` given the mask ``given``
        (``node`` included, ``given`` excluded): the Bayes ball, as
        :func:`~pufferfish.verify.quilts.markov_quilts.d_connected`, one frontier of (node,
        direction) states at a time.  A ball arriving from a child (``up``) at an unobserved node
        passes to its parents and children; arriving from a parent (``down``) it passes to the
        children of an unobserved node and to the parents of a node with an observed descendant
        (an ancestor of ``given``, itself included)."""
        opened = 0
        for k in _bits(given):
            opened |= self.ancestors[k]
        parents, children = self.parents, self.children
        seen_up = seen_down = 0
        up, down = 1 << node, 0
        while up or down:
            up &= ~seen_up
            down &= ~seen_down
            seen_up |= up
            seen_down |= down
            next_up = next_down = 0
            for k in _bits(up & ~given):
                next_up |= parents[k]
                next_down |= children[k]
            for k in _bits(down & ~given):
                next_down |= children[k]
            for k in _bits(down & opened):
                next_up |= parents[k]
            up, down = next_up, next_down
        return (seen_up | seen_down) & ~given


@dataclass(frozen=True)
class Candidate:
    """An irreducible candidate quilt of :class:`QuiltCandidates`.

    ``position`` is its place in the enumeration's order (0 for ``∅``), ``mask`` and
    ``nearby`` the bit masks of ``X_Q`` and ``X_N`` (the node included), ``below`` the roots of
    its immediate subsets ``X_Q∖{v}`` (irreducible candidates whose max-influence is at most
    this one's), ``minimal`` whether no smaller candidate has the same ``X_N`` (Definition B.1).
    """

    position: int
    quilt: tuple
    mask: int
    nearby: int
    card_nearby: int
    below: tuple[int, ...]
    minimal: bool


class QuiltCandidates:
    """The irreducible candidate quilts of ``node`` (module docstring), in the order of
    :func:`~pufferfish.verify.quilts.markov_quilts.enumerate_quilts` with the same limits; after
    iteration ``examined``, ``complete`` and ``message`` are the enumeration's."""

    def __init__(self, graph: nx.DiGraph, node: Node, *, max_size: int | None = None,
                 max_candidates: int = DEFAULT_MAX_CANDIDATES,
                 separation: SeparationGraph | None = None) -> None:
        if node not in graph:
            raise ModelError(f"unknown node {node!r}; the nodes are {sorted(map(str, graph))}",
                             "--node")
        self.node = node
        self.separation = separation or SeparationGraph(graph)
        self.max_candidates = max_candidates
        others = len(self.separation.nodes) - 1
        self.size_limit = others if max_size is None else min(max_size, others)
        self.total = sum(comb(others, s) for s in range(self.size_limit + 1))
        self.examined = 0
        self.complete = True
        self.message = "complete"

    def quilt(self, candidate: Candidate) -> Quilt:
        """The partition ``(X_N, X_Q, X_R)`` of ``candidate`` as a :class:`Quilt`."""
        g = self.separation
        everything = (1 << len(g.nodes)) - 1
        return Quilt(self.node, frozenset(candidate.quilt), frozenset(g.nodes_of(candidate.nearby)),
                     frozenset(g.nodes_of(everything & ~candidate.nearby & ~candidate.mask)))

    def __iter__(self) -> Iterator[Candidate]:
        g = self.separation
        i = g.index[self.node]
        others = [k for k in range(len(g.nodes)) if k != i]
        nearby: dict[int, int] = {}          # mask -> X_N mask, below the largest size
        root: dict[int, int] = {}            # mask -> its root, for the reducible ones
        smaller: set[int] = set()            # the X_N of the candidates of smaller sizes
        this_size: set[int] = set()
        self.examined, self.complete, self.message = 0, True, "complete"
        for size in range(self.size_limit + 1):
            keep = size < self.size_limit
            smaller |= this_size
            this_size = set()
            for subset in combinations(others, size):
                if self.examined >= self.max_candidates:
                    self.complete = False
                    self.message = stop_note(self.examined, self.total, self.max_candidates)
                    return
                self.examined += 1
                mask = 0
                for k in subset:
                    mask |= 1 << k
                below = []
                for k in subset:
                    lower = mask ^ (1 << k)
                    if not nearby[lower] >> k & 1:       # k is remote for X_Q∖{k}: reducible
                        if keep:
                            nearby[mask] = nearby[lower]
                            root[mask] = root.get(lower, lower)
                        break
                    below.append(root.get(lower, lower))
                else:
                    found = g.nearby(i, mask)
                    if keep:
                        nearby[mask] = found
                    this_size.add(found)
                    yield Candidate(self.examined - 1, tuple(g.nodes[k] for k in subset), mask,
                                    found, found.bit_count(), tuple(below), found not in smaller)
        if self.size_limit < len(others):
            self.complete = False
            self.message = size_note(self.size_limit)


__all__ = ["Candidate", "QuiltCandidates", "SeparationGraph"]
