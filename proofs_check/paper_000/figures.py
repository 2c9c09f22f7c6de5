"""Plots of a(b)-influence curves (matplotlib, Agg backend, imported when a plot is drawn; PNG,
SVG or PDF by file extension).  Each ``plot_*`` function returns the
:class:`matplotlib.figure.Figure` and writes it only when given a path
(:mod:`pufferfish.verify.plotting`), so a notebook shows it.

Source: Bai et al., Composition for Pufferfish Privacy, §6.3, Figure 2: (a) binary Markov chains of
Example 6.1, (b) truncated Gaussian priors of Example 6.2 with ``ℓ ∈ {0.5, 1, 2, 3, 5}``, ``γ = 5``,
``δ = 0.1``. The chain curves are exact (:mod:`pufferfish.verify.influence.chains`, plotted at the
certified midpoint of ``log r``); the Gaussian curves are numerical
(:mod:`pufferfish.verify.influence.gaussian`) and say so in the title.  Infinite values (``b = 0``)
are not drawn in these figures of several curves; the plot of one curve,
:func:`pufferfish.verify.influence.plot.plot_influence_curve` (importable from here too, its
former home), marks them at the top of the axes.

>>> figure = plot_figure_2a(length=6, max_b=3, chains=FIGURE_2A_CHAINS[:2])
>>> [line.get_label() for line in figure.axes[0].get_lines()]
['p=1/2, q=1/2', 'p=3/5, q=7/10']
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
from pufferfish.verify.influence.plot import plot_influence_curve  # noqa: F401  (its old home)
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


def plot_curves(series: Sequence[tuple[str, Sequence[int], Sequence[float]]],
                path: str | None = None, title: str = "a(b)-influence curves",
                ylabel: str = "a(b)", log_y: bool = False):
    """Draw ``(label, b values, a values)`` series; write them to ``path`` when one is given
    (format from the extension); return the :class:`matplotlib.figure.Figure`.  Infinite values
    are left out.

    >>> figure = plot_curves([("a(b)", [0, 1, 2], [math.inf, 1.0, 0.5])], title="one curve")
    >>> figure.axes[0].get_lines()[0].get_xdata().tolist()
    [1, 2]
    """
    if path is not None and not str(path).lower().endswith((".png", ".svg", ".pdf")):
        raise ModelError("the plot file must end in .png, .svg or .pdf", "--plot")
    # imported here: loading the claims needs no plotting library
    from pufferfish.verify.plotting import finish, new_figure

    fig = new_figure((6, 4))
    ax = fig.add_subplot()
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
    return finish(fig, path, tight=True)


def figure_2a_curve(p: Fraction, q: Fraction, length: int, max_b: int):
    """One curve of Figure 2(a): the exact a(b) curve of the binary chain (p, q) of length
    ``length`` up to ``max_b`` (a task of :func:`figure_2a`)."""
    from pufferfish.verify.influence.chains import chain_influence_curve

    return chain_influence_curve(binary_chain_model(p, q, length), max_b=max_b)


def figure_2a(path: str, length: int = 41, max_b: int = 20,
              chains: Sequence[tuple[Fraction, Fraction]] = FIGURE_2A_CHAINS,
              engine: Engine | None = None) -> dict:
    """Figure 2(a): exact a(b) curves of binary chains (Example 6.1), one task per chain on
    ``engine`` (this process by default), written to ``path``; returns the plotted data
    (:func:`plot_figure_2a` returns the figure)."""
    series, data, title = _figure_2a(length, max_b, chains, engine)
    plot_curves(series, path, title)
    return data


def plot_figure_2a(path: str | None = None, *, length: int = 41, max_b: int = 20,
                   chains: Sequence[tuple[Fraction, Fraction]] = FIGURE_2A_CHAINS,
                   engine: Engine | None = None):
    """Figure 2(a) as a figure (:func:`figure_2a`), written to ``path`` when one is given.

    >>> plot_figure_2a(length=6, max_b=3, chains=FIGURE_2A_CHAINS[:1]).axes[0].get_xlabel()
    'b (size of the high-influence set H)'
    """
    series, _, title = _figure_2a(length, max_b, chains, engine)
    return plot_curves(series, path, title)


def _figure_2a(length: int, max_b: int, chains: Sequence[tuple[Fraction, Fraction]],
               engine: Engine | None) -> tuple[list, dict, str]:
    """The series, the data and the title of Figure 2(a)."""
    engine = engine or InProcessEngine()
    curves = engine.map(figure_2a_curve, [(p, q, length, max_b) for p, q in chains])
    series, data = [], {}
    for (p, q), curve in zip(chains, curves):
        bs = [pt.b for pt in curve.points]
        values = [math.inf if pt.max_ratio == INFINITY else _mid(pt.max_ratio)
                  for pt in curve.points]
        series.append((f"p={p}, q={q}", bs, values))
        data[f"p={p},q={q}"] = [pt.epsilon for pt in curve.points]
    return series, data, f"Figure 2(a): binary Markov chains (exact, T={length})"


def figure_2b_curve(n: int, ell: Fraction, gamma: Fraction, delta: Fraction, grid: int) -> list:
    """One curve of Figure 2(b): a*(b) of Example 6.2 for ``ell`` (a task of :func:`figure_2b`)."""
    from pufferfish.verify.influence.gaussian import GaussianSetting, gaussian_curve

    return [p.value for p in gaussian_curve(GaussianSetting(n, ell, gamma, delta), grid).points]


def figure_2b(path: str, n: int = 15, gamma: Fraction = Fraction(5), delta: Fraction = Fraction(1, 10),
              ells: Sequence[Fraction] = FIGURE_2B_ELLS, grid: int = 101,
              engine: Engine | None = None) -> dict:
    """Figure 2(b): a*(b) of Example 6.2 by Theorem 9's procedure (numerical), one task per ℓ on
    ``engine`` (this process by default), written to ``path``; returns the data
    (:func:`plot_figure_2b` returns the figure)."""
    series, data, title = _figure_2b(n, gamma, delta, ells, grid, engine)
    plot_curves(series, path, title, log_y=True)
    return data


def plot_figure_2b(path: str | None = None, *, n: int = 15, gamma: Fraction = Fraction(5),
                   delta: Fraction = Fraction(1, 10), ells: Sequence[Fraction] = FIGURE_2B_ELLS,
                   grid: int = 101, engine: Engine | None = None):
    """Figure 2(b) as a figure (:func:`figure_2b`), written to ``path`` when one is given.

    >>> figure = plot_figure_2b(n=5, ells=[Fraction(1, 2), Fraction(2)], grid=11)
    >>> [line.get_label() for line in figure.axes[0].get_lines()], figure.axes[0].get_yscale()
    (['ℓ=0.5', 'ℓ=2'], 'symlog')
    """
    series, _, title = _figure_2b(n, gamma, delta, ells, grid, engine)
    return plot_curves(series, path, title, log_y=True)


def _figure_2b(n: int, gamma: Fraction, delta: Fraction, ells: Sequence[Fraction], grid: int,
               engine: Engine | None) -> tuple[list, dict, str]:
    """The series, the data and the title of Figure 2(b)."""
    engine = engine or InProcessEngine()
    curves = engine.map(figure_2b_curve, [(n, ell, gamma, delta, grid) for ell in ells])
    series, data = [], {}
    for ell, values in zip(ells, curves):
        series.append((f"ℓ={float(ell):g}", list(range(len(values))), values))
        data[str(ell)] = values
    return series, data, (f"Figure 2(b): truncated Gaussian, n={n}, γ={float(gamma):g}, "
                          f"δ={float(delta):g} (numerical)")
