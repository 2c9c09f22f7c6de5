"""Bayesian networks and Markov chains with exact CPTs (``002_e1f2e9a9937b8cda.txt`` §4, §4.1).

Variable elimination is cross-checked against enumeration of the joint on random networks;
chain powers and stationary distributions against hand-computed values and Lemma B.12.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.models.bayesnet import (BayesNet, MarkovChain, chain_from_markov_prior, reversible_chain,
                             solve_stationary)
from pufferfish.models.files.bayesnet_file import load_bayesnet, parse_bayesnet
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.files.pufferfish_file import load_model
from pufferfish.proofs_check.paper_002.quilts import random_network, vstructure_family


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_variable_elimination_matches_enumeration(seed, zeros):
    net = random_network(seed, n=5, zeros=zeros)
    nodes = net.nodes
    for query in ([nodes[0]], [nodes[-1]], [nodes[1], nodes[3]], list(nodes[2:])):
        assert net.marginal(query) == net.marginal_by_enumeration(query)


def test_conditional_by_elimination_matches_bayes_rule():
    net = vstructure_family().members[0]
    joint = net.marginal_by_enumeration(["A", "B", "C"])
    p_c1 = sum(p for k, p in joint.items() if k[2] == 1)
    expected = {(a, b): joint.get((a, b, 1), 0) / p_c1 for a in (0, 1) for b in (0, 1)}
    got = net.conditional(["A", "B"], {"C": 1})
    assert {k: got.get(k, 0) for k in expected} == expected
    assert sum(got.values()) == 1


def test_zero_probability_evidence_is_refused():
    net = BayesNet.from_cpts({"A": [], "B": ["A"]}, {"A": (0, 1), "B": (0, 1)},
                             {"A": {(): {0: 1}}, "B": {(0,): {0: 1}, (1,): {1: 1}}})
    with pytest.raises(ModelError, match="probability zero"):
        net.conditional(["A"], {"B": 1})


def test_chain_powers_and_stationary_lemma_b12():
    """Lemma B.12: π = ((1−p1), (1−p0))/(2 − p0 − p1); the chain is reversible."""
    c = MarkovChain.binary("9/10", "3/5", 5, ["1/3", "2/3"])
    assert c.stationary() == (F(4, 5), F(1, 5))
    assert c.is_reversible()
    assert c.power(2)[0] == (F(85, 100), F(15, 100))
    assert c.power(5)[1][1] == sum(c.power(4)[1][m] * c.matrix[m][1] for m in range(2))
    net = c.to_bayesnet()
    for t in range(1, 6):
        m = net.marginal([t])
        assert tuple(m.get((s,), 0) for s in (0, 1)) == c.marginal(t)


def test_stationary_needs_uniqueness():
    with pytest.raises(ModelError, match="more than one stationary"):
        solve_stationary(((F(1), F(0)), (F(0), F(1))))


def test_reversible_chain_from_weights():
    c = reversible_chain([[3, 1, 2], [1, 4, 1], [2, 1, 5]], 4, ["1/3", "1/3", "1/3"])
    assert c.is_reversible()
    assert c.stationary() == (F(6, 20), F(6, 20), F(8, 20))
    with pytest.raises(ModelError, match="symmetric"):
        reversible_chain([[1, 2], [1, 1]], 3)


def test_chain_from_model_file_does_not_enumerate():
    model = load_model("examples/chain_binary_T100.json")
    chain = chain_from_markov_prior(model.priors["sticky"])
    assert chain.length == 100 and chain.matrix == ((F(9, 10), F(1, 10)), (F(1, 5), F(4, 5)))
    assert chain.initial == (F(1, 2), F(1, 2))


def test_inhomogeneous_chain_is_refused():
    from pufferfish.models.distribution import Distribution
    from pufferfish.models.priors import MarkovPrior
    d = Distribution({0: "1/2", 1: "1/2"})
    k1 = {0: Distribution({0: 1}), 1: Distribution({1: 1})}
    k2 = {0: d, 1: d}
    prior = MarkovPrior("p", ("x1", "x2", "x3"), d, (k1, k2), homogeneous=False)
    with pytest.raises(UnsupportedError, match="homogeneous"):
        chain_from_markov_prior(prior)


def test_bayesnet_file_reads_the_example():
    family = load_bayesnet("examples/bayesnet_vstructure.json")
    assert [m.name for m in family.members] == ["theta1", "theta2"]
    assert family.members[0].cpts["C"][(1, 0)].prob(1) == F(7, 10)


@pytest.mark.parametrize("mutate, message, path", [
    (lambda d: d["members"]["theta1"]["A"][""].update({"0": 0.5}), "float", "members.theta1.A"),
    (lambda d: d["members"]["theta1"]["C"].pop("1,1"), "no CPT row", "C"),
    (lambda d: d["nodes"]["A"].update({"parents": ["Z"]}), "not a node", "nodes.A.parents"),
    (lambda d: d["members"]["theta1"]["B"][""].update({"1": "7/10"}), "sum", "B"),
    (lambda d: d.update({"bayesnet": 2}), "version", "bayesnet"),
])
def test_bayesnet_file_errors_have_paths(mutate, message, path):
    data = json.load(open("examples/bayesnet_vstructure.json"))
    mutate(data)
    with pytest.raises(ModelError) as error:
        parse_bayesnet(data)
    assert message in str(error.value)
    assert path in error.value.path
