"""The floating-point solve of the design program: a candidate mechanism and candidate duals.

CVXPY with HiGHS (through :func:`~pufferfish.verify.numerics.solvers.solve_quietly`) solves the
program of :mod:`pufferfish.verify.design.problem` in doubles.  Nothing here decides anything: the
candidate is made exactly feasible and its dual bound computed exactly in
:mod:`pufferfish.verify.design.exact`.

Cost: building a sparse matrix with one entry per constraint term, then one HiGHS solve of an LP
with ``|D|·|Ω|`` variables, ``|D|`` equalities and ``len(constraints)`` inequalities.

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> from pufferfish.verify.design.problem import build_problem
>>> problem = build_problem(load_model(example_path("quickstart.json")), "sum", parse_budget("log(3)"))
>>> solution = solve_float(problem)
>>> solution.status, round(solution.value, 6) >= 0
('optimal', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pufferfish.models.errors import ModelError
from pufferfish.verify.design.problem import DesignProblem


@dataclass(frozen=True)
class FloatSolution:
    """The solver's answer: ``rows[d][o] ≈ P(ω|D)``, one dual per constraint, the optimal value,
    the status and the time of the solve alone (seconds)."""

    rows: np.ndarray
    duals: np.ndarray
    value: float
    status: str
    seconds: float


def solve_float(problem: DesignProblem, solver: str = "HIGHS") -> FloatSolution:
    """Solve the design program in floating point (module docstring)."""
    import cvxpy as cp
    import scipy.sparse as sparse

    from pufferfish.verify.numerics.solvers import solve_quietly

    n, m = len(problem.datasets), len(problem.outputs)
    x = cp.Variable(n * m, nonneg=True)
    cost = np.array([float(c) for row in problem.cost for c in row])
    simplex = sparse.kron(sparse.identity(n, format="csr"), np.ones((1, m)), format="csr")
    constraints = [simplex @ x == np.ones(n)]
    if problem.constraints:
        constraints.append(problem.matrix @ x <= 0)
    program = cp.Problem(cp.Minimize(cost @ x), constraints)
    start = time.perf_counter()
    solve_quietly(program, solver)
    seconds = time.perf_counter() - start
    if program.status not in ("optimal", "optimal_inaccurate") or x.value is None:
        raise ModelError(f"the solver found no design (status {program.status}); the exact "
                         f"problem is always feasible (a constant mechanism meets every "
                         f"constraint), so this is a numerical failure", "--epsilon")
    duals = (np.asarray(constraints[1].dual_value, dtype=float).reshape(-1)
             if problem.constraints else np.zeros(0))
    return FloatSolution(np.asarray(x.value).reshape(n, m), duals, float(program.value),
                         "optimal" if program.status == "optimal" else program.status, seconds)


__all__ = ["FloatSolution", "solve_float"]
