"""Plots of a(b)-influence curves (matplotlib, Agg backend, imported when a plot is drawn; PNG or
SVG by file extension).

Source: ``000_65109fe28ca61d17.txt`` §6.3, Figure 2: (a) binary Markov chains of Example 6.1,
(b) truncated Gaussian priors of Example 6.2 with ``ℓ ∈ {0.5, 1, 2, 3, 5}``, ``γ = 5``, ``δ = 0.1``.
The chain curves are exact (:mod:`pufferfish.verify.influence.chains`, plotted at the certified midpoint of
``log r``); the Gaussian curves are numerical (:mod:`pufferfish.verify.influence.gaussian`) and say so in the
title.  Infinite values (``b = 0``) are not drawn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY
from pufferfish.models.priors import MarkovPrior
from pufferfish.models.secrets import entry_pairs
from pufferfish.models.universe import Universe
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.numerics.intervals import log_enclosure

FIGURE_2A_CHAINS: tuple[tuple[Fraction, Fraction], ...] = (
    (Fraction(1, 2), Fraction(1, 2)), (Fraction(3, 5), Fraction(7, 10)),
    (Fraction(4, 5), Fraction(4, 5)), (Fraction(9, 10), Fraction(4, 5)),
    (Fraction(19, 20), Fraction(9, 10)), (Fraction(1, 5), Fraction(3, 10)))
"""(p, q) pairs for Figure 2(a): weak to strong correlation, and an anti-correlated chain."""

FIGURE_2B_ELLS = (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3), Fraction(5))


def binary_chain_model(p: Fraction, q: Fraction, length: int) -> PufferfishModel:
    """Example 6.1: the binary chain ``P = [[p, 1−p], [1−q, q]]`` started in its stationary law
    ``π0 = (1−q)/(2−p−q)``, every node's value a secret (entry pairs)."""
    if not (0 < p < 1 and 0 < q < 1):
        raise ModelError("Example 6.1 needs 0 < p, q < 1", "p,q")
    if length < 1:
        raise ModelError("the chain needs at least one node", "length")
    universe = Universe.product([f"x{t}" for t in range(1, length + 1)], [[0, 1]] * length)
    pi0 = (1 - q) / (2 - p - q)
    kernel = {0: Distribution({0: p, 1: 1 - p}), 1: Distribution({0: 1 - q, 1: q})}
    prior = MarkovPrior(f"chain p={p} q={q}", universe.attributes,
                        Distribution({0: pi0, 1: 1 - pi0}), tuple([kernel] * (length - 1)))
    pairs = entry_pairs(universe)
    secrets = {s.name: s for pair in pairs for s in (pair.first, pair.second)}
    return PufferfishModel(universe, {prior.name: prior}, secrets, pairs,
                           description=f"Example 6.1 binary chain p={p}, q={q}, T={length}")


def _mid(ratio) -> float:
    low, high = log_enclosure(ratio)
    return (low + high) / 2


def plot_curves(series: Sequence[tuple[str, Sequence[int], Sequence[float]]], path: str,
                title: str, ylabel: str = "a(b)", log_y: bool = False) -> None:
    """Draw ``(label, b values, a values)`` series to ``path`` (format from the extension)."""
    if not str(path).lower().endswith((".png", ".svg", ".pdf")):
        raise ModelError("the plot file must end in .png, .svg or .pdf", "--plot")
    import matplotlib          # imported here: loading the claims needs no plotting library
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, bs, values in series:
        pts = [(b, v) for b, v in zip(bs, values) if math.isfinite(v)]
        ax.plot([b for b, _ in pts], [v for _, v in pts], marker="o", markersize=3, label=label)
    ax.set_xlabel("b (size of the high-influence set H)")
    ax.set_ylabel(ylabel)
    if log_y:
        ax.set_yscale("symlog", linthresh=1e-2)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_influence_curve(curve, path: str, title: str = "a(b)-influence curve") -> None:
    """Plot one :class:`pufferfish.verify.influence.curves.InfluenceCurve` (exact values at their midpoints)."""
    bs = [p.b for p in curve.points]
    values = [math.inf if p.max_ratio == INFINITY else _mid(p.max_ratio) for p in curve.points]
    plot_curves([("a(b)", bs, values)], path, title)


def figure_2a_curve(p: Fraction, q: Fraction, length: int, max_b: int):
    """One curve of Figure 2(a): the exact a(b) curve of the binary chain (p, q) of length
    ``length`` up to ``max_b`` (a task of :func:`figure_2a`)."""
    from pufferfish.verify.influence.chains import chain_influence_curve

    return chain_influence_curve(binary_chain_model(p, q, length), max_b=max_b)


def figure_2a(path: str, length: int = 41, max_b: int = 20,
              chains: Sequence[tuple[Fraction, Fraction]] = FIGURE_2A_CHAINS,
              engine: Engine | None = None) -> dict:
    """Figure 2(a): exact a(b) curves of binary chains (Example 6.1), one task per chain on
    ``engine`` (this process by default); returns the plotted data."""
    engine = engine or InProcessEngine()
    curves = engine.map(figure_2a_curve, [(p, q, length, max_b) for p, q in chains])
    series, data = [], {}
    for (p, q), curve in zip(chains, curves):
        bs = [pt.b for pt in curve.points]
        values = [math.inf if pt.max_ratio == INFINITY else _mid(pt.max_ratio)
                  for pt in curve.points]
        series.append((f"p={p}, q={q}", bs, values))
        data[f"p={p},q={q}"] = [pt.epsilon for pt in curve.points]
    plot_curves(series, path, f"Figure 2(a): binary Markov chains (exact, T={length})")
    return data


def figure_2b_curve(n: int, ell: Fraction, gamma: Fraction, delta: Fraction, grid: int) -> list:
    """One curve of Figure 2(b): a*(b) of Example 6.2 for ``ell`` (a task of :func:`figure_2b`)."""
    from pufferfish.verify.influence.gaussian import GaussianSetting, gaussian_curve

    return [p.value for p in gaussian_curve(GaussianSetting(n, ell, gamma, delta), grid).points]


def figure_2b(path: str, n: int = 15, gamma: Fraction = Fraction(5), delta: Fraction = Fraction(1, 10),
              ells: Sequence[Fraction] = FIGURE_2B_ELLS, grid: int = 101,
              engine: Engine | None = None) -> dict:
    """Figure 2(b): a*(b) of Example 6.2 by Theorem 9's procedure (numerical), one task per ℓ on
    ``engine`` (this process by default); returns the data."""
    engine = engine or InProcessEngine()
    curves = engine.map(figure_2b_curve, [(n, ell, gamma, delta, grid) for ell in ells])
    series, data = [], {}
    for ell, values in zip(ells, curves):
        series.append((f"ℓ={float(ell):g}", list(range(len(values))), values))
        data[str(ell)] = values
    plot_curves(series, path, f"Figure 2(b): truncated Gaussian, n={n}, γ={float(gamma):g}, "
                f"δ={float(delta):g} (numerical)", log_y=True)
    return data
