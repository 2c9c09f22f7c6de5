"""The picture of a two-parameter certified map (:mod:`pufferfish.verify.symbolic.region`):
boxes proved inside the region, proved outside it, and the boundary layer.  Drawn with
matplotlib's object API (no global state); the picture is for reading, the boxes of the result
are the certificate.  Cost: one rectangle per box.

>>> from fractions import Fraction
>>> from pufferfish.api import region
>>> result = region("quickstart_parametric.json", "log(3)", mechanism="rr", width=Fraction(1, 8))
>>> figure = plot_region(result)                 # shown in a notebook; plot_region(result, path) saves
>>> figure.axes[0].get_xlabel(), figure.axes[0].get_ylabel()
('p', 'q')
"""

from __future__ import annotations

from pathlib import Path

from pufferfish.verify.plotting import finish, new_figure  # first: it checks matplotlib is there

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

from pufferfish.verify.symbolic.region import RegionResult

__all__ = ["plot_region"]

COLOURS = {"inside": "#4c9a2a", "outside": "#d9d9d9", "boundary": "#e07b39"}


def plot_region(result: RegionResult, path: str | Path | None = None) -> Figure:
    """The map of ``result`` (two parameters, ``method == "map"``), written as a PNG to ``path``
    when one is given; ``result`` may also be a
    :class:`pufferfish.verify.symbolic.nfc_region.NfcRegion` (inside: NfC <= ε proved,
    outside: NfC > ε proved).

    >>> from fractions import Fraction
    >>> from pufferfish.api import nfc_region
    >>> figure = plot_region(nfc_region("quickstart_parametric.json", "log(3)",
    ...                                 mechanisms=["rr"], width=Fraction(1, 4)))
    >>> len(figure.axes[0].patches) > 0
    True
    """
    if result.method != "map" or len(result.names) != 2:
        raise ValueError("only a two-parameter map can be drawn")
    figure = new_figure((5.5, 5))
    axes = figure.add_subplot()
    for kind, boxes in (("outside", result.outside), ("inside", result.inside),
                        ("boundary", result.boundary)):
        for (a, b), (c, d) in boxes:
            axes.add_patch(Rectangle((float(a), float(c)), float(b - a), float(d - c),
                                     facecolor=COLOURS[kind], edgecolor="none"))
    lows, highs = result.ranges_fractions()
    axes.set_xlim(float(lows[0]), float(highs[0]))
    axes.set_ylim(float(lows[1]), float(highs[1]))
    axes.set_xlabel(result.names[0])
    axes.set_ylabel(result.names[1])
    axes.set_title(f"{result.scope}: ε = {result.budget.text}", fontsize=9)
    axes.legend(handles=[Patch(color=COLOURS[k], label=f"{k} ({len(getattr(result, k))} boxes)")
                         for k in ("inside", "boundary", "outside")], loc="upper right", fontsize=8)
    return finish(figure, path, dpi=120)
