"""Plain-text tables, progress lines and (re-exported) atomic JSON output for the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pufferfish.models.files.pufferfish_file import write_json_atomically

__all__ = ["table", "compact", "write_json_atomically", "Progress", "emit", "verdict",
           "EXIT_OK", "EXIT_VIOLATED", "EXIT_BAD_INPUT", "EXIT_UNDECIDED"]

EXIT_OK, EXIT_VIOLATED, EXIT_BAD_INPUT, EXIT_UNDECIDED = 0, 1, 2, 3
"""Exit statuses: holds / violated / bad input (DESIGN.md), and 3 for a certified interval that
straddles the budget (neither verdict is proved)."""


def emit(args: argparse.Namespace, data: dict, text: str) -> None:
    """Print ``text`` (or ``data`` as JSON with ``--json``) and write ``--output`` atomically."""
    if getattr(args, "output", None):
        write_json_atomically(data, args.output)
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2))
    else:
        print(text)


def verdict(holds: bool | None) -> int:
    """Exit status for a check: 1 when it is violated, else 0 (``None`` = only computed)."""
    return EXIT_VIOLATED if holds is False else EXIT_OK



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
