"""Redundancy of NfC constraint sets, decided by an exact rational LP (Bai et al., Composition for
Pufferfish Privacy, §5.2: Theorem 5 is about non-redundant sets).

Constraint ``i`` is implied by the others on ``{v <= 0}`` iff
``max {v·w_i : v·w_j <= ε (j ≠ i), v <= 0} <= ε`` (sympy's exact simplex).  Because every ``w``
sums to 0, adding a constant to ``v`` changes nothing, so the feasible set is a cone shifted by
``ε`` and the answer is the same for every ``ε > 0``: it is decided at ``ε = 1`` exactly, also when
the budget is transcendental (``log(3)``).  At ``ε = 0`` the LP is homogeneous (value 0 or
unbounded).  Cost: one exact simplex per constraint per removal round (``O(m^2)`` LPs for ``m``
constraints in the worst case).

>>> from fractions import Fraction
>>> a = NfcConstraint("a", (0,), "s1", "s2", (((1,), Fraction(1)),))
>>> implied_value(a, [a], [(0,), (1,)])        # a constraint implies itself
Fraction(1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import sympy
from sympy.solvers.simplex import UnboundedLPError, linprog

from pufferfish.models.numbers import fraction_str
from pufferfish.models.universe import Dataset
from pufferfish.verify.nfc.constraints import ConstraintSet, NfcConstraint


@dataclass(frozen=True)
class RedundancyReport:
    """Which constraints are implied by the others, and a non-redundant subset."""

    redundant: tuple[str, ...]
    kept: tuple[str, ...]
    lp_values: tuple[tuple[str, str], ...]     # constraint -> max v·w (units of ε) or "unbounded"

    def to_dict(self) -> dict:
        return {"redundant": list(self.redundant), "non_redundant": list(self.kept),
                "lp_values": {name: value for name, value in self.lp_values}}


def implied_value(target: NfcConstraint, others: Sequence[NfcConstraint],
                  datasets: Sequence[Dataset], epsilon_zero: bool = False) -> Fraction | None:
    """``max {v·w_target : v·w_j <= 1 (or 0), v <= 0}`` exactly; ``None`` when unbounded.

    ``target`` is implied by ``others`` iff the value is ``<= 1`` (``<= 0`` at ε = 0).  Solved as
    sympy's exact simplex over ``y = −v >= 0``: ``min y·w_target s.t. −y·w_j <= 1``.
    """
    value, _ = exact_lp(target, others, datasets, 0 if epsilon_zero else 1)
    return value


def exact_lp(target: NfcConstraint, others: Sequence[NfcConstraint], datasets: Sequence[Dataset],
              rhs: int, cap: int | None = None) -> tuple[Fraction | None, list[Fraction] | None]:
    """Maximise ``v·w_target`` over ``v <= 0`` with ``v·w_j <= rhs`` (and ``v·w_target <= cap``)."""
    def rational(x: Fraction) -> sympy.Rational:
        return sympy.Rational(x.numerator, x.denominator)

    cost = [rational(w) for w in target.weights(datasets)]
    rows = [[-rational(w) for w in c.weights(datasets)] for c in others]
    bounds = [rhs] * len(rows)
    if cap is not None:
        rows.append([-x for x in cost])
        bounds.append(cap)
    if not rows:
        rows, bounds = [[0] * len(datasets)], [1]
    try:
        value, point = linprog(cost, rows, bounds)
    except UnboundedLPError:
        return None, None
    return -_fraction(value), [-_fraction(y) for y in point]


def _fraction(value: sympy.Expr) -> Fraction:
    numerator, denominator = sympy.fraction(sympy.nsimplify(value))
    return Fraction(int(numerator), int(denominator))


def reduce_redundant(constraints: ConstraintSet) -> RedundancyReport:
    """Remove implied constraints one at a time until none is implied by the rest (exact)."""
    datasets = constraints.datasets
    zero = constraints.budget.epsilon == 0 if constraints.budget.epsilon is not None else False
    kept = list(constraints.constraints)
    values = {}
    removed = []
    changed = True
    while changed:
        changed = False
        for c in list(kept):
            others = [o for o in kept if o is not c]
            value = implied_value(c, others, datasets, zero)
            values[c.name] = "unbounded" if value is None else fraction_str(value)
            if value is not None and value <= (0 if zero else 1):
                kept.remove(c)
                removed.append(c.name)
                changed = True
                break
    return RedundancyReport(tuple(removed), tuple(c.name for c in kept), tuple(values.items()))


__all__ = ["RedundancyReport", "implied_value", "exact_lp", "reduce_redundant"]
