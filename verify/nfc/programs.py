"""Necessary conditions for linear composition: the NfC linear programs and their duals, certified
(Bai et al., Composition for Pufferfish Privacy, §5.1, Theorem 4, and its proof in Appendix C).

Theorem 4: if mechanisms ``M_1..M_m`` with finite ranges satisfy ε-Pufferfish and compose linearly,
then for every ordered pair ``(s1, s2)`` and dataset ``D*`` with ``s1`` true there is a convex
combination β over datasets ``D_ℓ`` with ``s2`` true such that, for every mechanism and output ω,

    log P(ω|D*) <= ε + Σ_ℓ β_ℓ log P(ω|D_ℓ)                                           (Equation 1)

The proof (Appendix C) lets the curator run the mechanisms ``r`` times with output frequencies α
and lets ``r → ∞`` (a weighted L_p norm tends to the max over the datasets of *positive* prior
weight), which yields, for each prior θ, each ordered pair and each ``D* ∈ supp θ(·|s1)``, the
primal program over the outputs ω_i (of all mechanisms, ranges made disjoint by tagging each output
with its mechanism's name)::

    max ε0   s.t.  α ∈ simplex,  Σ_i α_i log(P(ω_i|D*) / P(ω_i|D_ℓ)) >= ε0   for D_ℓ ∈ supp θ(·|s2)

and its dual ``min x s.t. β ∈ simplex, x >= log P(ω_i|D*) − Σ_ℓ β_ℓ log P(ω_i|D_ℓ) for all i``.
Composition at ε is possible only if every program's value is <= ε; the largest value is the
*NfC value* of the mechanisms — the least ε at which Theorem 4's necessary condition can hold.

Zeros (each case is tested):

* an output impossible under ``D*`` leaves the program (α on it would give ``−∞`` against every
  ``D_ℓ`` that can produce it, and Equation 1 holds trivially for it since ``log 0 = −∞``);
* an output possible under ``D*`` but impossible under ``D_ℓ`` makes ``D_ℓ``'s primal constraint
  ``+∞`` for any α with a little mass on it, so ``D_ℓ`` is *excluded* (the value is the supremum of
  the program without it, approached by moving a vanishing mass onto that output), and it forces
  ``β_ℓ = 0`` in the dual (``β_ℓ log 0`` would be ``−∞``);
* when every ``D_ℓ`` is excluded the value is ``+∞``: the outputs together can rule ``s2`` out.

Priors with the same supports give the same programs: each distinct ``(D*, supp θ(·|s2))`` is
solved once and lists every (pair, prior) it stands for.

Certification (DESIGN.md, exactness policy): CVXPY (HiGHS) finds candidate α and β; they are
rounded to exact dyadic rationals on the simplex, and the bounds they give — ``min_ℓ Σ α_i d_{ℓi}``
from below (any feasible α) and ``max_i Σ_ℓ β_ℓ d_{ℓi}`` from above (any feasible β, weak duality)
— are evaluated rigorously from certified log enclosures (:mod:`pufferfish.verify.numerics.log_table`).  The solver's
own numbers are reported only as diagnostics (strong duality; agreement of CVXPY's constraint duals
with the dual program's β); a solver failure is reported per program and the certified bounds then
come from the uniform α and β, which are always feasible — valid but loose.

Cost: building the log table is one mpmath evaluation per distinct probability; each program is one
LP with ``|Ω*|`` variables and ``|Ξ2|`` constraints (parameterised CVXPY problems are compiled once
per shape) plus ``O(|Ω*|·|Ξ2|)`` numpy work for the certificates.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import cvxpy as cp
import numpy as np

from pufferfish.models.errors import ModelError, TooLargeError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import IntervalFamily
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.levels import LogValue
from pufferfish.verify.numerics.log_table import (LogTable, dot_lower, dot_upper, dyadic_simplex,
                                                  lower_difference, upper_difference)
from pufferfish.verify.numerics.solvers import solve_quietly
from pufferfish.verify.privacy.supports import audited_datasets, prior_supports
from pufferfish.verify.report import Explained

DEFAULT_MAX_COEFFICIENTS = 10**6
"""The most LP coefficients ``log P(ω|D)`` the programs may hold (refused above)."""
SOLVER_TOLERANCE = 1e-6
"""Relative gap between the solver's primal and dual values accepted as agreement; the value
itself is certified afterwards, never taken from the solver."""
DEFAULT_MAX_SUPPORTS = 10**4
"""The most minimal supports of ``θ(·|s2)`` enumerated over an interval family (refused above)."""
INFINITE_STATUS = "not solved: every dataset of the second secret is ruled out (value +inf)"
"""The solver status of a program whose value is +inf without solving it."""

OutputKey = tuple
"""An output of the joint release, keyed as ``(mechanism name, output)``."""


@dataclass(frozen=True)
class SolverReport:
    """What the LP solver said (diagnostics only; never a verdict)."""

    status: str
    primal_value: float | None = None
    dual_value: float | None = None
    constraint_dual_value: float | None = None
    beta_difference: float | None = None
    solve_seconds: float = 0.0          # the solver's own time (primal + dual), for benchmarks

    @property
    def strong_duality(self) -> bool | None:
        """Primal and dual optimal values agree within the solver tolerance."""
        if self.primal_value is None or self.dual_value is None:
            return None
        return abs(self.primal_value - self.dual_value) <= SOLVER_TOLERANCE * max(
            1.0, abs(self.primal_value))

    @property
    def duals_agree(self) -> bool | None:
        """CVXPY's constraint duals of the primal are an optimal β of the dual program too."""
        if self.constraint_dual_value is None or self.dual_value is None:
            return None
        return abs(self.constraint_dual_value - self.dual_value) <= SOLVER_TOLERANCE * max(
            1.0, abs(self.dual_value))

    def to_dict(self) -> dict:
        return {"status": self.status, "primal_value": self.primal_value,
                "dual_value": self.dual_value, "strong_duality": self.strong_duality,
                "constraint_dual_value": self.constraint_dual_value,
                "constraint_duals_agree": self.duals_agree,
                "max_beta_difference": self.beta_difference}


@dataclass(frozen=True)
class NfcProgram:
    """One NfC program (one ordered pair, one ``D*``, one support of ``θ(·|s2)``), certified."""

    first: str
    second: str
    occurrences: tuple[tuple[str, str], ...]      # (pair label, prior name)
    d_star: Dataset
    outputs: int                                  # |Ω*|: outputs possible under D*
    datasets: int                                 # |supp θ(·|s2)|
    excluded: tuple[Dataset, ...]                 # D_ℓ ruled out by an output possible under D*
    lower: float                                  # certified: value >= lower
    upper: float                                  # certified: value <= upper
    alpha: tuple[tuple[OutputKey, Fraction], ...]  # exact, on the simplex (nonzero entries)
    beta: tuple[tuple[Dataset, Fraction], ...]    # exact, on the simplex (nonzero entries)
    solver: SolverReport
    killers: tuple[OutputKey, ...] = ()           # for an infinite program: outputs ruling s2 out
    support: tuple[Dataset, ...] = ()             # supp θ(·|s2), in the order of the program key

    @property
    def infinite(self) -> bool:
        return self.lower == math.inf

    @property
    def one_hot(self) -> bool:
        """β has a single nonzero entry: Equation 1 is then a DP-style constraint."""
        return len(self.beta) == 1

    @property
    def gap(self) -> float:
        return 0.0 if self.infinite else self.upper - self.lower

    def to_dict(self) -> dict:
        return {
            "direction": [self.first, self.second],
            "pairs_and_priors": [{"pair": p, "prior": q} for p, q in self.occurrences],
            "d_star": list(self.d_star), "outputs": self.outputs, "datasets": self.datasets,
            "excluded": [list(d) for d in self.excluded],
            "lower": _float_text(self.lower), "upper": _float_text(self.upper),
            "lower_float": self.lower, "upper_float": self.upper, "gap": self.gap,
            "alpha": [{"mechanism": o[0], "output": jsonable_output(o[1]), "weight": str(w),
                       "weight_float": float(w)} for o, w in self.alpha],
            "beta": [{"dataset": list(d), "weight": str(w), "weight_float": float(w)}
                     for d, w in self.beta],
            "beta_one_hot": self.one_hot,
            "killers": [{"mechanism": o[0], "output": jsonable_output(o[1])} for o in self.killers],
            "solver": self.solver.to_dict()}

    def describe_constraint(self) -> str:
        """Equation 1 with this program's β, in words."""
        terms = " + ".join(f"{float(w):.4g}·log P(ω|{list(d)})" for d, w in self.beta)
        return f"log P(ω|{list(self.d_star)}) <= ε + {terms or '(none: s2 ruled out)'}"


@dataclass(repr=False, frozen=True)
class NfcResult(Explained):
    """Every NfC program of a set of mechanisms, the certified NfC value and the budget verdict."""

    mechanisms: tuple[str, ...]
    programs: tuple[NfcProgram, ...]
    lower: float
    upper: float
    witness: NfcProgram | None
    budget: Budget | None = None
    verdict: str | None = None          # "holds" | "violated" | "undecided" (with a budget)
    skipped: tuple[tuple[str, str, str], ...] = ()
    attack: object = None               # pufferfish.verify.nfc.attack.CompositionAttack when violated
    notes: tuple[str, ...] = field(default=())

    @property
    def failures(self) -> list[NfcProgram]:
        """Programs whose LP the solver did not solve (their bounds come from uniform α, β)."""
        return [p for p in self.programs if p.solver.status not in ("optimal", INFINITE_STATUS)]

    @property
    def holds(self) -> bool | None:
        if self.verdict is None:
            return None
        return {"holds": True, "violated": False}.get(self.verdict)

    def to_dict(self) -> dict:
        data = {"check": "nfc", "mechanisms": list(self.mechanisms),
                "nfc_value": {"lower": _float_text(self.lower), "upper": _float_text(self.upper),
                              "lower_float": self.lower, "upper_float": self.upper},
                "programs_solved": len(self.programs),
                "one_hot_everywhere": all(p.one_hot for p in self.programs if not p.infinite),
                "solver_failures": [p.to_dict() for p in self.failures],
                "witness": self.witness.to_dict() if self.witness else None,
                "programs": [p.to_dict() for p in self.programs],
                "skipped": [{"direction": a, "prior": b, "reason": c} for a, b, c in self.skipped],
                "notes": list(self.notes)}
        if self.budget is not None:
            data.update({"budget": self.budget.text, "verdict": self.verdict,
                         "holds": self.holds})
        if self.attack is not None:
            data["attack"] = self.attack.to_dict()
        return data

    def explain(self) -> str:
        lines = [f"NfC value of {', '.join(self.mechanisms)}: in [{_float_text(self.lower)}, "
                 f"{_float_text(self.upper)}] (certified; {len(self.programs)} programs)"]
        if self.witness is not None:
            w = self.witness
            kind = "DP-style (one-hot β)" if w.one_hot else f"mixes {len(w.beta)} datasets"
            lines.append(f"  worst program: {w.first} -> {w.second}, D* = {list(w.d_star)} under "
                         f"{', '.join(sorted({q for _, q in w.occurrences}))}: "
                         f"{'infinite — the outputs can rule ' + w.second + ' out' if w.infinite else kind}")
            if not w.infinite:
                lines.append(f"  constraint (Equation 1): {w.describe_constraint()}")
        failures = self.failures
        if failures:
            lines.append(f"  solver failures: {len(failures)} programs (bounds from uniform α, β)")
        if self.verdict is not None:
            text = {"holds": "the necessary condition holds (certified upper bound <= ε)",
                    "violated": "linear composition at this ε is impossible (certified lower "
                                "bound > ε)",
                    "undecided": "undecided: the certified interval contains ε"}[self.verdict]
            lines.append(f"  budget ε = {self.budget.text}: {text}")
        if self.attack is not None:
            lines.append("  " + self.attack.explain())
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


class _ProgramSolver:
    """Parameterised CVXPY primal and dual problems, compiled once per shape (n datasets, k outputs)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[int, int], tuple] = {}

    def _problems(self, n: int, k: int) -> tuple:
        if (n, k) not in self._cache:
            coefficients = cp.Parameter((n, k))
            alpha, eps0 = cp.Variable(k, nonneg=True), cp.Variable()
            ranking = coefficients @ alpha >= eps0
            primal = cp.Problem(cp.Maximize(eps0), [cp.sum(alpha) == 1, ranking])
            beta, x = cp.Variable(n, nonneg=True), cp.Variable()
            dual = cp.Problem(cp.Minimize(x), [cp.sum(beta) == 1, coefficients.T @ beta <= x])
            self._cache[(n, k)] = (coefficients, alpha, ranking, primal, beta, dual)
        return self._cache[(n, k)]

    def solve(self, matrix: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None,
                                                  np.ndarray | None, SolverReport]:
        n, k = matrix.shape
        coefficients, alpha, ranking, primal, beta, dual = self._problems(n, k)
        coefficients.value = matrix
        try:
            solve_quietly(primal, _solver())
            solve_quietly(dual, _solver())
        except cp.error.SolverError as error:
            return None, None, None, SolverReport(f"solver error: {error}")
        if primal.status != cp.OPTIMAL or dual.status != cp.OPTIMAL:
            return None, None, None, SolverReport(f"primal {primal.status}, dual {dual.status}")
        constraint_beta = np.clip(np.asarray(ranking.dual_value, dtype=float).reshape(n), 0, None)
        total = constraint_beta.sum()
        constraint_value = None
        difference = None
        if total > 0:
            constraint_beta = constraint_beta / total
            constraint_value = float(np.max(matrix.T @ constraint_beta))
            difference = float(np.max(np.abs(constraint_beta - beta.value)))
        seconds = sum((p.solver_stats.solve_time or 0.0) for p in (primal, dual))
        report = SolverReport("optimal", float(primal.value), float(dual.value), constraint_value,
                              difference, seconds)
        return np.asarray(alpha.value), np.asarray(beta.value), constraint_beta, report


@functools.cache
def _solver() -> str:
    """HiGHS when installed (asked once: ``cp.installed_solvers()`` tries to import every solver
    package, which cost more than solving a small program)."""
    return "HIGHS" if "HIGHS" in cp.installed_solvers() else "CLARABEL"


@dataclass
class _Tables:
    """The mechanisms' joint table: datasets × tagged outputs, exact and as log enclosures."""

    datasets: list[Dataset]
    index: dict
    outputs: list[OutputKey]
    probabilities: list[list[Fraction]]
    logs: LogTable


def _tables(model: PufferfishModel, mechanisms: Sequence[Mechanism], max_datasets: int,
            max_outputs: int) -> _Tables:
    datasets = audited_datasets(model, max_datasets)
    outputs: list[OutputKey] = []
    columns: list[list[Fraction]] = [[] for _ in datasets]
    for mechanism in mechanisms:
        table = KernelTable.build(mechanism, datasets, max_outputs)
        if table.transcendental:
            raise UnsupportedError(
                f"mechanism {mechanism.name!r} has probabilities in Q(e^(1/n)) (Laplace-type "
                f"noise); the composition programs are solved over rational probabilities: use "
                f"geometric noise with a rational alpha, or audit the joint release exactly",
                f"mechanisms.{mechanism.name}")
        outputs.extend((mechanism.name, o) for o in table.outputs)
        for d, row in enumerate(table.rows):
            columns[d].extend(Fraction(v, table.denominator) for v in row)
    return _Tables(datasets, {d: i for i, d in enumerate(datasets)}, outputs, columns,
                   LogTable.build(columns))


def nfc_programs(model: PufferfishModel, mechanisms: Sequence[Mechanism],
                 budget: Budget | None = None, max_datasets: int = DEFAULT_MAX_DATASETS,
                 max_outputs: int = DEFAULT_MAX_OUTPUTS,
                 max_coefficients: int = DEFAULT_MAX_COEFFICIENTS,
                 progress: Callable[[str], None] | None = None,
                 max_supports: int = DEFAULT_MAX_SUPPORTS) -> NfcResult:
    """Build, solve and certify every NfC program of ``mechanisms`` under ``model``.

    Finite priors contribute one program per ``D* ∈ supp θ(·|s1)``; an interval family
    contributes one per ``D*`` that some member can put mass on and per minimal support of the
    second secret's conditional (:func:`minimal_supports`), which covers its infinitely many
    members exactly.
    """
    if not mechanisms:
        raise ModelError("name at least one mechanism", "--mechanism")
    tables = _tables(model, mechanisms, max_datasets, max_outputs)
    keys, skipped = _program_keys(model, max_datasets, max_supports)
    solver = _ProgramSolver()
    programs = []
    for (first, second, d_star, support), occurrences in keys.items():
        if progress:
            progress(f"{first}->{second} {list(d_star)}")
        programs.append(_solve_program(first, second, d_star, support, tuple(occurrences),
                                       tables, solver, max_coefficients))
    lower = max((p.lower for p in programs), default=-math.inf)
    upper = max((p.upper for p in programs), default=-math.inf)
    witness = max(programs, key=lambda p: (p.lower, p.upper), default=None)
    verdict = nfc_verdict(lower, upper, budget) if budget is not None else None
    notes = []
    if not programs:
        notes.append("no program: every pair has a secret of probability 0 under every prior")
    return NfcResult(tuple(m.name for m in mechanisms), tuple(programs), lower, upper, witness,
                     budget, verdict, tuple(skipped), None, tuple(notes))


def _program_keys(model: PufferfishModel, max_datasets: int,
                  max_supports: int = DEFAULT_MAX_SUPPORTS) -> tuple[dict, list]:
    keys: dict[tuple, list[tuple[str, str]]] = {}
    skipped = []
    for prior_name, support in prior_supports(model, max_datasets).items():
        for pair in model.pairs:
            for first, second in pair.directions():
                xi1 = [d for d, p in support if first.holds(d)]
                xi2 = tuple(d for d, p in support if second.holds(d))
                if not xi1 or not xi2:
                    zero = first.name if not xi1 else second.name
                    skipped.append((f"{first.name} -> {second.name}", prior_name,
                                    f"Pr[{zero} | {prior_name}] = 0"))
                    continue
                for d_star in xi1:
                    key = (first.name, second.name, d_star, xi2)
                    keys.setdefault(key, []).append((pair.label, prior_name))
    for family_name, family in model.interval_families.items():
        for pair in model.pairs:
            for first, second in pair.directions():
                family.require_blocks((first.name, second.name), pair.label, family_name)
                candidates = [d for block in family.blocks[first.name] if block.upper > 0
                              for d in block.datasets]
                for support in minimal_supports(family, second.name, max_supports):
                    for d_star in candidates:
                        key = (first.name, second.name, d_star, support)
                        keys.setdefault(key, []).append((pair.label, family_name))
    return keys, skipped


def minimal_supports(family: IntervalFamily, secret: str,
                     limit: int = DEFAULT_MAX_SUPPORTS) -> list[tuple[Dataset, ...]]:
    """The inclusion-minimal supports of ``θ(·|secret)`` over the members of an interval family.

    A member's conditional can have support ``S`` exactly when the blocks ``J`` that ``S`` meets
    can carry positive masses ``m_j ∈ [l_j, u_j]`` summing to 1: ``J`` contains every block with
    ``l_j > 0``, no block with ``u_j = 0``, ``Σ_J l_j <= 1 <= Σ_J u_j``, and if ``Σ_J l_j = 1``
    every ``l_j`` in ``J`` is positive.  An NfC program's value only decreases when datasets are
    added to the second secret's support (each adds a primal constraint), so the worst member is
    attained on a minimal support: one dataset from each block of an inclusion-minimal feasible
    ``J``.  The number of such supports is ``Σ_J Π_{j∈J} |B_j|``; beyond ``limit`` the model is
    refused with :class:`TooLargeError`.
    """
    blocks = family.blocks[secret]
    required = [j for j, b in enumerate(blocks) if b.lower > 0]
    optional = [j for j, b in enumerate(blocks) if b.lower == 0 and b.upper > 0]
    if len(optional) > 16:
        raise TooLargeError(f"secret {secret!r} of interval family {family.name!r} has "
                            f"{len(optional)} blocks with lower bound 0; the minimal supports are "
                            f"searched over at most 16")

    def feasible(chosen: list[int]) -> bool:
        low = sum((blocks[j].lower for j in chosen), Fraction(0))
        high = sum((blocks[j].upper for j in chosen), Fraction(0))
        if not chosen or low > 1 or high < 1:
            return False
        return low < 1 or all(blocks[j].lower > 0 for j in chosen)

    feasible_sets = []
    for mask in range(1 << len(optional)):
        chosen = required + [optional[k] for k in range(len(optional)) if mask >> k & 1]
        if feasible(chosen):
            feasible_sets.append(frozenset(chosen))
    minimal = [j for j in feasible_sets if not any(other < j for other in feasible_sets)]
    supports: list[tuple[Dataset, ...]] = []
    for chosen in minimal:
        count = 1
        for j in chosen:
            count *= len(blocks[j].datasets)
        if len(supports) + count > limit:
            raise TooLargeError(f"interval family {family.name!r} has more than {limit:,} minimal "
                                f"supports for secret {secret!r}")
        for choice in itertools.product(*(blocks[j].datasets for j in sorted(chosen))):
            supports.append(tuple(choice))
    return supports


def _solve_program(first: str, second: str, d_star: Dataset, support: tuple[Dataset, ...],
                   occurrences: tuple, tables: _Tables, solver: _ProgramSolver,
                   max_coefficients: int) -> NfcProgram:
    logs = tables.logs
    star = tables.index[d_star]
    columns = np.flatnonzero(logs.positive[star])
    rows = np.array([tables.index[d] for d in support])
    possible = logs.positive[np.ix_(rows, columns)]
    kept = rows[possible.all(axis=1)]
    excluded = tuple(tables.datasets[r] for r in rows[~possible.all(axis=1)])
    output_keys = [tables.outputs[c] for c in columns]
    if kept.size == 0:
        killers = _cover(possible, output_keys)
        weight = Fraction(1, len(killers))
        return NfcProgram(first, second, occurrences, d_star, len(columns), len(support), excluded,
                          math.inf, math.inf, tuple((o, weight) for o in killers), (),
                          SolverReport(INFINITE_STATUS), killers, support)
    if kept.size * columns.size > max_coefficients:
        raise TooLargeError(f"the NfC program for D* = {list(d_star)} has {kept.size:,} × "
                            f"{columns.size:,} = {kept.size * columns.size:,} coefficients, more "
                            f"than the limit of {max_coefficients:,}; raise --max-coefficients")
    a_low = lower_difference(logs.low[star, columns][None, :], logs.high[np.ix_(kept, columns)])
    a_high = upper_difference(logs.high[star, columns][None, :], logs.low[np.ix_(kept, columns)])
    alpha, beta, _, report = solver.solve((a_low + a_high) / 2)
    if alpha is None:
        alpha = np.ones(columns.size)
        beta = np.ones(kept.size)
    alpha_exact = dyadic_simplex(alpha)
    beta_exact = dyadic_simplex(beta)
    lower = float(np.min(dot_lower(np.array([float(a) for a in alpha_exact]), a_low)))
    upper = float(np.max(dot_upper(np.array([float(b) for b in beta_exact]), a_high.T)))
    return NfcProgram(
        first, second, occurrences, d_star, int(columns.size), len(support), excluded, lower, upper,
        tuple((output_keys[i], w) for i, w in enumerate(alpha_exact) if w),
        tuple((tables.datasets[kept[j]], w) for j, w in enumerate(beta_exact) if w), report,
        support=support)


def _cover(possible: np.ndarray, output_keys: list[OutputKey]) -> tuple[OutputKey, ...]:
    """Outputs (possible under D*) that together rule out every dataset of the second secret (greedy)."""
    uncovered = set(range(possible.shape[0]))
    chosen = []
    while uncovered:
        best = max(range(possible.shape[1]),
                   key=lambda c: sum(1 for r in uncovered if not possible[r, c]))
        chosen.append(output_keys[best])
        uncovered = {r for r in uncovered if possible[r, best]}
    return tuple(chosen)


def nfc_verdict(lower: float, upper: float, budget: Budget) -> str:
    """``"holds"`` when the certified upper bound of an NfC value is <= the budget,
    ``"violated"`` when the certified lower bound is > it, else ``"undecided"``.  The comparison
    is exact (floats are exact binary rationals, so each comparison is the sign of an exact
    level, :meth:`LogValue.compare`).

    >>> from pufferfish.verify.numerics.certified import parse_budget
    >>> nfc_verdict(1.0, 1.09, parse_budget("log(3)")), nfc_verdict(1.1, 1.2, parse_budget("log(3)"))
    ('holds', 'violated')
    """
    if budget.infinite:
        return "holds" if upper < math.inf else "undecided"
    if upper != math.inf and LogValue.rational(Fraction(upper)) <= budget.level:
        return "holds"
    if lower == math.inf or budget.level < LogValue.rational(Fraction(lower)):
        return "violated"
    return "undecided"


def _float_text(value: float) -> str:
    if value == math.inf:
        return "inf"
    if value == -math.inf:
        return "-inf"
    return repr(value)
