"""The full answer to "can these mechanisms compose linearly at ε?" (Bai et al., Composition for
Pufferfish Privacy, §5.1, Theorem 4): the NfC programs and their certified value, the constructive
attack when the value exceeds ε, the premise of the theorem (each mechanism's single-run Pufferfish
level against ε) and, on request, the exact levels of repeated runs.

Theorem 4 assumes every mechanism is ε-Pufferfish on its own; :func:`composition_report` checks
that premise exactly (:func:`pufferfish.verify.privacy.pufferfish.pufferfish_level` compared with
:func:`pufferfish.verify.numerics.certified.compare_ratio`) and notes every mechanism for which it
already fails, so a "violated" verdict is never misread as a composition effect when one run alone
exceeds the budget.

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> model = load_model(example_path("hidden_coin.json"))
>>> report = composition_report(model, list(model.mechanisms.values()), parse_budget("1"))
>>> report.verdict, [p.within_budget for p in report.premise]
('holds', [True])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.nfc.attack import (DEFAULT_MAX_RUNS, CompositionAttack, RepeatedRunLevels,
                                          composition_attack, repeated_run_levels)
from pufferfish.verify.nfc.programs import DEFAULT_MAX_COEFFICIENTS, NfcResult, nfc_programs
from pufferfish.verify.numerics.certified import Budget, compare_ratio
from pufferfish.verify.report import Explained, table


@dataclass(frozen=True)
class PremiseLevel:
    """One mechanism's exact single-run Pufferfish level and whether it is within ε (the premise
    of Theorem 4 for that mechanism)."""

    mechanism: str
    epsilon: str          # the exact level, as text (``log(r)``, ``0`` or ``inf``)
    within_budget: bool

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "epsilon": self.epsilon,
                "within_budget": self.within_budget}

    def note(self) -> str | None:
        """The premise failure, or ``None`` when the mechanism is within ε."""
        if self.within_budget:
            return None
        return (f"{self.mechanism} is not ε-Pufferfish at this budget (single-run level "
                f"{self.epsilon}): the premise of Theorem 4 already fails for one run")


@dataclass(repr=False, frozen=True)
class CompositionReport(Explained):
    """The NfC result (with its attack when violated), the premise levels and the repeated-run
    levels of one composition question."""

    result: NfcResult
    premise: tuple[PremiseLevel, ...]
    repeated_runs: tuple[RepeatedRunLevels, ...] = ()

    @property
    def verdict(self) -> str | None:
        """``"holds"``, ``"violated"`` or ``"undecided"`` (the NfC verdict at the budget)."""
        return self.result.verdict

    @property
    def attack(self) -> CompositionAttack | None:
        return self.result.attack

    @property
    def premise_notes(self) -> list[str]:
        return [n for n in (p.note() for p in self.premise) if n is not None]

    def to_dict(self) -> dict:
        data = self.result.to_dict()
        data["pufferfish_levels"] = [p.to_dict() for p in self.premise]
        data["notes"] = data["notes"] + self.premise_notes
        if self.repeated_runs:
            data["repeated_runs"] = [levels.to_dict() for levels in self.repeated_runs]
        return data

    def explain(self) -> str:
        text = self.result.explain()
        notes = self.premise_notes
        if notes:
            text += "\n" + "\n".join(f"  note: {n}" for n in notes)
        if self.repeated_runs:
            rows = [[levels.mechanism, k, f"{e:.6g}", f"{e / k:.6g}"]
                    for levels in self.repeated_runs
                    for k, e in enumerate((r * k for k, r in enumerate(levels.per_run(), start=1)),
                                          start=1)]
            text += "\n\nExact levels of r runs (ε_r / r tends to the largest program value):\n"
            text += table(["mechanism", "r", "ε_r", "ε_r / r"], rows)
        result = self.result
        if result.verdict == "undecided":
            text += (f"\n  the certified interval [{result.lower!r}, {result.upper!r}] contains ε; "
                     f"its width {result.upper - result.lower:.3g} comes from the solver tolerance "
                     f"and double-precision certificates: the budget is within that distance of "
                     f"the value")
        return text

    def _repr_html_(self) -> str:
        from pufferfish.verify.html_views import composition_report_html

        return composition_report_html(self)


def premise_levels(model: PufferfishModel, mechanisms: Sequence[Mechanism], budget: Budget,
                   max_datasets: int = DEFAULT_MAX_DATASETS,
                   max_outputs: int = DEFAULT_MAX_OUTPUTS) -> tuple[PremiseLevel, ...]:
    """Each mechanism's exact single-run Pufferfish level against ``budget``; a mechanism whose
    level the exact check does not support (an unsupported prior kind) is left out."""
    from pufferfish.verify.privacy.pufferfish import pufferfish_level

    levels = []
    for mechanism in mechanisms:
        try:
            level = pufferfish_level(model, mechanism, None, max_datasets, max_outputs)
        except UnsupportedError:
            continue
        levels.append(PremiseLevel(mechanism.name, level.epsilon,
                                   compare_ratio(level.level_ratio, budget).holds))
    return tuple(levels)


def composition_report(model: PufferfishModel, mechanisms: Sequence[Mechanism], budget: Budget,
                       *, runs: int = 0, max_runs: int = DEFAULT_MAX_RUNS,
                       max_datasets: int = DEFAULT_MAX_DATASETS,
                       max_outputs: int = DEFAULT_MAX_OUTPUTS,
                       max_coefficients: int = DEFAULT_MAX_COEFFICIENTS) -> CompositionReport:
    """Solve every NfC program of ``mechanisms`` at ``budget``
    (:func:`~pufferfish.verify.nfc.programs.nfc_programs`); when the certified value exceeds ε,
    search the constructive attack up to ``max_runs`` releases
    (:func:`~pufferfish.verify.nfc.attack.composition_attack`); check the premise of Theorem 4
    (:func:`premise_levels`); with ``runs >= 1`` also compute the exact levels of ``1..runs``
    runs of each mechanism (:func:`~pufferfish.verify.nfc.attack.repeated_run_levels`).

    Cost: that of the programs, plus the attack's ``max_runs`` exact ratio evaluations, one exact
    level per mechanism, and the repeated-run multiset enumeration.
    """
    if not mechanisms:
        raise ModelError("the model has no mechanisms: nothing was checked", "mechanisms")
    result = nfc_programs(model, mechanisms, budget, max_datasets, max_outputs, max_coefficients)
    if result.verdict == "violated" and result.witness is not None:
        attack = composition_attack(model, mechanisms, result.witness, budget, max_runs,
                                    max_datasets)
        result = replace(result, attack=attack)
    premise = premise_levels(model, mechanisms, budget, max_datasets, max_outputs)
    repeated = tuple(repeated_run_levels(model, m, runs, max_datasets, max_outputs)
                     for m in mechanisms) if runs else ()
    return CompositionReport(result, premise, repeated)


__all__ = ["PremiseLevel", "CompositionReport", "premise_levels", "composition_report"]
