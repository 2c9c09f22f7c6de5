"""Plain-text tables, progress lines, and the display of result objects: shared by the result
objects, the command line and the figure and experiment drivers of :mod:`pufferfish.proofs_check`.

Every result object with an ``explain()`` report derives from :class:`Explained`: its ``repr`` is
one line (the report's first line; the full report is ``explain()``) and notebooks show an HTML
view (``_repr_html_``): real tables for the main results (:mod:`pufferfish.verify.html_views`, built
from :func:`html_table` and :func:`html_view`), the text report otherwise.

>>> print(table(["a", "b"], [[1, "x"]]))
a  b
-  -
1  x
>>> compact("1234567890", limit=6)
'12345…'
"""

from __future__ import annotations

import html
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

__all__ = ["table", "compact", "Progress", "PROGRESS_INTERVAL", "set_progress_visible",
           "progress_visible", "Explained", "html_table", "html_view"]


class Explained:
    r"""A result object with a plain-text report ``explain()``: a short ``repr`` and an HTML view.

    A subclass defines ``explain(self) -> str``, and ``summary(self) -> str`` when the report's
    first line is a heading rather than the result.

    Result classes are frozen dataclasses declared with ``repr=False`` so that this ``repr`` is
    used instead of one that prints every field (witness tables can be thousands of lines).

    >>> class Result(Explained):
    ...     def explain(self) -> str:
    ...         return "level log(3): holds\n  witness: output 1"
    >>> Result()
    <Result: level log(3): holds (2 lines: .explain())>
    >>> Result()._repr_html_()
    '<pre>level log(3): holds\n  witness: output 1</pre>'
    """

    def __repr__(self) -> str:
        lines = self.explain().splitlines() or [""]
        more = f" ({len(lines)} lines: .explain())" if len(lines) > 1 else ""
        summary = self.summary() if hasattr(self, "summary") else lines[0].strip()
        return f"<{type(self).__name__}: {compact(summary, 100)}{more}>"

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.explain())}</pre>"


def assuming(verdict: str, assumptions: Sequence[str]) -> str:
    """A verdict's words qualified by what it takes on trust (:meth:`PufferfishModel.assumptions
    <pufferfish.models.model.PufferfishModel.assumptions>`): with a trusted program among the
    mechanisms no verdict is a plain "holds" or "VIOLATED" — the exact law it rests on assumes
    the program is a deterministic function of its draws.

    >>> assuming("holds", ())
    'holds'
    >>> assuming("holds", ["the trusted program p ..."])
    'holds, assuming the trusted program is deterministic (see "assumes" below)'
    """
    if not assumptions:
        return verdict
    programs = "the trusted program is" if len(assumptions) == 1 else \
        f"the {len(assumptions)} trusted programs are"
    return f'{verdict}, assuming {programs} deterministic (see "assumes" below)'


def assumption_lines(assumptions: Sequence[str]) -> list[str]:
    """The report lines that state each assumption (empty when there is none)."""
    return [f"assumes: {text}" for text in assumptions]


def html_table(headers: Sequence[str], rows: Sequence[Sequence[object]], limit: int = 60) -> str:
    """An HTML table with a header row; every cell is escaped, and a cell longer than ``limit``
    characters is shortened (:func:`compact`) with its whole text in the cell's ``title``.

    >>> html_table(["output", "p"], [["<0>", "1/2"]])
    '<table><thead><tr><th>output</th><th>p</th></tr></thead><tbody><tr><td>&lt;0&gt;</td><td>1/2</td></tr></tbody></table>'
    """
    def cell(tag: str, value: object) -> str:
        text = str(value)
        if len(text) <= limit:
            return f"<{tag}>{html.escape(text)}</{tag}>"
        return (f'<{tag} title="{html.escape(text)}">{html.escape(compact(text, limit))}'
                f"</{tag}>")

    head = "".join(cell("th", h) for h in headers)
    body = "".join("<tr>" + "".join(cell("td", c) for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_view(heading: str, *parts: str | Sequence[str]) -> str:
    """An HTML view of a result: a bold ``heading`` (escaped), then each part in order — a
    string is HTML already (a table), a sequence of strings is a list of escaped lines (empty
    sequences are left out).

    >>> html_view("level log(3) < 2", ["note: a & b"])
    '<div class="pufferfish-result"><p><strong>level log(3) &lt; 2</strong></p><ul><li>note: a &amp; b</li></ul></div>'
    """
    body = [f"<p><strong>{html.escape(heading)}</strong></p>"]
    for part in parts:
        if isinstance(part, str):
            body.append(part)
        elif part:
            body.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in part)
                        + "</ul>")
    return '<div class="pufferfish-result">' + "".join(body) + "</div>"


_progress_visible = True

PROGRESS_INTERVAL = 5.0
"""Seconds between two plain progress lines (off a terminal; :class:`Progress`)."""


def set_progress_visible(visible: bool) -> None:
    """Allow (``True``, the default) or forbid progress lines; the command line's ``--quiet``
    forbids them for its run (:func:`progress_visible` tells the setting).  When allowed, a
    terminal shows a line redrawn in place, and any other stderr a plain line every few seconds
    on long work (:class:`Progress`)."""
    global _progress_visible
    _progress_visible = visible


def progress_visible() -> bool:
    """Whether progress lines are allowed (:func:`set_progress_visible`)."""
    return _progress_visible


def compact(text: str, limit: int = 28) -> str:
    """Shorten a long exact number for a table cell (the JSON output keeps it whole)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A left-aligned text table with a header rule."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


class Progress:
    """A progress indicator on stderr (or ``stream``), shown only when progress is visible
    (:func:`set_progress_visible`; the command line's ``--quiet`` hides it) and there is more
    than one step.

    On a terminal, one line redrawn in place (with ``\\r``).  Elsewhere — a log file, CI, a
    notebook — a plain line ``label: done/total what`` at most every ``interval`` seconds
    (default :data:`PROGRESS_INTERVAL`), the first once the work has run that long, and a last
    one when it ends; work shorter than ``interval`` writes nothing.  ``clock`` (seconds; default
    ``time.monotonic``) is for tests.

    >>> import io
    >>> set_progress_visible(True)          # (a --quiet run in this process may have hidden it)
    >>> log, times = io.StringIO(), iter([0, 1, 6, 8, 12, 13])
    >>> bar = Progress(5, "claims", stream=log, clock=lambda: next(times))
    >>> for claim in ["a", "b", "c", "d", "e"]:
    ...     bar.step(claim)
    >>> bar.close()
    >>> print(log.getvalue(), end="")
    claims: 2/5 b
    claims: 4/5 d
    claims: 5/5 done
    """

    def __init__(self, total: int, label: str, *, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 interval: float | None = None) -> None:
        self.total, self.label, self.done = total, label, 0
        self.stream = sys.stderr if stream is None else stream
        self.enabled = _progress_visible and total > 1
        self.terminal = self.enabled and self.stream.isatty()
        self.clock = clock
        self.interval = PROGRESS_INTERVAL if interval is None else interval
        self._last = clock() if self.enabled and not self.terminal else 0.0
        self._shown = self._closed = False

    def step(self, what: str = "") -> None:
        self.done += 1
        if self.terminal:
            width = 24
            filled = width * min(self.done, self.total) // max(self.total, 1)
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                              f"{self.done}/{self.total} {what[:40]:<40}")
            self.stream.flush()
        elif self.enabled and not self._closed:
            now = self.clock()
            if now - self._last >= self.interval:
                self._last, self._shown = now, True
                self._line(what)

    def update(self, done: int, what: str = "") -> None:
        """Show ``done`` of ``total`` (for callers that report counts rather than steps)."""
        self.done = done - 1
        self.step(what)

    def close(self) -> None:
        """Clear the terminal line; elsewhere, end a shown progress with a last line (once)."""
        if self.terminal:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()
        elif self._shown and not self._closed:
            self._line("done")
        self._closed = True

    def _line(self, what: str) -> None:
        self.stream.write(f"{self.label}: {min(self.done, self.total)}/{self.total} "
                          f"{what[:60]}".rstrip() + "\n")
        self.stream.flush()
