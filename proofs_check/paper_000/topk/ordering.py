"""Statistical checks of a utility ordering between two Top-K mechanisms, cell by cell.

Source: Bai et al., Composition for Pufferfish Privacy, §7.2, §7.3 and Appendix D.3, which draw
orderings ("Ours-Exp outperformed all other baselines", "outperformed or showed on-par utility")
from Tables 2–5 and 7–8.  The paper's data are not available here, so the orderings are checked on
the synthetic reproduction (:mod:`pufferfish.proofs_check.paper_000.topk.experiment`): these are
**statistical checks on synthetic data**, not the paper's numbers.

**Definition.**  Fix the data set (the expectation is over the mechanisms' randomness only).  For
mechanisms ``A`` (better) and ``B`` (worse), an ε_puffer and a metric, trial ``t`` and group ``g``
give the paired difference ``d_{t,g} = s·(metric_A − metric_B)`` (``s = +1`` when higher is better,
``−1`` for the ℓ1 error).  A table cell is the mean over groups, so the difference of the two cells'
expectations is ``μ = E[(1/G) Σ_g d_{t,g}]``.  The ordering "A ≥ B up to ``margin``" is
``μ > −margin`` (``margin = 0``: A outperforms B).

**Bound.**  Every release is a fresh draw (:func:`~pufferfish.proofs_check.paper_000.topk.
experiment.run_trial_by_group`), so the ``N = n·G`` differences are independent, and
``d_{t,g} ∈ [−R_g, R_g]`` with ``R_g`` the range of the metric in group ``g`` (1 for Acc@k, HR,
NDCG; ``K·(max count − min count)`` for ℓ1, since each term ``|c̃_k − c_k|`` is a difference of two
of the group's counts).  Hoeffding's inequality for independent bounded variables gives
``P(|d̄ − μ| >= r) <= δ`` for ``r = sqrt(ln(2/δ) · Σ_{t,g} (2R_g)² / 2) / N``.  A claim's cells are
decided simultaneously at confidence ``1 − α`` by Bonferroni: ``δ = α / cells``.

**Verdict of a cell.**  ``holds`` when ``d̄ − r > −margin`` (the ordering holds at the stated
confidence), ``violated`` when ``d̄ + r < −margin`` (the reverse holds at that confidence: ``B``
beats ``A`` by more than the margin), ``undecided`` otherwise.  The means and the radius are
floating-point sample statistics; no exact quantity is decided here.

Cost: ``O(n · G)`` per cell once the samples are drawn (:func:`collect_samples`:
``n`` trials of :func:`run_trial_by_group`).

>>> import numpy as np
>>> hoeffding_radius(np.full(100, 2.0), 0.05) < 0.28
True
>>> cell = decide_cell(np.full((50, 2), 0.3), np.ones(2), 0.05, 0.0)
>>> cell.verdict, round(cell.difference, 2)
('holds', 0.3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.proofs_check.paper_000.topk.experiment import TopKSetup, run_trial_by_group
from pufferfish.proofs_check.paper_000.topk.mechanisms import MECHANISMS
from pufferfish.proofs_check.paper_000.topk.metrics import METRICS_DIRECTION, metric_names


@dataclass(frozen=True)
class TopKSamples:
    """Per-release metrics of ``trials`` trials: ``values[t, ε, mechanism, group, metric]``."""

    setup: TopKSetup
    values: np.ndarray
    trials: int
    seed: int

    def metric_index(self, metric: str) -> int:
        return metric_names(self.setup.K).index(metric)

    def paired_differences(self, epsilon: str, metric: str, better: str, worse: str) -> np.ndarray:
        """``d_{t,g}`` (utility sense, array ``(trials, groups)``) of ``better`` over ``worse``."""
        e = self.setup.epsilons.index(epsilon)
        j = self.metric_index(metric)
        sign = METRICS_DIRECTION[metric.split("@")[0]]
        a, b = MECHANISMS.index(better), MECHANISMS.index(worse)
        return sign * (self.values[:, e, a, :, j] - self.values[:, e, b, :, j])

    def cell_mean(self, epsilon: str, metric: str, mechanism: str) -> float:
        """The table cell: the mean of ``metric`` over trials and groups."""
        e = self.setup.epsilons.index(epsilon)
        return float(self.values[:, e, MECHANISMS.index(mechanism), :, self.metric_index(metric)]
                     .mean())

    def metric_ranges(self, metric: str) -> np.ndarray:
        """``R_g`` per group: 1 for rates and NDCG, ``K·(max − min count)`` for ℓ1."""
        if metric != "l1":
            return np.ones(len(self.setup.counts))
        return np.array([self.setup.K * float(c.max() - c.min()) for c in self.setup.counts])


def collect_samples(setup: TopKSetup, trials: int, seed: int) -> TopKSamples:
    """``trials`` trials of :func:`run_trial_by_group`, trial ``t`` seeded with
    ``SeedSequence(seed).spawn(trials)[t]`` (the seeds of ``experiment topk``)."""
    seeds = np.random.SeedSequence(seed).spawn(trials)
    return TopKSamples(setup, np.stack([run_trial_by_group(setup, s) for s in seeds]), trials,
                       seed)


def hoeffding_radius(widths: np.ndarray, delta: float) -> float:
    """``r`` with ``P(|mean − μ| >= r) <= δ`` for independent variables whose ranges have the
    given ``widths`` (Hoeffding): ``sqrt(ln(2/δ) · Σ w² / 2) / N``."""
    widths = np.asarray(widths, dtype=float).ravel()
    return math.sqrt(math.log(2 / delta) * float(np.sum(widths ** 2)) / 2) / len(widths)


@dataclass(frozen=True)
class DecidedCell:
    """A mean paired difference, its Hoeffding radius and the ordering's margin."""

    difference: float
    radius: float
    margin: float
    delta: float

    @property
    def verdict(self) -> str:
        if self.difference - self.radius > -self.margin:
            return "holds"
        if self.difference + self.radius < -self.margin:
            return "violated"
        return "undecided"


def decide_cell(differences: np.ndarray, ranges: np.ndarray, delta: float,
                margin: float) -> DecidedCell:
    """The verdict of "mean difference > −margin" from ``differences[t, g]`` with
    ``|d_{t,g}| <= ranges[g]``, at per-cell error probability ``delta``."""
    differences = np.asarray(differences, dtype=float)
    widths = np.broadcast_to(2 * np.asarray(ranges, dtype=float), differences.shape)
    return DecidedCell(float(differences.mean()), hoeffding_radius(widths, delta), margin, delta)


__all__ = ["TopKSamples", "collect_samples", "hoeffding_radius", "DecidedCell", "decide_cell"]
