"""Markov quilts (``002_e1f2e9a9937b8cda.txt`` §4 Definition 4.2, Appendix B.4 Lemmas B.2–B.3).

Known answers: the hand-worked quilts of node A in the 5-node network A → C ← B, C → D, B → E,
where conditioning on the collider C (or on its descendant D) connects A with B and E; the sets of
Lemma B.2 on chains.  Cross-check: d-separation against exact conditional independence.
"""

from __future__ import annotations

import networkx as nx
import pytest

from pufferfish.verify.quilts.markov_quilts import (ChainQuilt, chain_quilts, check_enumeration_budget, enumerate_quilts,
                           path_graph, quilt_for, quilt_independence_holds)
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.proofs_check.paper_002.quilts import random_network, vstructure_family

VSTRUCTURE = nx.DiGraph([("A", "C"), ("B", "C"), ("C", "D"), ("B", "E")])


@pytest.mark.parametrize("quilt, nearby, remote", [
    (set(), {"A", "C", "D"}, {"B", "E"}),          # the unobserved collider C blocks A–B
    ({"C"}, {"A", "B", "E"}, {"D"}),               # observing the collider opens A → C ← B
    ({"D"}, {"A", "B", "C", "E"}, set()),          # observing a descendant of C opens it too
    ({"B", "C"}, {"A"}, {"D", "E"}),
    ({"C", "E"}, {"A", "B"}, {"D"}),
])
def test_definition_4_2_vstructure_known_answers(quilt, nearby, remote):
    q = quilt_for(VSTRUCTURE, "A", quilt)
    assert set(q.nearby) == nearby and set(q.remote) == remote


def test_definition_b1_minimal_quilts_of_a():
    enum = enumerate_quilts(VSTRUCTURE, "A")
    assert enum.complete and enum.examined == 16
    found = {(frozenset(q.quilt), frozenset(q.nearby)) for q in enum.minimal}
    assert (frozenset({"B", "C"}), frozenset({"A"})) in found
    # {B, C, D} has X_N = {A} too but is larger, hence not minimal
    assert (frozenset({"B", "C", "D"}), frozenset({"A"})) not in found
    assert len(enum.minimal) == 7


def test_quilts_satisfy_condition_2_exactly():
    family = vstructure_family()
    for net in family.members:
        for node in net.nodes:
            for q in enumerate_quilts(net.graph, node).quilts:
                assert quilt_independence_holds(net, q)


def test_condition_2_check_can_fail():
    """A wrong partition (B declared remote given the collider C) is rejected by the CPTs."""
    from pufferfish.verify.quilts.markov_quilts import Quilt
    net = vstructure_family().members[0]
    wrong = Quilt("A", frozenset({"C"}), frozenset({"A", "E"}), frozenset({"B", "D"}))
    assert not quilt_independence_holds(net, wrong)


@pytest.mark.parametrize("seed", range(4))
def test_dseparation_matches_independence_on_random_networks(seed):
    net = random_network(seed)
    for node in net.nodes:
        for q in enumerate_quilts(net.graph, node, max_size=2).quilts:
            assert quilt_independence_holds(net, q)


@pytest.mark.parametrize("T, i", [(1, 1), (2, 1), (5, 3), (6, 1), (6, 6), (7, 4)])
def test_lemma_b2_quilts_are_the_minimal_ones(T, i):
    enum = enumerate_quilts(path_graph(T), i)
    found = {q.quilt for q in enum.minimal}
    lemma = {cq.as_quilt().quilt for cq in chain_quilts(T, i)}
    assert found == lemma
    assert len(lemma) == i * (T + 1 - i)


def test_lemma_b2_sets_for_one_quilt():
    q = ChainQuilt(5, 2, 3, 10).as_quilt()       # {X_3, X_8} for X_5
    assert q.quilt == {3, 8} and q.nearby == set(range(4, 8))
    assert q.remote == {1, 2, 9, 10}
    left = ChainQuilt(5, 2, 6, 10)               # b = T+1−i: right side missing → {X_3}
    assert left.as_quilt().quilt == {3} and left.card_nearby == 7 and not left.has_right


def test_enumeration_limits_say_so():
    g = path_graph(12)
    enum = enumerate_quilts(g, 6, max_size=1)
    assert not enum.complete and "--max-quilt-size" in enum.message
    enum = enumerate_quilts(g, 6, max_candidates=10)
    assert not enum.complete and "stopped after 10" in enum.message
    with pytest.raises(TooLargeError, match="candidates"):
        check_enumeration_budget(path_graph(40), None, 1000)
    with pytest.raises(ModelError, match="unknown node"):
        enumerate_quilts(g, 99)
