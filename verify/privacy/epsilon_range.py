"""ε as a symbol: is a program (c·ε)-DP for every ε in an interval, and if not, at which ε?

A program whose noise is the discrete Laplace at multiples of the symbol ε
(:data:`~pufferfish.models.programs.noise.EPSILON`: ``discrete_laplace(EPSILON / 2)`` is
``α = e^(−ε/2)``) has, on every dataset, output probabilities that are one rational function of
``u = e^(ε/n)`` for all ε > 0, computed exactly by one run of the engine
(:class:`~pufferfish.models.programs.noise.EpsilonSymbol` says why).  The claim "(c·ε)-DP for
every ε ∈ [ε₀, ε₁]" (Dwork and Roth, The Algorithmic Foundations of Differential Privacy, §2.3,
Definition 2.4 with δ = 0, for the neighbour relation given) is then, for every ordered pair of
neighbours (D, D') and output ω, the polynomial inequality

    sign(P_D(ω) − e^(cε)·P_D'(ω)) = sign(A(u)·B(u)) ≤ 0   for u ∈ [e^(ε₀/n), e^(ε₁/n)],

where ``A/B`` is the reduced difference (``u^s > 0`` is dropped).  It is decided exactly: the
real roots of ``A·B`` are isolated by rational intervals (sympy's Vincent–Akritas–Strzeboński
method, :func:`pufferfish.models.polynomials.real_roots_in`), compared with the transcendental
ends ``e^(ε₀/n)``, ``e^(ε₁/n)`` by refining both until they separate (an algebraic number is never
equal to them), and the sign between consecutive roots is the exact sign at a rational point.  A
violation comes with a rational counterexample ε inside the violating stretch, whose sign is
certified at that ε (arb balls), with the pair and output.

Cost: one run of the program per dataset (at ε = 1); per distinct pair of kernel rows and output,
one reduced difference and one real-root isolation of a polynomial whose degree grows with the
spread of the exponents.

>>> from fractions import Fraction
>>> from pufferfish.models import Universe
>>> from pufferfish.models.programs import EPSILON, ProgramMechanism, discrete_laplace
>>> def clamped(data, epsilon):
...     return max(0, min(2, data[0] + discrete_laplace(epsilon)))
>>> answers = Universe.product(["q"], [[0, 1, 2]])
>>> count = ProgramMechanism("count", clamped, {"epsilon": EPSILON})
>>> dp_for_every_epsilon(answers, count, "linf:1", factor=1, low="1/10", high=2).holds
True
>>> result = dp_for_every_epsilon(answers, count, "linf:1", factor="1/2", low="1/10", high=2)
>>> result.holds, result.counterexample.epsilon < 2
(False, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx, fmpq

from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.neighbours import DEFAULT_MAX_PAIRS, NeighbourRelation, parse_neighbours
from pufferfish.models.numbers import exact, exact_ratio, fraction_str
from pufferfish.models.programs.exp_numbers import ExpNumber
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe
from pufferfish.verify.privacy.approximate import neighbour_pairs
from pufferfish.verify.report import Explained

__all__ = ["EpsilonRangeResult", "Counterexample", "dp_for_every_epsilon", "value_at"]


@dataclass(frozen=True)
class Counterexample:
    """A rational ε of the interval at which ``Pr[M(D) = ω] > e^(cε)·Pr[M(D') = ω]``."""

    epsilon: Fraction
    dataset: Dataset
    neighbour: Dataset
    output: object

    def to_dict(self) -> dict:
        return {"epsilon": fraction_str(self.epsilon), "dataset": list(self.dataset),
                "neighbour": list(self.neighbour), "output": jsonable_output(self.output)}


@dataclass(frozen=True, repr=False)
class EpsilonRangeResult(Explained):
    """Whether ``mechanism`` is (factor·ε)-DP for every ε in ``[low, high]`` (module docstring)."""

    mechanism: str
    relation: str
    factor: Fraction
    low: Fraction
    high: Fraction
    holds: bool
    counterexample: Counterexample | None
    comparisons: int

    @property
    def claim(self) -> str:
        scale = "" if self.factor == 1 else f"{fraction_str(self.factor)}·"
        return (f"{scale}ε-DP for every ε in [{fraction_str(self.low)}, "
                f"{fraction_str(self.high)}]")

    def to_dict(self) -> dict:
        return {"check": "dp_for_every_epsilon", "mechanism": self.mechanism,
                "neighbours": self.relation, "factor": fraction_str(self.factor),
                "low": fraction_str(self.low), "high": fraction_str(self.high),
                "holds": self.holds, "comparisons": self.comparisons,
                "counterexample": None if self.counterexample is None
                else self.counterexample.to_dict()}

    def explain(self) -> str:
        text = f"{self.mechanism}: {self.relation} {self.claim}: "
        if self.holds:
            return text + f"holds (exactly, {self.comparisons:,} polynomial sign conditions)"
        c = self.counterexample
        return (text + f"VIOLATED at ε = {fraction_str(c.epsilon)}: output "
                f"{jsonable_output(c.output)!r} on {list(c.dataset)} vs {list(c.neighbour)}")


MAX_EPSILON = 1000
"""The largest upper end of an interval: the claim is decided on ``u = e^(ε/n)``, whose bounds at
the ends are exact rationals of about ``1.44·ε/n`` bits, and root isolation slows with them
(``ε = 10^3``: 3 s; ``10^8``: 7 minutes; ``10^1000``: past the range of arb's exponential).
No privacy budget needs a level of a thousand (``e^1000`` bounds nothing)."""


def dp_for_every_epsilon(universe: Universe, mechanism: Mechanism,
                         relation: str | Mapping | NeighbourRelation = "entry", *,
                         factor: object = 1, low: object, high: object,
                         max_datasets: int = DEFAULT_MAX_DATASETS,
                         max_outputs: int = DEFAULT_MAX_OUTPUTS,
                         max_pairs: int = DEFAULT_MAX_PAIRS) -> EpsilonRangeResult:
    """Decide "``mechanism`` is (factor·ε)-DP for every ε ∈ [low, high]" exactly (module
    docstring); ``mechanism`` draws its noise at multiples of the symbol ε."""
    factor, low, high = (exact(v, name) for v, name in
                         ((factor, "factor"), (low, "low"), (high, "high")))
    if not 0 < low <= high or factor <= 0:
        raise ModelError("the interval must satisfy 0 < low <= high and the factor be positive")
    if high > MAX_EPSILON:
        whole = high.numerator // high.denominator
        shown = (fraction_str(high) if whole < 10 ** 30
                 else f"a number of {len(str(whole)):,} digits")
        raise ModelError(f"the interval's upper end is too large: {shown}, more than "
                         f"{MAX_EPSILON:,} (e^ε is bounded exactly at the ends, and no privacy "
                         f"budget needs a level above {MAX_EPSILON:,})", "high")
    parsed = parse_neighbours(relation, universe, "neighbours")
    pairs = list(neighbour_pairs(universe, parsed, max_datasets, max_pairs))
    datasets = list(dict.fromkeys(d for pair in pairs for d in pair))
    table = KernelTable.build(mechanism, datasets, max_outputs)
    label = parsed.label if hasattr(parsed, "label") else parsed.text
    budget = ExpNumber.exp(factor)  # e^(c·ε) at ε = 1: u^(c·n) read at every ε
    seen: dict = {}
    comparisons = 0
    for dataset, other in pairs:
        first = table.rows[table.dataset_index[dataset]]
        second = table.rows[table.dataset_index[other]]
        if (id(first), id(second)) in seen:
            continue
        seen[(id(first), id(second))] = True
        for o, (p, q) in enumerate(zip(first, second)):
            if not p:
                continue
            p = exact_ratio(p, table.denominator)
            q = exact_ratio(q, table.denominator)
            comparisons += 1
            if not q:  # impossible on the neighbour: violated at every ε
                return EpsilonRangeResult(mechanism.name, label, factor, low, high, False,
                                          Counterexample(low, dataset, other, table.outputs[o]),
                                          comparisons)
            epsilon = _violation(ExpNumber.of(p) - budget * q, low, high)
            if epsilon is not None:
                return EpsilonRangeResult(mechanism.name, label, factor, low, high, False,
                                          Counterexample(epsilon, dataset, other,
                                                         table.outputs[o]), comparisons)
    return EpsilonRangeResult(mechanism.name, label, factor, low, high, True, None, comparisons)


def value_at(value: ExpNumber, epsilon: Fraction, bits: int) -> arb:
    """A ball containing the number of a symbolic run (ε = 1) read at ε: ``t = e^(ε/n)``."""
    with ctx.workprec(bits):
        u = (arb(fmpq(epsilon.numerator, epsilon.denominator)) / value.n).exp()
        num = sum((arb(c) * u ** i for i, c in enumerate(value.num.coeffs())), arb(0))
        den = sum((arb(c) * u ** i for i, c in enumerate(value.den.coeffs())), arb(0))
        return num / den * u ** value.shift if value.shift >= 0 else \
            num / (den * u ** -value.shift)


def _violation(difference: ExpNumber, low: Fraction, high: Fraction) -> Fraction | None:
    """A rational ε ∈ [low, high] where ``difference`` (read at ε) is positive, or ``None``
    when it is ≤ 0 on the whole interval."""
    import sympy

    from pufferfish.models.polynomials import real_roots_in

    if not difference:
        return None  # equal at every ε: the claim is tight, not violated
    n = difference.n
    polynomial = difference.num * difference.den
    x = sympy.Symbol("u")
    coefficients = [sympy.Rational(int(c.p), int(c.q)) for c in reversed(polynomial.coeffs())]
    poly = sympy.Poly(coefficients, x)
    ends = [_end_bounds(low, n, 64), _end_bounds(high, n, 64)]
    roots = real_roots_in([poly], ends[0][0], ends[1][1])
    # the roots strictly inside (e^(low/n), e^(high/n)), sorted; each separated from the ends
    inside = []
    for root in roots:
        bits = 64
        while True:
            lo_end, hi_end = _end_bounds(low, n, bits), _end_bounds(high, n, bits)
            if root.high < lo_end[0] or root.low > hi_end[1]:
                break  # outside
            if root.low > lo_end[1] and root.high < hi_end[0]:
                inside.append(root)
                break
            root = root.refined((root.high - root.low) / 4) if root.high > root.low else root
            bits *= 2
    # one rational ε per stretch between consecutive roots (and the ends)
    cuts = [None, *inside, None]
    for left, right in zip(cuts, cuts[1:]):
        epsilon = _rational_epsilon_between(left, right, low, high, n)
        if _sign_at(difference, epsilon) > 0:
            return epsilon
    return None


def _end_bounds(epsilon: Fraction, n: int, bits: int) -> tuple[Fraction, Fraction]:
    """Rational bounds on ``e^(ε/n)``."""
    with ctx.workprec(bits):
        ball = (arb(fmpq(epsilon.numerator, epsilon.denominator)) / n).exp()
        return _fraction(ball.lower()), _fraction(ball.upper())


def _fraction(value) -> Fraction:
    mantissa, exponent = value.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _log_bounds(u: Fraction, n: int, bits: int = 96) -> tuple[Fraction, Fraction]:
    """Rational bounds on ``n·log(u)``."""
    with ctx.workprec(bits):
        ball = arb(fmpq(u.numerator, u.denominator)).log() * n
        return _fraction(ball.lower()), _fraction(ball.upper())


def _rational_epsilon_between(left, right, low: Fraction, high: Fraction, n: int) -> Fraction:
    """A rational ε in the stretch of [low, high] where ``e^(ε/n)`` lies between the roots
    ``left`` and ``right`` (``None``: the interval's end)."""
    lower = low if left is None else max(low, _log_bounds(left.high, n)[1])
    upper = high if right is None else min(high, _log_bounds(right.low, n)[0])
    if lower > upper:  # roots closer than the bounds: the midpoint of the roots' own bounds
        raise UnsupportedError("two sign changes closer than the bounds separate; narrow the "
                               "interval")
    return _simple_between(lower, upper)


def _simple_between(lower: Fraction, upper: Fraction) -> Fraction:
    """A rational of small denominator in ``[lower, upper]`` (a counterexample a reader can
    rerun), found by bounding the denominator of the midpoint's best approximation."""
    middle = (lower + upper) / 2
    bound = 1
    while True:
        candidate = middle.limit_denominator(bound)
        if lower <= candidate <= upper:
            return candidate
        bound *= 2


def _sign_at(difference: ExpNumber, epsilon: Fraction) -> int:
    """The certified sign of ``difference`` read at ε (never 0 where it does not vanish
    identically: ``e^(ε/n)`` is transcendental)."""
    bits = 64
    while bits <= 1 << 14:
        ball = value_at(difference, epsilon, bits)
        if ball > 0:
            return 1
        if ball < 0:
            return -1
        bits *= 2
    raise ArithmeticError(f"no sign for {difference} at ε = {epsilon}")
