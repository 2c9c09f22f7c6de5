"""Plain-text tables, progress lines and (re-exported) atomic JSON output for the command line."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from models.modelfile import write_json_atomically

__all__ = ["table", "write_json_atomically", "Progress"]


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A left-aligned text table with a header rule."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


class Progress:
    """A one-line progress indicator on stderr, shown only when stderr is a terminal."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.label, self.done = total, label, 0
        self.enabled = sys.stderr.isatty() and total > 1

    def step(self, what: str = "") -> None:
        self.done += 1
        if self.enabled:
            width = 24
            filled = width * self.done // max(self.total, 1)
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                             f"{self.done}/{self.total} {what[:40]:<40}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()
