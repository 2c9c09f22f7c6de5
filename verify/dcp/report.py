"""The full DCP report of a model file (Zhang et al., Differential Confounding Privacy and Inverse
Composition): each mechanism's exact level, the composition table (true joint, product of effective
mechanisms, basic and optimal DP bounds), the dependence term ``L^G`` (eq. 11) and, with both ε and
δ, the ``(ε, δ)``-DCP verdict of the composition (:mod:`pufferfish.verify.dcp.levels`,
:mod:`pufferfish.verify.dcp.composition`).

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.dcp_file import load_dcp_model
>>> report = dcp_report(load_dcp_model(example_path("dcp_two_secrets.json")), source="m.json")
>>> report.to_dict()["check"], report.check is None
('dcp', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.numbers import INFINITY, epsilon_float, epsilon_str, fraction_str
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.report import Explained, table


def epsilon_text(ratio) -> str:
    """``log(r) (≈ x)`` or ``inf``."""
    return "inf" if ratio == INFINITY else f"{epsilon_str(ratio)} (≈ {epsilon_float(ratio):.6g})"


def _interval(lower, upper) -> str:
    return f"[{float(lower):.6g}, {float(upper):.6g}]"


@dataclass(repr=False, frozen=True)
class DcpReport(Explained):
    """Levels (``(least ε at δ, δ(ε) or None)`` per mechanism), composition audit and verdict of
    one DCP model; ``source`` names the model (its file) in both outputs."""

    source: str
    model: object                 # pufferfish.models.dcp.DCPModel
    names: tuple[str, ...]
    levels: tuple[tuple, ...]
    audit: object                 # pufferfish.verify.dcp.composition.CompositionAudit
    check: object | None          # pufferfish.verify.dcp.levels DCP check, with ε and δ
    budget: Budget | None
    delta: Fraction
    individual_delta: Fraction

    @property
    def holds(self) -> bool | None:
        """The ``(ε, δ)``-DCP verdict of the composition, ``None`` when not checked."""
        return None if self.check is None else self.check.holds

    def to_dict(self) -> dict:
        return {"check": "dcp", "model": self.source,
                "mechanisms": [{"least_epsilon": lv.to_dict(),
                                "delta_at_epsilon": at.to_dict() if at else None}
                               for lv, at in self.levels],
                "composition": self.audit.to_dict(),
                "verdict": self.check.to_dict() if self.check else None}

    def explain(self) -> str:
        model, audit, budget, delta = self.model, self.audit, self.budget, self.delta
        lines = [f"DCP model {self.source}: {len(model.secrets)} secrets, {len(model.datasets)} "
                 f"datasets, {len(model.pairs)} adjacent pair(s); {audit.reduction.reason}", ""]
        rows = []
        for lv, at in self.levels:
            witness = f"{lv.witness.pair[0]} vs {lv.witness.pair[1]}" if lv.witness else "-"
            row = [lv.mechanism, epsilon_text(lv.ratio), witness]
            if at is not None:
                row.append(fraction_str(at.value) if at.value is not None else
                           _interval(at.lower, at.upper))
            rows.append(row)
        headers = ["mechanism", f"least eps (delta={fraction_str(delta)})", "worst pair"]
        lines.append(table(headers + ([f"delta({budget.text})"] if budget else []), rows))
        lines.append("")
        lines.append(f"composition of {', '.join(self.names)} (individual delta_i = "
                     f"{fraction_str(self.individual_delta)}):")
        table_rows = []
        for r in audit.rows:
            d = "" if r.delta_lower is None else (
                fraction_str(r.delta_exact) if r.delta_exact is not None
                else _interval(r.delta_lower, r.delta_upper))
            cells = [r.method, "" if r.ratio is None else epsilon_text(r.ratio)]
            table_rows.append(cells + ([d] if budget else []) + [r.note])
        lines.append(table(["method", f"least eps (delta={fraction_str(delta)})"] +
                           ([f"delta({budget.text})"] if budget else []) + ["note"], table_rows))
        nonzero = [d for d in audit.dependence if d.nonzero]
        lines.append("")
        lines.append(f"dependence term L^G (eq. 11): nonzero on {len(nonzero)} of "
                     f"{len(audit.dependence)} ordered pairs" + (
                         "; " + ", ".join(f"{d.pair[0]}->{d.pair[1]}: Pr[L^G != 0] = "
                                          f"{fraction_str(d.nonzero_mass)}" for d in nonzero[:4])
                         if nonzero else ""))
        for message in audit.notes:
            lines.append(f"note: {message}")
        if self.check is not None:
            lines.append("")
            lines.append(self.check.explain())
        return "\n".join(lines)


def dcp_report(model, names: Sequence[str] | None = None, *, delta: Fraction | None = None,
               budget: Budget | None = None, individual_delta: Fraction = Fraction(0),
               source: str = "") -> DcpReport:
    """Each mechanism of ``names`` (default: all): its least ε at ``delta`` (default 0) and, with
    ``budget``, ``δ(ε)``; the composition audit with ``individual_delta`` for every mechanism;
    with both ``budget`` and ``delta`` given, the exact ``(ε, δ)``-DCP check of the true joint
    mechanism of the composition.

    Cost: one exact level per mechanism and direction, plus the composition audit's true joint
    (the product of the mechanisms' output sets).
    """
    from pufferfish.verify.dcp.composition import composition_audit, true_joint
    from pufferfish.verify.dcp.levels import dcp_check, dcp_delta, dcp_level, effective_mechanism

    names = tuple(names or model.mechanisms)
    level_delta = Fraction(0) if delta is None else delta
    directions = model.directions()
    levels = []
    for name in names:
        rows = effective_mechanism(model, model.mechanism(name))
        level = dcp_level(rows, directions, level_delta, name)
        at = dcp_delta(rows, directions, budget, name) if budget else None
        levels.append((level, at))
    audit = composition_audit(model, list(names), level_delta, budget,
                              [individual_delta] * len(names))
    check = None
    if budget is not None and delta is not None:
        check = dcp_check(true_joint(model, [model.mechanism(n) for n in names]), directions,
                          budget, delta, "+".join(names))
    return DcpReport(source, model, names, tuple(levels), audit, check, budget, level_delta,
                     individual_delta)


@dataclass(frozen=True, repr=False)
class DcpDesignReport(Explained):
    """The two inverse-composition designs of Zhang et al., Differential Confounding Privacy and
    Inverse Composition, §IV for one model and target: Task 2's closed form and Task 1's added
    mechanism, each re-audited exactly."""

    source: str
    task2: object   # pufferfish.verify.dcp.inverse.Task2Result
    task1: object   # pufferfish.verify.dcp.inverse.Task1Result

    @property
    def holds(self) -> bool:
        """Whether a Task-1 design passed the exact audit at the target."""
        return bool(self.task1.holds)

    def to_dict(self) -> dict:
        return {"check": "dcp_design", "model": self.source, "task2": self.task2.to_dict(),
                "task1": self.task1.to_dict()}

    def explain(self) -> str:
        return "\n".join([self.task2.explain(), self.task1.explain(),
                          "(verdicts come from the exact DCP audit of each design; optimiser "
                          "values are numerical and never decide)"])


def dcp_design_report(model, names: Sequence[str] | None, budget: Budget, delta: Fraction, *,
                      outputs: int = 2, iterations: int = 8, source: str = "") -> DcpDesignReport:
    """Task 2 (:func:`~pufferfish.verify.dcp.inverse.task2`) and Task 1
    (:func:`~pufferfish.verify.dcp.inverse.task1`) for the target ``(budget, delta)``: what
    ``pufferfish dcp-design`` prints."""
    from pufferfish.verify.dcp.inverse import task1, task2

    second = task2(model, names, delta)
    first = task1(model, names, budget, delta, outputs=outputs, iterations=iterations)
    return DcpDesignReport(source, second, first)


__all__ = ["epsilon_text", "DcpReport", "dcp_report", "DcpDesignReport", "dcp_design_report"]
