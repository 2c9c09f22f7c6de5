"""Markov quilts (Wang et al., Privacy-Preserving Analysis of Correlated Data, §4, Definition 4.2;
Appendix B.4, Lemmas B.2–B.3).

Definition 4.2: a set of nodes ``X_Q`` is a Markov quilt for ``X_i`` if deleting it partitions the
nodes into ``X_N ∪ X_Q ∪ X_R`` with ``X_i ∈ X_N`` and ``X_R ⊥ X_i | X_Q``.  For a candidate
``X_Q`` this module takes ``X_R`` = every node outside ``X_Q ∪ {X_i}`` that is d-separated from
``X_i`` by ``X_Q`` (networkx :func:`networkx.is_d_separator`; d-separation of sets is pairwise, so
this ``X_R`` is the largest valid remote set) and ``X_N`` = the rest.  The largest ``X_R`` gives the
smallest ``card(X_N)`` and hence the best score in Algorithm 2, since ``e(X_Q|X_i)`` does not depend
on ``X_R``.

Definition B.1 (minimal quilt): ``X_Q`` is minimal if no quilt with the same ``X_N`` has fewer
nodes; :func:`enumerate_quilts` keeps, for each ``X_N``, the quilts of least cardinality.

Enumeration is exponential (all subsets of the other nodes), so it is bounded by a limit on
``|X_Q|`` and on the number of candidates examined; when a limit cuts the search the result says
so (``complete = False`` and a message).  :func:`quilt_independence_holds` checks condition 2 of
Definition 4.2 exactly in the CPTs (as a cross-check of d-separation on small networks).

For a chain ``X_1 → ... → X_T`` (§4.1), :func:`chain_quilts` lists the quilts of Lemma B.2:
``{X_{i-a}, X_{i+b}}``, ``{X_{i-a}}``, ``{X_{i+b}}`` and ``∅`` (``O(T^2)`` per node).

Complexity: one d-separation test is ``O(|V| + |E|)``; enumeration with ``|X_Q| ≤ m`` examines
``Σ_{s≤m} C(n-1, s)`` candidates, each with ``n`` tests.

>>> import networkx as nx
>>> g = nx.DiGraph([("A", "C"), ("B", "C"), ("C", "D"), ("B", "E")])
>>> sorted(quilt_for(g, "A", set()).remote), sorted(quilt_for(g, "A", {"C"}).remote)
(['B', 'E'], ['D'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, product as cartesian
from math import comb

from typing import TYPE_CHECKING

from pufferfish.models.bayesnet import BayesNet, Node
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.universe import size_text
from pufferfish.verify.report import Explained

if TYPE_CHECKING:  # networkx is imported where a graph is searched or built
    import networkx as nx



DEFAULT_MAX_CANDIDATES = 200_000
"""Default bound on the number of candidate quilts :func:`enumerate_quilts` examines."""


@dataclass(repr=False, frozen=True)
class Quilt(Explained):
    """A Markov quilt ``(X_N, X_Q, X_R)`` for ``node`` (Definition 4.2)."""

    node: Node
    quilt: frozenset
    nearby: frozenset
    remote: frozenset

    @property
    def card_nearby(self) -> int:
        return len(self.nearby)

    def to_dict(self) -> dict:
        key = sort_key
        return {"node": str(self.node), "quilt": [str(v) for v in sorted(self.quilt, key=key)],
                "nearby": [str(v) for v in sorted(self.nearby, key=key)],
                "remote": [str(v) for v in sorted(self.remote, key=key)],
                "card_nearby": self.card_nearby}

    def explain(self) -> str:
        d = self.to_dict()
        return (f"X_Q = {{{', '.join(d['quilt'])}}}: X_N = {{{', '.join(d['nearby'])}}} "
                f"(card {self.card_nearby}), X_R = {{{', '.join(d['remote'])}}}")


def sort_key(v: object) -> tuple:
    """The order of nodes in an enumeration: integers by value, then the rest by their text."""
    return (0, v, "") if isinstance(v, int) else (1, 0, str(v))


def quilt_for(graph: nx.DiGraph, node: Node, quilt: Iterable[Node]) -> Quilt:
    """The partition induced by ``quilt`` for ``node``: ``X_R`` = nodes d-separated from ``node``.

    ``node`` must not be in ``quilt``.
    """
    q = frozenset(quilt)
    if node not in graph:
        raise ModelError(f"unknown node {node!r}", "--node")
    if node in q:
        raise ModelError(f"the quilt of {node!r} cannot contain {node!r}", "quilt")
    unknown = [v for v in q if v not in graph]
    if unknown:
        raise ModelError(f"unknown quilt nodes {unknown}", "quilt")
    nearby = frozenset(d_connected(graph, node, q))        # ``node`` itself included
    remote = frozenset(graph) - q - nearby
    return Quilt(node, q, nearby, remote)


def d_connected(graph: nx.DiGraph, node: Node, given: Iterable[Node]) -> set:
    """The nodes d-connected to ``node`` given ``given`` (``node`` included, ``given``
    excluded): one reachability pass over (node, direction) pairs, the Bayes ball of Koller &
    Friedman, *Probabilistic Graphical Models*, §3.3.3, Algorithm 3.1 — ``O(|V| + |E|)`` instead
    of one d-separation test per node.

    >>> import networkx as nx
    >>> g = nx.DiGraph([("a", "c"), ("b", "c")])
    >>> sorted(d_connected(g, "a", [])), sorted(d_connected(g, "a", ["c"]))
    (['a', 'c'], ['a', 'b'])
    """
    import networkx as nx

    observed = set(given)
    ancestors = set(observed)
    for v in observed:
        ancestors |= nx.ancestors(graph, v)
    reached: set = set()
    visited: set = set()
    pending = [(node, True)]              # (node, arrived from a child: the ball goes up)
    while pending:
        current, upward = pending.pop()
        if (current, upward) in visited:
            continue
        visited.add((current, upward))
        if current not in observed:
            reached.add(current)
        if upward and current not in observed:
            pending.extend((parent, True) for parent in graph.predecessors(current))
            pending.extend((child, False) for child in graph.successors(current))
        elif not upward:
            if current not in observed:
                pending.extend((child, False) for child in graph.successors(current))
            if current in ancestors:
                pending.extend((parent, True) for parent in graph.predecessors(current))
    return reached


@dataclass(repr=False, frozen=True)
class QuiltEnumeration(Explained):
    """All quilts found for ``node`` with ``|X_Q| ≤ max_size``, and the minimal ones (Def. B.1)."""

    node: Node
    quilts: tuple[Quilt, ...]
    minimal: tuple[Quilt, ...]
    examined: int
    complete: bool
    message: str

    def to_dict(self) -> dict:
        return {"node": str(self.node), "examined": self.examined, "complete": self.complete,
                "message": self.message, "minimal": [q.to_dict() for q in self.minimal],
                "count": len(self.quilts)}

    def explain(self) -> str:
        lines = [f"{len(self.minimal)} minimal Markov quilts for {self.node} "
                 f"({self.examined} candidates examined)"]
        lines += ["  " + q.explain() for q in self.minimal]
        if not self.complete:
            lines.append(self.message)
        return "\n".join(lines)


def enumerate_quilts(graph: nx.DiGraph, node: Node, *, max_size: int | None = None,
                     max_candidates: int = DEFAULT_MAX_CANDIDATES,
                     progress: Callable[[int, int], None] | None = None) -> QuiltEnumeration:
    """Every candidate ``X_Q ⊆ V∖{node}`` with ``|X_Q| ≤ max_size``, and the minimal quilts.

    Every subset is a Markov quilt for its own d-separation partition, so every candidate counts;
    the useful output is :attr:`QuiltEnumeration.minimal`: for each distinct ``X_N``, the quilts of
    least cardinality (Definition B.1).  Candidates are examined by increasing size; at most
    ``max_candidates`` are examined, and ``progress(done, total)`` is called periodically.
    ``O(Σ_{s ≤ m} C(n−1, s) · (|V| + |E|))``: one reachability pass per candidate
    (:func:`d_connected`).
    """
    if node not in graph:
        raise ModelError(f"unknown node {node!r}; the nodes are {sorted(map(str, graph))}", "--node")
    others = sorted((v for v in graph if v != node), key=sort_key)
    size_limit = len(others) if max_size is None else min(max_size, len(others))
    total = sum(comb(len(others), s) for s in range(size_limit + 1))
    examined = 0
    found: list[Quilt] = []
    complete = True
    message = "complete"
    for size in range(size_limit + 1):
        for subset in combinations(others, size):
            if examined >= max_candidates:
                complete = False
                message = stop_note(examined, total, max_candidates)
                break
            found.append(quilt_for(graph, node, subset))
            examined += 1
            if progress is not None and examined % 256 == 0:
                progress(examined, total)
        if not complete:
            break
    if complete and size_limit < len(others):
        complete = False
        message = size_note(size_limit)
    best: dict[frozenset, int] = {}
    for q in found:
        best[q.nearby] = min(best.get(q.nearby, len(q.quilt)), len(q.quilt))
    minimal = tuple(q for q in found if len(q.quilt) == best[q.nearby])
    return QuiltEnumeration(node, tuple(found), minimal, examined, complete, message)


def stop_note(examined: int, total: int, max_candidates: int) -> str:
    """The message of an enumeration cut at ``max_candidates`` of ``total`` candidates."""
    return (f"stopped after {examined:,} of {total:,} candidate quilts (limit "
            f"{max_candidates:,}); raise --max-quilts or lower --max-quilt-size")


def size_note(size_limit: int) -> str:
    """The message of an enumeration limited to quilts of ``size_limit`` nodes."""
    return (f"quilts with more than {size_limit} nodes were not examined (--max-quilt-size); "
            f"a minimal quilt for a given X_N may be larger")


def quilt_independence_holds(net: BayesNet, quilt: Quilt) -> bool:
    """Condition 2 of Definition 4.2, exactly in the CPTs of ``net``.

    ``P(x_R | x_Q, X_i = a) = P(x_R | x_Q)`` for every ``x_R, x_Q, a`` with ``P(x_Q, a) > 0``,
    checked as ``P(r, q, a) P(q) = P(r, q) P(q, a)`` on the joint of ``R ∪ Q ∪ {i}`` computed by
    variable elimination.  Exponential in ``|R| + |Q|``; for small networks.
    """
    remote = sorted(quilt.remote, key=sort_key)
    qnodes = sorted(quilt.quilt, key=sort_key)
    if not remote:
        return True
    variables = remote + qnodes + [quilt.node]
    joint = net.joint_factor(variables)
    nr, nq = len(remote), len(qnodes)
    p_q: dict = {}
    p_rq: dict = {}
    p_qa: dict = {}
    for key, p in joint.items():
        r, q, a = key[:nr], key[nr:nr + nq], key[nr + nq]
        p_q[q] = p_q.get(q, 0) + p
        p_rq[(r, q)] = p_rq.get((r, q), 0) + p
        p_qa[(q, a)] = p_qa.get((q, a), 0) + p
    domains = net.domains
    for r in cartesian(*(domains[v] for v in remote)):
        for q in cartesian(*(domains[v] for v in qnodes)):
            for a in domains[quilt.node]:
                lhs = joint.get(r + q + (a,), Fraction(0)) * p_q.get(q, Fraction(0))
                rhs = p_rq.get((r, q), Fraction(0)) * p_qa.get((q, a), Fraction(0))
                if lhs != rhs:
                    return False
    return True


# ------------------------------------------------------------------------------------------------
# chains (Lemma B.2)
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ChainQuilt:
    """A Lemma B.2 quilt for node ``i`` of a chain ``1..T``, described by two distances.

    ``a`` is the distance to the left quilt node (``a = i`` means none: the imaginary ``X_0`` of
    Appendix B.8.2) and ``b`` to the right one (``b = T + 1 − i`` means none, ``X_{T+1}``), so
    ``card(X_N) = a + b − 1`` in every case.
    """

    i: int
    a: int
    b: int
    length: int

    @property
    def has_left(self) -> bool:
        return self.i - self.a >= 1

    @property
    def has_right(self) -> bool:
        return self.i + self.b <= self.length

    @property
    def card_nearby(self) -> int:
        return self.a + self.b - 1

    @property
    def quilt_nodes(self) -> list[int]:
        """``X_Q`` in increasing order: ``i − a`` and ``i + b`` where present (``O(1)``)."""
        return [v for v in (self.i - self.a, self.i + self.b) if 1 <= v <= self.length]

    @property
    def nearby_range(self) -> range:
        """``X_N`` as the interval of nodes ``i − a + 1 .. i + b − 1`` (``O(1)``)."""
        return range(self.i - self.a + 1, self.i + self.b)

    def as_quilt(self) -> Quilt:
        """The partition as explicit node sets (Definition 4.2): ``O(T)`` — for small chains and
        checks; :meth:`to_dict` and :meth:`label` describe the quilt in ``O(1)``."""
        T = self.length
        q = frozenset(self.quilt_nodes)
        nearby = frozenset(self.nearby_range)
        return Quilt(self.i, q, nearby, frozenset(range(1, T + 1)) - nearby - q)

    def to_dict(self) -> dict:
        return {"node": self.i, "a": self.a, "b": self.b,
                "quilt": self.quilt_nodes, "card_nearby": self.card_nearby}

    def label(self) -> str:
        parts = []
        if self.has_left:
            parts.append(f"X{self.i - self.a}")
        if self.has_right:
            parts.append(f"X{self.i + self.b}")
        return "{" + ", ".join(parts) + "}"


def chain_quilts(length: int, i: int) -> Iterator[ChainQuilt]:
    """The quilts of Lemma B.2 for node ``i`` of a chain of ``length`` nodes (``O(T^2)``)."""
    if not 1 <= i <= length:
        raise ModelError(f"node {i} is outside the chain 1..{length}", "--node")
    for a in range(1, i + 1):
        for b in range(1, length + 2 - i):
            yield ChainQuilt(i, a, b, length)


def path_graph(length: int) -> nx.DiGraph:
    """The chain ``1 → 2 → ... → T`` as a DiGraph."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(range(1, length + 1))
    g.add_edges_from((t, t + 1) for t in range(1, length))
    return g


def check_enumeration_budget(graph: nx.DiGraph, max_size: int | None, max_candidates: int) -> int:
    """The number of candidates :func:`enumerate_quilts` would examine; raises when over budget."""
    n = graph.number_of_nodes() - 1
    m = n if max_size is None else min(max_size, n)
    total = sum(comb(n, s) for s in range(m + 1))
    if total > max_candidates:
        raise TooLargeError(f"enumerating quilts of up to {m} nodes means {total:,} candidates, "
                            f"more than the limit of {max_candidates:,}; lower --max-quilt-size or "
                            f"raise --max-quilts", "--max-quilts")
    return total


MAX_SEARCH_STEPS = 10**8
"""The most steps a search of several nodes' quilts may take (:func:`check_search_size`: each
candidate quilt of a node is checked against its immediate subsets, one step each, and one step
more; a few minutes at this limit)."""


def check_search_size(graph: nx.DiGraph, nodes: int, max_size: int | None,
                      max_candidates: int, limit: int = MAX_SEARCH_STEPS) -> int:
    """The steps of the quilt search of Algorithm 2 for ``nodes`` nodes of ``graph``, counted
    without enumerating: each node's candidates
    (:class:`~pufferfish.verify.quilts.quilt_candidates.QuiltCandidates`: at most
    ``max_candidates``, of at most ``max_size`` nodes) are each checked against their ``m``
    immediate subsets (``m`` the largest size reached), ``nodes · candidates · (m + 1)`` steps;
    a count above ``limit`` is refused with a :class:`TooLargeError` that states it.  The
    reachability passes and float eliminations of the irreducible candidates come on top (on
    alarm, 4.4·10^7 steps take about a minute in all).  Cost: ``O(max_size)``."""
    others = graph.number_of_nodes() - 1
    largest = others if max_size is None else min(max_size, others)
    candidates = 0
    reached = 0
    for reached in range(largest + 1):
        candidates += comb(others, reached)
        if candidates >= max_candidates:
            candidates = max_candidates
            break
    steps = nodes * candidates * (reached + 1)
    if steps > limit:
        raise TooLargeError(
            f"the quilt search would examine {candidates:,} candidate quilts for each of "
            f"{nodes:,} nodes, each of up to {reached:,} nodes checked against its subsets one "
            f"node smaller: {size_text(steps)} steps, more than the limit of "
            f"{size_text(limit)}; lower --max-quilt-size or --max-quilts, or search fewer nodes "
            f"(--nodes)", "--max-quilts")
    return steps


__all__ = ["Quilt", "QuiltEnumeration", "ChainQuilt", "quilt_for", "d_connected",
           "enumerate_quilts", "quilt_independence_holds", "chain_quilts", "path_graph",
           "check_enumeration_budget", "check_search_size", "DEFAULT_MAX_CANDIDATES",
           "MAX_SEARCH_STEPS", "sort_key", "stop_note", "size_note"]
