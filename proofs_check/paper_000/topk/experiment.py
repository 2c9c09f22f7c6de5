"""The Top-K experiment of Bai et al., Composition for Pufferfish Privacy, §7 (Tables 2–5, 7–8) on
sequence data.

Pipeline (§7.1): data (synthetic :mod:`pufferfish.proofs_check.paper_000.topk.sequences` or real :mod:`pufferfish.proofs_check.paper_000.topk.real_data`) → prior
fitted on the training split with Appendix D.2's smoothing (:func:`pufferfish.proofs_check.paper_000.topk.prior_fit.fit_chain`,
chain length ``T`` = the longest test sequence) → certified a(b) curve
(:func:`pufferfish.verify.influence.chains.stationary_chain_curve_bounds`) → the four calibrations per
ε_puffer (:mod:`pufferfish.proofs_check.paper_000.topk.mechanisms`) → per trial, one noisy Top-K answer per group and mechanism, scored
with :mod:`pufferfish.proofs_check.paper_000.topk.metrics` and averaged over groups → mean and 95% Student-t confidence
interval over trials.

**Determinism.**  Trial ``t`` draws from ``default_rng(SeedSequence(seed).spawn(trials)[t])`` in a
fixed order (ε, mechanism, group), so results do not depend on the number of worker processes.

**Claims checked** (§7.2–7.3, cell by cell): for every ε and metric, Ours-Exp ≥ MQM, MQM ≥ Group
DP-Exp and MQM ≥ Group DP-Lap (for ℓ1: ≤); for every mechanism and metric, utility is
non-decreasing in ε.  A cell "holds" when the mean difference has the claimed sign (ties count as
holding), and is "significant" when the 95% CI of the paired difference over trials excludes 0.

Cost: setup ``O(k³ T + MQM)`` once per ε; each trial ``O(|ε| · groups · (K m + m log m))``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.proofs_check.paper_000.topk.prior_fit import TAU, fit_chain
from pufferfish.proofs_check.paper_000.topk.sequences import SequenceData
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.influence.chains import ChainCurveBounds, stationary_chain_curve_bounds
from pufferfish.proofs_check.paper_000.topk.mechanisms import EPSILONS, MECHANISMS, calibrate_all, release
from pufferfish.proofs_check.paper_000.topk.metrics import METRICS_DIRECTION, metric_names, metric_vector, majority_prediction


@dataclass(frozen=True)
class TopKSetup:
    """Everything a trial needs (picklable): test counts per group and the calibrations."""

    K: int
    epsilons: tuple[str, ...]
    groups: tuple[str, ...]
    counts: tuple[np.ndarray, ...]
    calibrations: dict            # (epsilon, mechanism) -> Calibration
    curve: ChainCurveBounds
    data_summary: dict
    majority: dict                # metric name -> value (averaged over groups)


def fit_prior(data: SequenceData) -> tuple[MarkovChain, ChainCurveBounds]:
    """The prior fitted on the training split (chain length ``T`` = the longest test sequence)
    and its certified a(b) curve; independent of ``K``, so one fit serves Top-3 and Top-5."""
    T = data.max_length("test")
    chain = fit_chain(data.train_sequences(), data.states, T, TAU, name="fitted prior")
    return chain, stationary_chain_curve_bounds([chain])


def build_setup(data: SequenceData, K: int = 3, epsilons=EPSILONS,
                prior: tuple[MarkovChain, ChainCurveBounds] | None = None) -> TopKSetup:
    """Fit the prior (unless ``prior`` = :func:`fit_prior`'s result is given), compute the curve
    and calibrate every mechanism for every ε."""
    chain, curve = fit_prior(data) if prior is None else prior
    calibrations = {}
    for eps in epsilons:
        for mech, cal in calibrate_all(eps, chain, curve, data.k, K).items():
            calibrations[(eps, mech)] = cal
    test = data.counts("test")
    train = data.counts("train")
    names = metric_names(K)
    majority = np.mean([metric_vector(majority_prediction(train[g], K), test[g], K)
                        for g in data.groups], axis=0)
    return TopKSetup(K, tuple(epsilons), data.groups, tuple(test[g] for g in data.groups),
                     calibrations, curve, data.summary(), dict(zip(names, majority.tolist())))


def run_trial_by_group(setup: TopKSetup, seed: np.random.SeedSequence) -> np.ndarray:
    """One trial, per group: array ``(len(ε), len(MECHANISMS), groups, metrics)``.

    The releases are drawn from ``default_rng(seed)`` in the order ε, mechanism, group, so every
    release is an independent draw; :func:`run_trial` averages this array over the groups.
    """
    rng = np.random.default_rng(seed)
    names = metric_names(setup.K)
    out = np.zeros((len(setup.epsilons), len(MECHANISMS), len(setup.counts), len(names)))
    for e, eps in enumerate(setup.epsilons):
        for m, mech in enumerate(MECHANISMS):
            cal = setup.calibrations[(eps, mech)]
            for g, counts in enumerate(setup.counts):
                out[e, m, g] = metric_vector(release(cal, counts, rng), counts, setup.K)
    return out


def run_trial(setup: TopKSetup, seed: np.random.SeedSequence) -> np.ndarray:
    """One trial: array ``(len(ε), len(MECHANISMS), metrics)`` averaged over groups (summed in
    group order, then divided by the number of groups)."""
    by_group = run_trial_by_group(setup, seed)
    out = np.zeros((len(setup.epsilons), len(MECHANISMS), by_group.shape[-1]))
    for e in range(len(setup.epsilons)):
        for m in range(len(MECHANISMS)):
            total = np.zeros(by_group.shape[-1])
            for row in by_group[e, m]:
                total += row
            out[e, m] = total / len(setup.counts)
    return out


def _trial_chunk(setup: TopKSetup, seeds: list) -> list[np.ndarray]:
    """The trials of a chunk of seeds (a task)."""
    return [run_trial(setup, s) for s in seeds]


def run_trials(setup: TopKSetup, trials: int, seed: int, engine: Engine | None = None,
               progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """All trials: array ``(trials, len(ε), len(MECHANISMS), metrics)``.  Trial ``t`` draws from
    the ``t``-th child of ``SeedSequence(seed)``, so the result does not depend on where the
    chunks of trials run (``engine``: this process by default, or a Dask cluster)."""
    engine = engine or InProcessEngine()
    seeds = np.random.SeedSequence(seed).spawn(trials)
    size = max(1, min(25, math.ceil(trials / max(1, 4 * engine.workers))))
    chunks = [seeds[i:i + size] for i in range(0, trials, size)]
    lengths = [len(c) for c in chunks]

    def trials_done(done: int, total: int) -> None:
        if progress:
            progress(sum(lengths[:done]) if done < total else trials, trials)
    parts = engine.map(_trial_chunk, [(c,) for c in chunks], trials_done, shared=setup)
    return np.stack([trial for part in parts for trial in part])


def _interval(values: np.ndarray) -> tuple[float, float, float]:
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return mean, mean, mean
    half = float(stats.t.ppf(0.975, n - 1) * values.std(ddof=1) / math.sqrt(n))
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class ClaimCell:
    """One comparison: ``better`` ≥ ``worse`` on ``metric`` at ``epsilon`` (utility sense)."""

    claim: str
    epsilon: str
    metric: str
    better: str
    worse: str
    difference: tuple[float, float, float]   # mean, ci low, ci high (utility sense, > 0 = better)

    @property
    def holds(self) -> bool:
        return self.difference[0] >= 0

    @property
    def significant(self) -> bool:
        return self.difference[1] > 0 or self.difference[2] < 0

    def to_dict(self) -> dict:
        return {"claim": self.claim, "epsilon": self.epsilon, "metric": self.metric,
                "better": self.better, "worse": self.worse,
                "difference": list(self.difference), "holds": self.holds,
                "significant": self.significant}


@dataclass(frozen=True)
class TopKResult:
    """Means and 95% CIs per (ε, mechanism, metric), the calibrations and the claim cells."""

    setup: TopKSetup
    trials: int
    seed: int
    summary: dict                 # (eps, mech, metric) -> (mean, lo, hi)
    claims: tuple[ClaimCell, ...] = field(default_factory=tuple)

    @property
    def holds(self) -> bool:
        return all(c.holds for c in self.claims)

    def failures(self) -> list[ClaimCell]:
        return [c for c in self.claims if not c.holds]

    def to_dict(self) -> dict:
        return {"check": "topk_experiment", "K": self.setup.K, "trials": self.trials,
                "seed": self.seed, "data": self.setup.data_summary,
                "majority": self.setup.majority,
                "curve": self.setup.curve.to_dict(),
                "calibrations": [c.to_dict() for c in self.setup.calibrations.values()],
                "results": [{"epsilon": e, "mechanism": m, "metric": k, "mean": v[0],
                             "ci95": [v[1], v[2]]} for (e, m, k), v in self.summary.items()],
                "claims": [c.to_dict() for c in self.claims], "holds": self.holds}


def summarise(setup: TopKSetup, samples: np.ndarray, trials: int, seed: int) -> TopKResult:
    """Confidence intervals and the claim cells from the per-trial array."""
    names = metric_names(setup.K)
    summary = {}
    for e, eps in enumerate(setup.epsilons):
        for m, mech in enumerate(MECHANISMS):
            for j, name in enumerate(names):
                summary[(eps, mech, name)] = _interval(samples[:, e, m, j])
    sign = np.array([METRICS_DIRECTION[n.split("@")[0]] for n in names])
    util = samples * sign          # larger = better for every metric
    claims = []
    index = {m: i for i, m in enumerate(MECHANISMS)}
    order = [("Ours-Exp ≥ MQM", "Ours-Exp", "MQM"), ("MQM ≥ Group DP-Exp", "MQM", "Group DP-Exp"),
             ("MQM ≥ Group DP-Lap", "MQM", "Group DP-Lap")]
    for e, eps in enumerate(setup.epsilons):
        for j, name in enumerate(names):
            for label, a, b in order:
                diff = util[:, e, index[a], j] - util[:, e, index[b], j]
                claims.append(ClaimCell(label, eps, name, a, b, _interval(diff)))
    for e in range(1, len(setup.epsilons)):
        for m, mech in enumerate(MECHANISMS):
            for j, name in enumerate(names):
                diff = util[:, e, m, j] - util[:, e - 1, m, j]
                claims.append(ClaimCell("utility increases in ε", setup.epsilons[e], name,
                                        f"{mech} at ε={setup.epsilons[e]}",
                                        f"{mech} at ε={setup.epsilons[e - 1]}", _interval(diff)))
    return TopKResult(setup, trials, seed, summary, tuple(claims))


def run_experiment(data: SequenceData, K: int = 3, trials: int = 100, seed: int = 0,
                   engine: Engine | None = None, epsilons=EPSILONS,
                   progress: Callable[[int, int], None] | None = None) -> TopKResult:
    """Setup, trials and summary in one call."""
    setup = build_setup(data, K, epsilons)
    samples = run_trials(setup, trials, seed, engine, progress)
    return summarise(setup, samples, trials, seed)


# ------------------------------------------------------------------------------------------------
# presentation
# ------------------------------------------------------------------------------------------------

def _cell(value: tuple[float, float, float], metric: str) -> str:
    mean, lo, hi = value
    half = (hi - lo) / 2
    if metric == "ndcg":
        return f"{mean:.3f}±{half:.3f}"
    if metric == "l1":
        return f"{mean:.0f}±{half:.0f}"
    return f"{100 * mean:.1f}±{100 * half:.1f}%"


def tables_text(result: TopKResult) -> str:
    """The paper's two table layouts (Acc@k; HR/NDCG/ℓ1): rows ε_puffer, columns mechanism ×
    metric, cells ``mean±half-width of the 95% CI``."""
    from pufferfish.verify.report import table
    K = result.setup.K
    acc = [f"acc@{k}" for k in range(1, K + 1)]
    lines = []
    for title, metrics in ((f"Acc@k (Top-{K})", acc), (f"HR@{K}, NDCG@{K}, ℓ1 count error",
                                                       ["hr", "ndcg", "l1"])):
        headers = ["ε_puffer"] + [f"{m} {k.upper() if k != 'l1' else 'ℓ1'}"
                                  for m in MECHANISMS for k in metrics]
        rows = [[eps] + [_cell(result.summary[(eps, m, k)], k) for m in MECHANISMS for k in metrics]
                for eps in result.setup.epsilons]
        lines += [title, table(headers, rows), ""]
    return "\n".join(lines)


def calibration_text(result: TopKResult) -> str:
    from pufferfish.verify.report import table
    rows = []
    for eps in result.setup.epsilons:
        rows.append([eps] + [f"{result.setup.calibrations[(eps, m)].short()} "
                             f"[{result.setup.calibrations[(eps, m)].source}]"
                             for m in MECHANISMS[:2]])
        rows.append([""] + [result.setup.calibrations[(eps, m)].short() for m in MECHANISMS[2:]])
    return table(["ε_puffer", "Ours-Exp / Group DP-Exp", "MQM / Group DP-Lap"], rows)


def claims_text(result: TopKResult) -> str:
    lines = []
    groups: dict[str, list[ClaimCell]] = {}
    for c in result.claims:
        groups.setdefault(c.claim, []).append(c)
    for label, cells in groups.items():
        bad = [c for c in cells if not c.holds]
        weak = [c for c in cells if c.holds and not c.significant]
        lines.append(f"{label}: holds in {len(cells) - len(bad)}/{len(cells)} cells "
                     f"({len(weak)} of them within noise: 95% CI of the difference contains 0)")
        for c in bad:
            mean, lo, hi = c.difference
            lines.append(f"  FAILS at ε={c.epsilon}, {c.metric}: {c.better} vs {c.worse}: "
                         f"difference {mean:+.4g} [{lo:+.4g}, {hi:+.4g}]"
                         + (" (significant)" if c.significant else " (within noise)"))
    return "\n".join(lines)


def write_csv(result: TopKResult, path) -> None:
    import csv
    with open(path, "w", newline="", encoding="utf-8") as handle:
        w = csv.writer(handle)
        w.writerow(["epsilon_puffer", "mechanism", "metric", "mean", "ci95_low", "ci95_high",
                    "trials", "calibration"])
        for (eps, mech, metric), (mean, lo, hi) in result.summary.items():
            w.writerow([eps, mech, metric, f"{mean:.6g}", f"{lo:.6g}", f"{hi:.6g}", result.trials,
                        result.setup.calibrations[(eps, mech)].short()])


def write_plot(result: TopKResult, path) -> None:
    """Write :func:`plot_topk` to ``path``."""
    plot_topk(result, path)


def plot_topk(result: TopKResult, path=None):
    """The four panels of the Top-K experiment (Acc@1, HR@K, NDCG@K, ℓ1 count error against
    ε_puffer, 95% intervals) as a :class:`matplotlib.figure.Figure`, written to ``path`` when one
    is given.

    >>> from pufferfish.proofs_check.paper_000.topk.sequences import SequenceShape, generate
    >>> shape = SequenceShape("tiny", ("a", "b", "c"), ("g1", "g2"), users=4, test_length=5,
    ...                       train_length=20)
    >>> figure = plot_topk(run_experiment(generate(shape), K=2, trials=3, epsilons=(1, 2)))
    >>> [axes.get_title() for axes in figure.axes]
    ['Acc@1', 'HR@2', 'NDCG@2', 'ℓ1 count error']
    """
    from pufferfish.verify.plotting import finish, new_figure

    eps = [float(e) for e in result.setup.epsilons]
    fig = new_figure((16, 3.6))
    axes = fig.subplots(1, 4)
    for ax, metric, label in zip(axes, ["acc@1", "hr", "ndcg", "l1"],
                                 ["Acc@1", f"HR@{result.setup.K}", f"NDCG@{result.setup.K}",
                                  "ℓ1 count error"]):
        for mech in MECHANISMS:
            vals = [result.summary[(e, mech, metric)] for e in result.setup.epsilons]
            mean = np.array([v[0] for v in vals])
            err = np.array([(v[2] - v[1]) / 2 for v in vals])
            ax.errorbar(eps, mean, yerr=err, marker="o", capsize=3, label=mech)
        ax.set_xlabel("ε_puffer")
        ax.set_title(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Top-{result.setup.K}: {result.setup.data_summary['source']}, "
                 f"{result.trials} trials (95% CI)")
    return finish(fig, path, dpi=110, tight=True)
