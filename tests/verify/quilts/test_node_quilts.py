"""The quilts of one node with their scores (002_e1f2e9a9937b8cda.txt §4, Definition 4.2 and
Algorithm 2; chains: Lemma B.2), as one result object."""

from __future__ import annotations

import math

from pufferfish.examples import example_path
from pufferfish.models.bayesnet import chain_from_markov_prior
from pufferfish.models.chain_family import ChainFamily
from pufferfish.models.files.bayesnet_file import load_bayesnet
from pufferfish.models.files.pufferfish_file import load_model
from pufferfish.verify.quilts.node_quilts import (ChainQuiltScores, NetworkQuiltScores,
                                                  score_quilts)
from pufferfish.verify.quilts.scores import as_budget


def _network():
    return load_bayesnet(example_path("bayesnet_vstructure.json"))


def test_network_quilts_are_sorted_by_score_and_carry_the_budget_text():
    family = _network()
    node = next(n for n in family.nodes if str(n) == "A")
    result = score_quilts(family, node, as_budget("2"))
    assert isinstance(result, NetworkQuiltScores) and result.enumeration.complete
    uppers = [q.score.upper for q in result.quilts]
    assert uppers == sorted(uppers) and result.to_dict()["epsilon"] == "2"
    assert all("max_influence" in q for q in result.to_dict()["quilts"])
    assert "score ≤" in result.explain().splitlines()[1]


def test_network_quilts_without_a_budget_are_only_listed():
    family = _network()
    node = next(n for n in family.nodes if str(n) == "A")
    result = score_quilts(family, node)
    data = result.to_dict()
    assert data["epsilon"] is None and all("score" not in q for q in data["quilts"])


def test_chain_quilts_count_best_first_and_long_chains():
    model = load_model(example_path("chain_binary_T100.json"))
    family = ChainFamily(tuple(chain_from_markov_prior(p) for p in model.priors.values()),
                         "given")
    counted = score_quilts(family, 50)
    assert isinstance(counted, ChainQuiltScores) and counted.to_dict() == {
        "node": 50, "length": family.length, "count": 50 * (family.length + 1 - 50)}
    scored = score_quilts(family, 50, as_budget("1"))
    keys = [(c.score.upper, c.score.card_nearby) for c in scored.choices]
    assert keys == sorted(keys) and len(keys) == counted.count
    assert math.isfinite(keys[0][0]) and scored.to_dict()["quilts"][0] == scored.choices[0].to_dict()


def test_mqm_chain_approx_refuses_parameters_outside_the_unit_interval():
    from fractions import Fraction as F

    import pytest

    from pufferfish.models.errors import ModelError
    from pufferfish.verify.quilts.chain_search import mqm_chain_approx

    for pi, g, name in ((F(0), F(1, 3), "pi"), (F(3, 2), F(1, 3), "pi"), (F(1, 2), F(0), "g"),
                        (0.5, F(1, 3), "pi"), (F(1, 2), True, "g")):
        with pytest.raises(ModelError) as error:
            mqm_chain_approx(10, "1", pi, g)
        assert error.value.path == name
