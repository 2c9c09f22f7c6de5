"""Numerical solvers kept off standard output.

The NfC programs (Bai et al., Composition for Pufferfish Privacy, §5.1) and the design search of
Zhang et al., Differential Confounding Privacy and Inverse Composition (Task 1) call CVXPY; a
solver's answer is only a candidate that the toolkit then certifies (exactness policy,
:doc:`/design`).  Whatever a solver prints must never reach standard output, where ``--json``
promises one JSON document and nothing else.  Two layers:

* every solve passes ``verbose=False`` and the solver's own silencing options
  (:data:`QUIET_OPTIONS`: HiGHS ``output_flag``/``log_to_console`` off, Clarabel ``verbose``
  off);
* the solve runs inside :func:`native_stdout_silenced`, which points file descriptor 1 at
  ``/dev/null`` at the operating-system level, because native code can write there directly:
  highspy 1.16 prints a two-line banner (``Running HiGHS 1.16.0 ...``) from C++ when a ``Highs``
  object is created, before any option can be set.  In-process capture (``sys.stdout``) does not
  see such writes; the test runs the command line in a subprocess.

:func:`solve_quietly` combines both; it is the only way the toolkit calls ``Problem.solve``.

Caveat: descriptor 1 is process-wide, so another *thread* writing to standard output during a
solve would be silenced too; the toolkit solves on the calling thread only.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

QUIET_OPTIONS: dict[str, dict[str, object]] = {
    "HIGHS": {"output_flag": False, "log_to_console": False},
    "CLARABEL": {},
}
"""Solver-specific options that turn logging off (besides ``verbose=False``)."""

_LIBC = None


def _flush_native_streams() -> None:
    """``fflush(NULL)``: push out what C stdio (and C++ streams synced with it) buffered."""
    global _LIBC
    try:
        if _LIBC is None:
            _LIBC = ctypes.CDLL(None)
        _LIBC.fflush(None)
    except (OSError, AttributeError):          # no C library reachable: nothing was buffered there
        pass


def _flush_standard_output() -> None:
    try:
        sys.stdout.flush()
    except (AttributeError, ValueError):       # no stdout, or a closed one
        pass


@contextmanager
def native_stdout_silenced() -> Iterator[None]:
    """Send everything written to file descriptor 1 during the block to ``/dev/null``.

    Python's ``sys.stdout`` and C stdio are flushed before (so earlier output is kept, in order)
    and again before the descriptor is restored (so output buffered during the block is dropped
    with the rest instead of appearing later).  Restored in ``finally``.

    >>> with native_stdout_silenced():
    ...     _ = os.write(1, b"dropped\\n")
    """
    _flush_standard_output()
    _flush_native_streams()
    try:
        saved = os.dup(1)
    except OSError:                            # descriptor 1 is closed: nothing can reach stdout
        yield
        return
    sink = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(sink, 1)
        yield
    finally:
        _flush_standard_output()
        _flush_native_streams()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(sink)


def solve_quietly(problem, solver: str, **options: object):
    """``problem.solve(solver=solver, verbose=False, ...)`` with the solver's logging off and file
    descriptor 1 silenced (:func:`native_stdout_silenced`); returns what ``solve`` returns."""
    settings = {**QUIET_OPTIONS.get(solver.upper(), {}), **options}
    with native_stdout_silenced():
        return problem.solve(solver=solver, verbose=False, **settings)


__all__ = ["native_stdout_silenced", "solve_quietly", "QUIET_OPTIONS"]
