"""Synthetic sequences (models/sequences.py) and the prior fit of ``000_65109fe28ca61d17.txt``
§7.1.4 with Appendix D.2's smoothing (models/priors_fit.py)."""

from fractions import Fraction as F

import numpy as np
import pytest

from pufferfish.models.errors import ModelError
from pufferfish.proofs_check.paper_000.topk.prior_fit import (TAU, add_others_state, empirical_matrix, fit_chain, smooth,
                               transition_counts)
from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate, generate_with_truth, sample_chains

# Appendix D.2's 5×5 example: the printed rows are counts normalised (denominators 18, 14, 83,
# 78, 318), printed with 4 decimals; the smoothed 6×6 matrix is printed with 5.
COUNTS_D2 = [[9, 0, 3, 1, 5], [2, 5, 2, 1, 4], [3, 1, 39, 11, 29], [0, 0, 7, 36, 35],
             [4, 8, 32, 29, 245]]
PRINTED_INPUT = [[0.5, 0., 0.1666, 0.0555, 0.2777], [0.1428, 0.3571, 0.1428, 0.0714, 0.2857],
                 [0.0361, 0.0120, 0.4698, 0.1325, 0.3493], [0., 0., 0.0897, 0.4615, 0.4487],
                 [0.0125, 0.0251, 0.1006, 0.0911, 0.7704]]
PRINTED_SMOOTHED = [[0.49999, 1e-05, 0.16666, 0.05555, 0.27777, 1e-05],
                    [0.14286, 0.35714, 0.14286, 0.07143, 0.28571, 1e-05],
                    [0.03614, 0.01205, 0.46987, 0.13253, 0.34939, 1e-05],
                    [1e-05, 1e-05, 0.08974, 0.46152, 0.44870, 1e-05],
                    [0.01258, 0.02516, 0.10063, 0.09119, 0.77043, 1e-05],
                    [0.19999, 0.19999, 0.19999, 0.19999, 0.19999, 1e-05]]


def test_appendix_d2_example_input_matches_counts():
    """The reconstructed counts reproduce the printed 5×5 matrix (truncated to 4 decimals)."""
    m = empirical_matrix(COUNTS_D2)
    for row, printed in zip(m, PRINTED_INPUT):
        for p, q in zip(row, printed):
            assert 0 <= float(p) - q < 1e-4


def test_appendix_d2_smoothing_example():
    """Appendix D.2: add the "others" state, smooth with τ = 1e-5; agrees with the printed matrix
    to its last printed digit (|diff| <= 1e-5; the "others" row prints 0.19999 for 0.199998)."""
    smoothed = smooth(add_others_state(empirical_matrix(COUNTS_D2)))
    assert len(smoothed) == 6
    for row, printed in zip(smoothed, PRINTED_SMOOTHED):
        assert sum(row) == 1 and all(p > 0 for p in row)
        for p, q in zip(row, printed):
            assert abs(float(p) - q) <= 1e-5 + 1e-12
    assert smoothed[0][0] == F(1, 2) * (1 - 2 * TAU)          # two zeros in row 0
    assert smoothed[3][3] == F(36, 78) * (1 - 3 * TAU)        # three zeros in row 3
    assert smoothed[5] == tuple([F(1, 5) * (1 - TAU)] * 5 + [TAU])


def test_smoothing_rules():
    assert smooth([[F(1)]]) == ((F(1),),)
    assert smooth([[F(1, 2), F(1, 2)]]) == ((F(1, 2), F(1, 2)),)     # no zeros: unchanged
    with pytest.raises(ModelError):
        smooth([[F(1), 0, 0]], tau=F(1, 2))                            # needs more than the mass
    with pytest.raises(ModelError):
        smooth([[F(-1), F(2)]])


def test_counts_and_empirical_matrix():
    counts = transition_counts([[0, 1, 1, 0], [1, 1]], 3)
    assert counts.tolist() == [[0, 1, 0], [1, 2, 0], [0, 0, 0]]
    m = empirical_matrix(counts)
    assert m[1] == (F(1, 3), F(2, 3), F(0)) and m[2] == (F(1, 3),) * 3   # unobserved: uniform
    with pytest.raises(ModelError):
        transition_counts([[0, 5]], 3)


def test_fit_chain_is_stationary_and_smoothed():
    chain = fit_chain([[0, 1, 1, 0, 2, 2], [1, 0]], ("a", "b", "c"), length=4)
    assert chain.length == 4 and all(p > 0 for row in chain.matrix for p in row)
    pi = chain.initial
    assert all(sum(pi[x] * chain.matrix[x][y] for x in range(3)) == pi[y] for y in range(3))
    assert chain.matrix[0][1] == F(1, 2) * (1 - TAU)        # row a: a->b once, a->c once, one zero


@pytest.mark.parametrize("name", ["checkins", "activities"])
def test_generator_shapes_and_determinism(name):
    shape = SHAPES[name].scaled(0.1)
    a, b = generate(shape, seed=3), generate(shape, seed=3)
    assert a.k == (78 if name == "checkins" else 11)
    for g in a.groups:
        assert all(np.array_equal(x, y) for x, y in zip(a.test[g], b.test[g]))
        assert all(0 <= s.min() and s.max() < a.k for s in a.test[g] + a.train[g])
    c = generate(shape, seed=4)
    assert any(not np.array_equal(x, y) for g in a.groups for x, y in zip(a.test[g], c.test[g]))
    assert a.max_length("test") <= shape.test_length
    if name == "activities":
        assert all(len(a.test[g]) == shape.held_out for g in a.groups)


def test_sampled_transitions_follow_the_matrix():
    """Empirical transition frequencies of a long sample approach the generating matrix."""
    rng = np.random.default_rng(0)
    P = np.array([[0.9, 0.1], [0.3, 0.7]])
    seqs = sample_chains(P, np.array([0.75, 0.25]), 50, 400, rng)
    counts = transition_counts(list(seqs), 2).astype(float)
    assert np.allclose(counts / counts.sum(axis=1, keepdims=True), P, atol=0.02)


def test_truth_matrices_are_stochastic():
    truth = generate_with_truth(SHAPES["activities"].scaled(0.1), seed=0)
    for before, after in truth.matrices.values():
        assert np.allclose(before.sum(axis=1), 1) and np.allclose(after.sum(axis=1), 1)
