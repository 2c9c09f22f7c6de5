"""Utility metrics of the Top-K experiments.

Source: Bai et al., Composition for Pufferfish Privacy, §7.1.5.  For one query (one group) with true
counts ``c`` over ``m`` categories and a predicted ranking ``π̂ = (π̂_1, ..., π̂_K)``:

* **Acc@k** — 1 when the category predicted at rank ``k`` is the one truly at rank ``k`` (the
  exact rank must match), else 0.
* **HR@K** (hit rate) — ``|{π̂_1..π̂_K} ∩ {π_1..π_K}| / K``: order does not matter.
* **NDCG@K** — ``DCG@K = Σ_k rel(π̂_k) / log2(k+1)`` with ``rel`` the true count, divided by the DCG
  of the ideal ranking (IDCG); in ``[0, 1]``.  (IDCG = 0 only when every count is 0; NDCG is then
  defined as 1.)
* **ℓ1 count error** — ``Σ_k |c(π̂_k) − c(π_k)|``: the count of the category placed at rank ``k``
  against the count of the category truly at rank ``k``.
* **Majority** baseline — the Top-K of the training data used as the prediction.

The true ranking sorts by count, ties broken by the smaller category index (a fixed, documented
rule: with tied counts Acc@k depends on it, HR/NDCG/ℓ1 do not for ties inside the top K).
All functions are ``O(m log m)`` at most.

>>> counts = [5, 9, 1, 7]
>>> evaluate((1, 0, 3), counts, 3)["acc"]
[1.0, 0.0, 0.0]
>>> round(evaluate((1, 0, 3), counts, 3)["ndcg"], 4)
0.9835
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pufferfish.models.errors import ModelError

METRICS_DIRECTION = {"acc": 1, "hr": 1, "ndcg": 1, "l1": -1}
"""+1: higher is better; -1: lower is better (ℓ1)."""


def true_ranking(counts: Sequence[int] | np.ndarray, K: int) -> tuple[int, ...]:
    """The categories of the K largest counts, in order (ties: smaller index first)."""
    c = np.asarray(counts)
    if not 1 <= K <= len(c):
        raise ModelError(f"K must be between 1 and the number of categories {len(c)}", "K")
    order = np.lexsort((np.arange(len(c)), -c))
    return tuple(int(x) for x in order[:K])


def _check(pred: Sequence[int], m: int, K: int) -> list[int]:
    pred = [int(p) for p in pred]
    if len(pred) != K or len(set(pred)) != K or any(not 0 <= p < m for p in pred):
        raise ModelError(f"a prediction is K = {K} distinct categories in 0..{m - 1}", "prediction")
    return pred


def acc_at_k(pred: Sequence[int], counts: Sequence[int], K: int) -> list[float]:
    """``[Acc@1, ..., Acc@K]`` for one query."""
    truth = true_ranking(counts, K)
    pred = _check(pred, len(counts), K)
    return [1.0 if p == t else 0.0 for p, t in zip(pred, truth)]


def hit_rate(pred: Sequence[int], counts: Sequence[int], K: int) -> float:
    """HR@K: the fraction of the true Top-K found anywhere in the predicted Top-K."""
    truth = set(true_ranking(counts, K))
    return len(truth & set(_check(pred, len(counts), K))) / K


def dcg(pred: Sequence[int], counts: Sequence[int]) -> float:
    """``Σ_k counts[pred_k] / log2(k + 1)`` (ranks ``k`` from 1)."""
    return sum(float(counts[p]) / math.log2(k + 2) for k, p in enumerate(pred))


def ndcg(pred: Sequence[int], counts: Sequence[int], K: int) -> float:
    """NDCG@K with the true counts as relevance."""
    pred = _check(pred, len(counts), K)
    ideal = dcg(true_ranking(counts, K), counts)
    return 1.0 if ideal == 0 else dcg(pred, counts) / ideal


def l1_error(pred: Sequence[int], counts: Sequence[int], K: int) -> float:
    """``Σ_k |c(π̂_k) − c(π_k)|``."""
    pred = _check(pred, len(counts), K)
    truth = true_ranking(counts, K)
    return float(sum(abs(int(counts[p]) - int(counts[t])) for p, t in zip(pred, truth)))


def evaluate(pred: Sequence[int], counts: Sequence[int], K: int) -> dict:
    """All metrics of one query: ``{"acc": [..K], "hr", "ndcg", "l1"}``."""
    counts = [int(c) for c in counts]
    return {"acc": acc_at_k(pred, counts, K), "hr": hit_rate(pred, counts, K),
            "ndcg": ndcg(pred, counts, K), "l1": l1_error(pred, counts, K)}


def metric_names(K: int) -> list[str]:
    """Flat metric names: ``acc@1..acc@K, hr, ndcg, l1``."""
    return [f"acc@{k}" for k in range(1, K + 1)] + ["hr", "ndcg", "l1"]


def metric_vector(pred: Sequence[int], counts: Sequence[int], K: int) -> np.ndarray:
    """:func:`evaluate` flattened in the order of :func:`metric_names`."""
    e = evaluate(pred, counts, K)
    return np.array(e["acc"] + [e["hr"], e["ndcg"], e["l1"]])


def majority_prediction(train_counts: Sequence[int], K: int) -> tuple[int, ...]:
    """The Majority baseline of §7.1.5: the training data's Top-K as the prediction."""
    return true_ranking(train_counts, K)
