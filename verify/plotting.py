"""Figures without global state, shared by the command line and notebooks: every plotting
function of the toolkit draws on a :class:`matplotlib.figure.Figure` made here (an Agg canvas:
no screen, no pyplot, the user's backend left alone), returns it, and writes it to a file only
when given a path.  In a notebook the returned figure is shown (as a PNG image, even when pyplot
was never imported: :func:`new_figure`); on the command line it is saved.

The plotting functions: :func:`pufferfish.verify.symbolic.plot.plot_region` (``region --out``),
:func:`pufferfish.verify.design.figure.plot_loss_curves` (``design --compare``),
:func:`pufferfish.verify.influence.plot.plot_influence_curve` (``influence --out``), and in
:mod:`pufferfish.proofs_check`: ``paper_000.figures.plot_curves``,
``plot_figure_2a`` and ``plot_figure_2b`` (``influence-figures``),
``paper_002.figures.plot_figure_1``, ``plot_figure_3`` and ``plot_figure_4``
(``mqm-figures``), ``paper_000.topk.experiment.plot_topk`` (``experiment topk``).

>>> figure = new_figure((4, 3))
>>> figure.add_subplot().plot([0, 1], [1, 0])[0].get_ydata().tolist()
[1, 0]
>>> finish(figure) is figure                   # no path: nothing is written
True
>>> figure._repr_png_()[:4]                     # what a notebook shows
b'\x89PNG'
"""

from __future__ import annotations

import io
import os

from pufferfish.models.errors import require_extra

require_extra("matplotlib", "plots", "drawing a figure")  # an optional part of the toolkit

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

__all__ = ["new_figure", "finish"]


class _NotebookFigure(Figure):
    """A figure that IPython and Jupyter show as a PNG image (``_repr_png_``) without pyplot's
    inline backend; where that backend is active, its own display is used instead.  (Private:
    matplotlib generates a ``set`` method for every subclass, whose docstring is matplotlib's.)"""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()


def new_figure(figsize: tuple[float, float]) -> Figure:
    """An empty figure of ``figsize`` inches on an Agg canvas (nothing global is touched), which
    a notebook shows as a PNG image.

    >>> new_figure((4, 3)).get_size_inches().tolist()
    [4.0, 3.0]
    """
    figure = _NotebookFigure(figsize=figsize)
    FigureCanvasAgg(figure)
    return figure


def finish(figure: Figure, path: str | os.PathLike | None = None, *, dpi: float | None = None,
           tight: bool = False) -> Figure:
    """Lay ``figure`` out (``tight``: :meth:`~matplotlib.figure.Figure.tight_layout`), write it
    to ``path`` when one is given (the format from the extension), and return it.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.svg")
    >>> finish(new_figure((2, 2)), path) is not None, open(path).read().startswith("<?xml")
    (True, True)
    """
    if tight:
        figure.tight_layout()
    if path is not None:
        figure.savefig(path, **({} if dpi is None else {"dpi": dpi}))
    return figure
