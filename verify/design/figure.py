"""The figure of expected loss against ε: the Pufferfish and DP-style optima and the papers'
mechanisms (:mod:`pufferfish.verify.design.compare`), each drawn only at the budgets it meets.

Cost: one :func:`~pufferfish.verify.design.compare.compare_mechanisms` per budget — independent
tasks, run on the given :class:`~pufferfish.verify.execution.Engine` (``design --workers N``) —
then matplotlib.

>>> import tempfile, os
>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> target = os.path.join(tempfile.mkdtemp(), "loss.png")
>>> curves = loss_figure(load_model(example_path("quickstart.json")), "attribute:x1",
...                      [parse_budget("log(2)"), parse_budget("log(3)")], target)
>>> curves["optimal Pufferfish"]
[(0.6931471805599453, 0.3333333333333333), (1.0986122886681098, 0.25)]
>>> plot_loss_curves(curves, "attribute:x1").axes[0].get_title()   # a Figure, not saved
'Expected loss of attribute:x1 against ε'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fractions import Fraction

from pufferfish.verify.plotting import finish, new_figure  # first: it checks matplotlib is there

from matplotlib.figure import Figure  # noqa: E402

from pufferfish.models.model import PufferfishModel
from pufferfish.verify.design.compare import compare_mechanisms
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.numerics.certified import Budget, budget_float


def loss_curves(model: PufferfishModel, query: str, budgets: Sequence[Budget],
                engine: Engine | None = None, **options) -> dict[str, list[tuple[float, float]]]:
    """``{mechanism: [(ε, loss), ...]}`` at the budgets each mechanism meets (floats, for
    drawing; the exact values are those of ``--compare``); one task per budget on ``engine``."""
    ordered = sorted(budgets, key=budget_float)
    points = (engine or InProcessEngine()).map(_budget_points, [(b,) for b in ordered],
                                               shared=(model, query, options))
    curves: dict[str, list[tuple[float, float]]] = {}
    for budget, contenders in zip(ordered, points):
        for name, loss, meets in contenders:
            curves.setdefault(name, [])
            if loss is not None and meets:
                curves[name].append((budget_float(budget), float(loss)))
    return curves


def _budget_points(shared: tuple, budget: Budget) -> list[tuple[str, Fraction | None, bool]]:
    """One budget's comparison as ``(mechanism, exact loss or None, meets the budget)`` (a task)."""
    model, query, options = shared
    comparison = compare_mechanisms(model, query, budget, **options)
    return [(c.name, c.loss, bool(c.meets_budget)) for c in comparison.contenders]


def loss_figure(model: PufferfishModel, query: str, budgets: Sequence[Budget],
                path: str | os.PathLike, engine: Engine | None = None,
                **options) -> dict[str, list[tuple[float, float]]]:
    """Draw :func:`loss_curves` to ``path`` (PNG) and return the curves
    (:func:`plot_loss_curves`)."""
    curves = loss_curves(model, query, budgets, engine, **options)
    plot_loss_curves(curves, query, path)
    return curves


def plot_loss_curves(curves: dict[str, list[tuple[float, float]]], query: str,
                     path: str | os.PathLike | None = None) -> Figure:
    """The figure of :func:`loss_curves` (expected loss of ``query`` against ε, one line per
    mechanism), written as a PNG to ``path`` when one is given; returns the
    figure.

    >>> figure = plot_loss_curves({"optimal Pufferfish": [(0.69, 0.33), (1.1, 0.25)]}, "sum")
    >>> figure.axes[0].get_lines()[0].get_label()
    'optimal Pufferfish'
    """
    figure = new_figure((6.4, 4.2))
    axes = figure.add_subplot()
    for name, points in curves.items():
        if points:
            xs, ys = zip(*points)
            axes.plot(xs, ys, marker="o", linestyle="-" if "optimal" in name else "--",
                      label=name)
    axes.set_xlabel("ε")
    axes.set_ylabel("expected loss")
    axes.set_title(f"Expected loss of {query} against ε")
    axes.legend(fontsize="small")
    return finish(figure, path, dpi=120, tight=True)


__all__ = ["loss_curves", "loss_figure", "plot_loss_curves"]
