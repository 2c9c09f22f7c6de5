"""The multi-user calibration report of one model file (Ding et al., Multi-user Pufferfish Privacy,
§4): the result of :func:`pufferfish.verify.multiuser.calibration.calibrate` with the model's source
name, refused when the pair set leaves no pair to check (nothing would be verified).

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.multiuser_file import load_multiuser_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> model = load_multiuser_model(example_path("multiuser_bernoulli.json"))
>>> report = multiuser_report(model, "PQ", parse_budget("1"), minimal=False, source="m.json")
>>> report.holds, report.to_dict()["model"]
(True, 'm.json')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.report import Explained, table


@dataclass(repr=False, frozen=True)
class MultiuserReport(Explained):
    """A calibration result with the model's ``source`` name."""

    source: str
    result: object      # pufferfish.verify.multiuser.calibration.CalibrationResult

    @property
    def holds(self) -> bool | None:
        return self.result.holds

    def to_dict(self) -> dict:
        return {"model": self.source, **self.result.to_dict()}

    def explain(self) -> str:
        return _text(self.source, self.result)


def multiuser_report(model, pair_set: str, budget: Budget, *, minimal: bool = True,
                     progress: Callable[[str], None] | None = None,
                     source: str = "") -> MultiuserReport:
    """Calibrate every applicable calibrator for ``pair_set`` at ``budget``
    (:func:`~pufferfish.verify.multiuser.calibration.calibrate`); a pair set without any
    non-vacuous pair is refused (``ModelError`` at ``--pairs``)."""
    from pufferfish.verify.multiuser.calibration import calibrate

    result = calibrate(model, pair_set, budget, minimal=minimal, progress=progress)
    if not result.pairs:
        raise ModelError(f"the pair set {pair_set} gives no pair to check on this model "
                         f"({len(result.vacuous)} vacuous): nothing was verified", "--pairs")
    return MultiuserReport(source, result)


def _text(source: str, result) -> str:
    eps = result.epsilon
    lines = [f"model {source}: pair set {result.pair_set}, ε = {fraction_str(eps)}, other "
             f"users' absence read as {result.others!r}",
             f"{len(result.pairs)} pair(s) checked in both directions"
             + (f"; {len(result.vacuous)} vacuous (a secret of prior probability 0): "
                + ", ".join(p.label for p in result.vacuous) if result.vacuous else "")]
    rows = []
    for c in result.calibrations:
        if not c.applicable:
            rows.append([c.name, "-", "-", f"n/a: {c.reason}"])
            continue
        theta = c.theta
        if theta.coefficient is not None:
            text = f"{fraction_str(theta.coefficient)}/ε = {fraction_str(theta.lower)}"
        else:
            text = f"[{float(theta.lower):.10g}, {float(theta.upper):.10g}]"
        level = c.check.level
        verdict = {"below": "holds", "tight": "holds (tight)", "above": "VIOLATED",
                   "undecided": "UNDECIDED"}[c.check.relation]
        rows.append([c.name, text, f"[{level.epsilon_lower:.6f}, {level.epsilon_upper:.6f}]",
                     verdict])
    lines += ["", table(["calibrator", "θ", "actual level ε", f"vs ε = {fraction_str(eps)}"], rows)]
    if result.minimal is not None:
        m = result.minimal
        lines.append("")
        lines.append(f"minimal θ ∈ ({float(m.lower):.10g}, {float(m.upper):.10g}]  "
                     f"(θ·ε ∈ ({float(m.lower * eps):.8g}, {float(m.upper * eps):.8g}]; "
                     f"{m.steps} certified level evaluations)")
        for c in result.calibrations:
            if c.applicable and m.upper > 0:
                lines.append(f"  {c.name}: θ / θ_min ≈ {float(c.theta.upper / m.upper):.4f}")
    for label, rel in result.relaxed.items():
        lines.append(f"relaxed condition (20) at Lemma 2's θ for {label}: forward "
                     f"{rel['forward']['holds']}, backward {rel['backward']['holds']}")
    return "\n".join(lines)


__all__ = ["MultiuserReport", "multiuser_report"]
