"""Every plotting function returns its figure, writes a file only when given a path, and leaves
matplotlib's global state (the backend, pyplot's figures) alone, so notebooks show the figures."""

from __future__ import annotations

import sys
from fractions import Fraction

import matplotlib
import pytest
from matplotlib.figure import Figure

import pufferfish
from pufferfish.proofs_check.paper_000.figures import FIGURE_2A_CHAINS, plot_figure_2a
from pufferfish.verify.influence.plot import plot_influence_curve
from pufferfish.proofs_check.paper_002.figures import plot_figure_3
from pufferfish.verify.design.figure import loss_curves, plot_loss_curves
from pufferfish.verify.influence.curves import influence_curve
from pufferfish.verify.symbolic.plot import plot_region


def _region(path=None):
    result = pufferfish.region("quickstart_parametric.json", "log(3)", mechanism="rr",
                               width=Fraction(1, 8))
    return plot_region(result, path)


def _loss(path=None):
    model = pufferfish.load("quickstart.json")
    budgets = [pufferfish.budget("log(2)"), pufferfish.budget("log(3)")]
    return plot_loss_curves(loss_curves(model, "attribute:x1", budgets), "attribute:x1", path)


def _influence(path=None):
    curve = influence_curve(pufferfish.load("influence_table.json"), max_b=2)
    return plot_influence_curve(curve, path)


def _figure_2a(path=None):
    return plot_figure_2a(path, length=5, max_b=2, chains=FIGURE_2A_CHAINS[:1])


def _figure_3(path=None):
    return plot_figure_3(path, grid=2, length=8)


PLOTS = [_region, _loss, _influence, _figure_2a, _figure_3]


@pytest.mark.parametrize("plot", PLOTS, ids=lambda plot: plot.__name__.strip("_"))
def test_a_plot_returns_its_figure_and_saves_only_when_asked(plot, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    backend = matplotlib.get_backend()
    figure = plot()
    assert isinstance(figure, Figure) and figure.axes
    assert figure._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"      # a notebook shows it
    assert list(tmp_path.iterdir()) == []
    assert matplotlib.get_backend() == backend
    if "matplotlib.pyplot" in sys.modules:
        assert sys.modules["matplotlib.pyplot"].get_fignums() == []
    assert plot(tmp_path / "figure.png") is not figure
    assert (tmp_path / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
