"""Design a mechanism end to end: build, solve, make exact, bound, re-audit
(Bai et al., Composition for Pufferfish Privacy, §2.2 Definition 5; §5–6 for the DP-style
constraints that make a mechanism compose linearly).

:func:`design_mechanism` returns a :class:`DesignResult`: the exact table mechanism, its exact
expected loss, a certified lower bound on the optimum from the dual
(:mod:`pufferfish.verify.design.exact`), the gap, and the exact audit of the mechanism at the
budget by :func:`~pufferfish.verify.privacy.pufferfish.pufferfish_level` (and, with DP-style
constraints, :func:`~pufferfish.verify.privacy.dp.dp_level`).  :func:`designed_model` is the model
with the designed mechanism as its only mechanism, ready for ``audit``, ``composes`` and
``postprocess``.

With ``composable="nfc"`` the design is *design-then-certify*: no linear program expresses
"composes linearly" (the NfC value of Theorem 4 is the optimum of programs whose data are the
mechanism itself), so the Pufferfish-optimal mechanism is designed and then the NfC programs
certify, refute or leave undecided its linear composition
(:func:`~pufferfish.verify.nfc.report.composition_report`).

Cost: building the program (:mod:`~pufferfish.verify.design.problem`), one HiGHS solve, a few exact
passes over the constraints, and one exact audit.

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> result = design_mechanism(load_model(example_path("quickstart.json")), "sum", parse_budget("log(3)"))
>>> result.loss, result.lower_bound, result.optimal, result.holds
(Fraction(3, 16), Fraction(3, 16), True, True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import TableMechanism, jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import epsilon_float, epsilon_str, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.design.exact import DualBound, ExactDesign, dual_bound, exact_design
from pufferfish.verify.design.losses import Loss
from pufferfish.verify.design.lp import solve_float
from pufferfish.verify.design.problem import DesignProblem, build_problem
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.privacy.dp import DPResult, dp_level
from pufferfish.verify.privacy.pufferfish import PufferfishResult, pufferfish_level
from pufferfish.verify.report import Explained, table

COMPOSABLE_MODES = ("none", "dp-style", "nfc")
"""The values of ``composable`` (``design --composable``): no constraint beyond Pufferfish,
DP-style constraints, or design then certify with the NfC programs."""


@dataclass(frozen=True, repr=False)
class DesignResult(Explained):
    """The designed mechanism with its exact loss, certified lower bound and exact audit."""

    problem: DesignProblem
    budget: Budget
    dp_budget: Budget | None
    composable: str
    mechanism: TableMechanism
    design: ExactDesign
    bound: DualBound
    audit: PufferfishResult
    dp_audit: DPResult | None
    solver_value: float
    solve_seconds: float = field(default=0.0, compare=False)
    total_seconds: float = field(default=0.0, compare=False)
    composition: object = None

    @property
    def loss(self) -> Fraction:
        return self.design.loss

    @property
    def lower_bound(self) -> Fraction:
        return self.bound.value

    @property
    def gap(self) -> Fraction:
        return self.design.loss - self.bound.value

    @property
    def optimal(self) -> bool:
        """Proved optimal: the exact loss equals a certified lower bound (weak duality)."""
        return self.gap == 0

    @property
    def holds(self) -> bool:
        """The exact audit confirms the budget (and the DP-style budget when asked); with
        ``composable="nfc"`` the NfC programs must also certify linear composition."""
        ok = bool(self.audit.holds) and (self.dp_audit is None or bool(self.dp_audit.holds))
        if self.composition is not None:
            ok = ok and self.composition.verdict == "holds"
        return ok

    def rows(self) -> list[list]:
        """``[[dataset, [[output, probability], ...]], ...]`` with the zero entries left out."""
        return [[list(d), [[jsonable_output(o), fraction_str(p)]
                           for o, p in zip(self.problem.outputs, row) if p]]
                for d, row in zip(self.problem.datasets, self.design.rows)]

    def to_dict(self) -> dict:
        variables, constraints = self.problem.size
        data = {
            "check": "design", "query": self.problem.query, "loss_function": self.problem.loss.name,
            "data_prior": self.problem.data_prior,
            "outputs": [jsonable_output(o) for o in self.problem.outputs],
            "budget": self.budget.text, "ratio": fraction_str(self.problem.ratio),
            "ratio_note": self.problem.ratio_note, "composable": self.composable,
            "program": {"variables": variables, "constraints": constraints},
            "loss": fraction_str(self.loss), "loss_float": float(self.loss),
            "lower_bound": fraction_str(self.lower_bound),
            "lower_bound_float": float(self.lower_bound),
            "gap": fraction_str(self.gap), "gap_float": float(self.gap),
            "optimal": self.optimal, "dual_rounding": self.bound.rounding,
            "rounding": {"method": self.design.method,
                         "mixing_weight": fraction_str(self.design.mixing_weight)},
            "solver_value_float": self.solver_value,
            "audit": self.audit.to_dict(), "mechanism": self.mechanism.name,
            "table": self.rows(), "holds": self.holds}
        if self.dp_budget is not None:
            data["dp"] = {"budget": self.dp_budget.text, "neighbours": self.problem.neighbours,
                          "ratio": fraction_str(self.problem.ratio_dp),
                          "audit": self.dp_audit.to_dict() if self.dp_audit else None}
        if self.composition is not None:
            data["composition"] = self.composition.to_dict()
        return data

    def explain(self, source: str = "the model") -> str:
        variables, constraints = self.problem.size
        mode = {"none": "Pufferfish constraints only",
                "dp-style": f"Pufferfish and DP-style constraints ({self.problem.neighbours} "
                            f"neighbours, ε_DP = {self.dp_budget.text if self.dp_budget else ''})",
                "nfc": "Pufferfish constraints, then the NfC programs (design-then-certify)"}
        lines = [f"Design for {source}: query {self.problem.query}, loss "
                 f"{self.problem.loss.name} under prior {self.problem.data_prior}, ε = "
                 f"{self.budget.text} ({mode[self.composable]})",
                 f"  ratio: {self.problem.ratio_note}",
                 f"  program: {variables} variables, {constraints} constraints",
                 f"  expected loss   {_exact_text(self.loss)} (exact; {self._rounding_text()})",
                 f"  lower bound     {_exact_text(self.lower_bound)} (exact dual bound; "
                 f"multipliers: {self.bound.rounding})",
                 "  gap             0: proved optimal" if self.optimal else
                 f"  gap             {float(self.gap):.3g} (certified: the optimum lies in "
                 f"[lower bound, loss])",
                 f"  exact audit     Pufferfish level {_level_text(self.audit.level_ratio)}; "
                 f"budget {self.budget.text}: {_verdict(self.audit.holds)}"
                 f" ({self.audit.budget.relation})"]
        if self.dp_audit is not None:
            lines.append(f"  DP audit        {self.dp_audit.relation} DP level "
                         f"{_level_text(self.dp_audit.max_ratio)}; budget {self.dp_budget.text}: "
                         f"{_verdict(self.dp_audit.holds)}")
        if self.composition is not None:
            lines += ["", self.composition.explain()]
        lines += ["", f"Designed mechanism {self.mechanism.name!r} (P(ω|D)):", self._table()]
        lines.append(f"verdict: {'designed and verified' if self.holds else 'NOT verified'}")
        return "\n".join(lines)

    def _rounding_text(self) -> str:
        if self.design.method == "constant":
            return "the best constant mechanism"
        text = f"solver candidate rounded by {self.design.method}"
        if self.design.mixing_weight:
            text += (f", mixed with the uniform mechanism at weight "
                     f"{float(self.design.mixing_weight):.3g}")
        return text

    def _table(self, limit: int = 16) -> str:
        outputs = [str(jsonable_output(o)) for o in self.problem.outputs]
        rows = [[",".join(map(str, d))] + [_short(p) for p in row]
                for d, row in zip(self.problem.datasets[:limit], self.design.rows[:limit])]
        text = table(["D"] + outputs, rows)
        if len(self.problem.datasets) > limit:
            text += f"\n  ... {len(self.problem.datasets) - limit} more rows (--json gives all)"
        return text


def _exact_text(value: Fraction) -> str:
    text = fraction_str(value)
    if len(text) > 40:
        return f"≈ {float(value):.9g} [a {len(text)}-character fraction in --json]"
    return f"{text} ≈ {float(value):.6g}"


def _level_text(ratio) -> str:
    text = epsilon_str(ratio)
    if len(text) > 40:
        return f"≈ {epsilon_float(ratio):.9g} (exact in --json)"
    return f"{text} ≈ {epsilon_float(ratio):.6g}"


def _verdict(holds: bool | None) -> str:
    return {True: "holds", False: "VIOLATED", None: "-"}[holds]


def _short(p: Fraction) -> str:
    text = fraction_str(p)
    return text if len(text) <= 12 else f"≈{float(p):.6f}"


def design_mechanism(model: PufferfishModel, query: str, budget: Budget, *,
                     loss: str | Loss | None = None, outputs: Sequence | None = None,
                     data: str | None = None, composable: str = "none",
                     dp_budget: Budget | None = None, neighbours: str = "entry",
                     name: str = "designed", max_datasets: int = DEFAULT_MAX_DATASETS
                     ) -> DesignResult:
    """The mechanism of least expected loss at ``budget`` (module docstring); ``composable`` is
    ``none``, ``dp-style`` (DP-style constraints at ``dp_budget``, default ``budget``) or
    ``nfc`` (design, then certify linear composition with the NfC programs)."""
    if composable not in COMPOSABLE_MODES:
        raise ModelError(f"unknown composability mode {composable!r}; use one of "
                         f"{list(COMPOSABLE_MODES)}", "--composable")
    if dp_budget is not None and composable != "dp-style":
        raise ModelError("an ε_DP applies only with --composable dp-style", "--epsilon-dp")
    start = time.perf_counter()
    neighbours = neighbours.replace("-", ":")
    if composable == "dp-style":
        dp_budget = dp_budget or budget
    problem = build_problem(model, query, budget, loss=loss, outputs=outputs, data=data,
                            dp_budget=dp_budget, neighbour_relation=neighbours,
                            max_datasets=max_datasets)
    solution = solve_float(problem)
    design = exact_design(problem, solution)
    bound = dual_bound(problem, solution.duals, design.rows, design.loss)
    mechanism = TableMechanism(name, {
        d: Distribution._trusted({o: p for o, p in zip(problem.outputs, row) if p})
        for d, row in zip(problem.datasets, design.rows)})
    audited = designed_model(model, mechanism)
    audit = pufferfish_level(audited, mechanism, budget, max_datasets)
    dp_audit = (dp_level(model.universe, mechanism, neighbours, dp_budget,
                         max_datasets) if dp_budget is not None else None)
    composition = None
    if composable == "nfc":
        from pufferfish.verify.nfc.report import composition_report
        composition = composition_report(audited, [mechanism], budget, max_datasets=max_datasets)
    return DesignResult(problem, budget, dp_budget, composable, mechanism, design, bound, audit,
                        dp_audit, solution.value, solution.seconds,
                        time.perf_counter() - start, composition)


def designed_model(model: PufferfishModel, mechanism: TableMechanism) -> PufferfishModel:
    """``model`` with ``mechanism`` as its only mechanism (same universe, priors, secrets, pairs)."""
    return PufferfishModel(model.universe, dict(model.priors), dict(model.secrets),
                           list(model.pairs), {mechanism.name: mechanism}, model.description)


__all__ = ["DesignResult", "design_mechanism", "designed_model", "COMPOSABLE_MODES"]
