"""Pufferfish levels under composition (Bai et al., Composition for Pufferfish Privacy, §1, §4, §5).

Pufferfish privacy does not compose in general: the joint release of mechanisms that are each
ε_i-Pufferfish can have a level above ``Σ ε_i`` (linear composition), even an infinite one (privacy
collapse, §4).  This module computes the exact level of the joint release — the mechanisms run
independently on the same dataset — next to the linear bound ``Σ ε_i`` (exactly: ``log Π r_i``),
and the level of ``k`` runs of one mechanism next to ``k·ε``, so super-linear growth is visible at
once.  The comparison is exact (products of rationals).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.mechanisms import Mechanism, compose, repeat
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.numerics.certified import Budget, BudgetCheck, compare_ratio
from pufferfish.verify.privacy.pufferfish import (VACUOUS_TEXT, PufferfishResult, check_level,
                                                  pufferfish_level, ratio_key)
from pufferfish.verify.report import Explained


def product_of_ratios(ratios: list[Ratio]) -> Ratio:
    """``Π r_i`` with infinity absorbing (``e^{Σ ε_i}``)."""
    total: Ratio = Fraction(1)
    for r in ratios:
        if r == INFINITY:
            return INFINITY
        total *= r
    return total


@dataclass(repr=False, frozen=True)
class CompositionResult(Explained):
    """The joint Pufferfish level of several mechanisms beside the sum of their levels."""

    mechanisms: tuple[str, ...]
    individual: tuple[PufferfishResult, ...]
    joint: PufferfishResult
    linear_bound: Ratio
    budget: BudgetCheck | None = None

    @property
    def vacuous(self) -> bool:
        """The joint level constrains nothing (no secret pair applies under any prior): its
        ``ε = 0`` and the sum of the individual levels prove nothing, so there is no linear
        bound to be within."""
        return self.joint.vacuous

    @property
    def super_linear(self) -> bool:
        """True when the joint level exceeds the sum of the individual levels."""
        return ratio_key(self.joint.level_ratio) > ratio_key(self.linear_bound)

    @property
    def holds(self) -> bool | None:
        """Linear composition holds on this instance (and the budget, if one was given);
        ``None`` when the joint level is vacuous (it constrains nothing, so it proves nothing)."""
        if self.vacuous:
            return None
        return not self.super_linear and (self.budget is None or self.budget.holds)

    def to_dict(self) -> dict:
        data = {"check": "composition", "mechanisms": list(self.mechanisms),
                "individual": [{"mechanism": r.mechanism, "epsilon": r.epsilon,
                                "max_ratio": fraction_str(r.level_ratio)} for r in self.individual],
                "sum_of_levels": epsilon_str(self.linear_bound),
                "sum_of_levels_ratio": fraction_str(self.linear_bound),
                "joint": self.joint.to_dict(), "joint_epsilon": self.joint.epsilon,
                "super_linear": self.super_linear, "holds": self.holds,
                "vacuous": self.vacuous}
        if self.budget is not None:
            data["budget"] = self.budget.to_dict()
        return data

    def explain(self) -> str:
        if self.vacuous:
            return (f"joint release of {', '.join(self.mechanisms)}: Pufferfish level vacuous: "
                    f"{VACUOUS_TEXT}; the joint level and the sum of the levels prove nothing "
                    f"(no linear bound to compare)")
        verdict = "SUPER-LINEAR" if self.super_linear else "within the linear bound"
        return (f"joint release of {', '.join(self.mechanisms)}: ε = {self.joint.epsilon} "
                f"(≈ {epsilon_float(self.joint.level_ratio):.6g}) vs sum of levels "
                f"{epsilon_str(self.linear_bound)} (≈ {epsilon_float(self.linear_bound):.6g}): "
                f"{verdict}")


def composition_audit(model: PufferfishModel, mechanisms: list[Mechanism],
                      budget: Budget | None = None, max_datasets: int = DEFAULT_MAX_DATASETS,
                      max_outputs: int = DEFAULT_MAX_OUTPUTS) -> CompositionResult:
    """Exact level of the joint release of ``mechanisms`` and the linear bound Σ ε_i."""
    individual = tuple(pufferfish_level(model, m, None, max_datasets, max_outputs)
                       for m in mechanisms)
    joint = pufferfish_level(model, compose(mechanisms), None, max_datasets, max_outputs)
    return composition_result(individual, joint, budget)


def composition_result(individual: tuple[PufferfishResult, ...], joint: PufferfishResult,
                       budget: Budget | None = None) -> CompositionResult:
    """The joint level beside the linear bound Σ ε_i of the ``individual`` levels (budget-free)."""
    bound = product_of_ratios([r.level_ratio for r in individual])
    check = check_level(joint.level_ratio, budget, joint.vacuous) if budget is not None else None
    return CompositionResult(tuple(r.mechanism for r in individual), individual, joint, bound,
                             check)


@dataclass(repr=False, frozen=True)
class RepeatResult(Explained):
    """Levels of 1..k independent runs of one mechanism beside ``j·ε``."""

    mechanism: str
    levels: tuple[PufferfishResult, ...]

    @property
    def single(self) -> Ratio:
        return self.levels[0].level_ratio

    def linear_bound(self, runs: int) -> Ratio:
        return product_of_ratios([self.single] * runs)

    @property
    def super_linear(self) -> bool:
        return any(ratio_key(r.level_ratio) > ratio_key(self.linear_bound(j))
                   for j, r in enumerate(self.levels, start=1))

    @property
    def holds(self) -> bool:
        return not self.super_linear

    def to_dict(self) -> dict:
        return {"check": "repeat", "mechanism": self.mechanism, "super_linear": self.super_linear,
                "holds": self.holds,
                "runs": [{"runs": j, "epsilon": r.epsilon, "max_ratio": fraction_str(r.level_ratio),
                          "linear_bound": epsilon_str(self.linear_bound(j)),
                          "exceeds": ratio_key(r.level_ratio) > ratio_key(self.linear_bound(j))}
                         for j, r in enumerate(self.levels, start=1)]}

    def explain(self) -> str:
        parts = [f"{j} run{'s' if j > 1 else ''}: ε = {r.epsilon} (linear bound "
                 f"{epsilon_str(self.linear_bound(j))})" for j, r in enumerate(self.levels, start=1)]
        return f"{self.mechanism}: " + "; ".join(parts)


def repeat_audit(model: PufferfishModel, mechanism: Mechanism, runs: int,
                 max_datasets: int = DEFAULT_MAX_DATASETS,
                 max_outputs: int = DEFAULT_MAX_OUTPUTS) -> RepeatResult:
    """Exact levels of 1, 2, …, ``runs`` independent runs of ``mechanism``."""
    levels = [pufferfish_level(model, mechanism, None, max_datasets, max_outputs)]
    for j in range(2, runs + 1):
        levels.append(pufferfish_level(model, repeat(mechanism, j), None, max_datasets,
                                       max_outputs))
    return RepeatResult(mechanism.name, tuple(levels))
