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

Length: the primitives, the noisy-value algebra they return and the replay enumerator that
decides their comparisons share the run state (:class:`_Run`) and are read together.
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
from pufferfish.models.programs.exp_numbers import exact_number
from pufferfish.models.programs.exp_poly import ContinuousExpPoly, ExpPoly
from pufferfish.models.programs.guards import HiddenRandomness, first_use, patched, refusing
from pufferfish.models.programs.outputs import program_output
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


def _positive(value: object, what: str) -> Fraction:
    value = _exact(value, what)
    if value <= 0:
        raise ValueError(f"{what} must be positive, got {fraction_str(value)}")
    return value


@lru_cache(maxsize=1024)
def _epsilon(epsilon: object) -> Fraction:
    return _positive(epsilon, "epsilon")


@lru_cache(maxsize=1024)
def _scale(scale: object) -> Fraction:
    return _positive(scale, "the scale")


def discrete_laplace(epsilon: object, one_sided: bool = False) -> "Noisy":
    """Discrete Laplace noise at ``α = e^(−ε)`` for a rational ``ε > 0``: ``Pr[Z = z] =
    (1−α)/(1+α)·α^|z|`` on every integer (Ghosh, Roughgarden and Sundararajan's geometric
    mechanism, as deployed libraries draw it for an ε-DP count); with ``one_sided``,
    ``(1−α)·α^z`` for ``z ≥ 0``.  Its probabilities are exact numbers of ``Q(e^(1/n))``
    (:mod:`~pufferfish.models.programs.exp_numbers`)."""
    run = _run()
    epsilon = _epsilon(epsilon)
    if one_sided:
        return Noisy(run.noise.add_variable(ExpPoly.one_sided_discrete_laplace(epsilon), 0, None),
                     0, run)
    return Noisy(run.noise.add_variable(ExpPoly.discrete_laplace(epsilon), None, None), 0, run)


def laplace(scale: object) -> "Noisy":
    """Continuous Laplace noise of rational scale ``b > 0``: density ``e^(−|z|/b)/(2b)`` on the
    real line (Dwork, McSherry, Nissim and Smith's Laplace mechanism: ``b = Δ/ε``).  A continuous
    noisy value may be shifted by rational numbers and compared with numbers and with other
    continuous noisy values; ``≥`` and ``>`` have the same probability."""
    run = _run()
    return Noisy(run.noise.add_variable(ContinuousExpPoly.laplace(_scale(scale)), None, None),
                 0, run)


def exponential(scale: object) -> "Noisy":
    """Continuous exponential noise of rational scale ``b > 0``: density ``e^(−z/b)/b`` for
    ``z ≥ 0`` (the one-sided noise of report-noisy-max with exponential noise)."""
    run = _run()
    return Noisy(run.noise.add_variable(ContinuousExpPoly.exponential(_scale(scale)), 0, None),
                 0, run)


class Noisy:
    """A noisy number inside one run: ``±x_i + offset`` or ``x_i − x_j + offset`` for noise
    variables ``x_i, x_j`` of one kind (integer or continuous) and an exact offset.

    Supported: ``+`` and ``−`` of a number (an integer for integer noise, any rational for
    continuous noise), negation, the difference of two noisy values (``ν − ρ``: Sparse Vector
    with gap as published); ``<``, ``<=``, ``>``, ``>=`` with a number or another noisy value
    whenever the comparison is a bound on one variable or on a difference of two (each
    comparison is a decision of the run); ``int(x)`` of ``±x_i + offset`` (a decision over the
    values it can take); ``min``/``max`` (they compare).  Anything else (``==``, ``bool``,
    hashing, a product, the sum of two noisy values, a comparison of ``x + y`` or of three
    variables) raises ``TypeError``: its exact law is not implemented.
    """

    __slots__ = ("variable", "offset", "run", "sign", "minus", "continuous")

    def __init__(self, variable: int, offset, run: _Run, sign: int = 1,
                 minus: int | None = None, continuous: bool | None = None) -> None:
        # the value sign·x_variable − x_minus + offset (sign is 1 when minus is set)
        self.variable, self.offset, self.run = variable, offset, run
        self.sign, self.minus = sign, minus
        # whether the noise is continuous (Laplace, exponential) rather than integer
        self.continuous = (run.noise.laws[variable].continuous if continuous is None
                           else continuous)

    def __repr__(self) -> str:
        head = f"{'-' if self.sign < 0 else ''}x{self.variable}"
        if self.minus is not None:
            head += f" - x{self.minus}"
        return f"<noise {head} {'+' if self.offset >= 0 else '-'} {abs(self.offset)}>"

    def _terms(self) -> dict[int, int]:
        terms = {self.variable: self.sign}
        if self.minus is not None:
            terms[self.minus] = terms.get(self.minus, 0) - 1
        return {v: c for v, c in terms.items() if c}

    def _shifted(self, amount: object, sign: int) -> "Noisy":
        if self.continuous and isinstance(amount, Rational) and not isinstance(amount, bool):
            amount = Fraction(amount)
        elif isinstance(amount, bool) or not isinstance(amount, int):
            raise TypeError(f"only an integer can be added to a noisy integer (a rational number "
                            f"to continuous noise), not {type(amount).__name__} {amount!r}")
        return Noisy(self.variable, self.offset + sign * amount, self.run, self.sign, self.minus,
                     self.continuous)

    def _combined(self, other: "Noisy", sign: int) -> "Noisy | object":
        """``self + sign·other`` as a noisy value (or a number when the noise cancels)."""
        if other.continuous != self.continuous:
            raise TypeError("continuous and integer noise cannot be combined by the exact engine")
        terms = self._terms()
        for variable, coefficient in other._terms().items():
            terms[variable] = terms.get(variable, 0) + sign * coefficient
        terms = {v: c for v, c in terms.items() if c}
        offset = self.offset + sign * other.offset
        return _form(terms, offset, self.run)

    def __add__(self, other: object) -> "Noisy":
        if isinstance(other, Noisy):
            return self._combined(other, 1)
        return self._shifted(other, 1)

    __radd__ = __add__

    def __sub__(self, other: object) -> "Noisy":
        if isinstance(other, Noisy):
            return self._combined(other, -1)
        return self._shifted(other, -1)

    def __rsub__(self, other: object) -> "Noisy":
        return (-self)._shifted(other, 1)

    def __neg__(self) -> "Noisy":
        return _form({v: -c for v, c in self._terms().items()}, -self.offset, self.run)

    def __ge__(self, other: object) -> bool:
        return _compare(self, other, strict=False)

    def __gt__(self, other: object) -> bool:
        return _compare(self, other, strict=True)

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


def _form(terms: dict[int, int], offset, run: _Run) -> "Noisy | object":
    """The noisy value ``Σ c_v·x_v + offset`` when it has a supported shape."""
    if not terms:
        return offset
    items = sorted(terms.items(), key=lambda item: -item[1])
    if len(items) == 1 and abs(items[0][1]) == 1:
        return Noisy(items[0][0], offset, run, items[0][1])
    if len(items) == 2 and items[0][1] == 1 and items[1][1] == -1:
        return Noisy(items[0][0], offset, run, 1, items[1][0])
    raise TypeError("the exact engine handles one noisy value, its negation, or the difference "
                    "of two (x − y); a sum of noisy values or a multiple of one is not supported")


def _exact_threshold(value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, Rational):
        raise TypeError(f"a noisy value can be compared with an integer, a Fraction or another "
                        f"noisy value, not {type(value).__name__} {value!r}")
    return Fraction(value)


def _compare(left: Noisy, right: object, strict: bool) -> bool:
    """The decision ``left ≥ right`` (``left > right`` when ``strict``): branches on the
    outcomes of positive probability.  The comparison is rewritten as ``form ≥ t`` with ``form``
    one variable, its negation or a difference of two, then as a bound on that variable or
    difference (for integer noise ``x > t ⇔ x ≥ ⌊t⌋ + 1``; for continuous noise ``>`` and ``≥``
    differ on a set of measure zero)."""
    run = left.run
    run.step()
    noise = run.noise
    continuous = left.continuous
    if isinstance(right, Noisy):
        if (left.sign == right.sign == 1 and left.minus is None and right.minus is None
                and left.variable != right.variable and right.continuous == continuous):
            # the common case, x_u + a ≥ x_v + b: a difference bound without building a form
            form, threshold = Noisy(left.variable, 0, run, 1, right.variable, continuous), \
                right.offset - left.offset
        else:
            form, threshold = left - right, 0
            if not isinstance(form, Noisy):  # the noise cancels: a comparison of numbers
                return form > 0 if strict else form >= 0
            threshold -= form.offset
    else:
        form, threshold = left, _exact_threshold(right) - left.offset
    # now sign·x_u (− x_v) ≥ threshold (or >); an int threshold has floor, ceil, denominator 1
    if form.sign < 0:  # −x ≥ t ⇔ x ≤ −t: flip to an upper bound
        if continuous:
            bound = -threshold
        else:
            bound = math.floor(-threshold) - (1 if strict and (-threshold).denominator == 1 else 0)
        holds = ("unary", form.variable, None, bound)
        fails = ("unary", form.variable, bound if continuous else bound + 1, None)
    else:
        if continuous:
            low = threshold
        else:
            low = math.floor(threshold) + 1 if strict else math.ceil(threshold)
        if form.minus is None:
            holds = ("unary", form.variable, low, None)
            fails = ("unary", form.variable, None, low if continuous else low - 1)
        else:
            holds = ("difference", form.variable, form.minus, low, None)
            # on the reals the complement x_u − x_v < d has the mass of x_u − x_v ≤ d
            fails = ("difference", form.variable, form.minus, None,
                     low if continuous else low - 1)
    outcomes = [(True, holds), (False, fails)]
    if holds[0] == "difference" and (min(holds[1], holds[2]), max(holds[1], holds[2])) \
            not in noise.edges and noise.connected(holds[1], holds[2]):
        # the two values are already linked: the outcome may be implied, or one comparison of
        # the cycle it closes may be (transitivity); otherwise the cycle is refused
        implied = noise.implied_difference(holds[1], holds[2])
        outcomes = [(value, c) for value, c in outcomes
                    if not _disjoint(implied, c[3], c[4], continuous)]
        if len(outcomes) == 2 and any(noise.cycle_plan(*c[1:]) is None for _, c in outcomes):
            raise CycleError(f"comparing {left!r} with {right!r} would make the comparisons "
                             f"between noise values cyclic; the exact engine sums forests of "
                             f"comparisons")
    feasible = [(value, c) for value, c in outcomes if noise.bounds(c) is not None]
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


def _disjoint(implied: tuple, low, high, continuous: bool) -> bool:
    """Whether ``[low, high]`` misses the implied interval (on the reals up to a point, which
    has probability 0)."""
    implied_low, implied_high = implied
    if continuous:
        return ((low is not None and implied_high is not None and implied_high <= low) or
                (high is not None and implied_low is not None and implied_low >= high))
    return ((low is not None and implied_high is not None and implied_high < low) or
            (high is not None and implied_low is not None and implied_low > high))


def _concretise(value: Noisy) -> int:
    """The decision over the values ``value`` can still take (each of positive probability)."""
    run = value.run
    run.step()
    if value.minus is not None:
        return _concretise_difference(value)
    if value.continuous:
        raise ValueError("the program turns a continuous noisy value into an output or an "
                         "integer: its law has a density, not exact point masses; compare it "
                         "with thresholds (or use discrete_laplace) instead")
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
    return value.sign * (low + index) + value.offset



def _has_difference(value: object) -> bool:
    """Whether an output holds a difference of two noisy values."""
    if isinstance(value, Noisy):
        return value.minus is not None
    if isinstance(value, list | tuple):
        return any(_has_difference(item) for item in value)
    return False


def _concretise_difference(value: Noisy) -> int:
    """The decision over the values ``x_u − x_v`` can still take: each value ``d`` adds the
    comparison ``x_u − x_v = d`` (on an edge of the forest, or reducing the cycle it closes)."""
    run = value.run
    if value.continuous:
        raise ValueError("the program turns a difference of continuous noisy values into an "
                         "output or an integer: its law has a density, not exact point masses")
    low, high = run.noise.implied_difference(value.variable, value.minus)
    if low is None or high is None:
        raise ValueError("the program turns an unbounded difference of noisy values into an "
                         "output or an integer: its output space is infinite; clamp it in the "
                         "program (for example max(lo, min(gap, hi)) — which changes the "
                         "mechanism)")
    d = low + (run.decide(high - low + 1) if high > low else 0)
    run.noise.constrain_difference(value.variable, value.minus, d, d)
    return d + value.offset


def _noisy_variables(value: object, found: list[int]) -> list[int]:
    """The noise variables inside an output, in order of first appearance."""
    if isinstance(value, Noisy):
        if value.minus is not None:  # a difference: concretised by decisions (_has_difference)
            return found
        if value.variable not in found:
            found.append(value.variable)
    elif isinstance(value, list | tuple):
        for item in value:
            _noisy_variables(item, found)
    return found


def _substitute(value: object, variable: int | None = None, x: int | None = None) -> object:
    """The output with every noisy value of ``variable`` replaced by ``x + offset`` (left noisy
    when ``x`` is ``None``), other noisy values concretised by decisions, lists made tuples."""
    if isinstance(value, Noisy):
        if value.variable == variable:
            return value if x is None else value.sign * x + value.offset
        return _concretise(value)
    if isinstance(value, list | tuple):
        return tuple(_substitute(item, variable, x) for item in value)
    return value


def _output_law(output: object, run: _Run) -> list[tuple[object, Fraction]]:
    """The outputs of a finished run and their probabilities.  Noisy values in the output are
    concretised by decisions except the last variable, whose values are read off its exact
    marginal in one pass (one run instead of one per value)."""
    if _has_difference(output):  # every noisy value concretised by decisions
        concrete = _substitute(output)
        return [(concrete, run.weight * run.noise.probability())]
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
    concrete = _substitute(output, last, None) if len(variables) > 1 else output
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
    probabilities = {key: exact_number(p) for key, p in probabilities.items()}
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
