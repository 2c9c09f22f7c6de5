"""The relaxed sufficient condition (20) of Lemma 2 (``001_3a97785a86d61e37.txt`` §4.4.1,
equations (20), (23)).

For the comonotone coupling ``π*`` of two conditionals (equation (6),
:func:`pufferfish.verify.transport.kantorovich.transport_plan`) and a rational θ, (20) asks
``Σ_x (e^{|x − x'|/θ} − e^ε) π*(x, x') <= 0`` for every column ``x'``.  Each column's sign is
decided exactly by :func:`exp_sum_sign`: the sum is 0 iff every collected coefficient is 0
(Lindemann–Weierstrass: distinct rational exponents give linearly independent ``e^t`` over the
rationals), otherwise its sign is found by interval arithmetic at increasing precision in a
private context.  (20) constrains one direction; the reverse direction is (20) with the roles of
the two distributions exchanged.

Cost: the coupling ``O(m + n)`` plus one sign per column (``O(k)`` interval operations for ``k``
terms, repeated at doubling precision until decided).

>>> from pufferfish.verify.numerics.certified import parse_budget
>>> relaxed_condition({0: 1}, {1: 1}, Fraction(1), parse_budget("1")).holds    # e^1 − e^1 = 0
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

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
    """Equation (20) for ``π*`` of (first, second) at a rational θ: per column ``x'`` the sign of
    ``Σ_x (e^{|x − x'|/θ} − e^ε) π*(x, x')`` (−1, 0, +1, or ``None`` when undecided)."""

    theta: Fraction
    columns: tuple[tuple[Fraction, int | None], ...]

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
        return {"theta": fraction_str(self.theta), "holds": self.holds,
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
