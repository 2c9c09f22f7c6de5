"""Checkpointed messages on long paths (:class:`~pufferfish.verify.structured.elimination.
PathMessages`): every law, split law and evidence law of a chain equals the one of the tree that
keeps all its messages, exact and as balls, whether secrets are read in the chain's order or at
random."""

from __future__ import annotations

import random

import pytest

from pufferfish.models.priors import MarkovPrior
from pufferfish.models.universe import Universe
from pufferfish.verify.structured import elimination
from pufferfish.verify.structured.elimination import EXACT, JunctionTree, PathMessages, balls


def _chain(width: int):
    universe = Universe.product([f"x{i}" for i in range(width)], [[0, 1, 2]] * width)
    kernel = {0: {0: "7/10", 1: "1/5", 2: "1/10"}, 1: {0: "1/3", 1: "1/3", 2: "1/3"},
              2: {0: "1/8", 1: "1/8", 2: "3/4"}}
    prior = MarkovPrior.homogeneous("c", universe, {0: "1/2", 1: "1/4", 2: "1/4"}, kernel)
    return prior, universe, [{0: 0, 1: 1, 2: 3}] * width


@pytest.mark.parametrize("width", [3, 4, 17, 40])
@pytest.mark.parametrize("ring", [EXACT, balls(64)], ids=["exact", "balls"])
def test_checkpointed_laws_equal_the_laws_of_all_messages(width, ring, monkeypatch):
    prior, universe, weights = _chain(width)
    monkeypatch.setattr(elimination, "CHECKPOINT_ABOVE", 10**18)
    full = JunctionTree.of_prior(prior, universe, weights, ring)
    monkeypatch.setattr(elimination, "CHECKPOINT_ABOVE", -1)
    kept = JunctionTree.of_prior(prior, universe, weights, ring)
    assert isinstance(full.messages, dict) and isinstance(kept.messages, PathMessages)
    order = list(range(width)) + random.Random(width).sample(range(width), width)
    secrets = [{t: frozenset([x])} for t in order for x in (0, 2)]
    secrets += [{}, {0: frozenset([1]), width - 1: frozenset([0, 2])},
                {1: frozenset([0]), 2: frozenset([1])}]
    for conditions in secrets:
        assert str(kept.law(conditions)) == str(full.law(conditions)), conditions
        assert ([[str(p) for p in term] for term in kept.terms(conditions)]
                == [[str(p) for p in term] for term in full.terms(conditions)])


def test_the_estimate_counts_checkpoints_and_blocks_only(monkeypatch):
    prior, universe, weights = _chain(400)
    monkeypatch.setattr(elimination, "CHECKPOINT_ABOVE", 10**18)
    full = JunctionTree.of_prior(prior, universe, weights)
    monkeypatch.setattr(elimination, "CHECKPOINT_ABOVE", -1)
    kept = JunctionTree.of_prior(prior, universe, weights)
    assert kept.messages.step == 20
    assert 4 * kept.message_bytes() < full.message_bytes()
