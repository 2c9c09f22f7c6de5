"""The full audit of a model file: every mechanism's Pufferfish, DP and leakage levels, and the
joint release of all of them (``000_65109fe28ca61d17.txt`` Definitions 1–5; composition §1, §4).

This is what ``pufferfish audit MODEL`` runs.  Each part is computed by its own module; this one
only gathers the results, applies the optional budget, and decides the exit verdict: with a budget,
the audit *holds* when every mechanism and their joint release are ε-Pufferfish private.

A model without mechanisms has nothing to audit: :func:`audit_model` refuses it with a
:class:`~pufferfish.models.errors.ModelError` (exit 2 on the command line) instead of reporting
that an empty set of mechanisms "holds" for every budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import epsilon_float, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.privacy.composition import CompositionResult, composition_audit
from pufferfish.verify.privacy.dp import DPResult, dp_level
from pufferfish.verify.privacy.leakage import LeakageResult, leakage
from pufferfish.verify.privacy.pufferfish import PufferfishResult, pufferfish_level
from pufferfish.verify.report import Explained, compact, table


@dataclass(frozen=True)
class MechanismAudit:
    """Pufferfish level, DP levels and leakage of one mechanism."""

    name: str
    pufferfish: PufferfishResult
    dp: tuple[DPResult, ...]
    leakage: LeakageResult

    def to_dict(self) -> dict:
        return {"mechanism": self.name, "pufferfish": self.pufferfish.to_dict(),
                "dp": [d.to_dict() for d in self.dp], "leakage": self.leakage.to_dict()}


@dataclass(frozen=True, repr=False)
class ModelAudit(Explained):
    """Every mechanism's audit and the composition of all of them."""

    mechanisms: tuple[MechanismAudit, ...]
    composition: CompositionResult | None
    composition_note: str = ""
    budget: Budget | None = None

    @property
    def holds(self) -> bool | None:
        """With a budget: every mechanism and the joint release meet it.  Without: ``None``."""
        if self.budget is None:
            return None
        ok = all(m.pufferfish.holds for m in self.mechanisms)
        if self.composition is not None and self.composition.budget is not None:
            ok = ok and self.composition.budget.holds
        return ok

    def to_dict(self) -> dict:
        data = {"check": "audit", "mechanisms": [m.to_dict() for m in self.mechanisms],
                "composition": self.composition.to_dict() if self.composition else None}
        if self.composition_note:
            data["composition_note"] = self.composition_note
        if self.budget is not None:
            data["budget"] = self.budget.text
            data["holds"] = self.holds
        return data

    def summary(self) -> str:
        """One line: each mechanism's Pufferfish level, and the verdict when a budget was given."""
        levels = ", ".join(f"{m.name} {m.pufferfish.epsilon}" for m in self.mechanisms)
        verdict = "" if self.budget is None else (
            f"; budget {self.budget.text} {'holds' if self.holds else 'VIOLATED'}")
        return f"Pufferfish levels {levels}{verdict}"

    def explain(self, source: str = "the model") -> str:
        """The plain-text report ``pufferfish audit`` prints (``source`` names the model)."""
        rows = []
        for m in self.mechanisms:
            p = m.pufferfish
            approx = epsilon_float(p.level_ratio)
            rows.append([m.name, compact(p.epsilon), "inf" if approx == math.inf else f"{approx:.4f}",
                         ", ".join(f"{d.relation} {compact(d.epsilon)}" for d in m.dp),
                         "zero" if m.leakage.zero_leakage
                         else compact(fraction_str(m.leakage.worst_shift)),
                         "-" if p.holds is None else ("ok" if p.holds else "VIOLATED")])
        lines = [f"Audit of {source}", "",
                 table(["mechanism", "pufferfish ε", "≈", "DP ε", "leakage (max shift)", "budget"],
                       rows), ""]
        for m in self.mechanisms:
            if m.pufferfish.witness is not None:
                lines.append(f"  {m.name}: worst case {m.pufferfish.witness.explain()}")
            for skipped in m.pufferfish.skipped[:3]:
                lines.append(f"  {m.name}: skipped {skipped[0]} under {skipped[1]} ({skipped[2]})")
        if self.composition is not None:
            lines += ["", self.composition.explain()]
        elif self.composition_note:
            lines += ["", self.composition_note]
        if self.budget is not None:
            lines += ["", f"budget ε = {self.budget.text}: "
                          f"{'holds' if self.holds else 'VIOLATED'}"]
        return "\n".join(lines)


def audit_model(model: PufferfishModel, budget: Budget | None = None, group: int | None = None,
                max_datasets: int = DEFAULT_MAX_DATASETS, max_outputs: int = DEFAULT_MAX_OUTPUTS,
                progress: Callable[[str], None] | None = None) -> ModelAudit:
    """Audit every mechanism of ``model`` and their joint release.

    Raises :class:`ModelError` (at ``mechanisms``) when the model has no mechanism: a check that
    finds nothing to check says so rather than passing.
    """
    if not model.mechanisms:
        raise ModelError("the model has no mechanisms, so there is nothing to audit; add at least "
                         "one under \"mechanisms\"", "mechanisms")
    relations = ["entry"]
    if any(len(record) > 1 for record in model.universe.records):
        relations.append("record")
    if group is not None:
        relations.append(f"group:{group}")
    audits = []
    for name, mechanism in model.mechanisms.items():
        if progress:
            progress(name)
        puffer = pufferfish_level(model, mechanism, budget, max_datasets, max_outputs)
        dps = tuple(dp_level(model.universe, mechanism, r, None, max_datasets, max_outputs)
                    for r in relations)
        leak = leakage(model, mechanism, max_datasets, max_outputs)
        audits.append(MechanismAudit(name, puffer, dps, leak))
    composition, note = None, ""
    if len(model.mechanisms) >= 2:
        if progress:
            progress("joint release")
        try:
            composition = composition_audit(model, list(model.mechanisms.values()), budget,
                                            max_datasets, max_outputs)
        except TooLargeError as error:
            note = f"joint release not computed: {error.reason}"
    return ModelAudit(tuple(audits), composition, note, budget)
