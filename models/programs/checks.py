"""The checks made on the runs of a program, and the messages of their refusals.

:func:`~pufferfish.models.programs.enumerate.program_distribution` enumerates a program's paths
by replay; this module holds what it checks and how a refusal reads.

The paths of a program (its complete decision sequences) are run breadth first: a run replays a
prefix of decisions and takes the first option at every new one; the other options are queued
with the trace of the run that found them.  Breadth first, a run from a short prefix queues the
alternatives of every decision after it, so the count of paths found (runs done plus paths
queued, a lower bound of their number) passes ``max_runs`` after a few runs on a program with
too many paths (40 fair coins: 2^40 paths, refused after about 1,600 runs) — the order
does not change the law, a sum over the paths.  Each run is checked:

* the replayed prefix must meet the same decisions, with the same numbers of options at the same
  lines, as the run that queued it, and the first path is run twice and must give the same
  trace and outputs — a program that keeps state between runs or draws hidden randomness is
  refused as not deterministic, naming the line;
* the standard sources of randomness and time fail while it runs
  (:mod:`~pufferfish.models.programs.guards`);
* its outputs must be JSON values (:mod:`~pufferfish.models.programs.outputs`);
* an exception, an exit or an interrupt raised by the program is a located
  :class:`~pufferfish.models.programs.enumerate.ProgramError`.

The paths are counted as they are found against ``max_runs``, and a path longer than
``max_depth`` decisions — the shape of a loop that ends with probability 1 but not surely — is
refused with the probability of the paths explored and the bound it gives on the rest.

>>> from pufferfish.models.programs import coin, program_distribution
>>> def until_heads(data):
...     flips = 0
...     while not coin("1/2"):
...         flips += 1
...     return flips
>>> program_distribution(until_heads, (0,), max_depth=20)
Traceback (most recent call last):
...
pufferfish.models.programs.enumerate.ProgramError: program until_heads on dataset [0]: a path takes more than 20 random decisions at ... — a loop that ends with probability 1 but not surely (draw until heads)? The 20 paths run have probability 1048575/1048576, the paths left 1/1048576; bound the loop in the program (which changes the mechanism) or raise max_depth
"""

from __future__ import annotations

import dis
import os
import sys
import traceback
from fractions import Fraction

from pufferfish.models.programs.outputs import mass_text, program_output

__all__ = ["same_outputs", "located", "error_line", "safe_text", "too_many_paths", "too_deep",
           "not_replayed", "engine_fault", "NOT_DETERMINISTIC"]


def same_outputs(outputs: list, others: list) -> bool:
    """Whether two runs' outputs are the same JSON values with the same probabilities (outputs
    that are not JSON values are refused later, at the door)."""
    try:
        return ([(program_output(o), p) for o, p in outputs]
                == [(program_output(o), p) for o, p in others])
    except ValueError:
        return True


NOT_DETERMINISTIC = ("a program must be a function of the dataset and its random choices — "
                     "does it keep state between runs (a global counter, a cache, an iterator) "
                     "or read another source of randomness?")


def located(source: str | None, line: int | None) -> str:
    """``" at FILE, line N"`` when both are known."""
    return f" at {os.path.basename(source)}, line {line}" if source and line else ""


def safe_text(error: BaseException) -> str:
    """The message of a program's exception, at most 500 characters."""
    try:
        return str(error)[:500]
    except BaseException:  # a huge integer or a broken __str__ in the program's exception
        return "(a message that cannot be printed)"


_TOOLKIT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # pufferfish.models
_RAISES = {dis.opmap[name] for name in ("RAISE_VARARGS", "RERAISE") if name in dis.opmap}
_REAL: dict[str, str] = {}


def _in_toolkit(filename: str) -> bool:
    real = _REAL.get(filename)
    if real is None:
        real = _REAL[filename] = os.path.realpath(filename)
    return real.startswith(_TOOLKIT + os.sep)


def engine_fault(error: BaseException) -> str | None:
    """Where the engine's own code failed, when ``error`` (caught around a run of a program) is
    a defect of the toolkit rather than the program's error: ``"FILE, line N, in FUNCTION"``,
    else ``None``.

    Definition: the innermost Python frame of the traceback is in the toolkit's models package
    and the failing instruction there is not a ``raise`` statement.  A refusal of the toolkit is
    a ``raise`` statement (``TypeError("a noisy value has no truth value…")``) and stays the
    program's error, as does anything raised in the program's frames or in a library the
    program or a primitive called with the program's values (``Fraction("x")`` from
    ``coin("x")``); a ``TypeError`` of an operation inside the engine (``range`` of a Fraction)
    is the engine's.  ``RecursionError`` and ``MemoryError`` are the program's (limits), wherever
    they strike.  Cost: one walk of the traceback.

    >>> try:
    ...     same_outputs(None, [])            # a defect: the engine iterates over None
    ... except TypeError as error:
    ...     print(engine_fault(error).split(",")[0])
    checks.py
    >>> try:
    ...     int("x")                          # not in the engine's code
    ... except ValueError as error:
    ...     print(engine_fault(error))
    None
    """
    if isinstance(error, RecursionError | MemoryError):
        return None
    tb = error.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    if not _in_toolkit(code.co_filename):
        return None
    if 0 <= tb.tb_lasti < len(code.co_code) and code.co_code[tb.tb_lasti] in _RAISES:
        return None
    return f"{os.path.basename(code.co_filename)}, line {tb.tb_lineno}, in {code.co_name}"


def error_line(source: str | None) -> str:
    """``" at FILE, line N"`` for the innermost frame of the program's own file in the exception
    being handled."""
    frames = traceback.extract_tb(sys.exc_info()[2])
    for frame in reversed(frames):
        if source and frame.filename == source:
            return f" at {os.path.basename(frame.filename)}, line {frame.lineno}"
    return ""


def too_many_paths(where: str, found: int, limit: int, explored: Fraction) -> str:
    """The refusal of a program with more than ``limit`` paths."""
    return (f"{where}: at least {found:,} paths (runs done and queued), more than the limit of "
            f"{limit:,}; the paths run so far have probability {mass_text(explored)}; raise "
            f"max_runs or simplify the program")


def too_deep(where: str, limit: int, line: str, runs: int, explored: Fraction) -> str:
    """The refusal of a path with more than ``limit`` decisions, with the mass explored."""
    return (f"{where}: a path takes more than {limit:,} random decisions{line} — a loop that "
            f"ends with probability 1 but not surely (draw until heads)? The {runs:,} paths run "
            f"have probability {mass_text(explored)}, the paths left "
            f"{mass_text(1 - explored)}; bound the loop in the program (which changes the "
            f"mechanism) or raise max_depth")


def not_replayed(where: str, source: str | None, expected: tuple, found: tuple) -> str:
    """The refusal of a replayed prefix that met another decision (``(options, line)`` each)."""
    (count, line), (now_count, now_line) = expected, found
    return (f"{where} is not deterministic: replaying the random choices of an earlier run "
            f"reached a decision with {now_count} options{located(source, now_line)} where that "
            f"run had one with {count} options{located(source, line)}; {NOT_DETERMINISTIC}")
