"""The Pufferfish level of a mechanism whose probabilities are certified enclosures.

Definition (Bai et al., Composition for Pufferfish Privacy, §2.2, Definition 5): the level is
``log r*`` with ``r* = max Pr[M = ω | s_i, θ] / Pr[M = ω | s_j, θ]`` over the secret pairs, the
priors under which both secrets have positive probability, and the outputs.  A program with
Gaussian noise (:mod:`pufferfish.models.programs.gaussian`) has output probabilities known only
as enclosures ``[lo, hi]``; the prior's weights are exact, so each conditional probability lies
between the same mixture of the rows' lower ends and of their upper ends, and

    max_ω  lo(ω | s_i) / hi(ω | s_j)   ≤   r*   ≤   max_ω  hi(ω | s_i) / lo(ω | s_j)

(each side exact in rationals).  A budget is decided when the interval is on one side of
``e^ε`` and is otherwise undecided, with the interval: the same Gaussian Sparse Vector that
:func:`~pufferfish.verify.privacy.approximate.approximate_dp` checks for DP, checked against
correlated data.

Cost: two passes of :func:`~pufferfish.verify.privacy.joint.accumulate` per prior (one per end)
and ``O(|𝕊|·|Ω|)`` exact ratio comparisons; interval families of priors are refused (their
extreme points are found by exact comparisons, which enclosures do not allow).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from pufferfish.models.enclosures import Enclosure
from pufferfish.models.errors import ModelError
from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, fraction_str, log_bound
from pufferfish.verify.numerics.certified import Budget, compare_ratio
from pufferfish.verify.privacy.joint import SecretJoint, accumulate, constrained_directions
from pufferfish.verify.report import Explained

__all__ = ["CertifiedPufferfishResult", "certified_pufferfish_level", "end_table"]


def end_table(table: KernelTable, end: str) -> KernelTable:
    """The table of the ``end`` (``"lower"``/``"upper"``) of every certified probability (an
    exact probability stays as it is): nonnegative rows that bound the mechanism's, read by the
    exact machinery as rows of numbers."""
    rows: dict[int, tuple] = {}
    for row in table.rows:
        if id(row) not in rows:
            rows[id(row)] = tuple(getattr(p, end) if isinstance(p, Enclosure) else p
                                  for p in row)
    return replace(table, rows=tuple(rows[id(row)] for row in table.rows), enclosed=False)


@dataclass(frozen=True, repr=False)
class CertifiedPufferfishResult(Explained):
    """Certified bounds ``lower_ratio ≤ r* ≤ upper_ratio`` on a mechanism's Pufferfish level
    (module docstring), the direction and output attaining the upper bound, and the verdict."""

    mechanism: str
    lower_ratio: object           # a Fraction
    upper_ratio: object           # a Fraction or INFINITY
    pair: str | None = None
    prior: str | None = None
    output: object = None
    budget: Budget | None = None
    skipped: tuple = ()

    @property
    def epsilon(self) -> str:
        """``[a, b]``: certified decimals around the level's interval ``[log lo, log hi]``."""
        low = ("inf" if self.lower_ratio == INFINITY else
               "0" if self.lower_ratio <= 1 else log_bound(self.lower_ratio, up=False))
        high = ("inf" if self.upper_ratio == INFINITY else
                "0" if self.upper_ratio <= 1 else log_bound(self.upper_ratio, up=True))
        return f"[{low}, {high}]"

    @property
    def holds(self) -> bool | None:
        """The verdict against the budget: ``None`` without one, or when undecided."""
        if self.budget is None:
            return None
        if self.upper_ratio != INFINITY and compare_ratio(self.upper_ratio, self.budget).holds:
            return True
        if not compare_ratio(self.lower_ratio, self.budget).holds:
            return False
        return None

    @property
    def undecided(self) -> bool:
        return self.budget is not None and self.holds is None

    def to_dict(self) -> dict:
        data = {"check": "pufferfish_certified", "mechanism": self.mechanism, "certified": True,
                "epsilon": self.epsilon, "ratio_lower": fraction_str(self.lower_ratio),
                "ratio_upper": fraction_str(self.upper_ratio), "pair": self.pair,
                "prior": self.prior, "output": jsonable_output(self.output),
                "skipped": [list(s) for s in self.skipped]}
        if self.budget is not None:
            data["budget"] = self.budget.text
            data["holds"] = self.holds
            data["undecided"] = self.undecided
        return data

    def explain(self) -> str:
        text = (f"{self.mechanism}: Pufferfish ε ∈ {self.epsilon} (certified)"
                + (f"; worst {self.pair} under {self.prior} on output "
                   f"{jsonable_output(self.output)!r}" if self.pair else ""))
        if self.budget is not None:
            verdict = ("holds" if self.holds else "VIOLATED" if self.holds is False
                       else "UNDECIDED (the certified interval contains the budget)")
            text += f"\n{self.mechanism}: ε = {self.budget.text}: {verdict}"
        return text


def _direction_bounds(first: str, second: str, low: SecretJoint, high: SecretJoint):
    """``(lower ratio, upper ratio, output index of the upper)`` for one ordered pair under one
    prior: conditionals by cross-multiplication with the exact prior masses."""
    mass_first, mass_second = low.mass[first], low.mass[second]
    best_low: object = Fraction(0)
    best_high: object = Fraction(0)
    where = None
    for o, (a_low, a_high, b_low, b_high) in enumerate(zip(
            low.joint[first], high.joint[first], low.joint[second], high.joint[second])):
        if a_high:
            if not b_low:
                if best_high != INFINITY:
                    best_high, where = INFINITY, o
            else:
                ratio = Fraction(a_high * mass_second) / (b_low * mass_first)
                if best_high != INFINITY and ratio > best_high:
                    best_high, where = ratio, o
        if a_low:
            ratio = (INFINITY if not b_high else
                     Fraction(a_low * mass_second) / (b_high * mass_first))
            if ratio == INFINITY or (best_low != INFINITY and ratio > best_low):
                best_low = ratio
    return best_low, best_high, where


def certified_pufferfish_level(model: PufferfishModel, mechanism, supports: dict,
                               table: KernelTable, secrets, budget: Budget | None = None
                               ) -> CertifiedPufferfishResult:
    """Certified bounds on Definition 5's level from each finite prior's support (module
    docstring); ``table`` is the mechanism's kernel table of enclosures."""
    if model.interval_families:
        raise ModelError("the certified Pufferfish level (a mechanism with Gaussian noise) does "
                         "not support interval families of priors", "priors")
    lower, upper = end_table(table, "lower"), end_table(table, "upper")
    best_low: object = Fraction(0)
    best_high: object = Fraction(0)
    found = (None, None, None)
    skipped = []
    for name, support in supports.items():
        low = accumulate(name, support, lower, secrets)
        high = accumulate(name, support, upper, secrets)
        for _, first, second in constrained_directions(model, name, low.mass, skipped):
            ratio_low, ratio_high, where = _direction_bounds(first.name, second.name, low, high)
            if ratio_low == INFINITY or (best_low != INFINITY and ratio_low > best_low):
                best_low = ratio_low
            if where is not None and (best_high != INFINITY and (
                    ratio_high == INFINITY or ratio_high > best_high)):
                best_high = ratio_high
                found = (f"{first.name} -> {second.name}", name, table.outputs[where])
    return CertifiedPufferfishResult(mechanism.name, best_low, best_high, *found, budget,
                                     tuple(skipped))
