"""The hockey-stick divergence of two finite measures, exact or certified.

Source: Zhang et al., Differential Confounding Privacy and Inverse Composition, §II, Definition 1
(equation (3)); Wang et al., Privacy-Preserving Analysis of Correlated Data, Appendix A.4,
Definition A.7.  For finite measures ``p``, ``q`` on the same outputs,

    D_ε(p ‖ q) = sup_W (p(W) − e^ε q(W)) = Σ_y (p(y) − e^ε q(y))^+ = A − e^ε B,

attained by ``W* = {y : p(y) > e^ε q(y)}``, with the exact rationals ``A = p(W*)``, ``B = q(W*)``.

Exactness.  ``W*`` is decided exactly: each ``p(y)/q(y)`` is compared with ``e^ε`` by
:func:`~pufferfish.verify.numerics.certified.compare_ratio`.  When ``e^ε`` is rational (ε given as
``log(r)``, or ε = 0) the value is an exact rational; for a rational ``ε ≠ 0`` and ``B > 0`` it is
irrational and reported as ``A − e^ε B`` with certified rational bounds (an interval at ``bits``
bits, :mod:`pufferfish.verify.numerics.intervals`; the lower bound clamped at 0, since the
divergence is never negative).  For ``ε = ∞`` it is ``p({y : q(y) = 0})``.

Cost: ``O(n)`` exact comparisons for ``n`` outputs, plus one interval evaluation.

>>> d = hockey_stick_divergence([("a", Fraction(3, 4), Fraction(1, 4)),
...                              ("b", Fraction(1, 4), Fraction(3, 4))], parse_budget("log(2)"))
>>> d.value, d.witness
(Fraction(1, 4), ('a',))
>>> d.relation_to(Fraction(1, 4), parse_budget("log(2)"))
'tight'
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.verify.numerics.certified import Budget, compare_ratio, parse_budget
from pufferfish.verify.numerics.intervals import (endpoints, exp_interval, interval_context,
                                                  rational_interval)
from pufferfish.verify.numerics.levels import rational_plus_log_sign

DEFAULT_BITS = 96
"""Precision (bits) of the certified interval when ``e^ε`` is irrational."""


@dataclass(frozen=True)
class Divergence:
    """``D_ε(p ‖ q) = A − e^ε B`` with its maximising set; ``value`` is exact when ``e^ε`` is
    rational or ``B = 0`` (else ``None``), and ``lower <= D <= upper`` always."""

    a: Fraction
    b: Fraction
    witness: tuple
    value: Fraction | None
    lower: Fraction
    upper: Fraction

    def relation_to(self, delta: Fraction, budget: Budget) -> str:
        """``below``, ``tight`` or ``above``: the exact order of ``A − e^ε B`` and ``delta``.

        The sign of ``(A − δ) − e^ε B``: exact (no interval) because ``A − δ`` and ``B`` are
        rationals (:func:`rational_plus_log_sign`)."""
        delta = Fraction(delta)
        if self.value is not None:
            sign = (self.value > delta) - (self.value < delta)
        elif self.a <= delta:
            sign = -1                                  # A − δ <= 0 < e^ε B
        else:
            sign = _sign_a_minus_exp_b(self.a - delta, self.b, budget)
        return {-1: "below", 0: "tight", 1: "above"}[sign]


def _sign_a_minus_exp_b(a: Fraction, b: Fraction, budget: Budget) -> int:
    """The exact sign of ``a − e^ε b`` for rationals ``a > 0``, ``b > 0`` and a finite budget."""
    if budget.ratio is not None:
        value = a - budget.ratio * b
        return (value > 0) - (value < 0)
    return rational_plus_log_sign(-budget.epsilon, a / b)        # sign of log(a/b) − ε


def divergence_at_ratio(masses: Iterable[tuple[Hashable, Fraction, Fraction]],
                        ratio: Fraction) -> Divergence:
    """``Σ_y (p(y) − r·q(y))^+`` exactly, for a rational ``r = e^ε >= 0``, over atoms
    ``(y, p(y), q(y))`` (the measures need not be normalised; the witness keeps their order).

    >>> divergence_at_ratio([(0, Fraction(1, 2), Fraction(1, 4))], Fraction(1)).value
    Fraction(1, 4)
    """
    r = Fraction(ratio)
    chosen = [(y, p, q) for y, p, q in masses if p > r * q]
    a = sum((p for _, p, _ in chosen), Fraction(0))
    b = sum((q for _, _, q in chosen), Fraction(0))
    value = a - r * b
    return Divergence(a, b, tuple(y for y, _, _ in chosen), value, value, value)


def hockey_stick_divergence(masses: Iterable[tuple[Hashable, Fraction, Fraction]],
                            budget: Budget | str, bits: int = DEFAULT_BITS) -> Divergence:
    """``Σ_y (p(y) − e^ε q(y))^+`` over atoms ``(y, p(y), q(y))`` (see the module docstring):
    exact when ``e^ε`` is rational, a certified interval at ``bits`` bits otherwise."""
    if not isinstance(budget, Budget):
        budget = parse_budget(budget)
    atoms = list(masses)
    if budget.ratio is not None:
        return divergence_at_ratio(atoms, budget.ratio)
    if budget.epsilon == 0:
        return divergence_at_ratio(atoms, Fraction(1))
    if budget.infinite:
        chosen = [(y, p, q) for y, p, q in atoms if p and not q]
    else:
        chosen = [(y, p, q) for y, p, q in atoms
                  if p and (not q or compare_ratio(p / q, budget).relation == "above")]
    a = sum((p for _, p, _ in chosen), Fraction(0))
    b = sum((q for _, _, q in chosen), Fraction(0))
    witness = tuple(y for y, _, _ in chosen)
    if b == 0:                                   # δ = A exactly: e^ε does not enter
        return Divergence(a, b, witness, a, a, a)
    context = interval_context(bits)
    low, high = endpoints(rational_interval(context, a)
                          - exp_interval(context, budget.epsilon) * rational_interval(context, b))
    return Divergence(a, b, witness, None, max(low, Fraction(0)), max(high, Fraction(0)))


__all__ = ["Divergence", "hockey_stick_divergence", "divergence_at_ratio", "DEFAULT_BITS"]
