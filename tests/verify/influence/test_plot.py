"""The plot of one a(b)-influence curve draws every point: the finite ones at their exact values
(compared with logarithms taken here), an infinite a(0) marked at the top of the axes with a
label; it lives in :mod:`pufferfish.verify.influence.plot` and is still importable from its
former home."""

from __future__ import annotations

import math

import pytest

import pufferfish
from pufferfish.models.errors import ModelError
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.influence.curves import influence_curve
from pufferfish.verify.influence.plot import plot_influence_curve


def _chain_curve():
    return chain_influence_curve(pufferfish.load("influence_chain.json"), max_b=3)


def test_every_point_is_drawn_and_the_infinite_one_is_marked():
    curve = _chain_curve()
    axes = plot_influence_curve(curve).axes[0]
    finite, infinite = axes.get_lines()
    # a(b) = log(64), log(528/17), log(4356/289), computed here from the ratios
    assert finite.get_xdata().tolist() == [1, 2, 3]
    assert finite.get_ydata().tolist() == pytest.approx(
        [math.log(64), math.log(528 / 17), math.log(4356 / 289)], rel=1e-12)
    assert infinite.get_xdata().tolist() == [0] and infinite.get_marker() == "^"
    assert "∞" in infinite.get_label()
    assert [t.get_text() for t in axes.texts] == ["a(0) = ∞"]
    low, high = axes.get_xlim()
    assert low < 0 < 3 < high                       # the marked point is inside the axes
    labels = [t.get_text() for t in axes.get_legend().get_texts()]
    assert labels == ["a(b)", "a(b) = ∞ (drawn at the top)"]


def test_a_finite_a0_is_drawn_as_a_point():
    curve = influence_curve(pufferfish.load("influence_table.json"), max_b=2)
    finite_curve = type(curve)(curve.entries, curve.points[1:])       # b = 1, 2 only
    axes = plot_influence_curve(finite_curve).axes[0]
    assert [line.get_xdata().tolist() for line in axes.get_lines()] == [[1, 2]]
    assert list(axes.texts) == []


def test_the_file_is_written_only_when_asked_and_in_a_plot_format(tmp_path):
    path = tmp_path / "curve.svg"
    plot_influence_curve(_chain_curve(), str(path))
    assert path.read_text().lstrip().startswith("<?xml")
    with pytest.raises(ModelError, match="must end in .png, .svg or .pdf"):
        plot_influence_curve(_chain_curve(), str(tmp_path / "curve.txt"))


def test_the_former_import_path_still_works():
    from pufferfish.proofs_check.paper_000 import figures

    assert figures.plot_influence_curve is plot_influence_curve
