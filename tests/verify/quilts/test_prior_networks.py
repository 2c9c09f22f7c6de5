"""Model-file priors as Bayesian-network families for the Markov Quilt Mechanism
(verify/quilts/prior_networks.py): each quilt's max-influence against the brute-force Definition 6
over the prior's datasets, for independent, non-homogeneous Markov, table and Bayesian-network
priors (zero probabilities included; networks alone, with each other and with chains), and the
chain search against the network search on a homogeneous chain."""

from __future__ import annotations

import json

import pytest

from pufferfish.cli.main import main
from pufferfish.models.bayesnet import chain_from_markov_prior
from pufferfish.models.chain_family import ChainFamily
from pufferfish.models.errors import UnsupportedError
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.verify.influence.curves import max_influence
from pufferfish.verify.influence.max_influence import network_max_influence
from pufferfish.verify.quilts.bayesnet_mqm import mqm_bayesnet
from pufferfish.verify.quilts.chain_search import mqm_chain_exact
from pufferfish.verify.quilts.markov_quilts import enumerate_quilts
from pufferfish.verify.quilts.prior_networks import network_family, network_graph

ATTRS = ["x1", "x2", "x3", "x4"]
KERNEL = {"0": {"0": "3/4", "1": "1/4"}, "1": {"0": "1/3", "1": "2/3"}}
PRIORS = {
    "independent": {"independent": {a: {"0": "1/3", "1": "2/3"} for a in ATTRS}},
    "steps": {"markov": {"initial": {"0": "1/2", "1": "1/2"},
                         "transitions": [KERNEL, {"0": {"0": "1"}, "1": {"0": "1/5", "1": "4/5"}},
                                         {"0": {"0": "1/2", "1": "1/2"}, "1": {"1": "1"}}]}},
    "table": {"table": [[[0, 0, 0, 0], "1/2"], [[1, 0, 1, 1], "1/4"], [[1, 1, 0, 1], "1/4"]]},
    "homogeneous": {"markov": {"initial": {"0": "1/4", "1": "3/4"}, "transition": KERNEL}},
    # x1 -> x3 <- x2, x4 -> x2 (an edge against the attribute order: with any chain the union
    # has a cycle), a zero in a row
    "network": {"bayesnet": {"nodes": {
        "x4": {"parents": [], "cpt": {"": {"0": "2/5", "1": "3/5"}}},
        "x1": {"parents": [], "cpt": {"": {"0": "1/3", "1": "2/3"}}},
        "x2": {"parents": ["x4"], "cpt": {"0": {"0": "1/4", "1": "3/4"}, "1": {"0": "1"}}},
        "x3": {"parents": ["x2", "x1"], "cpt": {
            "0,0": {"0": "1/2", "1": "1/2"}, "0,1": {"0": "1/5", "1": "4/5"},
            "1,0": {"0": "9/10", "1": "1/10"}, "1,1": {"1": "1"}}}}}},
    # x1 -> x3 <- x2 -> x4: with the chain "steps" a network of 5 edges
    "forward": {"bayesnet": {"nodes": {
        "x1": {"parents": [], "cpt": {"": {"0": "1/2", "1": "1/2"}}},
        "x2": {"parents": [], "cpt": {"": {"0": "1/3", "1": "2/3"}}},
        "x3": {"parents": ["x1", "x2"], "cpt": {
            "0,0": {"0": "1"}, "0,1": {"0": "1/2", "1": "1/2"},
            "1,0": {"0": "1/7", "1": "6/7"}, "1,1": {"0": "2/3", "1": "1/3"}}},
        "x4": {"parents": ["x2"], "cpt": {"0": {"0": "3/5", "1": "2/5"},
                                          "1": {"0": "1/4", "1": "3/4"}}}}}},
    # x2 -> x1, x3 -> x4: with the chain "steps" the union has the cycle x1 -> x2 -> x1, with
    # "network" the cycle x2 -> x3 -> x4 -> x2
    "against": {"bayesnet": {"nodes": {
        "x2": {"parents": [], "cpt": {"": {"0": "1/2", "1": "1/2"}}},
        "x1": {"parents": ["x2"], "cpt": {"0": {"0": "2/3", "1": "1/3"},
                                          "1": {"0": "1/6", "1": "5/6"}}},
        "x3": {"parents": [], "cpt": {"": {"0": "3/4", "1": "1/4"}}},
        "x4": {"parents": ["x3"], "cpt": {"0": {"0": "1/2", "1": "1/2"}, "1": {"1": "1"}}}}}},
}


def model_of(*names):
    return parse_model({"pufferfish_model": 1, "attributes": ATTRS, "domain": [0, 1],
                        "datasets": "all", "priors": {n: PRIORS[n] for n in names},
                        "entry_pairs": True})


@pytest.mark.parametrize("names, graph", [(("independent",), "no edges"),
                                          (("steps",), "chain"),
                                          (("independent", "steps"), "chain"),
                                          (("table",), "complete"),
                                          (("table", "steps", "independent"), "complete"),
                                          (("network",), "network"),
                                          (("network", "independent"), "network"),
                                          (("network", "against"), "complete"),
                                          (("network", "steps"), "complete"),
                                          (("forward", "steps"), "network"),
                                          (("against", "steps"), "complete")])
def test_every_quilt_influence_equals_the_brute_force_definition(names, graph):
    model = model_of(*names)
    assert network_graph(model.priors) == graph
    family = network_family(model.priors, model.universe)
    for node in ATTRS:
        for quilt in enumerate_quilts(family.graph, node).quilts:
            if not quilt.quilt:
                continue
            net = network_max_influence(family, node, quilt.quilt)
            brute = max_influence(model, sorted(quilt.quilt), node)
            assert net.max_ratio == brute.max_ratio, (node, quilt.quilt)


def test_a_network_prior_keeps_its_own_sparse_graph():
    family = network_family(model_of("network").priors, model_of("network").universe)
    assert {n: set(family.members[0].parents[n]) for n in ATTRS} == {
        "x1": set(), "x2": {"x4"}, "x3": {"x1", "x2"}, "x4": set()}
    result = mqm_bayesnet(family, "2")
    assert result.sigma[1] < len(ATTRS) / 2      # better than adding noise for every node


def test_independent_prior_needs_only_its_own_node():
    family = network_family(model_of("independent").priors, model_of("independent").universe)
    result = mqm_bayesnet(family, "1")
    assert all(len(c.quilt.nearby) == 1 for c in result.choices)


def test_homogeneous_chain_network_search_matches_the_chain_search():
    model = model_of("homogeneous")
    chains = ChainFamily((chain_from_markov_prior(model.priors["homogeneous"]),))
    by_chain = mqm_chain_exact(chains, "1")
    by_network = mqm_bayesnet(network_family(model.priors, model.universe), "1")
    assert by_chain.sigma[1] == pytest.approx(by_network.sigma[1], rel=1e-12)


def test_interval_families_are_refused_with_their_path():
    model = parse_model(json.load(open(__import__("pufferfish.examples", fromlist=["x"])
                                       .example_path("collapse_interval_family.json"))))
    with pytest.raises(UnsupportedError, match="fixes only the conditionals") as info:
        network_graph(model.priors)
    assert info.value.path == "priors.theta"


def test_mqm_and_quilts_read_models_without_pairs(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"pufferfish_model": 1, "attributes": ATTRS, "domain": [0, 1],
                                "datasets": "all", "priors": {"steps": PRIORS["steps"],
                                                              "ind": PRIORS["independent"]}}))
    assert main(["mqm", str(path), "--epsilon", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["nodes_searched"] == 4
    assert main(["quilts", str(path), "--node", "2", "--epsilon", "1", "--json"]) == 0
    assert main(["mqm", str(path), "--epsilon", "1", "--method", "approx"]) == 2
    assert "Lemma B.4" in capsys.readouterr().err
