"""The enumeration by replay behind :func:`~pufferfish.models.programs.enumerate.program_distribution`:
paths, runs, and the checks made on each run.

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

The paths are counted as they are found against ``max_runs``, and a path longer than ``max_depth`` decisions — the shape of a
loop that ends with probability 1 but not surely — is refused with the probability of the paths
explored and the bound it gives on the rest.

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

import os
import sys
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from fractions import Fraction

from pufferfish.models.programs.enumerate import (_CURRENT, ProgramError, _output_law, _Run,
                                                  _StepLimit)
from pufferfish.models.programs.guards import HiddenRandomness, deterministic, first_use
from pufferfish.models.programs.outputs import mass_text, program_output

__all__ = ["paths"]

_PROGRAM_OWNS_INTERRUPTS = False
"""Whether a ``KeyboardInterrupt`` during a run is the program's own (the worker process of
:mod:`~pufferfish.models.programs.sandbox`, which ignores Ctrl-C, sets it) rather than the
user's Ctrl-C (in this process: it is let through)."""

class _Replayed(BaseException):
    """A replayed prefix took another decision than the run that queued it."""


class _TooDeep(BaseException):
    """A path passed ``max_depth`` decisions."""


class _ReplayedRun(_Run):
    """A run that records the line of each decision and checks the replayed prefix against the
    trace of the run that queued it (a program must be a function of its decisions)."""

    def __init__(self, prefix: Sequence[int], max_steps: int, expected: list, max_depth: int):
        super().__init__(prefix, max_steps)
        self.expected, self.max_depth = expected, max_depth
        self.trace: list[tuple[int, int | None]] = []
        self.line: int | None = None

    def decide(self, count: int) -> int:
        position = len(self.taken)
        here = (count, self.line)
        self.trace.append(here)
        if position < len(self.prefix) and self.expected[position] != here:
            raise _Replayed(self.expected[position], here)
        if position >= self.max_depth:
            raise _TooDeep()
        return super().decide(count)


def paths(program: Callable, plain: tuple, arguments: dict, where: str, source: str | None,
           limits: tuple[int, int, int], progress) -> dict[object, Fraction]:
    """The law of the program by depth-first replay of its decision sequences."""
    max_steps, max_runs, max_depth = limits
    probabilities: dict[object, Fraction] = {}
    pending: deque[tuple[list[int], list]] = deque([([], [])])
    runs, explored, first = 0, Fraction(0), None
    while pending:
        prefix, expected = pending.popleft()  # breadth first: the count of paths grows fast
        runs += 1
        if runs + len(pending) > max_runs:
            raise ProgramError(f"{where}: at least {runs + len(pending):,} paths (runs done and "
                               f"queued), more than the limit of {max_runs:,}; the paths run so "
                               f"far have probability {mass_text(explored)}; raise max_runs or "
                               f"simplify the program")
        run = _ReplayedRun(prefix, max_steps, expected, max_depth)
        try:
            outputs = _execute(program, plain, arguments, run, where, source)
            if first is None:  # the first path twice: a program with hidden state differs here
                first = again = _ReplayedRun(prefix, max_steps, run.trace, max_depth)
                repeated = _execute(program, plain, arguments, again, where, source)
                if again.trace != run.trace or not _same(repeated, outputs):
                    raise ProgramError(f"{where} is not deterministic: the same random choices "
                                       f"gave another output{_at(source, again.line)}; {_STATE}")
        except _TooDeep:
            raise ProgramError(
                f"{where}: a path takes more than {max_depth:,} random decisions"
                f"{_at(source, run.line)} — a loop that ends with probability 1 but not surely "
                f"(draw until heads)? The {runs - 1:,} paths run have probability "
                f"{mass_text(explored)}, the paths left {mass_text(1 - explored)}; bound the loop in the program (which changes the "
                f"mechanism) or raise max_depth") from None
        for position in range(len(prefix), len(run.taken)):
            for alternative in range(1, run.options[position]):
                pending.append((run.taken[:position] + [alternative], run.trace))
        for output, p in outputs:
            if not p:
                continue
            try:
                key = program_output(output)
            except ValueError as error:
                raise ProgramError(f"{where}: {error}{_at(source, run.line)}") from None
            probabilities[key] = probabilities.get(key, Fraction(0)) + p
            explored += p
        if progress is not None and not runs % 256:
            progress(runs, explored)
    return probabilities


def _same(outputs: list, others: list) -> bool:
    """Whether two runs' outputs are the same JSON values with the same probabilities (outputs
    that are not JSON values are refused later, at the door)."""
    try:
        return ([(program_output(o), p) for o, p in outputs]
                == [(program_output(o), p) for o, p in others])
    except ValueError:
        return True


_STATE = ("a program must be a function of the dataset and its random choices — does it keep "
          "state between runs (a global counter, a cache, an iterator) or read another source "
          "of randomness?")


def _at(source: str | None, line: int | None) -> str:
    return f" at {os.path.basename(source)}, line {line}" if source and line else ""


def _execute(program: Callable, dataset: tuple, arguments: dict, run: _ReplayedRun, where: str,
             source: str | None) -> list[tuple[object, Fraction]]:
    token = _CURRENT.set(run)
    previous_trace = sys.gettrace()

    def count_lines(frame, event, arg):
        if event == "line":
            run.line = frame.f_lineno
            run.step()
        return count_lines

    def trace_calls(frame, event, arg):  # trace the lines of the program's own file only
        if event == "call" and frame.f_code.co_filename == source:
            return count_lines
        return None

    if source and previous_trace is None:
        sys.settrace(trace_calls)
    try:
        with deterministic(source):
            output = program(dataset, **arguments)
            hidden = first_use()
            if hidden is not None:  # refused, but the program caught the refusal
                raise hidden
            return _output_law(output, run) if run.weight else []
    except _StepLimit:
        raise ProgramError(f"{where}: more than {run.max_steps:,} steps (lines, draws and "
                           f"comparisons) on one run{_line(source)}; does a loop never "
                           f"end?") from None
    except HiddenRandomness as hidden:
        raise ProgramError(f"{where}: {hidden}{hidden.line}") from None
    except _Replayed as replayed:
        (count, line), (now_count, now_line) = replayed.args
        raise ProgramError(f"{where} is not deterministic: replaying the random choices of an "
                           f"earlier run reached a decision with {now_count} options"
                           f"{_at(source, now_line)} where that run had one with {count} options"
                           f"{_at(source, line)}; {_STATE}") from None
    except (ProgramError, _TooDeep):
        raise
    except KeyboardInterrupt as error:
        if not _PROGRAM_OWNS_INTERRUPTS:
            raise  # the user's Ctrl-C
        raise ProgramError(f"{where} raised {type(error).__name__}{_line(source)}") from None
    except BaseException as error:  # the program's own error (SystemExit too): located
        raise ProgramError(f"{where} raised {type(error).__name__}"
                           f"{': ' if str(error) else ''}{_safe_text(error)}"
                           f"{_line(source)}") from None
    finally:
        if source and previous_trace is None:
            sys.settrace(None)
        _CURRENT.reset(token)


def _safe_text(error: BaseException) -> str:
    try:
        return str(error)[:500]
    except Exception:  # a huge integer or a broken __str__ in the program's exception
        return "(a message that cannot be printed)"


def _line(source: str | None) -> str:
    """``" at FILE, line N"`` for the innermost frame of the program's own file in the exception
    being handled."""
    frames = traceback.extract_tb(sys.exc_info()[2])
    for frame in reversed(frames):
        if source and frame.filename == source:
            return f" at {os.path.basename(frame.filename)}, line {frame.lineno}"
    return ""
