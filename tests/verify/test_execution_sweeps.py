"""Influence grids and the Markov Quilt Mechanism over many nodes as Dask tasks
(:mod:`pufferfish.verify.execution`): a local cluster of 2 worker processes gives exactly the
in-process curves and σ_max with the same quilts, also when a worker is killed partway."""

from __future__ import annotations

import pytest

from pufferfish.examples import example_path
from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.models.files.bayesnet_file import parse_bayesnet
from pufferfish.models.files.json_io import read_json_file
from pufferfish.models.files.pufferfish_file import load_model, parse_model
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.influence.curves import influence_curve
from pufferfish.verify.quilts.bayesnet_mqm import mqm_bayesnet
from pufferfish.verify.quilts.chain_search import mqm_chain_exact
from pufferfish.verify.quilts.node_quilts import score_quilts
from pufferfish.verify.quilts.prior_networks import network_family
from pufferfish.verify.quilts.scores import as_budget


def chain_model(length: int, initial: tuple[str, str], second_prior: bool = True) -> dict:
    """Binary chains of ``length`` entries (the kernel of Example 6.1 and, optionally, a second
    one), every entry's value a secret."""
    names = [f"x{k}" for k in range(1, length + 1)]
    priors = {"slow": {"markov": {"initial": {"0": initial[0], "1": initial[1]},
                                  "transition": {"0": {"0": "4/5", "1": "1/5"},
                                                 "1": {"0": "1/10", "1": "9/10"}}}}}
    if second_prior:
        priors["fast"] = {"markov": {"initial": {"0": "1/2", "1": "1/2"},
                                     "transition": {"0": {"0": "2/5", "1": "3/5"},
                                                    "1": {"0": "1/2", "1": "1/2"}}}}
    return {"pufferfish_model": 1, "attributes": names, "domain": [0, 1], "datasets": "all",
            "priors": priors, "entry_pairs": True}


def test_a_brute_force_curve_on_two_workers_is_the_in_process_curve(cluster):
    model = parse_model(chain_model(7, ("1/4", "3/4")))
    ticks = []
    alone = influence_curve(model, max_b=5)
    clustered = influence_curve(model, max_b=5, engine=cluster,
                                progress=lambda done, total, what: ticks.append((done, total)))
    assert clustered.to_dict() == alone.to_dict()
    assert ticks[-1] == (14, 14)      # one task per ordered pair


def test_a_table_prior_curve_on_two_workers_is_the_in_process_curve(cluster):
    model = load_model(example_path("influence_table.json"))
    assert (influence_curve(model, engine=cluster).to_dict() == influence_curve(model).to_dict())


@pytest.mark.parametrize("initial", [("1/2", "1/2"), ("1/3", "2/3")])
def test_a_chain_curve_on_two_workers_is_the_in_process_curve(cluster, initial):
    # (1/2, 1/2): not stationary, tables per position; (1/3, 2/3) with one prior: stationary
    model = parse_model(chain_model(40, initial, second_prior=initial[0] == "1/2"))
    alone = chain_influence_curve(model, max_b=12)
    assert chain_influence_curve(model, max_b=12, engine=cluster).to_dict() == alone.to_dict()


def test_a_long_chain_curve_keeps_one_representative_per_group(cluster):
    model = parse_model(chain_model(300, ("1/3", "2/3"), second_prior=False))
    alone = chain_influence_curve(model, max_b=6)
    clustered = chain_influence_curve(model, max_b=6, engine=cluster)
    assert len(alone.per_pair) < 600 and clustered.to_dict() == alone.to_dict()


def chain_family(length: int, initial: str) -> ChainFamily:
    given = ["1/2", "1/2"] if initial == "given" else None
    return ChainFamily((MarkovChain.binary("9/10", "4/5", length, given),
                        MarkovChain.binary("7/10", "3/5", length, given)), initial)


@pytest.mark.parametrize("initial,epsilon", [("given", "1"), ("stationary", "1/2"),
                                             ("any", "2")])
def test_mqm_over_a_chain_on_two_workers_is_the_in_process_mqm(cluster, initial, epsilon):
    family = chain_family(120, initial)
    alone = mqm_chain_exact(family, epsilon)
    clustered = mqm_chain_exact(family, epsilon, engine=cluster)
    assert clustered.to_dict() == alone.to_dict()
    assert [c.quilt for c in clustered.choices] == [c.quilt for c in alone.choices]


def test_mqm_over_chosen_nodes_in_any_order_is_the_in_process_mqm(cluster):
    family = chain_family(60, "given")
    for nodes in ([5, 6, 7, 30, 31, 59], [9, 3, 4]):
        assert (mqm_chain_exact(family, "1", nodes=nodes, engine=cluster).to_dict()
                == mqm_chain_exact(family, "1", nodes=nodes).to_dict())


def test_mqm_over_a_network_on_two_workers_is_the_in_process_mqm(cluster):
    vstructure = parse_bayesnet(read_json_file(example_path("bayesnet_vstructure.json")))
    assert (mqm_bayesnet(vstructure, "2", engine=cluster).to_dict()
            == mqm_bayesnet(vstructure, "2").to_dict())
    model = load_model(example_path("influence_table.json"))
    table = network_family(model.priors, model.universe)
    assert (mqm_bayesnet(table, "3", engine=cluster).to_dict()
            == mqm_bayesnet(table, "3").to_dict())


def test_an_influence_grid_survives_a_killed_worker(killing_engine):
    model = parse_model(chain_model(7, ("1/4", "3/4")))
    alone = influence_curve(model, max_b=5).to_dict()
    with killing_engine(after=2) as engine:
        assert influence_curve(model, max_b=5, engine=engine).to_dict() == alone
        assert engine.killed is not None


def test_mqm_over_a_chain_survives_a_killed_worker(killing_engine):
    family = chain_family(200, "given")
    alone = mqm_chain_exact(family, "1").to_dict()
    with killing_engine(after=2) as engine:
        assert mqm_chain_exact(family, "1", engine=engine).to_dict() == alone
        assert engine.killed is not None


def test_one_nodes_quilts_on_two_workers_are_the_in_process_quilts(cluster):
    vstructure = parse_bayesnet(read_json_file(example_path("bayesnet_vstructure.json")))
    for node in vstructure.nodes:
        assert (score_quilts(vstructure, node, as_budget("2"), engine=cluster).to_dict()
                == score_quilts(vstructure, node, as_budget("2")).to_dict())
    family = chain_family(30, "given")
    assert (score_quilts(family, 11, as_budget("1"), engine=cluster).to_dict()
            == score_quilts(family, 11, as_budget("1")).to_dict())


def test_the_mqm_figure_grids_on_a_cluster_equal_the_in_process_grids(cluster):
    """Figures 1 and 3 of 002: the noise scales computed first as tasks give the same data as
    the loops that compute them lazily (Figure 3 computes MQM only where [11] applies)."""
    from fractions import Fraction

    import numpy as np

    from pufferfish.proofs_check.paper_002.figures import figure1_data, figure3_data

    small = dict(runs=3, seed=1, length=20, lows=[Fraction(1, 10), Fraction(3, 10)], grid=3)
    assert figure1_data(**small, engine=cluster) == figure1_data(**small)
    alone, clustered = figure3_data(grid=5, length=20), figure3_data(grid=5, length=20,
                                                                      engine=cluster)
    assert alone["values"] == clustered["values"]
    for eps, region in alone["maps"].items():
        assert np.array_equal(region, clustered["maps"][eps])
    assert {0, 1} <= set(np.unique(alone["maps"][1]))  # both regimes occur on this grid
