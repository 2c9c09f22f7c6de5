"""The relaxed sufficient condition (20) of Lemma 2 (Ding et al., Multi-user Pufferfish Privacy,
§4.4.1, equations (20), (23)).

For the comonotone coupling ``π*`` of two conditionals (equation (6),
:func:`pufferfish.verify.transport.kantorovich.transport_plan`) and a rational θ, (20) asks
``Σ_x (e^{|x − x'|/θ} − e^ε) π*(x, x') <= 0`` for every column ``x'``.  Each column's sign is
decided exactly by :func:`exp_sum_sign`: the sum is 0 iff every collected coefficient is 0
(Lindemann–Weierstrass: distinct rational exponents give linearly independent ``e^t`` over the
rationals), otherwise its sign is found by interval arithmetic at increasing precision in a
private context.  (20) constrains one direction; the reverse direction is (20) with the roles of
the two distributions exchanged.

At Lemma 2's own θ (equation (21), ``θ = 1/log z`` with ``z = e^ε + (e^ε − 1) ψ`` at the least ψ)
θ is transcendental, and evaluating (20) at a rational end of an enclosure of θ decides a
*different* inequality (where (20) holds with equality it reports a violation that is not there).
:func:`relaxed_condition_at_lemma2` decides it exactly instead:

Exact decision.  With ``L`` the common denominator of the distances ``|x − x'| = k/L`` and
``v = z^{1/L}``, ``e^{|x − x'|/θ} = v^k`` and ``e^ε = (v^L + ψ)/(1 + ψ)``, so ``(1 + ψ)`` times
the column sum is the polynomial with rational coefficients

    ``p(v) = Σ_x π*(x, x') ((1 + ψ) v^k − v^L − ψ)``.

``v`` is transcendental (``e^ε`` is, for rational ``ε ≠ 0``, by Lindemann–Weierstrass, and
``v^L = (1 + ψ) e^ε − ψ``), so ``p(v) = 0`` iff ``p`` is the zero polynomial — an exact test —
and otherwise ``p(v) ≠ 0`` and its sign is found by interval evaluation at doubling precision
(:func:`pufferfish.verify.numerics.intervals.certified_sign`).  Should the precision cap be reached,
the column is *undecided* (``None``), never rounded.

Cost: the plan ``O(m + n)``; per column one polynomial of degree ``<= L · max distance`` and
``O(terms)`` interval operations per precision step.

Cost: the coupling ``O(m + n)`` plus one sign per column (``O(k)`` interval operations for ``k``
terms, repeated at doubling precision until decided).

>>> from pufferfish.verify.numerics.certified import parse_budget
>>> relaxed_condition({0: 1}, {1: 1}, Fraction(1), parse_budget("1")).holds    # e^1 − e^1 = 0
True
>>> # one unit of mass moved by 1 with ψ = 0: p(v) = v − v = 0, (20) holds with equality
>>> condition20_columns({0: 1}, {1: 1}, Fraction(0), Fraction(1))
((Fraction(1, 1), 0),)
>>> condition20_columns({0: 1}, {2: 1}, Fraction(0), Fraction(1))   # e^{2ε} − e^ε > 0
((Fraction(2, 1), 1),)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from math import lcm

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.multiuser.thetas import epsilon_of
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import certified_sign, exp_interval, rational_interval
from pufferfish.verify.transport.kantorovich import transport_plan


def exp_sum_sign(terms: Mapping[Fraction, Fraction], max_bits: int = 1 << 13) -> int | None:
    """The exact sign of ``Σ_t c_t e^t`` (rational ``t``, ``c_t``): 0 iff every collected
    coefficient is 0 (Lindemann–Weierstrass), otherwise decided by interval arithmetic at
    increasing precision; ``None`` if ``max_bits`` do not suffice.

    >>> exp_sum_sign({Fraction(1): Fraction(1), Fraction(0): Fraction(-2)})     # e − 2
    1
    >>> exp_sum_sign({Fraction(2): Fraction(1), Fraction(1): Fraction(-3)})     # e² − 3e
    -1
    >>> exp_sum_sign({Fraction(1): Fraction(0)})
    0
    """
    collected: dict[Fraction, Fraction] = {}
    for t, c in terms.items():
        collected[t] = collected.get(t, Fraction(0)) + c
    collected = {t: c for t, c in collected.items() if c}
    if not collected:
        return 0

    def enclosure(context):
        return sum((rational_interval(context, c) * exp_interval(context, t)
                    for t, c in collected.items()), context.mpf(0))

    try:
        return certified_sign(enclosure, 64, max_bits)
    except ArithmeticError:
        return None


@dataclass(frozen=True)
class RelaxedCondition:
    """Equation (20) for ``π*`` of (first, second) at θ: per column ``x'`` the sign of
    ``Σ_x (e^{|x − x'|/θ} − e^ε) π*(x, x')`` (−1, 0, +1, or ``None`` when undecided).  θ is a
    rational, or (``theta = None``) Lemma 2's ``1/log(e^ε + (e^ε − 1) ψ)`` at the given ``psi``."""

    theta: Fraction | None
    columns: tuple[tuple[Fraction, int | None], ...]
    psi: Fraction | None = None

    @property
    def holds(self) -> bool | None:
        signs = [s for _, s in self.columns]
        if any(s == 1 for s in signs):
            return False
        return None if any(s is None for s in signs) else True

    @property
    def worst(self) -> Fraction | None:
        return next((x for x, s in self.columns if s == 1), None)

    def to_dict(self) -> dict:
        theta = (fraction_str(self.theta) if self.theta is not None
                 else f"1/log(e^ε + (e^ε − 1)·{fraction_str(self.psi)})")
        return {"theta": theta, "holds": self.holds,
                "violated_at": None if self.worst is None else fraction_str(self.worst),
                "columns": [[fraction_str(x), s] for x, s in self.columns]}


def relaxed_condition(first: Mapping, second: Mapping, theta: Fraction, budget: Budget
                      ) -> RelaxedCondition:
    """Check (20) exactly: ``Σ_x (e^{|x−x'|/θ} − e^ε) π*(x, x') <= 0`` for every ``x'`` (this
    bounds ``f(y | first) <= e^ε f(y | second)``; swap the arguments for the other direction)."""
    eps = epsilon_of(budget)
    if theta <= 0:
        raise ModelError("θ must be > 0", "theta")
    plan = transport_plan(first, second)
    columns: dict[Fraction, dict[Fraction, Fraction]] = {}
    for x, x2, m in plan.coupling:
        terms = columns.setdefault(x2, {})
        t = abs(x - x2) / theta
        terms[t] = terms.get(t, Fraction(0)) + m
        terms[eps] = terms.get(eps, Fraction(0)) - m
    return RelaxedCondition(theta, tuple((x2, exp_sum_sign(terms)) for x2, terms in sorted(columns.items())))


MAX_BITS = 1 << 13
"""Precision cap (bits) of the sign refinement; past it a column is reported undecided."""


def column_polynomials(first: Mapping, second: Mapping, psi: Fraction
                       ) -> tuple[int, dict[Fraction, dict[int, Fraction]]]:
    """``(L, {x': {power: coefficient}})``: the polynomial ``p`` in ``v = z^{1/L}`` of each column
    of ``π*(first, second)`` (module docstring), with zero coefficients dropped."""
    plan = transport_plan(first, second)
    scale = reduce(lcm, (abs(x - x2).denominator for x, x2, _ in plan.coupling), 1)
    columns: dict[Fraction, dict[int, Fraction]] = {}
    for x, x2, mass in plan.coupling:
        poly = columns.setdefault(x2, {})
        for power, coefficient in ((int(abs(x - x2) * scale), (1 + psi) * mass),
                                   (scale, -mass), (0, -psi * mass)):
            poly[power] = poly.get(power, Fraction(0)) + coefficient
    return scale, {x2: {k: c for k, c in poly.items() if c} for x2, poly in columns.items()}


def polynomial_sign(poly: Mapping[int, Fraction], scale: int, psi: Fraction, epsilon: Fraction,
                    max_bits: int = MAX_BITS) -> int | None:
    """The sign of ``p(v)`` at ``v = ((1 + ψ) e^ε − ψ)^{1/L}``: 0 exactly when ``p`` is the zero
    polynomial, else −1/+1 by certified refinement, ``None`` past ``max_bits``."""
    if not poly:
        return 0

    def enclosure(context):
        z = rational_interval(context, 1 + psi) * exp_interval(context, epsilon) \
            - rational_interval(context, psi)
        v = context.exp(context.log(z) / scale)
        return sum((rational_interval(context, c) * v ** k for k, c in poly.items()),
                   context.mpf(0))

    try:
        return certified_sign(enclosure, 64, max_bits)
    except ArithmeticError:
        return None


def condition20_columns(first: Mapping, second: Mapping, psi: Fraction, epsilon: Fraction
                        ) -> tuple[tuple[Fraction, int | None], ...]:
    """Per column ``x'`` of ``π*(first, second)``, the exact sign of the left side of (20) at
    ``θ = 1/log(e^ε + (e^ε − 1) ψ)`` (−1, 0, +1, or ``None`` when undecided)."""
    if epsilon <= 0:
        raise ValueError("ε must be > 0")
    scale, columns = column_polynomials(first, second, Fraction(psi))
    return tuple((x2, polynomial_sign(poly, scale, Fraction(psi), Fraction(epsilon)))
                 for x2, poly in sorted(columns.items()))


def relaxed_condition_at_lemma2(first: Mapping, second: Mapping, psi: Fraction, budget: Budget
                                ) -> RelaxedCondition:
    """(20) for ``π*(first, second)`` decided exactly at Lemma 2's ``θ = 1/log(e^ε + (e^ε − 1) ψ)``
    (:func:`condition20_columns`)."""
    eps = epsilon_of(budget)
    return RelaxedCondition(None, condition20_columns(first, second, Fraction(psi), eps),
                            Fraction(psi))
