"""The screened search of the Markov Quilt Mechanism on Bayesian networks
(:func:`pufferfish.verify.quilts.bayesnet_mqm.node_search`): the same choice (quilt, exact ratio,
certified score) as the exhaustive exact search on small networks; the float bounds of
:mod:`pufferfish.verify.quilts.screening` contain every exact max-influence ratio; an underflow is
refused, never estimated."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import pufferfish.examples as examples
from pufferfish.models.bayesnet import BayesNet, BayesNetFamily
from pufferfish.models.bif import load_bif
from pufferfish.models.files.bayesnet_file import parse_bayesnet
from pufferfish.verify.influence.max_influence import network_max_influence
from pufferfish.verify.quilts.bayesnet_mqm import mqm_bayesnet, node_search
from pufferfish.verify.quilts.markov_quilts import enumerate_quilts
from pufferfish.verify.quilts.scores import as_budget
from pufferfish.verify.quilts.screening import FloatNetwork, influence_ratio_bounds
from tests.models.conftest import bnlearn_path


def network(name: str) -> BayesNetFamily:
    return BayesNetFamily((load_bif(bnlearn_path(name), renormalise=True),))


def vstructure() -> BayesNetFamily:
    return parse_bayesnet(json.loads(examples.example_path("bayesnet_vstructure.json")
                                     .read_text()))


@pytest.mark.parametrize("name, size, epsilon", [("asia", None, "1"), ("asia", None, "log(5)"),
                                                 ("asia", 2, "1/10"), ("sachs", 2, "10"),
                                                 ("sachs", 1, "1")])
def test_the_screened_search_chooses_as_the_exhaustive_search(name, size, epsilon):
    family = network(name)
    budget = as_budget(epsilon)
    for node in family.nodes:
        assert (node_search(family, node, budget, size, 10**6, False)
                == node_search(family, node, budget, size, 10**6, False, screen=False)), node


def test_the_screened_mechanism_equals_the_exhaustive_one_on_a_family():
    family = vstructure()
    screened = mqm_bayesnet(family, "2")
    budget = as_budget("2")
    choices = tuple(node_search(family, node, budget, None, 10**6, False, screen=False)[0]
                    for node in family.nodes)
    assert screened.choices == choices


@pytest.mark.parametrize("name", ["asia", "sachs"])
def test_the_float_bounds_contain_every_exact_ratio(name):
    family = network(name)
    members = [FloatNetwork(m) for m in family.members]
    for node in family.nodes[:4]:
        for quilt in enumerate_quilts(family.graph, node, max_size=2).quilts:
            exact = network_max_influence(family, node, quilt.quilt).max_ratio
            low, high = influence_ratio_bounds(members, node, quilt.quilt)
            if high == float("inf"):
                assert exact == float("inf")
            else:
                assert Fraction(low) <= exact <= Fraction(high)
                assert high - low <= 1e-9 * high


def tiny_chain() -> BayesNet:
    tiny = Fraction(1, 2 ** 1000)
    rows = {(0,): {0: 1 - tiny, 1: tiny}, (1,): {0: Fraction(1, 2), 1: Fraction(1, 2)}}
    return BayesNet.from_cpts({"a": (), "b": ("a",), "c": ("b",)},
                              {v: (0, 1) for v in "abc"},
                              {"a": {(): {0: Fraction(1, 2), 1: Fraction(1, 2)}}, "b": rows,
                               "c": rows})


def test_an_underflow_is_refused_and_the_search_is_exact():
    net = tiny_chain()
    assert FloatNetwork(net).joint(["c", "a"]) is None
    family = BayesNetFamily((net,))
    for epsilon in ("1", "800"):
        budget = as_budget(epsilon)
        for node in family.nodes:
            assert (node_search(family, node, budget, None, 10**6, False)
                    == node_search(family, node, budget, None, 10**6, False, screen=False))


@pytest.mark.parametrize("name", ["asia", "sachs", "alarm"])
def test_one_reachability_pass_partitions_as_the_d_separation_tests(name):
    import random

    import networkx as nx

    from pufferfish.verify.quilts.markov_quilts import quilt_for

    separated = getattr(nx, "is_d_separator", None) or getattr(nx, "d_separated")
    graph = network(name).graph
    nodes = sorted(graph, key=str)
    chooser = random.Random(7)
    for _ in range(60):
        node = chooser.choice(nodes)
        others = [v for v in nodes if v != node]
        quilt = set(chooser.sample(others, chooser.randint(0, min(5, len(others)))))
        remote = {v for v in others if v not in quilt
                  and separated(graph, {node}, {v}, quilt)}
        found = quilt_for(graph, node, quilt)
        assert found.remote == remote and found.nearby == set(nodes) - quilt - remote
