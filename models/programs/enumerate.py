"""The exact output law of a mechanism written as a Python program with exact random choices.

A *program* is a Python function ``program(dataset, **arguments)`` that draws its randomness only
through the primitives of :mod:`pufferfish.models.programs` (:func:`coin`, :func:`choice`,
:func:`uniform`, :func:`exponential_mechanism`, and the noise of
:mod:`~pufferfish.models.programs.noise`: :func:`geometric`, :func:`one_sided_geometric`,
:func:`discrete_laplace`, :func:`laplace`, :func:`exponential`, and the certified Gaussian noise of
:mod:`~pufferfish.models.programs.gaussian`) and returns its output: any JSON-like value (integers, strings, booleans, ``None``, lists and
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
  :func:`one_sided_geometric`: ``(1−α)·α^z`` for ``z ≥ 0``; the same at ``α = e^(−ε)``
  with :func:`discrete_laplace`; the densities of :func:`laplace` and :func:`exponential`)
  does not branch: it creates a variable, and the comparisons the run takes become
  constraints on one variable or on a difference of two
  (:mod:`~pufferfish.models.programs.constraints`); the run's noise probability is their exact
  mass, a finite sum plus closed-form tails, or closed-form integrals
  (:mod:`~pufferfish.models.programs.exp_poly`) — infinite support, never truncated; it is
  rational for rational α and an exact number of ``Q(e^(1/n))`` otherwise
  (:mod:`~pufferfish.models.programs.exp_numbers`);
* a comparison branches only on outcomes of positive probability, so an output that is
  impossible on a dataset gets probability exactly 0 there (an infinite privacy level is found
  exactly);
* a noisy number that is returned (or passed to ``int``) is enumerated over the values it can
  still take; if that set is unbounded the program is refused (its output space would be
  infinite: clamp it in the program — which changes the mechanism, so it is the program's
  author who does it, never the toolkit).

What is refused, with the program's name, the dataset and the line: an exception raised by the
program, a draw with an invalid parameter, a comparison that would close a genuine cycle of
comparisons between noise values (the exact sum is implemented for forests; a cycle with a
comparison implied by the others is reduced to one), arithmetic on noise other than adding a
number, negating or subtracting two noisy values, more than ``max_steps`` executed lines and
draws on one run, and more than ``max_runs`` runs.

Cost: one run of the program per decision sequence with positive probability — for ``k``
comparisons involving noise at most ``2^k`` runs, times the values enumerated for returned noisy
numbers — plus, per run, the exact mass (one message per comparison between two noise values).
Runs of a plain program are not merged: a program whose branches rejoin still costs one run
per path.  A program that declares its stepwise form (:mod:`~pufferfish.models.programs.steps`:
a fold over the dataset with a hashable state) is enumerated one step at a time instead, paths
that reach the same state with the same live noise merged into one node (the soundness argument
is in that module's docstring); report-noisy-max then costs ``O(m²)`` step runs per dataset
instead of ``2^(m−1)`` runs of the program, and the steps of a prefix shared by several datasets
are run once (a step sees only its entry of the dataset).

The noise primitives and noisy values live in :mod:`~pufferfish.models.programs.noise`, the
state of a run in :mod:`~pufferfish.models.programs.runs`.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.enclosures import Enclosure
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import fraction_str
from pufferfish.models.programs.constraints import STEP_MEMO, mixture, trim_memo
from pufferfish.models.programs.checks import (NOT_DETERMINISTIC, engine_fault, error_line,
                                               located, not_replayed, same_outputs, safe_text,
                                               too_deep, too_many_paths)
from pufferfish.models.programs.draws import choice, coin, exponential_mechanism, uniform
from pufferfish.models.programs.exp_numbers import exact_number
from pufferfish.models.programs.exp_poly import ExpPoly
from pufferfish.models.programs.guards import HiddenRandomness, first_use, patched, refusing
from pufferfish.models.programs.noise import (Noisy, discrete_laplace, exponential, geometric,
                                              laplace, one_sided_geometric, output_law)
from pufferfish.models.programs.outputs import program_output
from pufferfish.models.programs.runs import CURRENT_RUN, Run, StepLimit
from pufferfish.models.programs.steps import Stepwise, rebuilt_state, state_key
from pufferfish.models.values import canonical_value, json_value

__all__ = ["Noisy", "ProgramError", "EngineError", "program_distribution", "coin", "choice",
           "uniform", "exponential_mechanism", "geometric", "one_sided_geometric",
           "discrete_laplace", "laplace", "exponential",
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
    """A self-check of the engine failed, or the engine's own code raised while it ran a program
    (:func:`~pufferfish.models.programs.checks.engine_fault`): a defect of the toolkit, never of
    the program (the command line exits 4, "internal error in the engine").  ``details`` is the
    traceback where it happened, when it happened in a worker process (printed with
    ``--debug``)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details

    def __reduce__(self):
        return (type(self), (str(self), self.details))


# --- the enumerator ----------------------------------------------------------------------------

_nesting = 0  # program_distribution calls in progress (the memo is trimmed only between them)

# Whether a KeyboardInterrupt during a run is the program's own (set by the worker process of
# sandbox.py, which ignores Ctrl-C) rather than the user's Ctrl-C (let through in this process).
_PROGRAM_OWNS_INTERRUPTS = False


class _Replayed(BaseException):
    """A replayed prefix took another decision than the run that queued it."""


class _TooDeep(BaseException):
    """A path passed ``max_depth`` decisions."""


class _ReplayedRun(Run):
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


class _Count:
    """The runs done and the mass explored by one computation (against ``max_runs``)."""

    def __init__(self) -> None:
        self.runs, self.explored, self.first = 0, Fraction(0), True


def _replay(call: Callable, setup: Callable, same: Callable, where: str, source: str | None,
            limits: tuple[int, int, int], count: _Count, found: Callable, progress) -> None:
    """Run ``call(run)`` once per decision sequence, breadth first (module docstring of
    :mod:`~pufferfish.models.programs.checks`), each run prepared by ``setup(run)`` and its
    result handed to ``found(run, result)``; the first run of the computation is run twice and
    its results compared by ``same``."""
    max_steps, max_runs, max_depth = limits
    pending: deque[tuple[list[int], list]] = deque([([], [])])
    while pending:
        prefix, expected = pending.popleft()  # breadth first: the count of paths grows fast
        count.runs += 1
        if count.runs + len(pending) > max_runs:
            raise ProgramError(too_many_paths(where, count.runs + len(pending), max_runs,
                                              count.explored))
        run = _ReplayedRun(prefix, max_steps, expected, max_depth)
        setup(run)
        try:
            result = _execute(call, run, where, source)
            if count.first:  # the first path twice: a program with hidden state differs here
                count.first = False
                again = _ReplayedRun(prefix, max_steps, run.trace, max_depth)
                setup(again)
                repeated = _execute(call, again, where, source)
                if again.trace != run.trace or not same(repeated, result):
                    raise ProgramError(f"{where} is not deterministic: the same random choices "
                                       f"gave another output{located(source, again.line)}; "
                                       f"{NOT_DETERMINISTIC}")
        except _TooDeep:
            raise ProgramError(too_deep(where, max_depth, located(source, run.line),
                                        count.runs - 1, count.explored)) from None
        for position in range(len(prefix), len(run.taken)):
            for alternative in range(1, run.options[position]):
                pending.append((run.taken[:position] + [alternative], run.trace))
        found(run, result)
        if progress is not None and not count.runs % 256:
            progress(count.runs, count.explored)


def _paths(program: Callable, plain: tuple, arguments: dict, where: str, source: str | None,
           limits: tuple[int, int, int], progress) -> dict[object, Fraction]:
    """The law of the program by replay of its decision sequences (module docstring of
    :mod:`~pufferfish.models.programs.checks`), one step at a time for a program that declares
    its stepwise form (:mod:`~pufferfish.models.programs.steps`)."""
    declared = getattr(program, "stepwise", None)
    if type(declared) is tuple and len(declared) == 3 and all(map(callable, declared)):
        declared = Stepwise(*declared)  # the declaration by a file that imports nothing more
    if isinstance(declared, Stepwise):
        merged = _stepwise_paths(declared, plain, arguments, where, source, limits, progress)
        if merged is not None:
            return merged
    probabilities: dict[object, Fraction] = {}
    count = _Count()

    def found(run: _ReplayedRun, outputs: list) -> None:
        for key, p in _keyed(outputs, where, source, run):
            probabilities[key] = probabilities.get(key, Fraction(0)) + p
            count.explored += p

    _replay(lambda run: _finished(program(plain, **arguments), run), _no_setup, same_outputs,
            where, source, limits, count, found, progress)
    return probabilities


def _no_setup(run: Run) -> None:
    pass


def _finished(output: object, run: Run) -> list[tuple[object, Fraction]]:
    return output_law(output, run) if run.weight else []


def _keyed(outputs: list, where: str, source: str | None, run: Run) -> list:
    """The outputs of positive probability as ``(key, p)`` with their JSON keys."""
    keyed = []
    for output, p in outputs:
        if not p:
            continue
        try:
            keyed.append((program_output(output), p))
        except ValueError as error:
            raise ProgramError(f"{where}: {error}{located(source, run.line)}") from None
    return keyed


class _Unmerged(Exception):
    """A state of a stepwise program whose live noise values share a tree of comparisons (its
    law is no product of one factor per value), or noise whose law is not exact: the plain form
    is run instead."""


def _stepwise_paths(declared: Stepwise, plain: tuple, arguments: dict, where: str,
                    source: str | None, limits: tuple[int, int, int],
                    progress) -> dict[object, Fraction] | None:
    """The law of a stepwise program, its paths merged after each step by state and live noise
    (:mod:`~pufferfish.models.programs.steps`); ``None`` when a state's live values share a
    tree of comparisons (the caller then runs the plain form).

    A node is ``[key, factors, weight, kinds]``: the state's
    :func:`~pufferfish.models.programs.steps.state_key`, one ``(law, low, high)`` per live
    variable (the law zero outside ``[low, high]``), the weight (finite draws times the mass
    summed out) and the kinds of noise drawn.  The phases replay ``start`` on the dataset, then
    ``step`` at each index with that entry, then ``finish``, from every node, its live
    variables re-created with their laws and bounds; the first run of each phase is run twice.
    Nodes that agree on everything but the last factor are merged (:func:`_merged_into`).

    A step and ``finish`` see only the node's state, the index, the entry and the arguments,
    so what they do from a node is memoised across datasets (the children of a node of weight
    1, scaled by the node's weight: exact products), keyed by the functions, the arguments, the
    limits, the index and entry, and the node; datasets that share a prefix share its phases.
    Cost: per phase, the decision sequences of one step from each node not met before."""
    count = _Count()
    prefix = _memo_key((declared.step, declared.finish, limits[0], limits[2]),
                       tuple(sorted(arguments.items())))
    nodes: list[list] = [[("NoneType", None), [], Fraction(1), frozenset()]]
    try:
        nodes = _phase(nodes, lambda state: declared.start(plain, **arguments), None, where,
                       source, limits, count, progress)
        for i, value in enumerate(plain):
            nodes = _phase(nodes, lambda state, i=i, value=value: declared.step(
                state, i, value, **arguments), prefix and _memo_key(prefix + (i,), value),
                where, source, limits, count, progress)
    except _Unmerged:
        return None
    probabilities: dict[object, Fraction] = {}
    count.first = True
    outputs_of = []
    try:
        for node in nodes:
            outputs_of.append(_memoised(prefix and (prefix, "finish"), node, lambda unit, found:
                _replay_node(unit, lambda state, run: _finished(
                    declared.finish(state, **arguments), _exact_only(run)), same_outputs,
                    lambda run, outputs: found.extend(_keyed(outputs, where, source, run)),
                    where, source, limits, count, progress)))
    except _Unmerged:
        return None
    for node, outputs in zip(nodes, outputs_of):
        for key, p in outputs:
            p = exact_number(node[2] * p)
            probabilities[key] = probabilities.get(key, Fraction(0)) + p
            count.explored += p
    return probabilities


def _memo_key(prefix: tuple, value: object) -> tuple | None:
    """``prefix`` and the key of ``value`` (:func:`~pufferfish.models.programs.steps.state_key`
    of plain values), or ``None`` (nothing memoised) for a value outside that grammar."""
    try:
        return prefix + (state_key(value, None, []),)
    except TypeError:
        return None


def _memoised(memo: tuple | None, node: list, compute: Callable) -> list:
    """What ``compute(unit, found)`` appends to ``found`` from the node ``unit``: ``node`` at
    weight 1, memoised under ``memo`` and the node (``None``: not memoised)."""
    full = None if memo is None else (memo, node[0], tuple(node[1]), node[3])
    found = None if full is None else STEP_MEMO.get(full)
    if found is None:
        found = []
        compute([node[0], node[1], Fraction(1), node[3]], found)
        if full is not None:
            STEP_MEMO[full] = found
    return found


def _phase(nodes: list[list], phase: Callable, memo: tuple | None, where: str,
           source: str | None, limits: tuple[int, int, int], count: _Count,
           progress) -> list[list]:
    """The nodes after one phase (:func:`_stepwise_paths`)."""
    merged: dict[tuple, list[list]] = {}
    count.first = True
    for node in nodes:
        children = _memoised(memo, node, lambda unit, found: _replay_node(
            unit, lambda state, run: _next_node(phase(state), run, where, source), _same_node,
            lambda run, child: found.append(child), where, source, limits, count, progress))
        for key, factors, weight, kinds in children:
            _merged_into(merged, [key, factors, exact_number(node[2] * weight), kinds])
    return [node for group in merged.values() for node in group]


def _replay_node(node: list, call: Callable, same: Callable, found: Callable, where: str,
                 source: str | None, limits: tuple[int, int, int], count: _Count,
                 progress) -> None:
    """Every decision sequence of ``call(state, run)`` from ``node`` (:func:`_stepwise_paths`),
    each result handed to ``found(run, result)``."""
    key, factors, weight, kinds = node
    variables: list[int] = []

    def setup(run: Run) -> None:
        run.weight = weight
        run.noise_kinds = set(kinds)
        variables[:] = [run.noise.add_variable(law, low, high, total_one=False)
                        for law, low, high in factors]

    _replay(lambda run: call(rebuilt_state(key, run, variables), run), setup, same, where,
            source, limits, count, found, progress)


def _next_node(state: object, run: Run, where: str, source: str | None) -> list:
    """The node a run of a step reaches: its state's key, the live variables' laws (their
    trees summed out towards them) and bounds, the weight times the mass of the trees without
    a live variable; :class:`_Unmerged` when two live variables share a tree."""
    live: list[int] = []
    try:
        key = state_key(state, run, live)
    except TypeError as error:
        raise ProgramError(f"{where}: {error}{located(source, run.line)}") from None
    split = _exact_only(run).noise.factors(live) if run.weight else (Fraction(0), [])
    if split is None:
        raise _Unmerged()
    weight, beliefs = split
    weight *= run.weight
    factors = []
    if weight:
        for variable, law in zip(live, beliefs):
            if not law.pieces:  # the density is 0: so is the node
                return [key, [], Fraction(0), frozenset()]
            factors.append((law, run.noise.lows[variable], run.noise.highs[variable]))
    return [key, factors, exact_number(weight), frozenset(run.noise_kinds)]


def _exact_only(run: Run) -> Run:
    """``run``, or :class:`_Unmerged` when it drew noise whose law is not an exact piecewise
    exponential polynomial (such noise is left to the plain form)."""
    if not all(isinstance(law, ExpPoly) for law in run.noise.laws):
        raise _Unmerged()
    return run


def _same_node(first: list, second: list) -> bool:
    """Whether two runs of one decision sequence reached the same node (the laws compared by
    their bounds)."""
    return (first[0] == second[0] and first[2] == second[2] and first[3] == second[3]
            and [f[1:] for f in first[1]] == [f[1:] for f in second[1]])


def _merged_into(merged: dict[tuple, list], node: list) -> None:
    """Add ``node`` to the nodes of the next phase: a node with the same key, kinds and laws of
    every live variable but the last, and a last law whose interval meets or adjoins the new
    one's, becomes their merge: its last law is ``w₁g₁ + w₂g₂`` on the union of the intervals
    and its weight 1 (the density ``w₁·Πf·g₁ + w₂·Πf·g₂``).  Each law is positive on its whole
    interval (bound consistency on a forest), so the union must be an interval for the merged
    one to be, and the engine still branches only on outcomes of positive probability.  A node
    of weight 0 is dropped."""
    key, factors, weight, kinds = node
    if not weight:
        return
    group = merged.setdefault(
        (key, kinds, tuple((id(law), low, high) for law, low, high in factors[:-1])), [])
    for old in group:
        if not factors:
            old[2] = exact_number(old[2] + weight)
            return
        (first, low, high), (second, other_low, other_high) = old[1][-1], factors[-1]
        step = 0 if first.continuous else 1
        if ((high is not None and other_low is not None and other_low > high + step) or
                (other_high is not None and low is not None and low > other_high + step)):
            continue  # a gap between the intervals: kept apart
        law = mixture(first, old[2], second, weight)
        old[1] = old[1][:-1] + [(law, None if low is None or other_low is None
                                 else min(low, other_low),
                                 None if high is None or other_high is None
                                 else max(high, other_high))]
        old[2] = Fraction(1)
        return
    group.append(node)


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
    probabilities = {key: p if isinstance(p, Enclosure) else exact_number(p)
                     for key, p in probabilities.items()}
    total = sum(probabilities.values(), Fraction(0))
    # a defect of the engine, never of the program: refuse rather than guess (with Gaussian
    # noise the masses are enclosures, whose sum must contain 1)
    if not total.contains(1) if isinstance(total, Enclosure) else total != 1:
        raise EngineError(f"{where}: the runs' probabilities sum to {fraction_str(total)}, "
                          f"not 1 (a defect of the toolkit's engine)")
    return Distribution._trusted(probabilities)


def _source_file(program: Callable) -> str | None:
    """The file name the program's code objects carry (as Python recorded it), or ``None``."""
    code = getattr(program, "__code__", None)
    return code.co_filename if code is not None else None


def _execute(call: Callable, run: _ReplayedRun, where: str, source: str | None) -> object:
    """``call(run)`` with the run current, the program's lines counted and the sources of
    randomness refused; the program's failures become located :class:`ProgramError`\\ s."""
    token = CURRENT_RUN.set(run)
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
            result = call(run)
            hidden = first_use()
            if hidden is not None:  # refused, but the program caught the refusal
                raise hidden
            return result
    except StepLimit:
        raise ProgramError(f"{where}: more than {run.max_steps:,} steps (lines, draws and "
                           f"comparisons) on one run{error_line(source)}; does a loop never "
                           f"end?") from None
    except HiddenRandomness as hidden:
        raise ProgramError(f"{where}: {hidden}{hidden.line}") from None
    except _Replayed as replayed:
        raise ProgramError(not_replayed(where, source, *replayed.args)) from None
    except (ProgramError, _TooDeep, _Unmerged, MemoryError):
        raise  # a MemoryError is the memory limit's (the worker reports it with the figure)
    except KeyboardInterrupt as error:
        if not _PROGRAM_OWNS_INTERRUPTS:
            raise  # the user's Ctrl-C
        raise ProgramError(f"{where} raised {type(error).__name__}{error_line(source)}") from None
    except BaseException as error:  # the program's own error (SystemExit too): located
        fault = engine_fault(error)
        if fault is not None:  # the engine's own code failed: a defect, never the program's
            raise EngineError(f"{where}: {type(error).__name__}: {safe_text(error)} (in the "
                              f"engine's {fault})") from error
        text = safe_text(error)
        raise ProgramError(f"{where} raised {type(error).__name__}{': ' if text else ''}{text}"
                           f"{error_line(source)}") from None
    finally:
        if source and previous_trace is None:
            sys.settrace(None)
        CURRENT_RUN.reset(token)
