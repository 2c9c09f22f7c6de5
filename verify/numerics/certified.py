"""Privacy budgets and the rigorous comparison of exact privacy ratios with them.

Exactness policy (:doc:`/design`): the privacy level of a finite mechanism is ``log r`` for an
exact rational ``r``; a budget is either given the same way (``"log(9/2)"``, so ``e^ε`` is
rational) or as a rational ε (``"0.5"``, read as the exact rational 1/2).  Both are exact levels
(:class:`~pufferfish.verify.numerics.levels.LogValue`), and deciding ``log r <= ε`` is the exact
sign of ``ε − log r`` (:func:`~pufferfish.verify.numerics.levels.rational_plus_log_sign`): no float
decides.  ``log r = ε`` happens only for ``e^ε = r`` rational (in particular ``ε = 0, r = 1``),
reported as ``tight``.

>>> compare_ratio(Fraction(3), parse_budget("1")).relation        # log 3 > 1
'above'
>>> compare_ratio(Fraction(9, 2), parse_budget("log(9/2)")).relation
'tight'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.programs.exp_numbers import ExpNumber
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_str
from pufferfish.verify.numerics.levels import LOG_FORM, LogValue, parse_level

_FORMS = ("log", "rational", "infinite")


@dataclass(frozen=True, init=False)
class Budget:
    """A privacy budget ε: the user's ``text`` and its exact value ``level``.

    ``form`` says how it was given: ``"log"`` (``ε = log(ratio)``, so ``e^ε`` is the rational
    :attr:`ratio`), ``"rational"`` (ε is the rational :attr:`epsilon`) or ``"infinite"``.
    Constructed as ``Budget(text, ratio=r)``, ``Budget(text, epsilon=e)`` or
    ``Budget(text, infinite=True)``; :func:`parse_budget` reads the user's text.

    >>> Budget("log(3)", ratio=Fraction(3)).level == LogValue.log(Fraction(3))
    True
    """

    text: str
    level: LogValue
    form: str

    def __init__(self, text: str, ratio: Fraction | None = None, epsilon: Fraction | None = None,
                 infinite: bool = False) -> None:
        given = [ratio is not None, epsilon is not None, bool(infinite)]
        if sum(given) != 1:
            raise ValueError("a budget is exactly one of: ratio=, epsilon=, infinite=True")
        if infinite:
            level, form = LogValue.log(INFINITY), "infinite"
        elif ratio is not None:
            level, form = LogValue.log(Fraction(ratio)), "log"
        else:
            level, form = LogValue.rational(Fraction(epsilon)), "rational"
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "form", form)

    @property
    def ratio(self) -> Fraction | None:
        """``e^ε`` when the budget was given as ``log(ratio)``, else ``None``."""
        return self.level.r if self.form == "log" else None

    @property
    def epsilon(self) -> Fraction | None:
        """ε when the budget was given as a rational, else ``None``."""
        return self.level.q if self.form == "rational" else None

    @property
    def infinite(self) -> bool:
        return self.form == "infinite"

    def to_dict(self) -> dict:
        return {"budget": self.text}


def parse_budget(text: str | int | Fraction, path: str = "--epsilon") -> Budget:
    """Read a budget: ``"0.5"``, ``"1/2"``, ``"log(3)"``, ``"log(9/2)"`` or ``"inf"`` (an ``int``
    or ``Fraction`` is a rational ε; floats are refused with a hint;
    :func:`~pufferfish.verify.numerics.levels.parse_level` gives the rules and messages).

    >>> parse_budget("log(9/2)").ratio
    Fraction(9, 2)
    """
    level = parse_level(text, path)
    shown = text.strip() if isinstance(text, str) else str(text)
    if level.infinite:
        return Budget(shown, infinite=True)
    if isinstance(text, str) and LOG_FORM.match(text):
        return Budget(shown, ratio=level.r)
    return Budget(shown, epsilon=level.q)


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
    """The verdict of ``log(ratio) <= ε``: ``relation`` is ``below``, ``tight`` or ``above``, or
    ``vacuous`` when the level constrains nothing (no secret pair has positive probability under
    any prior): a budget is then neither met nor violated, and ``holds`` is ``None``
    (undecided, exit 3), never a proof."""

    budget: Budget
    ratio: Ratio
    relation: str

    @property
    def holds(self) -> bool | None:
        if self.relation == "vacuous":
            return None
        return self.relation != "above"

    @property
    def verdict(self) -> str:
        """``holds``, ``VIOLATED`` or ``UNDECIDED (vacuous)`` for reports."""
        if self.holds is None:
            return "UNDECIDED (vacuous)"
        return "holds" if self.holds else "VIOLATED"

    def to_dict(self) -> dict:
        return {"budget": self.budget.text, "relation": self.relation, "holds": self.holds,
                "epsilon": epsilon_str(self.ratio)}


_RELATIONS = {-1: "below", 0: "tight", 1: "above"}


def compare_ratio(ratio: Ratio, budget: Budget) -> BudgetCheck:
    """Decide ``log(ratio)`` against ``budget`` exactly: the sign of ``log(ratio) − ε``
    (:meth:`LogValue.compare`; ``log 0 = −∞`` is below every budget)."""
    if ratio == 0:
        return BudgetCheck(budget, ratio, "below")
    if isinstance(ratio, ExpNumber) and not ratio.is_rational():
        # ratio ∈ Q(e^(1/n)) and e^ε is rational (ε = log q) or e^ε ∈ Q(e^(1/d)) (ε rational):
        # the sign of their difference is exact at 0 and certified elsewhere
        if budget.infinite:
            return BudgetCheck(budget, ratio, "below")
        bound = budget.ratio if budget.ratio is not None else ExpNumber.exp(budget.epsilon)
        return BudgetCheck(budget, ratio, _RELATIONS[(ratio - bound).sign()])
    return BudgetCheck(budget, ratio, _RELATIONS[LogValue.log(ratio).compare(budget.level)])
