"""``sample_chains`` of the Top-K sequences with per-step kernels (a non-homogeneous chain, the
model format's ``transitions``): the homogeneous case draws exactly what it drew before (the
experiments do not move), equal kernels give the same chains as the one matrix, and the marginal
of every step of a small chain matches its exact marginal (the product of the initial
distribution and the kernels) within 4 standard errors, with a fixed seed."""

from __future__ import annotations

import numpy as np
import pytest

from pufferfish.proofs_check.paper_000.topk.sequences import sample_chains

P = np.array([[0.9, 0.1], [0.3, 0.7]])
KERNELS = np.array([[[0.9, 0.1], [0.3, 0.7]], [[0.2, 0.8], [0.6, 0.4]], [[0.5, 0.5], [0.05, 0.95]]])
INITIAL = np.array([0.75, 0.25])


def _before(matrix, initial, users, length, rng, start=None):
    """The homogeneous sampler as it was before per-step kernels (reference)."""
    cumulative = np.cumsum(matrix, axis=1)
    cumulative[:, -1] = 1.0
    cdf = np.cumsum(initial)
    cdf[-1] = 1.0
    out = np.empty((users, length), dtype=np.int64)
    out[:, 0] = (np.searchsorted(cdf, rng.random(users), side="right") if start is None
                 else start)
    for t in range(1, length):
        u = rng.random(users)
        out[:, t] = (cumulative[out[:, t - 1]] <= u[:, None]).sum(axis=1)
    return np.minimum(out, len(matrix) - 1)


def test_homogeneous_draws_are_unchanged_and_equal_kernels_agree():
    for start in (None, np.array([1, 0, 1])):
        old = _before(P, INITIAL, 3, 40, np.random.default_rng(3), start)
        new = sample_chains(P, INITIAL, 3, 40, np.random.default_rng(3), start)
        steps = sample_chains([P] * 39, INITIAL, 3, 40, np.random.default_rng(3), start)
        assert np.array_equal(old, new) and np.array_equal(new, steps)


def test_per_step_marginals_match_the_exact_marginals():
    users = 50_000
    x = sample_chains(KERNELS, INITIAL, users, 4, np.random.default_rng(0))
    marginal = INITIAL
    for t in range(4):
        frequency = np.bincount(x[:, t], minlength=2) / users
        error = np.sqrt(marginal * (1 - marginal) / users)
        assert (np.abs(frequency - marginal) <= 4 * error).all(), (t, frequency, marginal)
        if t < 3:
            marginal = marginal @ KERNELS[t]


def test_the_number_of_kernels_must_fit_the_length():
    with pytest.raises(ValueError, match="3 per-step kernels"):
        sample_chains(KERNELS[:2], INITIAL, 5, 4, np.random.default_rng(0))
