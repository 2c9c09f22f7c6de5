"""The plot of an a(b)-influence curve: ``b`` (the size of the high-influence set ``H``) against
``a(b)``, every point of the curve drawn — an infinite one too, marked at the top of the axes.

Definition (Bai et al., Composition for Pufferfish Privacy, §6.1, Definition 9): ``a(b)`` is
the least, over the splits of the entries into a high-influence set ``H`` of ``b`` entries and
the rest, of the largest log-ratio of the probability of a released low-influence dataset
``D_L`` under the two secrets of a pair (:mod:`pufferfish.verify.influence.curves`; chains by
:func:`pufferfish.verify.influence.chains.chain_influence_curve`).  ``a(0)`` is infinite whenever
a secret determines its own entry (as every entry secret does): with ``H`` empty the entry
itself is released.  That point is part of the curve and is shown, not dropped: at the top edge
of the axes, as an upward triangle labelled ``a(0) = ∞`` (an infinite value has no place on a
finite axis), with its own legend entry.

The finite values are exact (the log of a rational) and are drawn at the midpoint of a
certified enclosure of the logarithm (:func:`pufferfish.verify.numerics.intervals.log_enclosure`,
a few machine ulps wide): a float here only places a point on the figure and decides nothing.
The figure is made by :func:`pufferfish.verify.plotting.new_figure` (no pyplot, the user's
backend left alone), returned, and written only when a path is given (PNG, SVG or PDF by the
file's extension).  Cost: one logarithm per point.

>>> import pufferfish
>>> from pufferfish.verify.influence.chains import chain_influence_curve
>>> curve = chain_influence_curve(pufferfish.load("influence_chain.json"), max_b=3)
>>> [point.epsilon for point in curve.points]
['inf', 'log(64)', 'log(528/17)', 'log(4356/289)']
>>> figure = plot_influence_curve(curve)          # plot_influence_curve(curve, "a.png") saves it
>>> finite, infinite = figure.axes[0].get_lines()
>>> finite.get_xdata().tolist(), infinite.get_xdata().tolist(), infinite.get_label()
([1, 2, 3], [0], 'a(b) = ∞ (drawn at the top)')
"""

from __future__ import annotations

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY
from pufferfish.verify.numerics.intervals import log_enclosure

PLOT_SUFFIXES = (".png", ".svg", ".pdf")
"""The file formats a plot is written in (by the path's extension)."""


def curve_values(curve) -> tuple[list[tuple[int, float]], list[int]]:
    """``(finite, infinite)``: the ``(b, a(b))`` points with a finite ``a(b)`` (the midpoint of
    the certified enclosure of its logarithm) and the ``b`` values where ``a(b)`` is infinite,
    for a curve whose ``points`` have ``b`` and ``max_ratio`` (the ratio ``e^{a(b)}``).

    >>> from types import SimpleNamespace as Point
    >>> curve = Point(points=[Point(b=0, max_ratio=INFINITY), Point(b=1, max_ratio=1)])
    >>> curve_values(curve)
    ([(1, 0.0)], [0])
    """
    finite, infinite = [], []
    for point in curve.points:
        if point.max_ratio == INFINITY:
            infinite.append(point.b)
        else:
            low, high = log_enclosure(point.max_ratio)
            finite.append((point.b, (low + high) / 2))
    return finite, infinite


def plot_influence_curve(curve, path: str | None = None, title: str = "a(b)-influence curve"):
    """Plot the a(b)-influence curve ``curve`` (an
    :class:`~pufferfish.verify.influence.curves.InfluenceCurve`, from
    :func:`~pufferfish.verify.influence.curves.influence_curve` or
    :func:`~pufferfish.verify.influence.chains.chain_influence_curve`): every finite point on one
    line, every infinite one (``b = 0`` for entry secrets) as an upward triangle at the top edge
    of the axes with the label ``a(b) = ∞``; written to ``path`` when one is given (``.png``,
    ``.svg`` or ``.pdf``); returns the :class:`matplotlib.figure.Figure` (module docstring).

    >>> import pufferfish
    >>> from pufferfish.verify.influence.curves import influence_curve
    >>> curve = influence_curve(pufferfish.load("influence_table.json"), max_b=2)
    >>> figure = plot_influence_curve(curve)
    >>> figure.axes[0].get_title(), [t.get_text() for t in figure.axes[0].texts]
    ('a(b)-influence curve', ['a(0) = ∞'])
    """
    if path is not None and not str(path).lower().endswith(PLOT_SUFFIXES):
        raise ModelError("the plot file must end in .png, .svg or .pdf", "path")
    # imported here: computing a curve needs no plotting library
    from pufferfish.verify.plotting import finish, new_figure

    finite, infinite = curve_values(curve)
    figure = new_figure((6, 4))
    axes = figure.add_subplot()
    axes.plot([b for b, _ in finite], [a for _, a in finite], marker="o", markersize=3,
              label="a(b)")
    if infinite:
        top = axes.get_xaxis_transform()      # x in data units, y in axes units: 1 is the top
        axes.plot(infinite, [0.97] * len(infinite), linestyle="none", marker="^", markersize=8,
                  color="tab:red", transform=top, clip_on=False,
                  label="a(b) = ∞ (drawn at the top)")
        for b in infinite:
            axes.annotate(f"a({b}) = ∞", (b, 0.97), xycoords=top, xytext=(6, -4),
                          textcoords="offset points", va="top", color="tab:red", fontsize=8)
        bs = [b for b, _ in finite] + infinite
        axes.set_xlim(min(bs) - 0.5, max(bs) + 0.5)
    axes.set_xlabel("b (size of the high-influence set H)")
    axes.set_ylabel("a(b)")
    axes.set_title(title)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    return finish(figure, path, tight=True)


__all__ = ["plot_influence_curve", "curve_values", "PLOT_SUFFIXES"]
