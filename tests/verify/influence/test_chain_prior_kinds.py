"""The structured a(b)-influence curve on every chain the model format accepts: independent priors
(a chain with constant rows), non-homogeneous chains (a kernel per step) with zero probabilities,
and a mix, against the brute force over splits (000 §6.2, Definition 7)."""

from __future__ import annotations

import pytest

from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.influence.curves import influence_curve

ATTRS = ["x1", "x2", "x3", "x4"]
PRIORS = {
    "independent": {"independent": {"x1": {"0": "1/3", "1": "2/3"}, "x2": {"0": "1"},
                                    "x3": {"0": "1/2", "1": "1/2"}, "x4": {"0": "1/5", "1": "4/5"}}},
    "steps": {"markov": {"initial": {"0": "1/2", "1": "1/2"},
                         "transitions": [{"0": {"0": "3/4", "1": "1/4"}, "1": {"0": "1/3", "1": "2/3"}},
                                         {"0": {"0": "1"}, "1": {"0": "1/5", "1": "4/5"}},
                                         {"0": {"0": "1/2", "1": "1/2"}, "1": {"1": "1"}}]}},
}


@pytest.mark.parametrize("names", [("independent",), ("steps",), ("independent", "steps")])
def test_chain_curve_equals_brute_force(names):
    model = parse_model({"pufferfish_model": 1, "attributes": ATTRS, "domain": [0, 1],
                         "datasets": "all", "priors": {n: PRIORS[n] for n in names},
                         "entry_pairs": True})
    chain, brute = chain_influence_curve(model), influence_curve(model)
    assert chain.method != brute.method
    assert [p.max_ratio for p in chain.points] == [p.max_ratio for p in brute.points]
    for label, points in brute.per_pair.items():
        assert [p.max_ratio for p in chain.per_pair[label]] == [p.max_ratio for p in points]
