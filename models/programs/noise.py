"""Noise in programs: the noise primitives and the algebra of the noisy values they return.

A noise draw does not branch: it creates a variable of the run's
:class:`~pufferfish.models.programs.constraints.NoiseConstraints` with its exact law
(:mod:`~pufferfish.models.programs.exp_poly`: geometric noise at a rational α, the discrete
Laplace at α = e^(−ε), continuous Laplace and exponential noise), and returns a
:class:`Noisy` value.  A comparison of noisy values is a decision of the run, taken only on
outcomes of positive probability, and becomes a constraint (a bound on one variable or on a
difference of two); a noisy value released as an output is enumerated over the values it can
take (:func:`output_law`).  The semantics are stated in
:mod:`~pufferfish.models.programs.enumerate`.

>>> from pufferfish.models.programs import program_distribution
>>> def gap_test(data):
...     rho = laplace(2)
...     return data[0] + laplace(4) - rho >= 1     # Sparse Vector's test, written as a gap
>>> program_distribution(gap_test, (1,)).prob(True)
Fraction(1, 2)
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from numbers import Rational

from pufferfish.models.numbers import fraction_str
from pufferfish.models.programs.constraints import CycleError
from pufferfish.models.programs.exp_poly import ContinuousExpPoly, ExpPoly
from pufferfish.models.programs.runs import Run, current_run, exact_parameter

__all__ = ["Noisy", "geometric", "one_sided_geometric", "discrete_laplace", "laplace",
           "exponential", "output_law", "EPSILON", "EpsilonSymbol"]


@lru_cache(maxsize=1024)
def _alpha(alpha: object) -> Fraction:
    alpha = exact_parameter(alpha, "alpha")
    if not 0 <= alpha < 1:
        raise ValueError(f"alpha must satisfy 0 <= alpha < 1, got {fraction_str(alpha)}")
    return alpha


def geometric(alpha: object) -> "Noisy | int":
    """Two-sided geometric noise: ``Pr[Z = z] = (1−α)/(1+α)·α^|z|`` on every integer (the
    discrete Laplace mechanism with ``α = e^(−1/b)``); ``0`` when ``α = 0``."""
    run = current_run()
    run.draws("fixed")
    alpha = _alpha(alpha)
    if not alpha:
        return 0
    return Noisy(run.noise.add_variable(ExpPoly.two_sided_geometric(alpha), None, None), 0, run)


def one_sided_geometric(alpha: object) -> "Noisy | int":
    """One-sided geometric noise: ``Pr[Z = z] = (1−α)·α^z`` for ``z ≥ 0``; ``0`` when
    ``α = 0``."""
    run = current_run()
    run.draws("fixed")
    alpha = _alpha(alpha)
    if not alpha:
        return 0
    return Noisy(run.noise.add_variable(ExpPoly.one_sided_geometric(alpha), 0, None), 0, run)


def _positive(value: object, what: str) -> Fraction:
    value = exact_parameter(value, what)
    if value <= 0:
        raise ValueError(f"{what} must be positive, got {fraction_str(value)}")
    return value


@lru_cache(maxsize=1024)
def _epsilon(epsilon: object) -> Fraction:
    return _positive(epsilon, "epsilon")


@lru_cache(maxsize=1024)
def _scale(scale: object) -> Fraction:
    return _positive(scale, "the scale")


class EpsilonSymbol:
    """The privacy parameter ε as a symbol, times a positive rational coefficient: ``EPSILON``,
    ``EPSILON / 2``, ``3 * EPSILON``.  It may only scale the parameter of
    :func:`discrete_laplace` (``discrete_laplace(EPSILON / 2)`` is ``α = e^(−ε/2)``); any
    other use — a comparison, a threshold, a scale ``b = Δ/ε`` of continuous noise — is
    refused, so that a program's law is one exact function of ε.

    The engine runs such a program once, at ε = 1: with ``α_k = e^(−c_k·ε)`` every probability is
    a rational function of ``u = e^(ε/n)`` whose coefficients do not depend on ε, and the run
    computes it with ``u = e^(1/n)`` (``t`` of :mod:`~pufferfish.models.programs.exp_numbers`,
    transcendental, so the rational function is determined).  Read with ``u = e^(ε/n)`` it is
    the law at every ε > 0 (:mod:`pufferfish.verify.privacy.epsilon_range`).

    >>> EPSILON / 2
    EpsilonSymbol(1/2)
    >>> EPSILON + 1
    Traceback (most recent call last):
    ...
    TypeError: ε as a symbol may only scale the parameter of discrete_laplace (c·ε with c a positive rational)
    """

    __slots__ = ("coefficient",)

    def __init__(self, coefficient: object = 1) -> None:
        self.coefficient = exact_parameter(coefficient, "the coefficient of ε")
        if self.coefficient <= 0:
            raise ValueError("the coefficient of ε must be positive")

    def __repr__(self) -> str:
        return f"EpsilonSymbol({fraction_str(self.coefficient)})"

    def __mul__(self, other: object) -> "EpsilonSymbol":
        if isinstance(other, bool) or not isinstance(other, Rational):
            return _symbol_misused()
        return EpsilonSymbol(self.coefficient * Fraction(other))

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> "EpsilonSymbol":
        if isinstance(other, bool) or not isinstance(other, Rational) or not other:
            return _symbol_misused()
        return EpsilonSymbol(self.coefficient / Fraction(other))

    def _misused(self, *args):
        _symbol_misused()

    __add__ = __radd__ = __sub__ = __rsub__ = __rtruediv__ = __neg__ = __pow__ = _misused
    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __float__ = __int__ = __index__ = _misused

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EpsilonSymbol) and other.coefficient == self.coefficient

    def __hash__(self) -> int:
        return hash(("ε", self.coefficient))

    def __reduce__(self):
        return (EpsilonSymbol, (self.coefficient,))


def _symbol_misused():
    raise TypeError("ε as a symbol may only scale the parameter of discrete_laplace (c·ε with c "
                    "a positive rational)")


EPSILON = EpsilonSymbol(1)
"""The privacy parameter ε as a symbol (:class:`EpsilonSymbol`)."""


def discrete_laplace(epsilon: object, one_sided: bool = False) -> "Noisy":
    """Discrete Laplace noise at ``α = e^(−ε)`` for a rational ``ε > 0``: ``Pr[Z = z] =
    (1−α)/(1+α)·α^|z|`` on every integer (Ghosh, Roughgarden and Sundararajan's geometric
    mechanism, as deployed libraries draw it for an ε-DP count); with ``one_sided``,
    ``(1−α)·α^z`` for ``z ≥ 0``.  Its probabilities are exact numbers of ``Q(e^(1/n))``
    (:mod:`~pufferfish.models.programs.exp_numbers`); ``epsilon`` may be a multiple of the symbol
    :data:`EPSILON`."""
    run = current_run()
    if isinstance(epsilon, EpsilonSymbol):  # run at ε = 1: the coefficient is the exponent
        run.draws("symbolic")
        epsilon = epsilon.coefficient
    else:
        run.draws("fixed")
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
    run = current_run()
    run.draws("fixed")
    return Noisy(run.noise.add_variable(ContinuousExpPoly.laplace(_scale(scale)), None, None),
                 0, run)


def exponential(scale: object) -> "Noisy":
    """Continuous exponential noise of rational scale ``b > 0``: density ``e^(−z/b)/b`` for
    ``z ≥ 0`` (the one-sided noise of report-noisy-max with exponential noise)."""
    run = current_run()
    run.draws("fixed")
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

    def __init__(self, variable: int, offset, run: Run, sign: int = 1,
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
        _same_family(self, other)
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


def _form(terms: dict[int, int], offset, run: Run) -> "Noisy | object":
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


def _family(value: Noisy) -> bool:
    """Whether the value's noise is Gaussian (certified masses) rather than Laplace-type."""
    return not isinstance(value.run.noise.laws[value.variable], ExpPoly)


def _same_family(left: Noisy, right: Noisy) -> None:
    if _family(left) != _family(right):
        raise TypeError("a Gaussian noisy value cannot be combined or compared with Laplace-type "
                        "(geometric, Laplace, exponential) noise on one path: the certified and "
                        "the exact engines do not share a tree of comparisons")


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
        _same_family(left, right)
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
                         "with thresholds (or use discrete_laplace or discrete_gaussian) "
                         "instead")
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


def output_law(output: object, run: Run) -> list[tuple[object, Fraction]]:
    """The outputs of a finished run and their probabilities.  Noisy values in the output are
    concretised by decisions except the last variable, whose values are read off its exact
    marginal in one pass (one run instead of one per value)."""
    if _has_difference(output):  # every noisy value concretised by decisions
        concrete = _substitute(output)
        return [(concrete, run.weight * run.noise.probability())]
    variables = _noisy_variables(output, [])
    if not variables:
        return [(output, run.weight * run.noise.probability())]
    if not isinstance(run.noise.laws[variables[-1]], ExpPoly):  # Gaussian: no closed marginal
        concrete = _substitute(output)
        return [(concrete, run.weight * run.noise.probability())]
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
