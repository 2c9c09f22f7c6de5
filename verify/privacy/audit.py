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

from collections.abc import Callable
from dataclasses import dataclass

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.model import PufferfishModel
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.privacy.composition import CompositionResult, composition_audit
from pufferfish.verify.privacy.dp import DPResult, dp_level
from pufferfish.verify.privacy.leakage import LeakageResult, leakage
from pufferfish.verify.privacy.pufferfish import PufferfishResult, pufferfish_level


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


@dataclass(frozen=True)
class ModelAudit:
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
