"""The irreducible candidate quilts (:mod:`pufferfish.verify.quilts.quilt_candidates`) and the
search of the Markov Quilt Mechanism built on them
(:func:`pufferfish.verify.quilts.bayesnet_mqm.node_search`), against independent computations on
seeded random networks: the partitions against networkx's d-separation, the candidates against
the full enumeration (same order, count and note; reducible exactly when a member is remote given
the others), the lemma (a reducible quilt has its root's exact max-influence) against the exact
max-influence, and the search against the exhaustive exact search (``screen=False``)."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from itertools import product

import networkx as nx
import pytest

from pufferfish.models.bayesnet import BayesNet, BayesNetFamily
from pufferfish.models.bif import load_bif
from pufferfish.verify.influence.max_influence import network_max_influence
from pufferfish.verify.quilts.bayesnet_mqm import mqm_bayesnet, node_search
from pufferfish.verify.quilts.markov_quilts import enumerate_quilts, quilt_for
from pufferfish.verify.quilts.quilt_candidates import QuiltCandidates, SeparationGraph
from pufferfish.verify.quilts.scores import as_budget
from tests.models.conftest import bnlearn_path


def random_parents(chooser: random.Random, n: int, density: float) -> dict:
    """A random DAG on ``n0 … n{n-1}`` (edges from lower to higher numbers, then renamed in a
    shuffled order so that the enumeration's order is not the topological one)."""
    names = [f"n{k}" for k in range(n)]
    chooser.shuffle(names)
    return {names[j]: tuple(names[k] for k in range(j) if chooser.random() < density)
            for j in range(n)}


def random_row(chooser: random.Random, values: int, zeros: bool) -> list[Fraction]:
    weights = [chooser.randint(0 if zeros else 1, 6) for _ in range(values)]
    if not any(weights):
        weights[chooser.randrange(values)] = 1
    return [Fraction(w, sum(weights)) for w in weights]


def random_net(chooser: random.Random, parents: dict, domains: dict, zeros: bool,
               name: str = "θ") -> BayesNet:
    cpts = {}
    for node, ps in parents.items():
        rows = {}
        for key in product(*(domains[p] for p in ps)):
            rows[key] = dict(zip(domains[node], random_row(chooser, len(domains[node]), zeros)))
        cpts[node] = rows
    return BayesNet.from_cpts(parents, domains, cpts, name=name)


def random_family(seed: int, n: int, density: float = 0.4, members: int = 1,
                  zeros: bool = False) -> BayesNetFamily:
    chooser = random.Random(seed)
    parents = random_parents(chooser, n, density)
    domains = {v: tuple(range(chooser.choice((2, 2, 3)))) for v in parents}
    return BayesNetFamily(tuple(random_net(chooser, parents, domains, zeros, f"θ{k}")
                                for k in range(members)))


def network(name: str) -> BayesNetFamily:
    return BayesNetFamily((load_bif(bnlearn_path(name), renormalise=True),))


@pytest.mark.parametrize("seed", range(6))
def test_the_bit_mask_ball_partitions_as_d_separation(seed):
    separated = getattr(nx, "is_d_separator", None) or getattr(nx, "d_separated")
    chooser = random.Random(seed)
    graph = random_family(seed, 9, density=0.35).graph
    g = SeparationGraph(graph)
    for _ in range(40):
        node = chooser.choice(g.nodes)
        others = [v for v in g.nodes if v != node]
        quilt = set(chooser.sample(others, chooser.randint(0, 5)))
        nearby = set(g.nodes_of(g.nearby(g.index[node], g.mask(quilt))))
        expected = {node} | {v for v in others if v not in quilt
                             and not separated(graph, {node}, {v}, quilt)}
        assert nearby == expected


@pytest.mark.parametrize("seed, n, max_size, max_candidates", [
    (1, 7, None, 10**6), (2, 8, None, 10**6), (3, 8, 3, 10**6), (4, 9, None, 300),
    (5, 9, 4, 129), (6, 6, 2, 22), (7, 8, None, 256)])
def test_the_candidates_are_the_irreducible_quilts_of_the_enumeration(seed, n, max_size,
                                                                       max_candidates):
    graph = random_family(seed, n).graph
    for node in graph:
        enum = enumerate_quilts(graph, node, max_size=max_size, max_candidates=max_candidates)
        found = QuiltCandidates(graph, node, max_size=max_size, max_candidates=max_candidates)
        candidates = list(found)
        assert (found.examined, found.complete, found.message) == (enum.examined, enum.complete,
                                                                   enum.message)
        irreducible = [k for k, q in enumerate(enum.quilts)
                       if all(v in quilt_for(graph, node, q.quilt - {v}).nearby for v in q.quilt)]
        assert [c.position for c in candidates] == irreducible
        minimal = {(q.quilt, q.nearby) for q in enum.minimal}
        for c in candidates:
            quilt = enum.quilts[c.position]
            assert found.quilt(c) == quilt and c.card_nearby == quilt.card_nearby
            assert c.minimal == ((quilt.quilt, quilt.nearby) in minimal)
        # every minimal quilt is irreducible
        assert minimal <= {(found.quilt(c).quilt, found.quilt(c).nearby) for c in candidates}


@pytest.mark.parametrize("seed", range(4))
def test_a_reducible_quilt_has_the_partition_and_influence_of_a_smaller_one(seed):
    family = random_family(10 + seed, 6, density=0.45, members=2, zeros=True)
    graph = family.graph
    for node in family.nodes:
        enum = enumerate_quilts(graph, node)
        for q in enum.quilts:
            remote = [v for v in q.quilt if v not in quilt_for(graph, node, q.quilt - {v}).nearby]
            if not remote:
                continue
            smaller = quilt_for(graph, node, q.quilt - {remote[0]})
            assert smaller.nearby == q.nearby
            assert (network_max_influence(family, node, q.quilt).max_ratio
                    == network_max_influence(family, node, smaller.quilt).max_ratio)


def test_the_max_influence_grows_with_the_quilt():
    family = random_family(20, 6, density=0.5, members=2, zeros=True)
    for node in family.nodes:
        others = set(family.nodes) - {node}
        for quilt in enumerate_quilts(family.graph, node, max_size=3).quilts:
            ratio = network_max_influence(family, node, quilt.quilt).max_ratio
            for v in others - quilt.quilt:
                assert ratio <= network_max_influence(family, node, quilt.quilt | {v}).max_ratio


@pytest.mark.parametrize("seed, n, members, zeros, epsilon, max_size, max_candidates, minimal", [
    (30, 6, 1, False, "1", None, 10**6, False),
    (31, 7, 1, True, "1/2", None, 10**6, False),
    (32, 7, 2, False, "3", None, 10**6, False),
    (33, 6, 2, True, "log(3)", None, 10**6, True),
    (34, 7, 1, False, "10", 2, 10**6, False),
    (35, 7, 1, False, "1", None, 40, False),
    (36, 6, 1, True, "2", None, 10**6, True),
    (37, 7, 2, True, "1/10", 3, 50, False),
])
def test_the_search_chooses_as_the_exhaustive_search(seed, n, members, zeros, epsilon, max_size,
                                                     max_candidates, minimal):
    family = random_family(seed, n, density=0.4, members=members, zeros=zeros)
    budget = as_budget(epsilon)
    for node in family.nodes:
        assert (node_search(family, node, budget, max_size, max_candidates, minimal)
                == node_search(family, node, budget, max_size, max_candidates, minimal,
                               screen=False)), node


@pytest.mark.parametrize("name, size, epsilon, minimal", [
    ("asia", None, "1", True), ("asia", None, "1/2", False), ("sachs", 2, "10", True),
    ("sachs", 2, "1", False)])
def test_the_search_chooses_as_the_exhaustive_search_on_shipped_networks(name, size, epsilon,
                                                                         minimal):
    family = network(name)
    budget = as_budget(epsilon)
    for node in family.nodes:
        assert (node_search(family, node, budget, size, 10**6, minimal)
                == node_search(family, node, budget, size, 10**6, minimal, screen=False)), node


def test_alarm_with_quilts_of_one_node_is_the_exhaustive_search():
    family = network("alarm")
    budget = as_budget("1")
    for node in ("CO", "BP", "HR", "PAP", "FIO2"):
        assert (node_search(family, node, budget, 1, 10**6, False)
                == node_search(family, node, budget, 1, 10**6, False, screen=False)), node


def test_a_cut_search_counts_every_candidate():
    family = network("alarm")
    result = mqm_bayesnet(family, "1", nodes=["ERRLOWOUTPUT"], max_candidates=1000)
    assert result.notes == ("node ERRLOWOUTPUT: stopped after 1,000 of 68,719,476,736 candidate "
                            "quilts (limit 1,000); raise --max-quilts or lower --max-quilt-size",)


def test_the_search_is_sized_by_its_steps():
    from pufferfish.models.errors import TooLargeError
    from pufferfish.verify.quilts.markov_quilts import check_search_size

    graph = network("alarm").graph
    # 1 + 36 + 630 + 7,140 + 58,905 quilts of up to 4 nodes, then 133,288 of 5: 6 steps each
    assert check_search_size(graph, 37, None, 200_000) == 37 * 200_000 * 6
    assert check_search_size(graph, 37, 2, 200_000) == 37 * (1 + 36 + 630) * 3
    refusal = "up to 6 nodes checked against its subsets one node smaller: about 2.6·10^8 steps"
    with pytest.raises(TooLargeError, match=re.escape(refusal)):
        check_search_size(graph, 37, None, 10**6)
