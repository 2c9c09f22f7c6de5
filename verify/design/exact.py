"""From a floating-point candidate to an exact feasible mechanism and an exact lower bound.

**Exact feasible mechanism.**  The exact vertex of the active set
(:func:`~pufferfish.verify.design.vertex.exact_vertex`) and two rational roundings of the solver's
rows are tried:

* *reconstruction*: each probability replaced by the nearest fraction of denominator <= 1000,
  and again <= 10^8 (an optimal vertex of a program with small exact data usually has such
  coordinates), each row renormalised;
* *grid*: each probability rounded to the grid ``2^-30``, the rounding remainder of the row put
  on its largest entry, so each row sums to 1 exactly.

A rounded mechanism may violate a constraint ``Σ_D a_D P(ω|D) <= 0`` by a little.  The constant
mechanism ``U(ω|D) = 1/|Ω|`` is 0-private: its slack ``g_U = Σ_D a_D/|Ω|`` is ``(1 − r)/|Ω| < 0``
on every Pufferfish constraint and ``(1 − r_DP)/|Ω| < 0`` on every DP-style one when ``r > 1``.  The
mixture ``(1 − λ)P̃ + λU`` has slack ``(1 − λ)v + λ g_U``, so the least weight that restores every
constraint exactly is ``λ* = max_k v_k / (v_k − g_U,k)`` over the violated constraints; λ is
``λ*`` rounded *up* to the grid ``2^-40``.  The best constant mechanism (all mass on the output of
least expected loss, feasible for every ``r >= 1``) is the third candidate, and the only one when
``r = 1``.  Of the feasible candidates, the one of least exact loss is returned.

**Certified lower bound** (Lagrangian duality).  For any ``y >= 0`` on the constraints, since
every constraint has right-hand side 0 and the remaining feasible set is a product of simplices,

    LB(y) = Σ_D min_ω (c + Aᵀy)_{D,ω}  <=  c·P   for every feasible P,

so ``LB(y)`` is a valid lower bound on the optimum, computed exactly.  The solver's duals are
rounded to rationals (the nearest fraction of denominator <= 10^6, and the double itself), clipped
at 0, and so are the multipliers complementary to the exact mechanism
(:func:`~pufferfish.verify.design.vertex.exact_multipliers`); the largest bound is kept.  When the exact loss equals the bound, the design is **proved
optimal** (weak duality), with no further solve.

Cost: each candidate costs one pass over the constraint terms in exact arithmetic, and so does each
dual bound: ``O(Σ_k |terms_k|)`` rational operations, plus ``O(|D|·|Ω|)``.

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> from pufferfish.verify.design.problem import build_problem
>>> from pufferfish.verify.design.lp import solve_float
>>> problem = build_problem(load_model(example_path("quickstart.json")), "sum", parse_budget("log(3)"))
>>> solution = solve_float(problem)
>>> design = exact_design(problem, solution)
>>> bound = dual_bound(problem, solution.duals, design.rows)
>>> design.loss == bound.value, design.loss
(True, Fraction(3, 16))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pufferfish.verify.design.problem import DesignProblem
from pufferfish.verify.design.vertex import exact_multipliers, exact_vertex
from pufferfish.verify.numerics.intervals import dot_error_factor

Rows = list[list[Fraction]]

RECONSTRUCTION_DENOMINATORS = (1000, 10 ** 8)
GRID_BITS = 30
MIXING_BITS = 40
DUAL_DENOMINATOR = 10 ** 6


@dataclass(frozen=True)
class ExactDesign:
    """An exact mechanism ``rows[d][o] = P(ω|D)`` meeting every constraint, its exact loss, how it
    was obtained (``reconstruction``, ``grid`` or ``constant``) and the weight λ of the constant
    uniform mechanism mixed in (0 when none was needed)."""

    rows: tuple[tuple[Fraction, ...], ...]
    loss: Fraction
    method: str
    mixing_weight: Fraction


@dataclass(frozen=True)
class DualBound:
    """``LB(y)`` (exact) and how the multipliers ``y`` were rounded."""

    value: Fraction
    rounding: str
    multipliers: tuple[Fraction, ...]


def exact_design(problem: DesignProblem, solution) -> ExactDesign:
    """The best exactly feasible rounding of ``solution.rows`` (module docstring).  An exact
    vertex that is feasible as it is (no mixing) is returned at once: it solves the program's
    active equalities exactly, and the roundings could only approximate it."""
    matrix = problem.matrix
    vertex = exact_vertex(problem, solution.rows)
    candidates = [_constant(problem)]
    roundings = [("reconstruction", lambda bound=bound: _reconstructed(solution.rows, bound))
                 for bound in RECONSTRUCTION_DENOMINATORS]
    roundings.append(("grid", lambda: _grid(solution.rows)))
    if vertex is not None and all(p >= 0 for row in vertex for p in row):
        roundings.insert(0, ("vertex", lambda: vertex))
    for method, make in roundings:
        repaired = _repair(problem, make(), matrix)
        if repaired is not None:
            mixed, weight = repaired
            candidates.append(ExactDesign(_freeze(mixed), problem.expected_loss(mixed), method,
                                          weight))
            if method == "vertex" and not weight:
                break
    return min(candidates, key=lambda c: (c.loss, c.mixing_weight))


def is_feasible(problem: DesignProblem, rows: Sequence[Sequence[Fraction]]) -> bool:
    """Every row is a distribution and every constraint holds, exactly."""
    if any(p < 0 for row in rows for p in row) or any(sum(row) != 1 for row in rows):
        return False
    return all(problem.slack(c, rows) <= 0 for c in problem.constraints)


def _freeze(rows: Rows) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(row) for row in rows)


def _constant(problem: DesignProblem) -> ExactDesign:
    totals = [sum((row[o] for row in problem.cost), Fraction(0))
              for o in range(len(problem.outputs))]
    best = min(range(len(totals)), key=lambda o: totals[o])
    row = tuple(Fraction(int(o == best)) for o in range(len(totals)))
    return ExactDesign(tuple(row for _ in problem.datasets), totals[best], "constant", Fraction(0))


def _normalised(row: list[Fraction]) -> list[Fraction]:
    total = sum(row, Fraction(0))
    if not total:
        return [Fraction(1, len(row))] * len(row)
    return [p / total for p in row]


def _reconstructed(rows, bound: int) -> Rows:
    return [_normalised([max(Fraction(0), Fraction(float(p)).limit_denominator(bound))
                         for p in row]) for row in rows]


def _grid(rows) -> Rows:
    scale = 1 << GRID_BITS
    result: Rows = []
    for row in rows:
        units = [max(0, math.floor(float(p) * scale)) for p in row]
        largest = max(range(len(units)), key=lambda o: float(row[o]))
        units[largest] += scale - sum(units)
        if units[largest] < 0:
            units = [0] * len(units)
            units[largest] = scale
        result.append([Fraction(u, scale) for u in units])
    return result


def _possibly_violated(problem: DesignProblem, rows: Rows, matrix) -> list[int]:
    """Indices of the constraints whose slack is not *certified* negative by floating point:
    ``fl(Σ a·p) + margin < 0`` proves ``Σ a·p < 0`` when ``margin`` bounds the rounding error
    (:func:`~pufferfish.verify.numerics.intervals.dot_error_factor`, with room for the rounding
    of the inputs); every other constraint is evaluated exactly."""
    if not problem.constraints:
        return []
    flat = np.array([float(p) for row in rows for p in row])
    values = matrix @ flat
    magnitudes = abs(matrix) @ np.abs(flat)
    longest = int(np.diff(matrix.indptr).max(initial=0))
    margins = 4 * dot_error_factor(longest + 4) * magnitudes + 1e-300
    return [int(k) for k in np.nonzero(values + margins >= 0)[0]]


def _repair(problem: DesignProblem, rows: Rows, matrix) -> tuple[Rows, Fraction] | None:
    """``(rows mixed with the uniform mechanism by the least grid weight, weight)``, or ``None``
    when some violated constraint is not strictly slack at the uniform mechanism."""
    width = len(problem.outputs)
    weight = Fraction(0)
    for k in _possibly_violated(problem, rows, matrix):
        constraint = problem.constraints[k]
        violation = problem.slack(constraint, rows)
        if violation <= 0:
            continue
        uniform = sum((a for _, a in constraint.terms), Fraction(0)) / width
        if uniform >= 0:
            return None
        weight = max(weight, violation / (violation - uniform))
    if weight:
        scale = 1 << MIXING_BITS
        weight = Fraction(-(-weight.numerator * scale // weight.denominator), scale)
        share = weight / width
        rows = [[(1 - weight) * p + share for p in row] for row in rows]
    return rows, weight


def dual_bound(problem: DesignProblem, duals: Sequence[float],
               rows: Sequence[Sequence[Fraction]] | None = None,
               target: Fraction | None = None) -> DualBound:
    """The largest ``LB(y)`` for the two rational roundings of ``duals`` and, given the exact
    mechanism ``rows``, the multipliers complementary to it
    (:func:`~pufferfish.verify.design.vertex.exact_multipliers`) (module docstring).  Stops at
    a bound that reaches ``target`` (the loss of a feasible mechanism: no bound exceeds it)."""
    best = None
    if rows is not None:
        multipliers = exact_multipliers(problem, rows, duals)
        if multipliers is not None:
            best = DualBound(lagrangian_bound(problem, multipliers),
                             "exact complementary multipliers", tuple(multipliers))
            if target is not None and best.value >= target:
                return best
    for rounding, convert in (("nearest fraction of denominator <= 10^6",
                               lambda v: Fraction(v).limit_denominator(DUAL_DENOMINATOR)),
                              ("the solver's doubles", Fraction)):
        multipliers = tuple(max(Fraction(0), convert(float(v))) if math.isfinite(v)
                            else Fraction(0) for v in duals)
        value = lagrangian_bound(problem, multipliers)
        if best is None or value > best.value:
            best = DualBound(value, rounding, multipliers)
    return best


def lagrangian_bound(problem: DesignProblem, multipliers: Sequence[Fraction]) -> Fraction:
    """``LB(y) = Σ_D min_ω (c + Aᵀy)_{D,ω}`` for ``y >= 0`` (exact; a valid lower bound on the
    optimum for every such ``y``).

    >>> from pufferfish.examples import example_path
    >>> from pufferfish.models.files.pufferfish_file import load_model
    >>> from pufferfish.verify.numerics.certified import parse_budget
    >>> from pufferfish.verify.design.problem import build_problem
    >>> problem = build_problem(load_model(example_path("quickstart.json")), "sum", parse_budget("log(3)"))
    >>> lagrangian_bound(problem, [Fraction(0)] * len(problem.constraints))   # no privacy: loss 0
    Fraction(0, 1)
    """
    if any(y < 0 for y in multipliers):
        raise ValueError("Lagrange multipliers of <= constraints must be >= 0")
    reduced = [list(row) for row in problem.cost]
    for y, constraint in zip(multipliers, problem.constraints):
        if y:
            o = constraint.output
            for d, a in constraint.terms:
                reduced[d][o] += y * a
    return sum((min(row) for row in reduced), Fraction(0))


__all__ = ["ExactDesign", "DualBound", "exact_design", "is_feasible", "dual_bound",
           "lagrangian_bound"]
