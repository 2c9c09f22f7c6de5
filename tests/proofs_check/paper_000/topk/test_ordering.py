"""The Hoeffding-decided orderings of the Top-K tables (``topk/ordering.py``) and the per-group
trial they read."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pufferfish.proofs_check.paper_000.topk.experiment import build_setup, run_trial, run_trial_by_group
from pufferfish.proofs_check.paper_000.topk.ordering import collect_samples, decide_cell, hoeffding_radius
from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate


@pytest.fixture(scope="module")
def setup():
    return build_setup(generate(SHAPES["activities"].scaled(0.25), seed=3), K=3)


def test_run_trial_is_the_group_mean_of_the_per_group_trial(setup):
    seed = np.random.SeedSequence(7).spawn(1)[0]
    by_group = run_trial_by_group(setup, seed)
    assert by_group.shape == (6, 4, 4, 6)
    assert np.allclose(run_trial(setup, seed), by_group.mean(axis=2), rtol=0, atol=1e-12)


def test_samples_are_determined_by_the_seed(setup):
    a, b = collect_samples(setup, 5, 11), collect_samples(setup, 5, 11)
    assert np.array_equal(a.values, b.values) and a.values.shape == (5, 6, 4, 4, 6)
    assert not np.array_equal(a.values, collect_samples(setup, 5, 12).values)
    assert a.cell_mean("1", "hr", "MQM") == pytest.approx(a.values[:, 1, 1, :, 3].mean())
    ranges = a.metric_ranges("l1")
    assert all(r == 3 * (c.max() - c.min()) for r, c in zip(ranges, setup.counts))
    assert (np.abs(a.paired_differences("5", "l1", "Ours-Exp", "MQM")) <= ranges).all()


def test_hoeffding_radius_is_the_textbook_formula():
    widths = np.array([2.0] * 30 + [4.0] * 10)
    expected = math.sqrt(math.log(2 / 0.01) * (30 * 4 + 10 * 16) / 2) / 40
    assert hoeffding_radius(widths, 0.01) == pytest.approx(expected)


def test_cells_hold_are_violated_or_stay_undecided():
    ranges = np.ones(3)
    assert decide_cell(np.full((400, 3), 0.2), ranges, 0.01, 0.0).verdict == "holds"
    assert decide_cell(np.full((400, 3), -0.2), ranges, 0.01, 0.0).verdict == "violated"
    assert decide_cell(np.full((400, 3), 0.01), ranges, 0.01, 0.0).verdict == "undecided"
    # "on par" within a margin: a small deficit holds, a large one is violated
    assert decide_cell(np.full((4000, 3), -0.01), ranges, 0.01, 0.05).verdict == "holds"
    assert decide_cell(np.full((4000, 3), -0.2), ranges, 0.01, 0.05).verdict == "violated"
    rng = np.random.default_rng(0)
    noisy = rng.choice([-1.0, 1.0], size=(50, 3))
    assert decide_cell(noisy, ranges, 0.01, 0.0).verdict == "undecided"
