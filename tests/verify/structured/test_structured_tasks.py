"""The structured audit on a local Dask cluster of 2 workers
(:mod:`pufferfish.verify.structured.tasks`): the same JSON, byte for byte, as in this process —
levels, witnesses, skipped directions, leakage and DP — on a chain, a product prior with several
priors and secrets, and a Bayesian network."""

from __future__ import annotations

import json

import pytest

import pufferfish
from pufferfish.examples import example_path
from pufferfish.verify.privacy.audit import audit_model
from pufferfish.verify.structured.audit import directions_of


@pytest.mark.parametrize("name", ["chain_sum_T60.json", "quickstart.json",
                                  "bayesnet_rain.json"])
def test_a_structured_audit_on_two_workers_is_the_in_process_audit(cluster, name):
    model = pufferfish.load(example_path(name))
    budget = pufferfish.budget("log(3)")
    alone = audit_model(model, budget, method="structured").to_dict()
    clustered = audit_model(pufferfish.load(example_path(name)), budget, engine=cluster,
                            method="structured").to_dict()
    assert json.dumps(clustered) == json.dumps(alone)


def test_directions_are_every_ordered_pair_of_the_model():
    model = pufferfish.load(example_path("quickstart.json"))
    assert len(directions_of(model)) == sum(len(list(p.directions())) for p in model.pairs) >= 2
