"""Rigorous comparison of exact privacy ratios with budgets, and certified bounds on logarithms.

Exactness policy (DESIGN.md): the privacy level of a finite mechanism is ``log r`` for an exact
rational ``r``; a budget is either given the same way (``"log(9/2)"``, compared exactly) or as a
decimal ε (``"0.5"``, read as the exact rational 1/2).  Deciding ``r <= exp(ε)`` then needs no
floats: for rational ``ε ≠ 0``, ``exp(ε)`` is irrational (Lindemann–Weierstrass), so ``r`` is
never equal to it and interval arithmetic (mpmath ``iv``) at increasing precision separates them
after finitely many steps.  ``r = exp(ε)`` happens only for ``ε = 0, r = 1``, reported as
``tight``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath import iv

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_str, exact, fraction_str

_LOG_FORM = re.compile(r"^\s*log\s*\(\s*([^()]+?)\s*\)\s*$")
_MAX_PRECISION_BITS = 1 << 16


@dataclass(frozen=True)
class Budget:
    """A privacy budget ε: exactly ``log(ratio)`` or a rational ``epsilon`` (or infinite)."""

    text: str
    ratio: Fraction | None = None      # set when the budget is log(ratio)
    epsilon: Fraction | None = None    # set when the budget is a rational ε
    infinite: bool = False

    def to_dict(self) -> dict:
        return {"budget": self.text}


def parse_budget(text: str | int | Fraction, path: str = "--epsilon") -> Budget:
    """Read a budget: ``"0.5"``, ``"1/2"``, ``"log(3)"``, ``"log(9/2)"`` or ``"inf"``.

    >>> parse_budget("log(9/2)").ratio
    Fraction(9, 2)
    """
    if isinstance(text, str):
        stripped = text.strip()
        if stripped.lower() in ("inf", "infinity"):
            return Budget(stripped, infinite=True)
        match = _LOG_FORM.match(stripped)
        if match:
            r = exact(match.group(1), path)
            if r < 1:
                raise ModelError(f"log({fraction_str(r)}) is negative; a budget must be >= 0", path)
            return Budget(stripped, ratio=r)
    eps = exact(text, path)
    if eps < 0:
        raise ModelError(f"a privacy budget must be >= 0, got {fraction_str(eps)}", path)
    return Budget(str(text).strip(), epsilon=eps)


def scale_budget(budget: Budget, factor: int) -> Budget:
    """``factor·ε`` as a budget, exactly (``r^factor`` for ``ε = log r``): the linear-composition
    budget of ``factor`` releases."""
    if budget.infinite:
        return budget
    if budget.ratio is not None:
        return Budget(f"{factor}·{budget.text}", ratio=budget.ratio ** factor)
    return Budget(f"{factor}·{budget.text}", epsilon=budget.epsilon * factor)


def budget_float(budget: Budget) -> float:
    """ε as a float, for reading only."""
    if budget.infinite:
        return math.inf
    if budget.ratio is not None:
        return math.log(budget.ratio.numerator) - math.log(budget.ratio.denominator)
    return float(budget.epsilon)


@dataclass(frozen=True)
class BudgetCheck:
    """The verdict of ``log(ratio) <= ε``: ``relation`` is ``below``, ``tight`` or ``above``."""

    budget: Budget
    ratio: Ratio
    relation: str

    @property
    def holds(self) -> bool:
        return self.relation != "above"

    def to_dict(self) -> dict:
        return {"budget": self.budget.text, "relation": self.relation, "holds": self.holds,
                "epsilon": epsilon_str(self.ratio)}


def compare_ratio(ratio: Ratio, budget: Budget) -> BudgetCheck:
    """Decide ``log(ratio)`` against ``budget`` rigorously (no float decides)."""
    return BudgetCheck(budget, ratio, _relation(ratio, budget))


def _relation(ratio: Ratio, budget: Budget) -> str:
    if budget.infinite:
        return "tight" if ratio == INFINITY else "below"
    if ratio == INFINITY:
        return "above"
    if budget.ratio is not None:
        return _order(Fraction(ratio), budget.ratio)
    eps = budget.epsilon
    assert eps is not None
    if ratio == 0:
        return "below"
    if eps == 0:
        return _order(Fraction(ratio), Fraction(1))
    # exp(eps) is irrational for rational eps != 0: refine until the intervals separate.
    bits = 64
    while bits <= _MAX_PRECISION_BITS:
        with interval_precision(bits):
            bound = iv.exp(iv.mpf(eps.numerator) / eps.denominator)
            value = iv.mpf(ratio.numerator) / ratio.denominator  # type: ignore[union-attr]
            if value.b < bound.a:
                return "below"
            if value.a > bound.b:
                return "above"
        bits *= 2
    raise ArithmeticError("could not separate the ratio from exp(epsilon)")  # unreachable in theory


@contextmanager
def interval_precision(bits: int) -> Iterator[None]:
    """Run interval arithmetic at ``bits`` of precision, restoring the previous setting."""
    previous = iv.prec
    iv.prec = bits
    try:
        yield
    finally:
        iv.prec = previous


def rational_interval(value: Fraction):
    """An mpmath interval enclosing the rational ``value`` at the current precision."""
    return iv.mpf(value.numerator) / value.denominator


def _order(left: Fraction, right: Fraction) -> str:
    if left < right:
        return "below"
    return "tight" if left == right else "above"


def log_bounds(ratio: Ratio, bits: int = 64) -> tuple[float, float]:
    """Certified lower and upper bounds on ``log(ratio)``, rounded outward to floats."""
    if ratio == INFINITY:
        return (float("inf"), float("inf"))
    r = Fraction(ratio)
    if r == 0:
        return (float("-inf"), float("-inf"))
    with interval_precision(bits + 10):
        interval = iv.log(iv.mpf(r.numerator) / r.denominator)
        low, high = interval.a, interval.b
    return (float(mpmath.mpf(low)) - 2 ** -50 * max(1.0, abs(float(low))),
            float(mpmath.mpf(high)) + 2 ** -50 * max(1.0, abs(float(high))))
