"""``sample_chains`` of 002's figures with per-step kernels (a non-homogeneous chain, the model
format's ``transitions``): the homogeneous case draws exactly what it drew before, equal kernels
give the same trajectories as the one matrix, and sampled paths of a small chain whose state
space changes size along the way match the exact path distribution (enumeration) by a chi-square
test at the 0.001 level with a fixed seed."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import numpy as np
import pytest

from pufferfish.proofs_check.paper_002.figures import sample_chains

HOMOGENEOUS = [[F(3, 4), F(1, 4)], [F(1, 3), F(2, 3)]]
# 2 states -> 3 states -> 2 states
KERNELS = [[[F(1, 2), F(1, 4), F(1, 4)], [F(1, 10), F(3, 10), F(3, 5)]],
           [[F(9, 10), F(1, 10)], [F(1, 2), F(1, 2)], [F(1, 5), F(4, 5)]]]
INITIAL = [F(2, 5), F(3, 5)]
CHI_SQUARE_0001 = {11: 31.264}       # upper 0.001 quantile of χ² with 11 degrees of freedom


def _before(matrix, initial, length, runs, rng):
    """The homogeneous sampler as it was before per-step kernels (reference)."""
    P = np.array([[float(p) for p in row] for row in matrix])
    cum = np.cumsum(P, axis=1)
    cum[:, -1] = 1.0
    q = np.cumsum(np.asarray(initial, dtype=float))
    q[-1] = 1.0
    x = np.empty((runs, length), dtype=np.int64)
    x[:, 0] = np.searchsorted(q, rng.random(runs), side="right")
    for t in range(1, length):
        u = rng.random(runs)
        x[:, t] = (u[:, None] >= cum[x[:, t - 1]]).sum(axis=1)
    return x


def test_homogeneous_draws_are_unchanged_and_equal_kernels_agree():
    old = _before(HOMOGENEOUS, INITIAL, 30, 200, np.random.default_rng(7))
    new = sample_chains(HOMOGENEOUS, INITIAL, 30, 200, np.random.default_rng(7))
    steps = sample_chains([HOMOGENEOUS] * 29, INITIAL, 30, 200, np.random.default_rng(7))
    assert np.array_equal(old, new) and np.array_equal(new, steps)


def test_per_step_kernels_match_the_exact_path_distribution():
    runs = 40_000
    x = sample_chains(KERNELS, INITIAL, 3, runs, np.random.default_rng(0))
    paths = list(product(range(2), range(3), range(2)))
    exact = {p: INITIAL[p[0]] * KERNELS[0][p[0]][p[1]] * KERNELS[1][p[1]][p[2]] for p in paths}
    assert sum(exact.values()) == 1
    observed = {p: 0 for p in paths}
    for row in map(tuple, x):
        observed[row] += 1
    chi2 = sum((observed[p] - runs * float(q)) ** 2 / (runs * float(q)) for p, q in exact.items())
    assert chi2 < CHI_SQUARE_0001[len(paths) - 1]
    assert x[:, 1].max() == 2 and x[:, 2].max() == 1


def test_the_number_of_kernels_must_fit_the_length():
    with pytest.raises(ValueError, match="2 per-step kernels"):
        sample_chains(KERNELS[:1], INITIAL, 3, 5, np.random.default_rng(0))
