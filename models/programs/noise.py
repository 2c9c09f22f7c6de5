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
from pufferfish.models.programs.forms import reduced, shape
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
    """A noisy number inside one run: ``Σ_i c_i·x_i + offset`` for noise variables ``x_i`` of
    one kind (integer or continuous), nonzero coefficients (integers; rationals for continuous
    noise) and an exact offset (:mod:`~pufferfish.models.programs.forms`).

    Supported: ``+`` and ``−`` of a number (an integer for integer noise, any rational for
    continuous noise) and of other noisy values (sums, differences, running sums: Sparse Vector
    with gap as published, Smart Sum, Partial Sum), negation, multiplication by an integer (a
    rational for continuous noise); ``<``, ``<=``, ``>``, ``>=`` with a number or another noisy
    value (each comparison is a decision of the run); ``int(x)`` of integer noise (a decision
    over the values it can take); ``min``/``max`` (they compare).  A form is decided once it is
    one variable or a difference of two, after the changes of variables of
    :func:`~pufferfish.models.programs.forms.reduced`.  Anything else (``==``, ``bool``,
    hashing, a product of noisy values, ``x + 2·y``, a sum of values already linked by
    comparisons) raises ``TypeError`` or ``CycleError``: its exact law is not implemented.
    """

    __slots__ = ("terms", "offset", "run", "continuous")

    def __init__(self, variable: int, offset, run: Run, sign: int = 1,
                 minus: int | None = None, continuous: bool | None = None) -> None:
        # the value sign·x_variable − x_minus + offset
        terms = {variable: sign}
        if minus is not None:
            terms[minus] = terms.get(minus, 0) - 1
        self.terms = tuple(sorted((v, c) for v, c in terms.items() if c))
        self.offset, self.run = offset, run
        # whether the noise is continuous (Laplace, exponential) rather than integer
        self.continuous = (run.noise.laws[variable].continuous if continuous is None
                           else continuous)

    @classmethod
    def linear(cls, terms: dict[int, object], offset, run: Run, continuous: bool) -> "Noisy":
        """The noisy value ``Σ terms[v]·x_v + offset`` (``terms`` nonzero)."""
        value = cls.__new__(cls)
        value.terms = tuple(sorted(terms.items()))
        value.offset, value.run, value.continuous = offset, run, continuous
        return value

    def __repr__(self) -> str:
        head = " ".join(f"{'-' if c < 0 else '+'} {'' if abs(c) == 1 else abs(c)}x{v}"
                        for v, c in self.terms)
        head = head[2:] if head.startswith("+ ") else "-" + head[2:]
        return f"<noise {head} {'+' if self.offset >= 0 else '-'} {abs(self.offset)}>"

    def shape(self) -> tuple:
        """The value's shape after the engine's changes of variables
        (:func:`~pufferfish.models.programs.forms.shape`)."""
        return shape(dict(self.terms), self.run.noise)

    def _amount(self, amount: object) -> object:
        if self.continuous and isinstance(amount, Rational) and not isinstance(amount, bool):
            amount = Fraction(amount)
            return int(amount) if amount.denominator == 1 else amount
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise TypeError(f"only an integer can be added to or multiply a noisy integer (any "
                            f"rational number continuous noise), not {type(amount).__name__} "
                            f"{amount!r}")
        return amount

    def _shifted(self, amount: object, sign: int) -> "Noisy":
        return Noisy.linear(dict(self.terms), self.offset + sign * self._amount(amount),
                            self.run, self.continuous)

    def _combined(self, other: "Noisy", sign: int) -> "Noisy | object":
        """``self + sign·other`` as a noisy value (or a number when the noise cancels)."""
        if other.continuous != self.continuous:
            raise TypeError("continuous and integer noise cannot be combined by the exact engine")
        _same_family(self, other)
        terms = dict(self.terms)
        for variable, coefficient in other.terms:
            terms[variable] = terms.get(variable, 0) + sign * coefficient
        return _form(terms, self.offset + sign * other.offset, self.run, self.continuous)

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
        return Noisy.linear({v: -c for v, c in self.terms}, -self.offset, self.run,
                            self.continuous)

    def __mul__(self, factor: object) -> "Noisy | object":
        if isinstance(factor, Noisy):
            raise TypeError("the product of two noisy values is not supported by the exact "
                            "engine")
        factor = self._amount(factor)
        if not factor:
            return 0
        if _family(self) and abs(factor) != 1:
            raise TypeError("a multiple of Gaussian noise is not supported: draw a Gaussian of "
                            "the scaled σ instead")
        return Noisy.linear({v: c * factor for v, c in self.terms}, self.offset * factor,
                            self.run, self.continuous)

    __rmul__ = __mul__

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


def _form(terms: dict[int, object], offset, run: Run, continuous: bool) -> "Noisy | object":
    """The noisy value ``Σ c_v·x_v + offset``, or ``offset`` when the noise cancels.  A sum that
    is not a shape is reduced at once (:func:`~pufferfish.models.programs.forms.reduced`), so a
    running sum stays a chain of sum variables."""
    terms = {v: c for v, c in terms.items() if c}
    if not terms:
        return offset
    if len(terms) > 2 or (len(terms) == 2 and sum(terms.values())):
        if not all(isinstance(run.noise.laws[v], ExpPoly) for v in terms):
            raise TypeError("a sum of Gaussian noisy values is not supported by the certified "
                            "engine: draw one Gaussian of the summed variance instead")
        terms = reduced(terms, run.noise)
    return Noisy.linear(terms, offset, run, continuous)


def _family(value: Noisy) -> bool:
    """Whether the value's noise is Gaussian (certified masses) rather than Laplace-type."""
    return not isinstance(value.run.noise.laws[value.terms[0][0]], ExpPoly)


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
    outcomes of positive probability.  The comparison is rewritten as ``c·form ≥ t`` with
    ``form`` one variable or a difference of two (:meth:`Noisy.shape`), then as a bound on that
    variable or difference at ``t/c`` (for integer noise ``x > t ⇔ x ≥ ⌊t⌋ + 1``; for
    continuous noise ``>`` and ``≥`` differ on a set of measure zero)."""
    run = left.run
    run.step()
    noise = run.noise
    continuous = left.continuous
    if isinstance(right, Noisy):
        _same_family(left, right)
        if right.continuous != continuous:
            raise TypeError("continuous and integer noise cannot be compared by the exact engine")
        if (len(left.terms) == len(right.terms) == 1 and left.terms[0][1] == right.terms[0][1] == 1
                and left.terms[0][0] != right.terms[0][0] and not noise.replaced):
            # the common case, x_u + a ≥ x_v + b: a difference bound without building a form
            form = ("difference", 1, left.terms[0][0], right.terms[0][0])
        else:
            terms = dict(left.terms)
            for variable, coefficient in right.terms:
                terms[variable] = terms.get(variable, 0) - coefficient
            terms = {v: c for v, c in terms.items() if c}
            form = shape(terms, noise) if terms else ("number",)
        threshold = right.offset - left.offset
    else:
        form, threshold = left.shape(), _exact_threshold(right) - left.offset
    if form[0] == "number":  # the noise cancels: a comparison of numbers
        return 0 > threshold if strict else 0 >= threshold
    coefficient = form[1]
    if coefficient not in (1, -1):
        threshold = Fraction(threshold) / abs(coefficient)
    # now ±x_u (− x_v) ≥ threshold (or >); an int threshold has floor, ceil, denominator 1
    u = form[2]
    if coefficient < 0:  # −x ≥ t ⇔ x ≤ −t: flip to an upper bound (differences have c > 0)
        if continuous:
            bound = -threshold
        else:
            bound = math.floor(-threshold) - (1 if strict and (-threshold).denominator == 1 else 0)
        holds = ("unary", u, None, bound)
        fails = ("unary", u, bound if continuous else bound + 1, None)
    else:
        if continuous:
            low = threshold
        else:
            low = math.floor(threshold) + 1 if strict else math.ceil(threshold)
        if form[0] == "single":
            holds = ("unary", u, low, None)
            fails = ("unary", u, None, low if continuous else low - 1)
        else:
            holds = ("difference", u, form[3], low, None)
            # on the reals the complement x_u − x_v < d has the mass of x_u − x_v ≤ d
            fails = ("difference", u, form[3], None, low if continuous else low - 1)
    outcomes = [(True, holds), (False, fails)]
    if holds[0] == "difference" and (min(holds[1], holds[2]), max(holds[1], holds[2])) \
            not in noise.edges and noise.connected(holds[1], holds[2]):
        # the two values are already linked: the outcome may be implied, or one comparison of
        # the cycle it closes may be (transitivity); otherwise the cycle is refused
        implied = noise.implied_difference(holds[1], holds[2])
        outcomes = [(value, c) for value, c in outcomes
                    if not _disjoint(implied, c[3], c[4], continuous)]
        if len(outcomes) == 2 and any(noise.cycle_plan(*c[1:]) is None for _, c in outcomes) \
                and not noise.chords_allowed(holds[1], holds[2]):
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
    form = value.shape()
    if form[0] == "number":
        return value.offset
    if form[0] == "difference":
        return _concretise_difference(value, form)
    if value.continuous:
        _concretise_continuous()
    _, coefficient, variable = form
    lows, highs = run.noise.bounds()
    low, high = lows[variable], highs[variable]
    if low is None or high is None:
        side = ("below" if low is None else "") + (" and " if low is None and high is None else "")
        side += "above" if high is None else ""
        raise ValueError(f"the program turns a noisy value unbounded {side} into an output or an "
                         f"integer: its output space is infinite; clamp it in the program (for "
                         f"example max(lo, min(x, hi)) — which changes the mechanism)")
    index = run.decide(high - low + 1) if high > low else 0
    run.noise.constrain_value(variable, low + index, low + index)
    return coefficient * (low + index) + value.offset


def _refuse_continuous_output(low, high) -> None:
    """Refuse a continuous noisy value returned on a path that bounds it to ``[low, high]``
    (``None``: unbounded): clamped (``max(lo, min(x, hi))``), the output's law has atoms at the
    ends and a density between — not the finite table of point masses the engine computes."""
    if low is None or high is None:
        _concretise_continuous()
    raise ValueError("the program returns a continuous noisy value (Laplace or exponential "
                     "noise) that its comparisons bound on both sides, as a clamp "
                     "max(lo, min(x, hi)) does: its law has atoms at the ends and a density "
                     "between, which the exact engine does not represent (its outputs are "
                     "point masses); return the outcome of comparisons, or draw "
                     "discrete_laplace (integer noise) and clamp that")


def _concretise_continuous() -> None:
    raise ValueError("the program turns a continuous noisy value into an output or an "
                     "integer: its law has a density, not exact point masses; compare it "
                     "with thresholds (or use discrete_laplace or discrete_gaussian) "
                     "instead")


def _has_difference(value: object) -> bool:
    """Whether an output holds a difference of two noisy values."""
    if isinstance(value, Noisy):
        return value.shape()[0] == "difference"
    if isinstance(value, list | tuple):
        return any(_has_difference(item) for item in value)
    return False


def _concretise_difference(value: Noisy, form: tuple) -> int:
    """The decision over the values ``c·(x_u − x_v)`` can still take: each value ``d`` adds the
    comparison ``x_u − x_v = d`` (on an edge of the forest, or reducing the cycle it closes)."""
    run = value.run
    _, coefficient, u, v = form
    if value.continuous:
        raise ValueError("the program turns a difference of continuous noisy values into an "
                         "output or an integer: its law has a density, not exact point masses")
    low, high = run.noise.implied_difference(u, v)
    if low is None or high is None:
        raise ValueError("the program turns an unbounded difference of noisy values into an "
                         "output or an integer: its output space is infinite; clamp it in the "
                         "program (for example max(lo, min(gap, hi)) — which changes the "
                         "mechanism)")
    d = low + (run.decide(high - low + 1) if high > low else 0)
    run.noise.constrain_difference(u, v, d, d)
    return coefficient * d + value.offset


def _noisy_variables(value: object, found: list[int]) -> list[int]:
    """The noise variables inside an output, in order of first appearance."""
    if isinstance(value, Noisy):
        form = value.shape()
        if form[0] != "single":  # a difference: concretised by decisions (_has_difference)
            return found
        if form[2] not in found:
            found.append(form[2])
    elif isinstance(value, list | tuple):
        for item in value:
            _noisy_variables(item, found)
    return found


def _substitute(value: object, variable: int | None = None, x: int | None = None) -> object:
    """The output with every noisy value of ``variable`` replaced by ``x + offset`` (left noisy
    when ``x`` is ``None``), other noisy values concretised by decisions, lists made tuples."""
    if isinstance(value, Noisy):
        form = value.shape()
        if form[0] == "single" and form[2] == variable:
            return value if x is None else form[1] * x + value.offset
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
    if not isinstance(run.noise.laws[variables[-1]], ExpPoly) or run.noise.chords:
        # Gaussian noise or a cycle of comparisons: no closed marginal
        concrete = _substitute(output)
        return [(concrete, run.weight * run.noise.probability())]
    last = variables[-1]
    for variable in variables[:-1]:
        _concretise(Noisy(variable, 0, run))
    lows, highs = run.noise.bounds()
    low, high = lows[last], highs[last]
    if run.noise.laws[last].continuous:
        _refuse_continuous_output(low, high)
    if low is None or high is None:
        _concretise(Noisy(last, 0, run))  # refuses an unbounded output with the reason
    marginal = run.noise.marginal(last)
    concrete = _substitute(output, last, None) if len(variables) > 1 else output
    return [(_substitute(concrete, last, x), run.weight * marginal(x)) for x in range(low, high + 1)]
