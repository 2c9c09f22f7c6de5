"""The audit of mechanisms whose probabilities are certified enclosures (programs with Gaussian
noise): certified Pufferfish and DP levels, decided verdicts or undecided, never a guess.

``pufferfish audit`` computes exact levels; when a mechanism's output law holds
:class:`~pufferfish.models.enclosures.Enclosure` intervals
(:mod:`pufferfish.models.programs.gaussian`) it takes this path instead, for the mechanisms
audited:

* the **Pufferfish level** (Bai et al., Composition for Pufferfish Privacy, §2.2, Definition 5)
  as certified bounds
  (:func:`~pufferfish.verify.privacy.certified_pufferfish.certified_pufferfish_level`);
* each **DP level** under each neighbour relation (Definitions 1–3 of the same paper: the largest
  ratio ``Pr[M(D) = ω] / Pr[M(D') = ω]`` over neighbours) as certified bounds: the least ε with
  δ(ε) = 0 of :func:`~pufferfish.verify.privacy.approximate.approximate_dp`, computed from the
  enclosures' ends;
* a budget is met when the upper bound is within it, violated when the lower bound exceeds it,
  and undecided (exit 3) otherwise.

The joint release of several mechanisms and leakage (posterior-to-prior ratios) are not
computed on this path (the report says so).

Cost: the output laws of the mechanisms on every audited dataset (as for the exact audit), then
per prior two passes over its support, and per relation one pass over the ordered neighbour
pairs with a sort of each pair's outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pufferfish.models.enclosures import Enclosure
from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.programs.mechanism import ProgramMechanism
from pufferfish.models.neighbours import NeighbourRelation
from pufferfish.models.numbers import INFINITY, log_bound
from pufferfish.models.universe import Dataset
from pufferfish.verify.numerics.certified import Budget, compare_ratio
from pufferfish.verify.privacy.approximate import ApproximateDP, approximate_dp
from pufferfish.verify.privacy.certified_pufferfish import (CertifiedPufferfishResult,
                                                            certified_pufferfish_level)
from pufferfish.verify.privacy.pufferfish import pair_secrets
from pufferfish.verify.privacy.supports import audited_datasets, prior_supports
from pufferfish.verify.report import Explained, assuming, assumption_lines, table

__all__ = ["CertifiedAudit", "CertifiedDP", "certified_audit", "has_certified_laws"]

NOTE = ("certified: the output probabilities are certified intervals (Gaussian noise, or cycles "
        "of comparisons), so each level is an interval and a budget inside it is undecided; the "
        "joint release and leakage are not computed on this path")


def has_certified_laws(mechanism: Mechanism, dataset: Dataset) -> bool:
    """Whether ``mechanism`` is a program whose law on ``dataset`` holds certified enclosures
    (one law computed, and only for a program: no other mechanism has them; a program that draws
    Gaussian noise on some datasets only is refused later, where an exact comparison meets an
    enclosure)."""
    if not isinstance(mechanism, ProgramMechanism):
        return False
    return any(isinstance(p, Enclosure) for _, p in mechanism.distribution(dataset).items())


def _level_text(low, high) -> str:
    """``[a, b]``: certified decimals around ``[log low, log high]`` (rational bounds)."""
    lower = "inf" if low == INFINITY else "0" if low <= 1 else log_bound(low, up=False)
    upper = ("inf" if high == INFINITY else "0" if high <= 1 else log_bound(high, up=True))
    return f"[{lower}, {upper}]"


def _decide(low, high, budget: Budget | None) -> bool | None:
    if budget is None:
        return None
    if high != INFINITY and compare_ratio(high, budget).holds:
        return True
    if low != INFINITY and compare_ratio(low, budget).holds:
        return None
    return False


@dataclass(frozen=True, repr=False)
class CertifiedDP(Explained):
    """Certified bounds on one DP level (the ratio ``e^ε`` between ``lower`` and ``upper``)."""

    relation: str
    result: ApproximateDP
    budget: Budget | None = None

    @property
    def _bounds(self) -> tuple:
        """``(lower, upper)`` bounds on ``e^ε`` (equal for an exact level)."""
        low = self.result.least_ratio
        high = self.result.least_ratio_upper
        high = low if high is None else high
        return (low if low == INFINITY else Enclosure.of(low).lower,
                high if high == INFINITY else Enclosure.of(high).upper)

    @property
    def epsilon(self) -> str:
        return _level_text(*self._bounds)

    @property
    def holds(self) -> bool | None:
        return _decide(*self._bounds, self.budget)

    def to_dict(self) -> dict:
        data = {"neighbours": self.relation, "certified": True, "epsilon": self.epsilon}
        if self.budget is not None:
            data.update(budget=self.budget.text, holds=self.holds,
                        undecided=self.holds is None)
        return data

    def explain(self) -> str:
        return f"{self.relation} DP ε ∈ {self.epsilon} (certified)"


@dataclass(frozen=True, repr=False)
class CertifiedAudit(Explained):
    """The certified audit of a model's mechanisms (module docstring)."""

    mechanisms: tuple[tuple[str, CertifiedPufferfishResult | None, tuple[CertifiedDP, ...]], ...]
    budget: Budget | None = None
    dp_budget: Budget | None = None
    assumptions: tuple[str, ...] = ()
    certified = True

    @property
    def pufferfish_holds(self) -> bool | None:
        verdicts = [p.holds for _, p, _ in self.mechanisms if p is not None]
        return _all(verdicts) if self.budget is not None else None

    @property
    def dp_holds(self) -> bool | None:
        verdicts = [d.holds for _, _, dps in self.mechanisms for d in dps]
        return _all(verdicts) if self.dp_budget is not None else None

    @property
    def holds(self) -> bool | None:
        verdicts = ([self.pufferfish_holds] if self.budget is not None else []) + \
                   ([self.dp_holds] if self.dp_budget is not None else [])
        return _all(verdicts) if verdicts else None

    @property
    def undecided(self) -> bool:
        """Whether a budget was given and no verdict could be decided."""
        return (self.budget is not None or self.dp_budget is not None) and self.holds is None

    def to_dict(self) -> dict:
        data: dict = {"check": "audit", "certified": True, "note": NOTE,
                      "mechanisms": [{"mechanism": name,
                                      "pufferfish": None if p is None else p.to_dict(),
                                      "dp": [d.to_dict() for d in dps]}
                                     for name, p, dps in self.mechanisms],
                      "composition": None}
        if self.budget is not None:
            data["budget"] = self.budget.text
        if self.dp_budget is not None:
            data["dp_budget"] = self.dp_budget.text
            data["dp_holds"] = self.dp_holds
        if self.budget is not None or self.dp_budget is not None:
            data["holds"] = self.holds
        if self.assumptions:
            data["assumptions"] = list(self.assumptions)
        return data

    def explain(self, source: str = "the model") -> str:
        rows = [[name, "-" if p is None else p.epsilon,
                 ", ".join(f"{d.relation} {d.epsilon}" for d in dps)]
                for name, p, dps in self.mechanisms]
        lines = [f"Certified audit of {source}", "",
                 table(["mechanism", "Pufferfish ε (certified)", "DP ε (certified)"], rows), "",
                 NOTE]
        for name, p, dps in self.mechanisms:
            if p is not None:
                lines.append(p.explain())
            for d in dps:
                text = f"{name}: {d.explain()}"
                if d.budget is not None:
                    text += (f": budget {d.budget.text} "
                             f"{assuming(_verdict(d.holds), self.assumptions)}")
                lines.append(text)
        if self.holds is not None or self.undecided:
            lines.append(f"verdict: {assuming(_verdict(self.holds), self.assumptions)}")
        lines += assumption_lines(self.assumptions)
        return "\n".join(lines)


def _all(verdicts: Sequence[bool | None]) -> bool | None:
    if False in verdicts:
        return False
    return None if None in verdicts else True


def _verdict(holds: bool | None) -> str:
    return "holds" if holds else "VIOLATED" if holds is False else "UNDECIDED"


def certified_audit(model: PufferfishModel, mechanisms: Sequence[Mechanism],
                    relations: Sequence[NeighbourRelation], budget: Budget | None,
                    dp_budget: Budget | None, max_datasets: int, max_outputs: int,
                    max_pairs: int, progress: Callable[[str], None] | None = None
                    ) -> CertifiedAudit:
    """The certified Pufferfish level (unless the model is DP-only) and DP levels of each
    mechanism (module docstring)."""
    results = []
    supports = None if model.dp_only else prior_supports(model, max_datasets)
    for mechanism in mechanisms:
        if progress:
            progress(mechanism.name)
        puffer = None
        if supports is not None:
            table_ = KernelTable.build(mechanism, audited_datasets(model, max_datasets),
                                       max_outputs)
            puffer = certified_pufferfish_level(model, mechanism, supports, table_,
                                                pair_secrets(model), budget)
        levels = (approximate_dp(model.universe, mechanism, relation, delta=0,
                                 max_datasets=max_datasets, max_outputs=max_outputs,
                                 max_pairs=max_pairs) for relation in relations)
        dps = tuple(CertifiedDP(level.relation, level, dp_budget) for level in levels)
        results.append((mechanism.name, puffer, dps))
    return CertifiedAudit(tuple(results), budget, dp_budget)
