"""The Top-K experiment runner (``000_65109fe28ca61d17.txt`` §7), on tiny settings (the
``experiment topk`` command: tests/cli)."""


import numpy as np
import pytest

from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate
from pufferfish.proofs_check.paper_000.topk.experiment import (build_setup, claims_text, run_trial,
                                                               run_trials, summarise, tables_text)
from pufferfish.proofs_check.paper_000.topk.mechanisms import MECHANISMS


@pytest.fixture(scope="module")
def setup():
    data = generate(SHAPES["activities"].scaled(0.1), seed=1)
    return build_setup(data, K=3, epsilons=("0.5", "5"))


def test_trial_t_draws_from_the_t_th_child_seed_whatever_the_chunks(setup):
    trials = run_trials(setup, 6, seed=11)
    children = np.random.SeedSequence(11).spawn(6)
    assert trials.shape == (6, 2, len(MECHANISMS), 6)
    assert np.array_equal(trials, np.stack([run_trial(setup, s) for s in children]))
    assert not np.array_equal(trials, run_trials(setup, 6, seed=12))


def test_summary_tables_and_claim_cells(setup):
    samples = run_trials(setup, 5, seed=0)
    result = summarise(setup, samples, 5, 0)
    mean, lo, hi = result.summary[("5", "Ours-Exp", "hr")]
    assert lo <= mean <= hi and 0 <= mean <= 1
    # 2 ε × 6 metrics × 3 orderings + 1 step × 4 mechanisms × 6 metrics
    assert len(result.claims) == 36 + 24
    text = tables_text(result)
    assert "Ours-Exp ACC@1" in text and "Group DP-Lap ℓ1" in text
    assert "cells" in claims_text(result)
    for c in result.claims:          # a claim cell holds exactly when its mean difference >= 0
        assert c.holds == (c.difference[0] >= 0)
    assert result.to_dict()["holds"] == result.holds

