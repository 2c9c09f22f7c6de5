"""Metrics of ``000_65109fe28ca61d17.txt`` §7.1.5 on hand-made rankings."""

import math

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.proofs_check.paper_000.topk.metrics import (acc_at_k, evaluate, hit_rate, l1_error, majority_prediction,
                                 metric_vector, ndcg, true_ranking)

COUNTS = [5, 9, 1, 7, 3]          # true ranking: 1 (9), 3 (7), 0 (5)


def test_true_ranking_and_ties():
    assert true_ranking(COUNTS, 3) == (1, 3, 0)
    assert true_ranking([4, 4, 2], 2) == (0, 1)       # ties: smaller index first


def test_acc_at_k_needs_the_exact_rank():
    """§7.1.5: the most popular predicted second counts as incorrect."""
    assert acc_at_k((1, 3, 0), COUNTS, 3) == [1.0, 1.0, 1.0]
    assert acc_at_k((3, 1, 0), COUNTS, 3) == [0.0, 0.0, 1.0]


def test_hit_rate_ignores_order():
    assert hit_rate((0, 3, 1), COUNTS, 3) == 1.0
    assert hit_rate((0, 4, 2), COUNTS, 3) == pytest.approx(1 / 3)


def test_ndcg_with_counts_as_relevance():
    idcg = 9 + 7 / math.log2(3) + 5 / 2
    assert ndcg((1, 3, 0), COUNTS, 3) == 1.0
    assert ndcg((0, 4, 2), COUNTS, 3) == pytest.approx((5 + 3 / math.log2(3) + 1 / 2) / idcg)
    assert ndcg((0, 1), [0, 0, 0], 2) == 1.0


def test_l1_count_error():
    """Swapping the top two costs |7−9| + |9−7|; predicting 4 instead of 0 costs |3−5|."""
    assert l1_error((3, 1, 0), COUNTS, 3) == 4.0
    assert l1_error((1, 3, 4), COUNTS, 3) == 2.0


def test_evaluate_and_vector_and_majority():
    e = evaluate((1, 0, 3), COUNTS, 3)
    assert e["acc"] == [1.0, 0.0, 0.0] and e["hr"] == 1.0 and e["l1"] == 4.0
    assert list(metric_vector((1, 0, 3), COUNTS, 3)) == [1.0, 0.0, 0.0, 1.0, e["ndcg"], 4.0]
    assert majority_prediction([0, 10, 3], 2) == (1, 2)


def test_bad_predictions():
    with pytest.raises(ModelError):
        acc_at_k((1, 1, 0), COUNTS, 3)
    with pytest.raises(ModelError):
        hit_rate((1, 9, 0), COUNTS, 3)
    with pytest.raises(ModelError):
        true_ranking(COUNTS, 6)
