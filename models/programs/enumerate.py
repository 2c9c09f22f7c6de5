"""The exact output law of a mechanism written as a Python program with exact random choices.

A *program* is a Python function ``program(dataset, **arguments)`` that draws its randomness only
through the primitives of :mod:`pufferfish.models.programs` (:func:`coin`, :func:`choice`,
:func:`uniform`, :func:`exponential_mechanism`, :func:`geometric`, :func:`one_sided_geometric`)
and returns its output: any JSON-like value (integers, strings, booleans, ``None``, lists and
tuples of them).  Ordinary control flow is allowed: branches, loops, early return, comparisons of
noisy values with each other and with constants.

Semantics (exhaustive enumeration by replay).  A run of the program is determined by its
*decisions*: the value taken at each finite draw, the outcome of each comparison that involves
noise, and the value of each noisy number the program turns into an integer or returns.
:func:`program_distribution` runs the program once per complete decision sequence, breadth first
(a run replays a prefix and takes the first option at every new decision; the other options are
queued), and adds the probability of each run to its output:

* a finite draw multiplies the run's weight by the exact probability of the value taken;
* a noise draw (:func:`geometric`: ``Pr[Z = z] = (1−α)/(1+α)·α^|z|`` on all integers;
  :func:`one_sided_geometric`: ``(1−α)·α^z`` for ``z ≥ 0``) does not branch: it creates a
  variable, and the comparisons the run takes become constraints on the variables
  (:mod:`~pufferfish.models.programs.constraints`); the run's noise probability is their exact
  mass, a finite sum plus closed-form geometric tails
  (:mod:`~pufferfish.models.programs.exp_poly`) — infinite support, never truncated;
* a comparison branches only on outcomes of positive probability, so an output that is
  impossible on a dataset gets probability exactly 0 there (an infinite privacy level is found
  exactly);
* a noisy number that is returned (or passed to ``int``) is enumerated over the values it can
  still take; if that set is unbounded the program is refused (its output space would be
  infinite: clamp it in the program — which changes the mechanism, so it is the program's
  author who does it, never the toolkit).

What is refused, with the program's name, the dataset and the line: an exception raised by the
program, a draw with an invalid parameter, a comparison that would make the comparisons between
noise values cyclic (the exact sum is implemented for forests of comparisons), arithmetic on
noise other than adding an integer, more than ``max_steps`` executed lines and draws on one run,
and more than ``max_runs`` runs.

Cost: one run of the program per decision sequence with positive probability — for ``k``
comparisons involving noise at most ``2^k`` runs, times the values enumerated for returned noisy
numbers — plus, per run, the exact mass (one message per comparison between two noise values).
Runs are not merged: a program whose branches rejoin still costs one run per path.
"""

from __future__ import annotations

import math
import sys
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from fractions import Fraction
from functools import lru_cache
from numbers import Rational

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import fraction_str
from pufferfish.models.programs.constraints import CycleError, NoiseConstraints, trim_memo
from pufferfish.models.programs.checks import (NOT_DETERMINISTIC, error_line, located,
                                               not_replayed, same_outputs, safe_text, too_deep,
                                               too_many_paths)
from pufferfish.models.programs.exp_poly import ExpPoly
from pufferfish.models.programs.guards import HiddenRandomness, first_use, patched, refusing
from pufferfish.models.programs.outputs import program_output
from pufferfish.models.values import canonical_value, json_value

__all__ = ["Noisy", "ProgramError", "EngineError", "program_distribution", "coin", "choice",
           "uniform", "exponential_mechanism", "geometric", "one_sided_geometric",
           "DEFAULT_MAX_STEPS", "DEFAULT_MAX_RUNS", "DEFAULT_MAX_DEPTH"]

DEFAULT_MAX_STEPS = 100_000
"""Executed lines of the program plus draws and comparisons allowed on one run."""

DEFAULT_MAX_RUNS = 20_000
"""Paths (complete decision sequences) allowed for one dataset: refused as soon as the paths
run and queued exceed it.  The engine runs some hundreds to some thousands of paths a second, so
the default is tens of seconds of work per dataset."""

DEFAULT_MAX_DEPTH = 500
"""Random decisions allowed on one path.  A loop that ends with probability 1 but not surely
(draw until heads) has paths of every length, each replayed from the start: it is refused when
a path passes this depth, with the mass of the paths explored."""


class ProgramError(ModelError):
    """A program that cannot be enumerated: the message names the program, the dataset and the
    line."""


class EngineError(RuntimeError):
    """A self-check of the engine failed: a defect of the toolkit, never of the program (the
    command line exits 4)."""


class _StepLimit(Exception):
    pass


class _Run:
    """One execution of the program along a prescribed prefix of decisions."""

    def __init__(self, prefix: Sequence[int], max_steps: int) -> None:
        self.prefix = prefix
        self.taken: list[int] = []
        self.options: list[int] = []
        self.weight = Fraction(1)
        self.noise = NoiseConstraints()
        self.steps = 0
        self.max_steps = max_steps

    def step(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise _StepLimit()

    def decide(self, count: int) -> int:
        """The index of the option taken at the next decision among ``count`` options."""
        position = len(self.taken)
        index = self.prefix[position] if position < len(self.prefix) else 0
        self.taken.append(index)
        self.options.append(count)
        return index


_CURRENT: ContextVar[_Run | None] = ContextVar("pufferfish_program_run", default=None)


def _run() -> _Run:
    run = _CURRENT.get()
    if run is None:
        raise RuntimeError("random primitives of pufferfish.models.programs can only be called "
                           "by a program that the toolkit enumerates (program_distribution)")
    run.step()
    return run


def _exact(value: object, what: str) -> Fraction:
    if isinstance(value, bool) or isinstance(value, float) or not isinstance(value, Rational | str):
        raise ValueError(f"{what} must be an exact number (an int, a Fraction or a string such "
                         f"as '1/2'), got {value!r}")
    return Fraction(value)


# --- finite draws ------------------------------------------------------------------------------

def choice(weighted: Mapping[object, object] | Sequence[tuple[object, object]]) -> object:
    """A value drawn with exact probabilities: ``choice({"a": "1/4", "b": "3/4"})`` or a list of
    ``(value, probability)`` pairs (for values Python would merge as dict keys).  Probabilities
    must be nonnegative and sum to 1."""
    run = _run()
    items = list(weighted.items() if isinstance(weighted, Mapping) else weighted)
    options = []
    total = Fraction(0)
    for value, p in items:
        p = _exact(p, "a probability")
        if p < 0:
            raise ValueError(f"probability {fraction_str(p)} of {value!r} is negative")
        total += p
        if p:
            options.append((value, p))
    if total != 1:
        raise ValueError(f"the probabilities sum to {fraction_str(total)}, not 1")
    value, p = options[run.decide(len(options))] if len(options) > 1 else options[0]
    run.weight *= p
    return value


def coin(p: object = Fraction(1, 2)) -> bool:
    """``True`` with probability ``p``, else ``False``."""
    p = _exact(p, "the probability of a coin")
    if not 0 <= p <= 1:
        raise ValueError(f"the probability of a coin must be in [0, 1], got {fraction_str(p)}")
    return choice([(True, p), (False, 1 - p)])


def uniform(values: Sequence[object]) -> object:
    """A value drawn uniformly from ``values`` (a non-empty sequence; repeated values count
    once each time they appear)."""
    values = list(values)
    if not values:
        raise ValueError("uniform() needs at least one value")
    return choice([(v, Fraction(1, len(values))) for v in values])


def exponential_mechanism(scores: Mapping[object, int] | Sequence[tuple[object, int]],
                          base: object) -> object:
    """A candidate drawn with probability proportional to ``base^score`` (McSherry and Talwar's
    exponential mechanism with ``base = e^(ε/(2Δ))`` made rational: ``base`` an exact number
    > 0, scores integers)."""
    base = _exact(base, "the base of the exponential mechanism")
    if base <= 0:
        raise ValueError(f"the base must be positive, got {fraction_str(base)}")
    items = list(scores.items() if isinstance(scores, Mapping) else scores)
    if not items:
        raise ValueError("the exponential mechanism needs at least one candidate")
    for candidate, score in items:
        if isinstance(score, bool) or not isinstance(score, int):
            raise ValueError(f"the score of {candidate!r} must be an integer, got {score!r}")
    low = min(score for _, score in items)
    weights = [base ** (score - low) for _, score in items]
    total = sum(weights)
    return choice([(c, w / total) for (c, _), w in zip(items, weights)])


# --- noise -------------------------------------------------------------------------------------

@lru_cache(maxsize=1024)
def _alpha(alpha: object) -> Fraction:
    alpha = _exact(alpha, "alpha")
    if not 0 <= alpha < 1:
        raise ValueError(f"alpha must satisfy 0 <= alpha < 1, got {fraction_str(alpha)}")
    return alpha


def geometric(alpha: object) -> "Noisy | int":
    """Two-sided geometric noise: ``Pr[Z = z] = (1−α)/(1+α)·α^|z|`` on every integer (the
    discrete Laplace mechanism with ``α = e^(−1/b)``); ``0`` when ``α = 0``."""
    run = _run()
    alpha = _alpha(alpha)
    if not alpha:
        return 0
    return Noisy(run.noise.add_variable(ExpPoly.two_sided_geometric(alpha), None, None), 0, run)


def one_sided_geometric(alpha: object) -> "Noisy | int":
    """One-sided geometric noise: ``Pr[Z = z] = (1−α)·α^z`` for ``z ≥ 0``; ``0`` when
    ``α = 0``."""
    run = _run()
    alpha = _alpha(alpha)
    if not alpha:
        return 0
    return Noisy(run.noise.add_variable(ExpPoly.one_sided_geometric(alpha), 0, None), 0, run)


class Noisy:
    """An integer noise variable plus an integer offset, ``x_i + offset``, inside one run.

    Supported: ``+`` and ``−`` of an integer; ``<``, ``<=``, ``>``, ``>=`` with a number or another
    noisy value (each comparison is a decision of the run); ``int(x)`` (a decision over the values
    it can take); ``min``/``max`` (they compare).  Anything else (``==``, ``bool``, hashing, a
    product, the sum of two noisy values) raises ``TypeError``, since its exact law is not
    implemented.
    """

    __slots__ = ("variable", "offset", "run")

    def __init__(self, variable: int, offset: int, run: _Run) -> None:
        self.variable, self.offset, self.run = variable, offset, run

    def __repr__(self) -> str:
        return f"<noise x{self.variable} {'+' if self.offset >= 0 else '-'} {abs(self.offset)}>"

    def _shifted(self, amount: object, sign: int) -> "Noisy":
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise TypeError(f"only an integer can be added to a noisy value, not "
                            f"{type(amount).__name__} {amount!r}")
        return Noisy(self.variable, self.offset + sign * amount, self.run)

    def __add__(self, other: object) -> "Noisy":
        if isinstance(other, Noisy):
            raise TypeError("the sum of two noisy values is not supported by the exact engine")
        return self._shifted(other, 1)

    __radd__ = __add__

    def __sub__(self, other: object) -> "Noisy":
        if isinstance(other, Noisy):
            raise TypeError("the difference of two noisy values is not supported by the exact "
                            "engine; compare them instead")
        return self._shifted(other, -1)

    def __rsub__(self, other: object):
        raise TypeError("a number minus a noisy value is not supported by the exact engine")

    def __neg__(self):
        raise TypeError("the negation of a noisy value is not supported by the exact engine")

    def __ge__(self, other: object) -> bool:
        return _compare(self, other, at_least=True)

    def __gt__(self, other: object) -> bool:
        return _compare(self, other + 1 if isinstance(other, Noisy) else _next_above(other),
                        at_least=True)

    def __le__(self, other: object) -> bool:
        return not self.__gt__(other)

    def __lt__(self, other: object) -> bool:
        return not self.__ge__(other)

    def __eq__(self, other: object):
        raise TypeError("compare noisy values with <, <=, > or >=; == and != are not supported by "
                        "the exact engine")

    __ne__ = __eq__

    def __bool__(self):
        raise TypeError("a noisy value has no truth value; compare it with a number or another "
                        "noisy value")

    __hash__ = None  # type: ignore[assignment]

    def __int__(self) -> int:
        return _concretise(self)

    __index__ = __int__


def _next_above(value: object) -> object:
    """The least integer threshold ``t`` with ``x > value ⇔ x ≥ t`` for an integer ``x``."""
    number = _exact_threshold(value)
    return math.floor(number) + 1


def _exact_threshold(value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, Rational):
        raise TypeError(f"a noisy value can be compared with an integer, a Fraction or another "
                        f"noisy value, not {type(value).__name__} {value!r}")
    return Fraction(value)


def _compare(left: Noisy, right: object, at_least: bool) -> bool:
    """The decision ``left ≥ right``: branches on the outcomes of positive probability."""
    run = left.run
    run.step()
    noise = run.noise
    if isinstance(right, Noisy):
        if right.variable == left.variable:
            return left.offset >= right.offset
        difference = right.offset - left.offset  # x_l − x_r ≥ difference
        holds = ("difference", left.variable, right.variable, difference, None)
        fails = ("difference", left.variable, right.variable, None, difference - 1)
    else:
        threshold = math.ceil(_exact_threshold(right) - left.offset)  # x_l ≥ threshold
        holds = ("unary", left.variable, threshold, None)
        fails = ("unary", left.variable, None, threshold - 1)
    outcomes = [(True, holds), (False, fails)]
    feasible = [(value, c) for value, c in outcomes if noise.bounds(c) is not None]
    if len(feasible) == 2 and holds[0] == "difference" and \
            (holds[1], holds[2]) not in noise.edges and (holds[2], holds[1]) not in noise.edges \
            and noise.connected(holds[1], holds[2]):
        raise CycleError(f"comparing {left!r} with {right!r} would make the comparisons between "
                         f"noise values cyclic; the exact engine sums forests of comparisons")
    if len(feasible) == 1:
        # The other outcome is proved impossible (bound propagation is sound), so this one is
        # implied by the constraints already taken: adding it would change nothing.
        return feasible[0][0]
    value, constraint = feasible[run.decide(2)]
    if constraint[0] == "unary":
        noise.constrain_value(*constraint[1:])
    else:
        noise.constrain_difference(*constraint[1:])
    return value


def _concretise(value: Noisy) -> int:
    """The decision over the values ``value`` can still take (each of positive probability)."""
    run = value.run
    run.step()
    lows, highs = run.noise.bounds()
    low, high = lows[value.variable], highs[value.variable]
    if low is None or high is None:
        side = ("below" if low is None else "") + (" and " if low is None and high is None else "")
        side += "above" if high is None else ""
        raise ValueError(f"the program turns a noisy value unbounded {side} into an output or an "
                         f"integer: its output space is infinite; clamp it in the program (for "
                         f"example max(lo, min(x, hi)) — which changes the mechanism)")
    index = run.decide(high - low + 1) if high > low else 0
    run.noise.constrain_value(value.variable, low + index, low + index)
    return low + index + value.offset


def _noisy_variables(value: object, found: list[int]) -> list[int]:
    """The noise variables inside an output, in order of first appearance."""
    if isinstance(value, Noisy):
        if value.variable not in found:
            found.append(value.variable)
    elif isinstance(value, list | tuple):
        for item in value:
            _noisy_variables(item, found)
    return found


def _substitute(value: object, variable: int | None = None, x: int | None = None) -> object:
    """The output with every noisy value of ``variable`` replaced by ``x + offset``, other
    noisy values concretised by decisions, lists made tuples."""
    if isinstance(value, Noisy):
        return x + value.offset if value.variable == variable else _concretise(value)
    if isinstance(value, list | tuple):
        return tuple(_substitute(item, variable, x) for item in value)
    return value


def _output_law(output: object, run: _Run) -> list[tuple[object, Fraction]]:
    """The outputs of a finished run and their probabilities.  Noisy values in the output are
    concretised by decisions except the last variable, whose values are read off its exact
    marginal in one pass (one run instead of one per value)."""
    variables = _noisy_variables(output, [])
    if not variables:
        return [(output, run.weight * run.noise.probability())]
    last = variables[-1]
    for variable in variables[:-1]:
        _concretise(Noisy(variable, 0, run))
    lows, highs = run.noise.bounds()
    low, high = lows[last], highs[last]
    if low is None or high is None:
        _concretise(Noisy(last, 0, run))  # refuses an unbounded output with the reason
    marginal = run.noise.marginal(last)
    concrete = _substitute(output, None, None) if len(variables) > 1 else output
    return [(_substitute(concrete, last, x), run.weight * marginal(x)) for x in range(low, high + 1)]


# --- the enumerator ----------------------------------------------------------------------------

_nesting = 0  # program_distribution calls in progress (the memo is trimmed only between them)

# Whether a KeyboardInterrupt during a run is the program's own (set by the worker process of
# sandbox.py, which ignores Ctrl-C) rather than the user's Ctrl-C (let through in this process).
_PROGRAM_OWNS_INTERRUPTS = False


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


def _paths(program: Callable, plain: tuple, arguments: dict, where: str, source: str | None,
           limits: tuple[int, int, int], progress) -> dict[object, Fraction]:
    """The law of the program by replay of its decision sequences, breadth first (module
    docstring of :mod:`~pufferfish.models.programs.checks`)."""
    max_steps, max_runs, max_depth = limits
    probabilities: dict[object, Fraction] = {}
    pending: deque[tuple[list[int], list]] = deque([([], [])])
    runs, explored, first = 0, Fraction(0), None
    while pending:
        prefix, expected = pending.popleft()  # breadth first: the count of paths grows fast
        runs += 1
        if runs + len(pending) > max_runs:
            raise ProgramError(too_many_paths(where, runs + len(pending), max_runs, explored))
        run = _ReplayedRun(prefix, max_steps, expected, max_depth)
        try:
            outputs = _execute(program, plain, arguments, run, where, source)
            if first is None:  # the first path twice: a program with hidden state differs here
                first = again = _ReplayedRun(prefix, max_steps, run.trace, max_depth)
                repeated = _execute(program, plain, arguments, again, where, source)
                if again.trace != run.trace or not same_outputs(repeated, outputs):
                    raise ProgramError(f"{where} is not deterministic: the same random choices "
                                       f"gave another output{located(source, again.line)}; "
                                       f"{NOT_DETERMINISTIC}")
        except _TooDeep:
            raise ProgramError(too_deep(where, max_depth, located(source, run.line), runs - 1,
                                        explored)) from None
        for position in range(len(prefix), len(run.taken)):
            for alternative in range(1, run.options[position]):
                pending.append((run.taken[:position] + [alternative], run.trace))
        for output, p in outputs:
            if not p:
                continue
            try:
                key = program_output(output)
            except ValueError as error:
                raise ProgramError(f"{where}: {error}{located(source, run.line)}") from None
            probabilities[key] = probabilities.get(key, Fraction(0)) + p
            explored += p
        if progress is not None and not runs % 256:
            progress(runs, explored)
    return probabilities


def program_distribution(program: Callable, dataset: Sequence[object],
                         arguments: Mapping[str, object] | None = None, *,
                         name: str | None = None, max_steps: int = DEFAULT_MAX_STEPS,
                         max_runs: int = DEFAULT_MAX_RUNS, max_depth: int = DEFAULT_MAX_DEPTH,
                         progress: Callable[[int, Fraction], None] | None = None) -> Distribution:
    """The exact output distribution of ``program(dataset, **arguments)`` (module docstring),
    computed in this process — the engine, for a trusted program; model files and the command
    line run programs behind the fault boundary of
    :class:`~pufferfish.models.programs.mechanism.ProgramMechanism`.

    ``dataset`` is passed as a tuple of plain values (JSON booleans as Python ``bool``).  Each run
    is checked (:mod:`~pufferfish.models.programs.checks`: no hidden randomness, replays that
    agree, JSON outputs); ``progress(runs, explored mass)`` is called every 256 runs.  Refused
    (:class:`ProgramError`): more than ``max_runs`` paths (runs done plus paths queued), a path
    of more than ``max_depth`` decisions, more than ``max_steps`` steps on one run.  A failed
    self-check of the engine is an :class:`EngineError`.

    >>> from pufferfish.models.programs import geometric
    >>> def noisy_above(data, threshold):
    ...     return data[0] + geometric("1/2") >= threshold
    >>> program_distribution(noisy_above, (1,), {"threshold": 2})
    Distribution({true: 1/3, false: 2/3})
    """
    global _nesting
    arguments = dict(arguments or {})
    label = name or getattr(program, "__qualname__", repr(program))
    if not hasattr(program, "__code__"):  # a wrapper such as a ProgramFile: run what it wraps
        program = getattr(program, "__wrapped__", program)
    plain = tuple(json_value(canonical_value(v)) for v in dataset)
    where = f"program {label} on dataset {list(plain)}"
    source = _source_file(program)
    if not _nesting:
        trim_memo()  # between computations only: a running one keeps every entry it made
    _nesting += 1
    try:
        with patched():  # the sources of randomness and time, refused during each run
            probabilities = _paths(program, plain, arguments, where, source,
                                   (max_steps, max_runs, max_depth), progress)
    finally:
        _nesting -= 1
    total = sum(probabilities.values(), Fraction(0))
    if total != 1:  # a defect of the engine, never of the program: refuse rather than guess
        raise EngineError(f"{where}: the runs' probabilities sum to {fraction_str(total)}, "
                          f"not 1 (a defect of the toolkit's engine)")
    return Distribution._trusted(probabilities)


def _source_file(program: Callable) -> str | None:
    """The file name the program's code objects carry (as Python recorded it), or ``None``."""
    code = getattr(program, "__code__", None)
    return code.co_filename if code is not None else None


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
        with refusing(source):
            output = program(dataset, **arguments)
            hidden = first_use()
            if hidden is not None:  # refused, but the program caught the refusal
                raise hidden
            return _output_law(output, run) if run.weight else []
    except _StepLimit:
        raise ProgramError(f"{where}: more than {run.max_steps:,} steps (lines, draws and "
                           f"comparisons) on one run{error_line(source)}; does a loop never "
                           f"end?") from None
    except HiddenRandomness as hidden:
        raise ProgramError(f"{where}: {hidden}{hidden.line}") from None
    except _Replayed as replayed:
        raise ProgramError(not_replayed(where, source, *replayed.args)) from None
    except (ProgramError, _TooDeep):
        raise
    except KeyboardInterrupt as error:
        if not _PROGRAM_OWNS_INTERRUPTS:
            raise  # the user's Ctrl-C
        raise ProgramError(f"{where} raised {type(error).__name__}{error_line(source)}") from None
    except BaseException as error:  # the program's own error (SystemExit too): located
        raise ProgramError(f"{where} raised {type(error).__name__}"
                           f"{': ' if str(error) else ''}{safe_text(error)}"
                           f"{error_line(source)}") from None
    finally:
        if source and previous_trace is None:
            sys.settrace(None)
        _CURRENT.reset(token)
