"""Figures 1 and 3 of ``002_e1f2e9a9937b8cda.txt`` (§5 and Appendix B.11) as PNG files.

Both compare the Markov Quilt Mechanism with the inferential-privacy algorithm of [11]
(Appendix B.10) on binary chains ``P = [[p0, 1−p0], [1−p1, p1]]`` of length ``T = 100`` releasing
the sum ``S`` (1-Lipschitz).  All numbers here are **numerical** (float search, numpy inverse),
for plotting; the certified values come from :mod:`verify.mqm`.

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

Runtime with the defaults (500 runs, 99 × 99 grid): a few minutes; the grid is symmetric under
``p0 ↔ p1`` (relabelling the states), so half of it is computed.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from models.bayesnet import MarkovChain
from verify.mqm import ChainFamily, gk16_gamma_ratio, gk16_noise, mqm_sigma_numerical
from verify.report import Progress

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
        result = gk16_noise(gk16_gamma_ratio(key[0], key[1]), length, str(eps))
        cache[key] = result.noise_scale if result.applies else None
    return cache[key]


def figure1_data(*, runs: int = 500, seed: int = 0, length: int = LENGTH,
                 lows: list[Fraction] | None = None, grid: int = 9) -> dict:
    """The curves of Figure 1: for each ε, ℓ ↦ averaged ``ε·|S' − S|/T`` for MQM and [11]."""
    lows = lows or [Fraction(1, 10) + Fraction(k, 40) for k in range(13)]
    rng = np.random.default_rng(seed)
    cache: dict = {}
    data = {"lows": [float(x) for x in lows], "epsilons": list(EPSILONS), "mqm": {}, "gk16": {},
            "sigma_mqm": {}, "sigma_gk16": {}}
    progress = Progress(len(lows) * len(EPSILONS), "figure 1")
    for eps in EPSILONS:
        mqm_err, gk_err, mqm_sig, gk_sig = [], [], [], []
        for low in lows:
            high = 1 - low
            points = [low + (high - low) * Fraction(j, grid - 1) for j in range(grid)]
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


def figure3_data(*, grid: int = 99, length: int = LENGTH) -> dict:
    """The region map of Figure 3: 0 = [11] fails, 1 = MQM adds less noise, 2 = [11] adds less."""
    values = [Fraction(k + 1, grid + 1) for k in range(grid)]
    cache: dict = {}
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


def make_figures(out: Path, *, runs: int = 500, seed: int = 0, grid: int = 99) -> list[Path]:
    """Write ``figure1.png`` and ``figure3.png`` into ``out``; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    out.mkdir(parents=True, exist_ok=True)
    d1 = figure1_data(runs=runs, seed=seed)
    fig, axes = plt.subplots(1, len(EPSILONS), figsize=(13, 3.8))
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
    fig.suptitle(f"Figure 1 (002 §5): T = {LENGTH}, {runs} runs, seed {seed} (numerical)")
    fig.tight_layout()
    p1 = out / "figure1.png"
    fig.savefig(p1, dpi=110)
    plt.close(fig)

    d3 = figure3_data(grid=grid)
    fig, axes = plt.subplots(1, len(EPSILONS), figsize=(13, 4.2))
    cmap = ListedColormap(["white", "gold", "royalblue"])
    extent = (d3["values"][0], d3["values"][-1], d3["values"][0], d3["values"][-1])
    for ax, eps in zip(axes, EPSILONS):
        ax.imshow(d3["maps"][eps].T, origin="lower", cmap=cmap, vmin=0, vmax=2, extent=extent)
        ax.set_title(f"ε = {eps}")
        ax.set_xlabel("p0")
        ax.set_ylabel("p1")
    fig.suptitle(f"Figure 3 (002 B.11): white = [11] fails, yellow = MQM less noise, "
                 f"blue = [11] less noise; T = {LENGTH}, grid {grid}×{grid} (numerical)")
    fig.tight_layout()
    p3 = out / "figure3.png"
    fig.savefig(p3, dpi=110)
    plt.close(fig)
    return [p1, p3]


__all__ = ["figure1_data", "figure3_data", "make_figures", "EPSILONS"]
