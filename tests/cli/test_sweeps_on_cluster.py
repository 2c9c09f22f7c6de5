"""``--workers`` on ``influence``, ``mqm`` and ``quilts`` (:mod:`pufferfish.verify.execution`): a local
cluster of 2 worker processes prints exactly the in-process JSON, and the curve file is
byte-identical."""

from __future__ import annotations

import json

import pytest

from pufferfish.examples import example_path


@pytest.mark.parametrize("method", ["brute", "chain"])
def test_influence_on_a_local_cluster_prints_the_in_process_json(cli, tmp_path, method):
    model = str(example_path("influence_chain.json"))
    code, alone, _ = cli("influence", model, "--method", method, "--json",
                         "--out", tmp_path / "alone")
    code_cluster, clustered, err = cli("influence", model, "--method", method, "--json",
                                       "--out", tmp_path / "cluster", "--workers", "2")
    assert code == code_cluster == 0 and "dashboard" in err
    assert json.loads(clustered) == json.loads(alone)
    assert ((tmp_path / "cluster" / "influence_curve.json").read_bytes()
            == (tmp_path / "alone" / "influence_curve.json").read_bytes())


@pytest.mark.parametrize("model", ["chain_binary_T100.json", "bayesnet_vstructure.json"])
def test_mqm_on_a_local_cluster_prints_the_in_process_json(cli, model):
    path = str(example_path(model))
    code, alone, _ = cli("mqm", path, "--epsilon", "1", "--json")
    code_cluster, clustered, _ = cli("mqm", path, "--epsilon", "1", "--json", "--workers", "2")
    assert code == code_cluster == 0
    assert json.loads(clustered) == json.loads(alone)


@pytest.mark.parametrize("model,node", [("chain_binary_T100.json", "40"),
                                        ("bayesnet_vstructure.json", "1")])
def test_quilts_on_a_local_cluster_prints_the_in_process_json(cli, model, node):
    argv = ("quilts", str(example_path(model)), "--node", node, "--epsilon", "1", "--json")
    code, alone, _ = cli(*argv)
    code_cluster, clustered, _ = cli(*argv, "--workers", "2")
    assert code == code_cluster == 0
    assert json.loads(clustered) == json.loads(alone)


def test_influence_figures_on_a_local_cluster_give_the_in_process_curves(cli, tmp_path):
    """Figure 2(a) and 2(b): one task per curve; the plotted data equal the in-process data."""
    code, alone, _ = cli("influence-figures", "--out", tmp_path / "alone", "--json")
    code_cluster, clustered, err = cli("influence-figures", "--out", tmp_path / "cluster",
                                       "--json", "--workers", "2")
    assert code == code_cluster == 0 and "dashboard" in err
    alone, clustered = json.loads(alone), json.loads(clustered)
    for figure in ("figure_2a", "figure_2b"):
        assert clustered[figure]["curves"] == alone[figure]["curves"]
        assert (tmp_path / "cluster" / f"{figure}.png").stat().st_size > 0
