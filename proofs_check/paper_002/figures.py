"""Figures 1, 3 and 4 of Wang et al., Privacy-Preserving Analysis of Correlated Data (§5,
Appendix B.11, B.12) as PNG files.

Both compare the Markov Quilt Mechanism with the inferential-privacy algorithm of [11]
(Appendix B.10) on binary chains ``P = [[p0, 1−p0], [1−p1, p1]]`` of length ``T = 100`` releasing
the sum ``S`` (1-Lipschitz).  All numbers here are **numerical** (float search, numpy inverse),
for plotting; the certified values come from :mod:`pufferfish.verify.quilts.chain_search`.

* **Figure 1** (§5): for ``ℓ`` from 0.1 to 0.4 and ``u = 1 − ℓ``, ``Θ = [ℓ, u]``; as in §5 the noise
  of each method is the maximum over a grid of ``θ = (p0, p1) ∈ Θ`` (9 × 9 points including the
  corners) of the noise that θ alone needs — this is private for every θ because Pufferfish
  privacy is a per-θ condition.  MQM uses the exact max-influence with any initial distribution.
  Data: ``p0, p1`` uniform on ``[ℓ, u]``, initial distribution uniform on the simplex, a chain of
  ``T`` states; the error ``|S' − S|/T`` is averaged over ``runs`` seeded runs and multiplied by ε
  (the paper scales the y-axis to ``1/ε``).  [11] is drawn only where ``‖Γ‖₂ < 1`` for every θ.
* **Figure 3** (B.11): for each ``(p0, p1)`` on a grid in ``[0.01, 0.99]²`` (99 × 99 in the paper),
  which method adds less noise: white where [11] gives no guarantee, yellow where MQM adds less,
  blue where [11] adds less.

* **Figure 4** (B.12): the private histogram of a k = 5 state aperiodic, irreducible, reversible
  chain generated with ``π_min ≥ π_gen = 1/20`` and ``g ≥ g_gen = 1/10``
  (:func:`generate_reversible_chain`, guarantees verified exactly / certified), released by the
  MQM with conservative estimates ``π_est ≤ π_gen``, ``g_est ≤ g_gen``; mean ``L₁`` error over
  100 runs (a new data set each run) against ``log ε``, in three panels varying ``π_est``,
  ``g_est`` and ``T`` (:func:`figure4_data`, :func:`make_figure4`).  About 10 s with the defaults.

Runtime with the defaults (500 runs, 99 × 99 grid): a few minutes; the grid is symmetric under
``p0 ↔ p1`` (relabelling the states), so half of it is computed.

:func:`plot_figure_1`, :func:`plot_figure_3` and :func:`plot_figure_4` return each figure (a
:class:`matplotlib.figure.Figure`, shown in a notebook) and write it only when given a path;
:func:`make_figures` and :func:`make_figure4` write the files of ``pufferfish mqm-figures``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.models.chain_family import ChainFamily, eigengap_interval
from pufferfish.verify.execution import Engine, InProcessEngine, usable_memory
from pufferfish.verify.quilts.chain_search import mqm_sigma_numerical
from pufferfish.verify.quilts.gk16 import gk16_gamma_ratio, gk16_noise
from pufferfish.verify.quilts.histogram import histogram_mechanism
from pufferfish.verify.report import Progress

EPSILONS = (1, 5, 10)
LENGTH = 100


def _mqm_sigma(p0: Fraction, p1: Fraction, eps: int, length: int, cache: dict) -> float:
    key = (min(p0, p1), max(p0, p1), eps, length)
    if key not in cache:
        chain = MarkovChain.binary(key[0], key[1], length)
        cache[key] = mqm_sigma_numerical(str(eps), family=ChainFamily((chain,), "any"))
    return cache[key]


def _gk16_sigma(p0: Fraction, p1: Fraction, eps: int, length: int, cache: dict) -> float | None:
    key = (min(p0, p1), max(p0, p1), eps, length, "gk")
    if key not in cache:
        gamma_key = (key[0], key[1], "gamma")       # the same for every ε and length
        if gamma_key not in cache:
            cache[gamma_key] = gk16_gamma_ratio(key[0], key[1])
        result = gk16_noise(cache[gamma_key], length, str(eps))
        cache[key] = result.noise_scale if result.applies else None
    return cache[key]


def sigma_task(keys: list[tuple]) -> list[float | None]:
    """The noise scales of ``keys`` — ``(p0, p1, ε, T)`` for MQM, ``(p0, p1, ε, T, "gk")`` for
    [11] — as :func:`_mqm_sigma` / :func:`_gk16_sigma` compute them (a task)."""
    cache: dict = {}
    return [(_gk16_sigma if len(key) == 5 else _mqm_sigma)(*key[:4], cache) for key in keys]


def precomputed_sigmas(keys: list[tuple], engine: Engine | None) -> dict:
    """The cache of :func:`_mqm_sigma` / :func:`_gk16_sigma` filled for ``keys`` (normalised,
    distinct), the scales computed in chunks of tasks on a Dask ``engine``; empty (the loops
    fill it lazily, computing only what they use) without one or in process."""
    if engine is None or isinstance(engine, InProcessEngine) or not keys:
        return {}
    distinct = list(dict.fromkeys((min(k[0], k[1]), max(k[0], k[1]), *k[2:]) for k in keys))
    size = max(1, -(-len(distinct) // (8 * engine.workers)))
    chunks = [distinct[i:i + size] for i in range(0, len(distinct), size)]
    values = [v for chunk in engine.map(sigma_task, [(chunk,) for chunk in chunks]) for v in chunk]
    return dict(zip(distinct, values))


def figure1_data(*, runs: int = 500, seed: int = 0, length: int = LENGTH,
                 lows: list[Fraction] | None = None, grid: int = 9,
                 engine: Engine | None = None) -> dict:
    """The curves of Figure 1: for each ε, ℓ ↦ averaged ``ε·|S' − S|/T`` for MQM and [11]
    (with ``engine``, the noise scales are computed first as tasks; the sampling stays here,
    in one seeded stream)."""
    lows = lows or [Fraction(1, 10) + Fraction(k, 40) for k in range(13)]
    rng = np.random.default_rng(seed)

    def grid_points(low: Fraction) -> list[Fraction]:
        return [low + (1 - 2 * low) * Fraction(j, grid - 1) for j in range(grid)]
    cache = precomputed_sigmas([(a, b, eps, length, *tag) for eps in EPSILONS for low in lows
                                for a in grid_points(low) for b in grid_points(low)
                                for tag in ((), ("gk",))], engine)
    data = {"lows": [float(x) for x in lows], "epsilons": list(EPSILONS), "mqm": {}, "gk16": {},
            "sigma_mqm": {}, "sigma_gk16": {}}
    progress = Progress(len(lows) * len(EPSILONS), "figure 1")
    for eps in EPSILONS:
        mqm_err, gk_err, mqm_sig, gk_sig = [], [], [], []
        for low in lows:
            high = 1 - low
            points = grid_points(low)
            s_mqm = max(_mqm_sigma(a, b, eps, length, cache) for a in points for b in points)
            gks = [_gk16_sigma(a, b, eps, length, cache) for a in points for b in points]
            s_gk = None if any(g is None for g in gks) else max(gks)
            errors_m, errors_g = [], []
            for _ in range(runs):
                p0, p1 = rng.uniform(float(low), float(high), size=2)
                q = rng.dirichlet([1.0, 1.0])
                x = np.empty(length, dtype=int)
                x[0] = rng.random() < q[1]
                stay = (p0, p1)
                for t in range(1, length):
                    x[t] = x[t - 1] if rng.random() < stay[x[t - 1]] else 1 - x[t - 1]
                s = x.sum()
                errors_m.append(abs(s + rng.laplace(0, s_mqm) - s) / length)
                if s_gk is not None:
                    errors_g.append(abs(s + rng.laplace(0, s_gk) - s) / length)
            mqm_err.append(eps * float(np.mean(errors_m)))
            gk_err.append(eps * float(np.mean(errors_g)) if s_gk is not None else None)
            mqm_sig.append(s_mqm)
            gk_sig.append(s_gk)
            progress.step(f"ε={eps} ℓ={float(low):.3f}")
        data["mqm"][eps], data["gk16"][eps] = mqm_err, gk_err
        data["sigma_mqm"][eps], data["sigma_gk16"][eps] = mqm_sig, gk_sig
    progress.close()
    return data


def figure3_data(*, grid: int = 99, length: int = LENGTH, engine: Engine | None = None) -> dict:
    """The region map of Figure 3: 0 = [11] fails, 1 = MQM adds less noise, 2 = [11] adds less
    (with ``engine``, the noise scales of the grid are computed first as tasks)."""
    values = [Fraction(k + 1, grid + 1) for k in range(grid)]
    pairs = [(p0, p1, eps, length) for eps in EPSILONS
             for i, p0 in enumerate(values) for p1 in values[i:]]
    cache = precomputed_sigmas([pair + ("gk",) for pair in pairs], engine)
    if cache:  # MQM's scale is needed only where [11] applies (as in the loop below)
        cache.update(precomputed_sigmas(
            [pair for pair in pairs if cache[(min(pair[:2]), max(pair[:2]), *pair[2:], "gk")]
             is not None], engine))
    maps = {}
    progress = Progress(len(EPSILONS) * grid, "figure 3")
    for eps in EPSILONS:
        region = np.zeros((grid, grid), dtype=int)
        for i, p0 in enumerate(values):
            for j, p1 in enumerate(values):
                if j < i:
                    region[i, j] = region[j, i]
                    continue
                gk = _gk16_sigma(p0, p1, eps, length, cache)
                if gk is None:
                    region[i, j] = 0
                else:
                    region[i, j] = 1 if _mqm_sigma(p0, p1, eps, length, cache) <= gk else 2
            progress.step(f"ε={eps}")
        maps[eps] = region
    progress.close()
    return {"values": [float(v) for v in values], "maps": maps}


def make_figures(out: Path, *, runs: int = 500, seed: int = 0, grid: int = 99,
                 engine: Engine | None = None) -> list[Path]:
    """Write ``figure_1.png`` and ``figure_3.png`` into ``out``; returns their paths (noise
    scales as tasks on ``engine`` when one is given)."""
    out.mkdir(parents=True, exist_ok=True)
    p1, p3 = out / "figure_1.png", out / "figure_3.png"
    plot_figure_1(p1, runs=runs, seed=seed, engine=engine)
    plot_figure_3(p3, grid=grid, engine=engine)
    return [p1, p3]


def plot_figure_1(path: Path | str | None = None, *, runs: int = 500, seed: int = 0,
                  engine: Engine | None = None, **options):
    """Figure 1 (:func:`figure1_data` with ``runs``, ``seed`` and ``options``: ``length``,
    ``lows``, ``grid``) as a :class:`matplotlib.figure.Figure`, written to ``path`` (PNG) when
    one is given.

    >>> figure = plot_figure_1(runs=2, length=10, lows=[Fraction(1, 10), Fraction(1, 5)], grid=2)
    >>> figure.axes[0].get_title(), figure.axes[0].get_yscale()
    ('ε = 1', 'log')
    """
    from pufferfish.verify.plotting import finish, new_figure

    d1 = figure1_data(runs=runs, seed=seed, engine=engine, **options)
    fig = new_figure((13, 3.8))
    axes = fig.subplots(1, len(EPSILONS))
    for ax, eps in zip(axes, EPSILONS):
        ax.plot(d1["lows"], d1["mqm"][eps], "o-", label="Markov Quilt Mechanism")
        gk = [np.nan if v is None else v for v in d1["gk16"][eps]]
        ax.plot(d1["lows"], gk, "s-", label="Inferential privacy [11]")
        works = [low for low, v in zip(d1["lows"], d1["gk16"][eps]) if v is not None]
        if works:
            ax.axvline(min(works), color="grey", linestyle="--")
        ax.set_title(f"ε = {eps}")
        ax.set_xlabel("ℓ (Θ = [ℓ, 1 − ℓ])")
        ax.set_ylabel("ε · mean |S' − S| / T")
        ax.set_yscale("log")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Figure 1 (Wang et al., Privacy-Preserving Analysis of Correlated Data, §5):\n"
                 f"T = {options.get('length', LENGTH)}, {runs} runs, seed {seed} (numerical)")
    return finish(fig, path, dpi=110, tight=True)


def plot_figure_3(path: Path | str | None = None, *, grid: int = 99, length: int = LENGTH,
                  engine: Engine | None = None):
    """Figure 3 (:func:`figure3_data` on a ``grid`` × ``grid`` grid, chains of ``length``) as a
    :class:`matplotlib.figure.Figure`, written to ``path`` (PNG) when one is given.

    >>> figure = plot_figure_3(grid=3, length=10)
    >>> [axes.get_title() for axes in figure.axes]
    ['ε = 1', 'ε = 5', 'ε = 10']
    """
    from matplotlib.colors import ListedColormap

    from pufferfish.verify.plotting import finish, new_figure

    d3 = figure3_data(grid=grid, length=length, engine=engine)
    fig = new_figure((13, 4.2))
    axes = fig.subplots(1, len(EPSILONS))
    cmap = ListedColormap(["white", "gold", "royalblue"])
    extent = (d3["values"][0], d3["values"][-1], d3["values"][0], d3["values"][-1])
    for ax, eps in zip(axes, EPSILONS):
        ax.imshow(d3["maps"][eps].T, origin="lower", cmap=cmap, vmin=0, vmax=2, extent=extent)
        ax.set_title(f"ε = {eps}")
        ax.set_xlabel("p0")
        ax.set_ylabel("p1")
    fig.suptitle(f"Figure 3 (002 B.11): white = [11] fails, yellow = MQM less noise, "
                 f"blue = [11] less noise; T = {length}, grid {grid}×{grid} (numerical)")
    return finish(fig, path, dpi=110, tight=True)


__all__ = ["figure1_data", "figure3_data", "make_figures", "plot_figure_1", "plot_figure_3",
           "EPSILONS"]


# ================================================================================================
# Figure 4 (Appendix B.12): the private histogram of a k-state reversible chain
# ================================================================================================

@dataclass(frozen=True)
class GeneratedChain:
    """A generated aperiodic, irreducible, reversible chain with its certified parameters.

    ``pi_min`` is exact (the exact stationary distribution); ``gap`` is a rational enclosure
    ``[lo, hi]`` of the eigengap ``g(P) = 1 − max{|λ| : λ ≠ 1}`` from
    :func:`pufferfish.models.chain_family.eigengap_interval`.  ``pi_gen <= pi_min`` and ``g_gen <= gap[0]`` hold (they
    are checked when the chain is generated).
    """

    chain: MarkovChain
    pi_gen: Fraction
    g_gen: Fraction
    pi_min: Fraction
    gap: tuple[Fraction, Fraction]
    seed: int

    def to_dict(self) -> dict:
        return {"transition": [[fraction_str(p) for p in row] for row in self.chain.matrix],
                "stationary": [fraction_str(p) for p in self.chain.stationary()],
                "pi_gen": fraction_str(self.pi_gen), "g_gen": fraction_str(self.g_gen),
                "pi_min": fraction_str(self.pi_min), "pi_min_float": float(self.pi_min),
                "eigengap": [float(self.gap[0]), float(self.gap[1])], "seed": self.seed}


def generate_reversible_chain(k: int, pi_gen: object, g_gen: object, *, seed: int = 0,
                              length: int = 1) -> GeneratedChain:
    """A random k-state chain with ``π_min(P) >= π_gen`` and ``g(P) >= g_gen`` (Appendix B.12 of
    Wang et al., Privacy-Preserving Analysis of Correlated Data: "generate an aperiodic, irreducible
    and reversible transition matrix P such that π_min(P) ≥ π_gen and g(P) ≥ g_gen"), exact
    rationals, seeded.

    Construction (every step exact):

    1. the stationary law ``π = π_gen·1 + (1 − kπ_gen)·u`` with ``u`` a random rational point of
       the simplex, so ``π_x >= π_gen`` (needs ``0 < π_gen <= 1/k``);
    2. a Metropolis chain ``Q`` for ``π``: a random symmetric proposal ``K`` (positive integer
       weights off the diagonal, scaled so the largest row sum is a random ``c <= 9/20``:
       a lazy proposal, so ``Q`` mixes slowly and ``g(P)`` is not far above ``g_gen``),
       ``Q(x,y) = K(x,y)·min(1, π_y/π_x)`` for ``x ≠ y``; ``π_x Q(x,y) = K(x,y)·min(π_x, π_y)`` is
       symmetric, so ``Q`` is π-reversible;
    3. ``P = (1 − g_gen)·Q + g_gen·1πᵀ`` (needs ``0 < g_gen < 1``).  ``P`` is π-reversible and
       ``P(x,y) >= g_gen·π_y > 0`` (irreducible and aperiodic).  The eigenvectors ``v ≠ 1`` of the
       reversible ``Q`` satisfy ``πᵀv = 0``, so ``Pv = (1 − g_gen)·Qv``: the eigenvalues of ``P``
       other than 1 are ``(1 − g_gen)·λ(Q)`` with ``|λ(Q)| < 1``, hence ``g(P) > g_gen``.

    The guarantees are then *verified*, not assumed: the exact stationary distribution of ``P``
    equals ``π`` (so ``π_min(P)`` is exact), detailed balance holds exactly, and the certified
    eigengap enclosure (:func:`pufferfish.models.chain_family.eigengap_interval`, sympy real-root isolation) has lower
    end ``>= g_gen``.  A draw that fails verification (it cannot, unless ``g(P) − g_gen`` is below
    the ``10^-15`` isolation width) is replaced by the next sub-seed.  Cost: ``O(k^3)`` exact
    arithmetic plus the eigenvalue isolation of a degree ``k − 1`` polynomial.
    """
    pi_g, g_g = exact(pi_gen, "pi_gen"), exact(g_gen, "g_gen")
    if not isinstance(k, int) or k < 2:
        raise ModelError("need k >= 2 states", "k")
    if not 0 < pi_g <= Fraction(1, k):
        raise ModelError(f"π_gen must lie in (0, 1/k] = (0, 1/{k}]", "pi_gen")
    if not 0 < g_g < 1:
        raise ModelError("g_gen must lie in (0, 1)", "g_gen")
    for attempt in range(20):
        rng = random.Random(seed * 1_000 + attempt)
        w = [rng.randint(0, 8) for _ in range(k)]
        if sum(w) == 0:
            w = [1] * k
        pi = [pi_g + (1 - k * pi_g) * Fraction(x, sum(w)) for x in w]
        S = [[0] * k for _ in range(k)]
        for x in range(k):
            for y in range(x + 1, k):
                S[x][y] = S[y][x] = rng.randint(1, 9)
        c = Fraction(rng.randint(1, 9), 20)
        scale = c / max(sum(row) for row in S)
        P = []
        for x in range(k):
            row = [(1 - g_g) * scale * S[x][y] * min(Fraction(1), pi[y] / pi[x]) + g_g * pi[y]
                   if y != x else Fraction(0) for y in range(k)]
            row[x] = 1 - sum(row)
            P.append(tuple(row))
        chain = MarkovChain(tuple(range(k)), tuple(P), length, None, f"generated(seed={seed})")
        if tuple(chain.stationary()) != tuple(pi) or not chain.is_reversible():
            raise ArithmeticError("generated chain: the stationary law is not the target π")
        gap = eigengap_interval(chain)
        if min(pi) >= pi_g and gap[0] >= g_g and all(p > 0 for row in P for p in row):
            return GeneratedChain(chain, pi_g, g_g, min(pi), gap, seed)
    raise ArithmeticError("could not certify a generated chain in 20 attempts")


def sample_chains(matrix, initial, length: int, runs: int, rng: np.random.Generator) -> np.ndarray:
    """``runs`` independent trajectories ``X_1..X_T`` of the chain (numerical, float sampling):
    an array of shape ``(runs, length)`` of state indices.  ``O(runs · T · k)``, vectorised over
    the runs.

    ``matrix`` is one row-stochastic matrix (a homogeneous chain) or a sequence of ``length − 1``
    per-step kernels, ``matrix[t]`` taking ``X_{t+1}`` to ``X_{t+2}`` (a non-homogeneous chain,
    the ``transitions`` of a model file's ``markov`` prior, ``models/priors.py``).  Each step
    draws one uniform per run in the same order either way, so a list of equal kernels gives the
    same trajectories as the one matrix for the same generator state.
    """
    from numbers import Number

    per_step = len(matrix) > 0 and not isinstance(matrix[0][0], Number)
    kernels = list(matrix) if per_step else [matrix]
    if per_step and len(kernels) != length - 1:
        raise ValueError(f"a chain of length {length} needs {length - 1} per-step kernels, got "
                         f"{len(kernels)}")
    cums = []
    for kernel in kernels:
        P = np.array([[float(p) for p in row] for row in kernel])
        cum = np.cumsum(P, axis=1)
        cum[:, -1] = 1.0
        cums.append(cum)
    q = np.cumsum(np.asarray(initial, dtype=float))
    q[-1] = 1.0
    x = np.empty((runs, length), dtype=np.int64)
    x[:, 0] = np.searchsorted(q, rng.random(runs), side="right")
    for t in range(1, length):
        u = rng.random(runs)
        cum = cums[t - 1] if per_step else cums[0]
        x[:, t] = (u[:, None] >= cum[x[:, t - 1]]).sum(axis=1)
    return x


FIG4_EPSILONS = ("1/10", "1/5", "1/2", "1", "2", "5", "10")
FIG4_PI_ESTS = ("1/100", "1/50", "3/100", "1/25", "1/20")
FIG4_G_ESTS = ("1/50", "1/25", "3/50", "2/25", "1/10")
FIG4_LENGTHS = (1000, 3000, 10000, 30000)
FIG4_LENGTH = 10000

MAX_FIG4_LENGTH = 10**6
"""The longest chain Figure 4 samples: a trajectory is drawn one step at a time for each ε of
each line (the paper's longest is ``T = 30000``)."""

BYTES_PER_SAMPLED_STATE = 16
"""Memory per sampled chain state of Figure 4: the trajectories (int64) and their offset copy
counted by ``np.bincount``."""


def check_figure4_size(repetitions: int, lengths) -> int:
    """Refuse a Figure 4 whose samples cannot fit: a chain longer than :data:`MAX_FIG4_LENGTH`,
    or ``repetitions × T`` states (for the longest ``T`` of ``lengths``) needing more than the
    memory this process may use (:func:`~pufferfish.verify.execution.usable_memory`); both are
    :class:`~pufferfish.models.errors.TooLargeError` with the figures.  Returns the bytes the
    largest sample needs."""
    longest = max(lengths)
    if longest > MAX_FIG4_LENGTH:
        raise TooLargeError(f"a chain of T = {longest:,} steps is longer than the limit of "
                            f"{MAX_FIG4_LENGTH:,} for Figure 4 (it is sampled one step at a time "
                            f"for each ε of each line)", "--length")
    needed = BYTES_PER_SAMPLED_STATE * repetitions * longest
    available = usable_memory()
    if available is not None and needed > available:
        raise TooLargeError(f"Figure 4 samples {repetitions:,} × {longest:,} chain states at "
                            f"once, about {needed / 2**30:.1f} GB, more than the "
                            f"{available / 2**30:.1f} GB this process may use; lower "
                            f"--repetitions or --length/--lengths", "--repetitions")
    return needed


def _l1_errors(gen: GeneratedChain, initial, mech, runs: int, rng: np.random.Generator) -> float:
    """Mean ``‖M(D) − F(D)‖₁`` over ``runs`` fresh data sets (numerical)."""
    k, T = gen.chain.k, mech.length
    x = sample_chains(gen.chain.matrix, initial, T, runs, rng)
    counts = np.bincount((x + k * np.arange(runs)[:, None]).ravel(), minlength=runs * k)
    f = counts.reshape(runs, k) / T
    noisy = f + rng.laplace(0.0, float(mech.scale), size=(runs, k))
    return float(np.abs(noisy - f).sum(axis=1).mean())


def figure4_data(*, repetitions: int = 100, seed: int = 0, k: int = 5, pi_gen: str = "1/20",
                 g_gen: str = "1/10", epsilons=FIG4_EPSILONS, pi_ests=FIG4_PI_ESTS,
                 g_ests=FIG4_G_ESTS, lengths=FIG4_LENGTHS, length: int = FIG4_LENGTH,
                 method: str = "fast") -> dict:
    """The three panels of Figure 4 (Wang et al., Privacy-Preserving Analysis of Correlated Data,
    Appendix B.12), numerical.

    One chain ``P`` (:func:`generate_reversible_chain` with ``k``, ``π_gen``, ``g_gen``) and one
    initial distribution ``q`` uniform on the simplex (Dirichlet(1, ..., 1)) are drawn with
    ``seed`` and fixed.  The mechanism knows only ``π_est <= π_gen`` and ``g_est <= g_gen`` and
    releases the histogram with :func:`pufferfish.verify.quilts.histogram.histogram_mechanism` with ``(π_est, g_est)``:
    by default Algorithm 5 (``method="fast"``, Lemma B.4 bounds; Claims B.10–B.11: the same σ as
    Algorithms 3–4 when its best quilt is interior, which ``002.claimB11.fast_private`` checks),
    ``method="approx"`` runs Algorithms 3–4 (same numbers here, about 50× slower at T = 10⁴).  For each panel — (a) ``π_est``
    varies (``g_est = g_gen``, ``T = length``), (b) ``g_est`` varies (``π_est = π_gen``,
    ``T = length``), (c) ``T`` varies (``π_est = π_gen``, ``g_est = g_gen``) — and each ε, the
    ``L₁`` error ``‖M(D) − F(D)‖₁`` is averaged over ``repetitions`` runs, each on a new data set
    ``X_1..X_T`` drawn from ``(P, q)``.  Also returned: the exact expectation ``k·b`` of that error
    (``b = 2σ_max/T``, the noise does not depend on the data) and σ_max.
    """
    check_figure4_size(repetitions, [length, *lengths])
    pi_g, g_g = exact(pi_gen, "pi_gen"), exact(g_gen, "g_gen")
    for v in pi_ests:
        if exact(v, "pi_est") > pi_g:
            raise ModelError(f"π_est = {v} exceeds π_gen = {pi_gen}: estimates must be "
                             "conservative (π_est <= π_gen)", "pi_est")
    for v in g_ests:
        if exact(v, "g_est") > g_g:
            raise ModelError(f"g_est = {v} exceeds g_gen = {g_gen}: estimates must be "
                             "conservative (g_est <= g_gen)", "g_est")
    gen = generate_reversible_chain(k, pi_g, g_g, seed=seed)
    rng = np.random.default_rng(seed)
    initial = rng.dirichlet(np.ones(k))
    panels = {"pi_est": [(v, str(v), fraction_str(g_g), length) for v in pi_ests],
              "g_est": [(v, fraction_str(pi_g), str(v), length) for v in g_ests],
              "T": [(T, fraction_str(pi_g), fraction_str(g_g), int(T)) for T in lengths]}
    total = sum(len(v) for v in panels.values()) * len(epsilons)
    progress = Progress(total, "figure 4")
    data = {"chain": gen.to_dict(), "initial": [float(x) for x in initial],
            "epsilons": [str(e) for e in epsilons], "repetitions": repetitions, "seed": seed,
            "method": method, "length": length, "panels": {}, "numerical": True}
    for name, lines in panels.items():
        out = []
        for value, pi_est, g_est, T in lines:
            mean, expect, sigma = [], [], []
            for eps in epsilons:
                mech = histogram_mechanism(T, str(eps), states=range(k), pi=pi_est, g=g_est,
                                           method=method)
                mean.append(_l1_errors(gen, initial, mech, repetitions, rng))
                expect.append(float(mech.expected_l1_error))
                sigma.append(mech.mqm.sigma[1])
                progress.step(f"{name}={value} ε={eps}")
            out.append({"value": str(value), "pi_est": pi_est, "g_est": g_est, "T": T,
                        "mean_l1": mean, "expected_l1": expect, "sigma_max": sigma})
        data["panels"][name] = out
    progress.close()
    return data


def make_figure4(out: Path, **settings) -> Path:
    """Write ``figure_4.png`` (three panels, ``L₁`` error vs ``log ε``) and its data
    ``figure_4.json`` into ``out``; settings as in :func:`figure4_data`.  Solid lines with markers: the simulated mean; dotted: the exact
    expectation ``k·b``."""
    out.mkdir(parents=True, exist_ok=True)
    d = figure4_data(**settings)
    path = out / "figure_4.png"
    plot_figure_4(path, data=d)
    (out / "figure_4.json").write_text(json.dumps(d, indent=1))
    return path


def plot_figure_4(path: Path | str | None = None, *, data: dict | None = None, **settings):
    """Figure 4 as a :class:`matplotlib.figure.Figure` (three panels, ``L₁`` error vs
    ``log ε``), written to ``path`` (PNG) when one is given: of ``data`` (what
    :func:`figure4_data` returns), else of :func:`figure4_data` with ``settings``.

    >>> figure = plot_figure_4(repetitions=2, epsilons=("1/2", "2"), pi_ests=("1/20",),
    ...                        g_ests=("1/10",), lengths=(150,), length=150)
    >>> [axes.get_xlabel() for axes in figure.axes]
    ['log ε', 'log ε', 'log ε']
    """
    from pufferfish.verify.plotting import finish, new_figure

    d = figure4_data(**settings) if data is None else data
    logs = [float(np.log(float(exact(e, "epsilon")))) for e in d["epsilons"]]
    fig = new_figure((15, 4.2))
    axes = fig.subplots(1, 3)
    titles = {"pi_est": ("(a) varying π_est", "π_est = {}", "g_est = {g}, T = {T}"),
              "g_est": ("(b) varying g_est", "g_est = {}", "π_est = {pi}, T = {T}"),
              "T": ("(c) varying T", "T = {}", "π_est = {pi}, g_est = {g}")}
    for ax, (name, lines) in zip(axes, d["panels"].items()):
        title, label, fixed = titles[name]
        for line in lines:
            (h,) = ax.plot(logs, line["mean_l1"], "o-", label=label.format(line["value"]))
            ax.plot(logs, line["expected_l1"], ":", color=h.get_color())
        first = lines[0]
        ax.set_title(f"{title}; {fixed.format(g=first['g_est'], pi=first['pi_est'], T=first['T'])}",
                     fontsize=9)
        ax.set_xlabel("log ε")
        ax.set_ylabel("mean L1 distance to the true histogram")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
    c = d["chain"]
    fig.suptitle(f"Figure 4 (002 B.12), numerical: k = {len(c['stationary'])}, π_gen = {c['pi_gen']}, "
                 f"g_gen = {c['g_gen']} (chain: π_min = {c['pi_min_float']:.4g}, "
                 f"g ≈ {c['eigengap'][0]:.4g}), {d['repetitions']} runs, seed {d['seed']}; "
                 f"dotted = exact E‖·‖₁ = k·2σ_max/T", fontsize=9)
    return finish(fig, path, dpi=110, tight=True)


__all__ += ["GeneratedChain", "generate_reversible_chain", "sample_chains", "figure4_data",
            "make_figure4", "plot_figure_4", "check_figure4_size", "MAX_FIG4_LENGTH"]
