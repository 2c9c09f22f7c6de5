"""Exact optimal vertices from a floating-point solution: the active set solved in rationals.

An optimal basic solution of the design program is the unique solution of the equalities that
are active at it: the simplex rows ``Σ_ω P(ω|D) = 1``, the privacy constraints that are tight, and
``P(ω|D) = 0`` off the support.  :func:`exact_vertex` reads the support and the tight constraints
off the solver's answer (tolerance ``1e-9``) and solves those equalities exactly; the result is a
*candidate* — :func:`~pufferfish.verify.design.exact.is_feasible` decides.

Likewise for the dual (complementary slackness): for ``y`` supported on the constraints with a
positive solver dual and free ``z_D``, the equalities ``c_{D,ω} + (Aᵀy)_{D,ω} = z_D`` on the
support of the primal are solved exactly (:func:`exact_multipliers`); the Lagrangian bound of the
result (clipped at 0) is valid whatever it is, and equals the primal loss exactly when the two
are a complementary pair — then the design is proved optimal.

Where the equalities leave freedom (a degenerate vertex), free unknowns take the solver's value
rounded to a nearby fraction.  Cost: Gaussian elimination in exact rationals over the support,
``O(equations · unknowns²)`` rational operations; attempted only for supports of at most
:data:`MAX_SUPPORT` variables.

>>> solve_linear([{0: Fraction(1), 1: Fraction(1)}, {0: Fraction(1), 1: Fraction(-3)}],
...              [Fraction(1), Fraction(0)], {})
{0: Fraction(3, 4), 1: Fraction(1, 4)}
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from pufferfish.verify.design.problem import DesignProblem

TOLERANCE = 1e-9
"""Solver values at most this far from 0 count as 0 (the support and the active constraints
read from the floating-point solution); everything is then re-checked exactly."""
MAX_SUPPORT = 3000
"""Supports larger than this are not solved exactly (the rounding of ``exact`` is used alone)."""

Row = dict[int, Fraction]


def solve_linear(equations: Sequence[Row], rhs: Sequence[Fraction], guesses: dict[int, Fraction]
                 ) -> dict[int, Fraction] | None:
    """A solution of the sparse system ``equations · x = rhs`` in exact rationals (free unknowns
    set to ``guesses``, default 0), or ``None`` when the system is inconsistent."""
    pivots: list[tuple[int, Row, Fraction]] = []
    for equation, value in zip(equations, rhs):
        row, value = dict(equation), Fraction(value)
        for column, pivot_row, pivot_value in pivots:
            factor = row.get(column)
            if factor:
                for k, a in pivot_row.items():
                    updated = row.get(k, Fraction(0)) - factor * a
                    if updated:
                        row[k] = updated
                    else:
                        row.pop(k, None)
                value -= factor * pivot_value
        if not row:
            if value:
                return None
            continue
        column = min(row)
        scale = row[column]
        row = {k: a / scale for k, a in row.items()}
        value /= scale
        for index, (other_column, other_row, other_value) in enumerate(pivots):
            factor = other_row.get(column)
            if factor:
                for k, a in row.items():
                    updated = other_row.get(k, Fraction(0)) - factor * a
                    if updated:
                        other_row[k] = updated
                    else:
                        other_row.pop(k, None)
                pivots[index] = (other_column, other_row, other_value - factor * value)
        pivots.append((column, row, value))
    pivot_columns = {column for column, _, _ in pivots}
    unknowns = {k for equation in equations for k in equation}
    solution = {k: guesses.get(k, Fraction(0)) for k in unknowns - pivot_columns}
    for column, row, value in pivots:
        solution[column] = value - sum((a * solution[k] for k, a in row.items() if k != column),
                                       Fraction(0))
    return dict(sorted(solution.items()))


def _guess(value: float) -> Fraction:
    return Fraction(float(value)).limit_denominator(10 ** 6)


def exact_vertex(problem: DesignProblem, rows) -> list[list[Fraction]] | None:
    """The exact solution of the equalities active at the solver's ``rows`` (module docstring)."""
    width = len(problem.outputs)
    support = [(d, o) for d, row in enumerate(rows) for o, p in enumerate(row) if p > TOLERANCE]
    if len(support) > MAX_SUPPORT:
        return None
    variable = {(d, o): k for k, (d, o) in enumerate(support)}
    equations: list[Row] = []
    rhs: list[Fraction] = []
    for d in range(len(rows)):
        equations.append({variable[(d, o)]: Fraction(1) for o in range(width)
                          if (d, o) in variable})
        rhs.append(Fraction(1))
    for constraint in problem.constraints:
        o = constraint.output
        value = sum(float(a) * float(rows[d][o]) for d, a in constraint.terms)
        if abs(value) <= TOLERANCE:
            equation = {variable[(d, o)]: a for d, a in constraint.terms if (d, o) in variable}
            if equation:
                equations.append(equation)
                rhs.append(Fraction(0))
    guesses = {k: _guess(rows[d][o]) for (d, o), k in variable.items()}
    solution = solve_linear(equations, rhs, guesses)
    if solution is None:
        return None
    exact = [[Fraction(0)] * width for _ in rows]
    for (d, o), k in variable.items():
        exact[d][o] = solution.get(k, guesses[k])
    return exact


def exact_multipliers(problem: DesignProblem, rows: Sequence[Sequence[Fraction]],
                      duals: Sequence[float]) -> list[Fraction] | None:
    """Multipliers ``y >= 0`` complementary to the exact mechanism ``rows`` (module docstring).

    The equalities are those of the support of ``rows`` plus every ``(D, ω)`` whose reduced cost
    at the solver's duals is within the tolerance of the row minimum (a degenerate vertex needs
    them to pin ``y`` down); if that system is inconsistent, the support alone is used."""
    active = [k for k, y in enumerate(duals) if y > TOLERANCE]
    support = {(d, o) for d, row in enumerate(rows) for o, p in enumerate(row) if p}
    if len(support) > MAX_SUPPORT:
        return None
    n, width = len(rows), len(problem.outputs)
    reduced = [[float(c) for c in row] for row in problem.cost]
    columns: dict[tuple[int, int], Row] = {}
    for position, k in enumerate(active):
        constraint = problem.constraints[k]
        for d, a in constraint.terms:
            reduced[d][constraint.output] += float(duals[k]) * float(a)
            columns.setdefault((d, constraint.output), {})[n + position] = a
    near = {(d, o) for d in range(n) for o in range(width)
            if reduced[d][o] - min(reduced[d]) <= TOLERANCE}
    guesses = {n + position: _guess(duals[k]) for position, k in enumerate(active)}
    for cells in (sorted(support | near), sorted(support)):
        equations, rhs = [], []
        for d, o in cells:
            equation = dict(columns.get((d, o), {}))
            equation[d] = Fraction(-1)                     # unknown z_D has index d
            equations.append(equation)
            rhs.append(-problem.cost[d][o])
        solution = solve_linear(equations, rhs, guesses)
        if solution is not None:
            break
    else:
        return None
    multipliers = [Fraction(0)] * len(problem.constraints)
    for position, k in enumerate(active):
        multipliers[k] = max(Fraction(0), solution.get(n + position, guesses[n + position]))
    return multipliers


__all__ = ["solve_linear", "exact_vertex", "exact_multipliers", "TOLERANCE", "MAX_SUPPORT"]
