"""Inverse composition (IC): the response sets Π[τ, δ], ε(τ, θ) of Theorem 2, the Lemma 7 bound,
Task 2 in closed form and Task 1 by alternating optimisation — every design re-verified exactly.

Source: Zhang et al., Differential Confounding Privacy and Inverse Composition, §IV (Π[τ, δ],
Task-1, Task-2, Theorem 2) and App. M (Lemmas 6–8).

* ``Π[τ, δ]`` (δ > 0): response strategies ``π: Ȳ -> Δ(S)`` with ``π(s|ȳ) >= P_θ(s)/τ`` for all
  ``s, ȳ`` and ``E_{S~π(·|ȳ)}[π(S|ȳ)/P_θ(S)] <= δτ`` for all ``ȳ``; ``Π[τ, 0]``: ``P_θ(s)/τ <=
  π(s|ȳ) <= τ P_θ(s)``.  Non-emptiness: ``π(·|ȳ) = P_θ`` belongs to ``Π[τ, 0]`` for every
  ``τ >= 1``; for δ > 0, ``Σ_s π(s)²/P_θ(s) >= (Σ_s π(s))² / Σ_s P_θ(s) = 1`` (Cauchy–Schwarz,
  equality at ``π = P_θ``), so ``Π[τ, δ] ≠ ∅ ⟺ δτ >= 1``.
* ``ε(τ, θ) = log(1 + (τ − 1)/P*_θ)`` with ``P*_θ = min_s P_θ(s) > 0`` (Theorem 2): the log of an
  exact rational for rational τ.
* Lemma 7: if the posterior ``J`` of a mechanism satisfies ``1/τ <= J(s|y)/P_θ(s) <= τ`` for all
  ``s, y``, the mechanism is ``(ε(τ, θ), 0)``-DCP.  Checked exactly: ``τ_J = max(J/P, P/J)`` and
  the pure DCP level ``max ψ(y|s)/ψ(y|s')`` is compared with ``1 + (τ_J − 1)/P*``.
* Task 2 (fixed mechanisms, no added one): the follower's best response under a strictly proper
  scoring rule is the true posterior ``μ`` (§IV), so the least τ with ``μ ∈ Π[τ, δ]`` is the
  closed form ``τ* = max( max_{s,ȳ} P_θ(s)/μ(s|ȳ), max_ȳ Σ_s μ(s|ȳ)²/P_θ(s) / δ )`` for δ > 0 and
  ``τ* = max_{s,ȳ} max(μ/P_θ, P_θ/μ)`` for δ = 0 (infinite if some ``μ(s|ȳ) = 0``); Theorem 2
  (ii) claims ``(ε(τ*, θ), δ)``-DCP, which the exact audit then decides.
* Task 1 (add a mechanism ``γ_α: X -> Y_α``, independent of the others given ``x``): minimise the
  expected log loss ``E[−log π(S|Ȳ, Y_α)]`` over ``(γ_α, π)`` subject to ``π ∈ Π[τ, δ]`` with
  ``ε(τ, θ) = ε_g``.  The objective is convex in π (CVXPY, Clarabel) and linear in ``γ_α``
  (its minimum over row-stochastic matrices is the per-row argmin, solved exactly); the two steps
  alternate.  Every iterate and its mixtures with an uninformative mechanism are then audited
  **exactly** against the target; the tool reports the audit's verdict, never the optimiser's.
  Adding a mechanism can never lower the leakage of the existing ones (their output is a
  post-processing of the joint output), so a target the existing composition violates is reported
  infeasible without optimising.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.dcp import DCPModel, DatasetKernel
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.verify.numerics.certified import Budget, parse_budget
from pufferfish.verify.numerics.solvers import solve_quietly
from pufferfish.verify.dcp.levels import DCPCheck, dcp_check
from pufferfish.verify.dcp.composition import joint_kernel, true_joint
from pufferfish.verify.report import Explained

Posterior = Mapping[Hashable, Distribution]
"""``ȳ -> μ(· | ȳ)``, a response strategy or the true posterior."""


def min_prior(model: DCPModel) -> Fraction:
    """``P*_θ = min_s P_θ(s)`` over the secrets of positive probability (Theorem 2)."""
    return min(model.secret_prior().values())


def epsilon_of_tau(model: DCPModel, tau: Ratio) -> Ratio:
    """``e^{ε(τ, θ)} = 1 + (τ − 1)/P*_θ`` (Theorem 2), exact.

    >>> m = DCPModel.build({"s0": {"a": "1/4"}, "s1": {"b": "3/4"}}, "all")
    >>> epsilon_of_tau(m, Fraction(3, 2))
    Fraction(3, 1)
    """
    if tau == INFINITY:
        return INFINITY
    return 1 + (Fraction(tau) - 1) / min_prior(model)


def posterior(prior: Distribution, rows: Mapping[Hashable, Distribution]) -> dict:
    """The exact posterior ``μ(s | ȳ) ∝ P_θ(s) ψ(ȳ | s)`` for every output of positive probability."""
    outputs = list(dict.fromkeys(y for row in rows.values() for y in row.support))
    result = {}
    for y in outputs:
        weights = {s: prior.prob(s) * rows[s].prob(y) for s in rows}
        total = sum(weights.values(), Fraction(0))
        result[y] = Distribution._trusted({s: w / total for s, w in weights.items() if w})
    return result


@dataclass(frozen=True)
class Membership:
    """Whether a response strategy lies in ``Π[τ, δ]``, with the first violated constraint."""

    holds: bool
    tau: Ratio
    delta: Fraction
    violation: str = ""

    def to_dict(self) -> dict:
        return {"in_Pi": self.holds, "tau": fraction_str(self.tau),
                "delta": fraction_str(self.delta), "violation": self.violation}


def in_pi(pi: Posterior, prior: Distribution, tau: Ratio, delta: Fraction) -> Membership:
    """Exact membership of ``pi`` in ``Π[τ, δ]`` (§IV)."""
    delta = Fraction(delta)
    if tau != INFINITY and tau < 1:
        raise ModelError("τ must be >= 1", "--tau")
    if tau == INFINITY:
        return Membership(True, tau, delta)
    t = Fraction(tau)
    for y, row in pi.items():
        for s, p_s in prior.items():
            value = row.prob(s)
            if value < p_s / t:
                return Membership(False, tau, delta, f"pi({s}|{y}) = {fraction_str(value)} < "
                                  f"P({s})/tau = {fraction_str(p_s / t)}")
            if delta == 0 and value > t * p_s:
                return Membership(False, tau, delta, f"pi({s}|{y}) = {fraction_str(value)} > "
                                  f"tau P({s}) = {fraction_str(t * p_s)}")
        if delta > 0:
            expectation = sum((v * v / prior.prob(s) for s, v in row.items()), Fraction(0))
            if expectation > delta * t:
                return Membership(False, tau, delta, f"E[pi/P | {y}] = {fraction_str(expectation)}"
                                  f" > delta tau = {fraction_str(delta * t)}")
    return Membership(True, tau, delta)


def pi_nonempty(tau: Ratio, delta: Fraction) -> bool:
    """``Π[τ, δ] ≠ ∅``: ``τ >= 1`` and (``δ = 0`` or ``δτ >= 1``) (module doc)."""
    if tau != INFINITY and tau < 1:
        return False
    return Fraction(delta) == 0 or tau == INFINITY or Fraction(delta) * Fraction(tau) >= 1


def least_tau(mu: Posterior, prior: Distribution, delta: Fraction) -> Ratio:
    """The least τ with ``mu ∈ Π[τ, δ]``: the closed form of Task 2 (module doc)."""
    delta = Fraction(delta)
    tau: Ratio = Fraction(1)
    for row in mu.values():
        for s, p_s in prior.items():
            value = row.prob(s)
            if not value:
                return INFINITY
            tau = max(tau, p_s / value)
            if delta == 0:
                tau = max(tau, value / p_s)
        if delta > 0:
            tau = max(tau, sum((v * v / prior.prob(s) for s, v in row.items()), Fraction(0)) / delta)
    return tau


# --------------------------------------------------------------------------------------------
# Lemma 7
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lemma7Check:
    """Lemma 7 on one mechanism: posterior spread ``τ_J``, the bound, and the exact pure level."""

    tau: Ratio
    bound: Ratio
    level: Ratio
    witness: tuple

    @property
    def holds(self) -> bool:
        return self.bound == INFINITY or (self.level != INFINITY and self.level <= self.bound)

    def to_dict(self) -> dict:
        return {"tau_J": fraction_str(self.tau), "bound_ratio": fraction_str(self.bound),
                "bound_epsilon": epsilon_str(self.bound), "pure_level_ratio": fraction_str(self.level),
                "holds": self.holds, "witness": [str(v) for v in self.witness]}


def lemma7_check(model: DCPModel, rows: Mapping[Hashable, Distribution]) -> Lemma7Check:
    """Compare the exact ``(ε, 0)``-DCP level of ``rows`` with Lemma 7's ``ε(τ_J, θ)``."""
    prior = model.secret_prior()
    mu = posterior(prior, rows)
    tau = least_tau(mu, prior, Fraction(0))
    level: Ratio = Fraction(1)
    witness: tuple = ()
    for s, t in model.directions():
        for y, p in rows[s].items():
            q = rows[t].prob(y)
            value = INFINITY if not q else p / q
            if value == INFINITY or (level != INFINITY and value > level):
                level, witness = value, (s, t, y)
    return Lemma7Check(tau, epsilon_of_tau(model, tau), level, witness)


# --------------------------------------------------------------------------------------------
# Task 2
# --------------------------------------------------------------------------------------------

@dataclass(repr=False, frozen=True)
class Task2Result(Explained):
    """Task 2: τ* for the fixed composition, ``ε(τ*, θ)``, and the exact audit of Theorem 2 (ii)."""

    mechanisms: tuple[str, ...]
    delta: Fraction
    tau: Ratio
    ratio: Ratio
    audit: DCPCheck | None
    pi_nonempty: bool

    @property
    def holds(self) -> bool | None:
        """The exact audit's verdict on ``(ε(τ*, θ), δ)``-DCP (None when τ* is infinite)."""
        return None if self.audit is None else self.audit.holds

    def to_dict(self) -> dict:
        return {"check": "dcp_task2", "mechanisms": list(self.mechanisms),
                "delta": fraction_str(self.delta), "tau_star": fraction_str(self.tau),
                "epsilon": epsilon_str(self.ratio), "epsilon_float": epsilon_float(self.ratio),
                "max_ratio": fraction_str(self.ratio), "Pi_nonempty": self.pi_nonempty,
                "verified": self.holds,
                "audit": self.audit.to_dict() if self.audit else None}

    def explain(self) -> str:
        text = f"Task 2 (δ = {fraction_str(self.delta)}): τ* = {fraction_str(self.tau)}, " \
               f"ε(τ*, θ) = {epsilon_str(self.ratio)} (≈ {epsilon_float(self.ratio):.6g})"
        if self.audit is not None:
            text += "; exact audit: " + ("verified" if self.audit.holds else
                                         "NOT verified (Theorem 2 (ii) fails here)")
            text += f"; true least ε is {self.audit.level.epsilon}"
        return text


def task2(model: DCPModel, names: Sequence[str] | None, delta: Fraction) -> Task2Result:
    """Solve Task 2 exactly (closed form) and audit the resulting ``(ε(τ*, θ), δ)`` claim."""
    names = list(names) if names else list(model.mechanisms)
    kernels = [model.mechanism(n) for n in names]
    rows = true_joint(model, kernels)
    prior = model.secret_prior()
    tau = least_tau(posterior(prior, rows), prior, Fraction(delta))
    ratio = epsilon_of_tau(model, tau)
    audit = None
    if ratio != INFINITY:
        audit = dcp_check(rows, model.directions(), Budget(f"log({ratio})", ratio=Fraction(ratio)),
                          Fraction(delta), "+".join(names))
    return Task2Result(tuple(names), Fraction(delta), tau, ratio, audit,
                       pi_nonempty(tau, Fraction(delta)))


# --------------------------------------------------------------------------------------------
# Task 1
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Design:
    """One candidate added mechanism with its exact audit."""

    kernel: DatasetKernel
    mix: Fraction
    audit: DCPCheck
    loss: float
    posterior_in_pi: Membership

    def to_dict(self) -> dict:
        return {"mechanism": self.kernel.to_dict(), "mix_with_uninformative": fraction_str(self.mix),
                "verified": self.audit.holds, "audit": self.audit.to_dict(),
                "expected_log_loss_numerical": self.loss,
                "true_posterior_in_Pi": self.posterior_in_pi.to_dict()}


@dataclass(repr=False, frozen=True)
class Task1Result(Explained):
    """Task 1: the verified design (if any), the existing composition's audit, and the run."""

    mechanisms: tuple[str, ...]
    target: str
    delta: Fraction
    tau: Fraction
    existing: DCPCheck
    design: Design | None
    iterations: int
    optimiser_objective: tuple[float, ...] = field(default=())
    candidates_audited: int = 0
    reason: str = ""

    @property
    def holds(self) -> bool:
        """A design passed the exact audit."""
        return self.design is not None and self.design.audit.holds

    def to_dict(self) -> dict:
        return {"check": "dcp_task1", "mechanisms": list(self.mechanisms),
                "target_epsilon": self.target, "target_delta": fraction_str(self.delta),
                "tau": fraction_str(self.tau), "existing": self.existing.to_dict(),
                "verified": self.holds, "design": self.design.to_dict() if self.design else None,
                "iterations": self.iterations, "candidates_audited": self.candidates_audited,
                "optimiser_objective_numerical": list(self.optimiser_objective),
                "reason": self.reason}

    def explain(self) -> str:
        head = f"Task 1 target ({self.target}, {fraction_str(self.delta)}), tau = " \
               f"{fraction_str(self.tau)}: "
        if self.design is None:
            return head + "no verified design. " + self.reason
        d = self.design
        return head + (f"verified design (mix {fraction_str(d.mix)} of the optimiser's mechanism "
                       f"with an uninformative one), exact least ε of the new composition "
                       f"{d.audit.level.epsilon}, expected log loss ≈ {d.loss:.6g} (numerical)")


def _tau_for_target(model: DCPModel, budget: Budget) -> Fraction:
    """A rational τ with ``ε(τ, θ) <= ε_g``: exact for ``log(r)``, a certified lower bound else."""
    p_star = min_prior(model)
    if budget.infinite:
        raise ModelError("the target ε must be finite", "--target-epsilon")
    if budget.ratio is not None:
        return 1 + p_star * (budget.ratio - 1)
    eps = budget.epsilon
    assert eps is not None
    lower = Fraction(1) + eps            # e^ε >= 1 + ε, a rational lower bound
    term = eps
    for n in range(2, 30):
        term = term * eps / n
        lower += term
    tau = 1 + p_star * (lower - 1)
    return Fraction(math.floor(tau * 10 ** 9), 10 ** 9)   # rounded down: still ε(τ, θ) <= ε_g


def _weights(model: DCPModel, existing: DatasetKernel | None):
    """``w[x][(ȳ, s)] = P_θ(s, x) D(ȳ | x)`` as floats for the optimiser."""
    table: dict = {}
    for (s, x), p in model.joint.items():
        row = existing.row(x) if existing is not None else Distribution.point(())
        for y, q in row.items():
            table.setdefault(x, {})[(y, s)] = float(p * q)
    return table


def _loss(model: DCPModel, kernels: Sequence[DatasetKernel]) -> float:
    """Expected log loss of the true posterior (numerical, for choosing among verified designs)."""
    rows = true_joint(model, kernels)
    prior = model.secret_prior()
    mu = posterior(prior, rows)
    total = 0.0
    for s, row in rows.items():
        for y, p in row.items():
            total -= float(prior.prob(s) * p) * math.log(float(mu[y].prob(s)))
    return total


def task1(model: DCPModel, names: Sequence[str] | None, target_epsilon: Budget | str,
          target_delta: Fraction, outputs: int = 2, iterations: int = 8,
          bisection_steps: int = 8) -> Task1Result:
    """Design an added mechanism for the target ``(ε_g, δ_g)`` (module doc); verified exactly."""
    import cvxpy as cp
    import numpy as np

    budget = target_epsilon if isinstance(target_epsilon, Budget) else parse_budget(
        target_epsilon, "--target-epsilon")
    delta = Fraction(target_delta)
    names = list(names) if names else list(model.mechanisms)
    kernels = [model.mechanism(n) for n in names]
    directions = model.directions()
    prior = model.secret_prior()
    tau = _tau_for_target(model, budget)
    existing_kernel = joint_kernel(kernels) if kernels else None
    existing_rows = true_joint(model, kernels) if kernels else {
        s: Distribution.point(()) for s in prior.support}
    existing = dcp_check(existing_rows, directions, budget, delta, "+".join(names) or "none")
    if not existing.holds:
        return Task1Result(tuple(names), budget.text, delta, tau, existing, None, 0,
                           reason="the existing composition already violates the target; an "
                                  "added mechanism cannot lower its leakage (post-processing), so "
                                  "no design exists")
    if not pi_nonempty(tau, delta):
        note = f"Pi[tau, delta] is empty (delta * tau = {fraction_str(delta * tau)} < 1); "
    else:
        note = ""
    secrets = list(prior.support)
    datasets = list(model.dataset_marginal().support)
    weights = _weights(model, existing_kernel)
    ybar = list(dict.fromkeys(y for x in datasets for (y, _) in weights[x]))
    p_vec = np.array([float(prior.prob(s)) for s in secrets])
    # start: a noisy indicator of the most likely secret given x
    gamma = np.full((len(datasets), outputs), 1.0 / outputs)
    for i, x in enumerate(datasets):
        best = secrets.index(max(secrets, key=lambda s: model.joint.prob((s, x))))
        gamma[i, best % outputs] += 0.5
        gamma[i] /= gamma[i].sum()
    objective_trace: list[float] = []
    candidates: list[np.ndarray] = []
    tau_f = float(tau)
    delta_f = float(delta)
    for _ in range(iterations):
        # π-step: C[(ȳ, yα), s] = Σ_x w[x][(ȳ, s)] γ(yα | x)
        cells = [(y, a) for y in ybar for a in range(outputs)]
        c_mat = np.zeros((len(cells), len(secrets)))
        for r, (y, a) in enumerate(cells):
            for i, x in enumerate(datasets):
                for j, s in enumerate(secrets):
                    c_mat[r, j] += weights[x].get((y, s), 0.0) * gamma[i, a]
        pi = cp.Variable((len(cells), len(secrets)))
        constraints = [cp.sum(pi, axis=1) == 1, pi >= np.tile(p_vec / tau_f, (len(cells), 1))]
        if delta == 0:
            constraints.append(pi <= np.tile(p_vec * tau_f, (len(cells), 1)))
        else:
            constraints.append(cp.sum(cp.multiply(cp.square(pi), np.tile(1 / p_vec, (len(cells), 1))),
                                      axis=1) <= delta_f * tau_f)
        problem = cp.Problem(cp.Maximize(cp.sum(cp.multiply(c_mat, cp.log(pi)))), constraints)
        try:
            solve_quietly(problem, "CLARABEL")
        except cp.error.SolverError:
            break
        if pi.value is None or problem.status not in ("optimal", "optimal_inaccurate"):
            note += f"the pi-step is {problem.status}; "
            break
        objective_trace.append(-float(problem.value))
        log_pi = np.log(np.clip(pi.value, 1e-300, None))
        # α-step: linear in γ; the minimum over row-stochastic γ is the per-row argmin
        cost = np.zeros((len(datasets), outputs))
        for i, x in enumerate(datasets):
            for r, (y, a) in enumerate(cells):
                for j, s in enumerate(secrets):
                    cost[i, a] -= weights[x].get((y, s), 0.0) * log_pi[r, j]
        new_gamma = np.zeros_like(gamma)
        new_gamma[np.arange(len(datasets)), cost.argmin(axis=1)] = 1.0
        candidates.append(new_gamma)
        if np.array_equal(new_gamma, gamma):
            break
        gamma = new_gamma
    best: Design | None = None
    audited = 0
    seen: set = set()
    for cand in candidates:
        key = cand.tobytes()
        if key in seen:
            continue
        seen.add(key)
        rows = {x: _rational_row(cand[i]) for i, x in enumerate(datasets)}
        design_kernel = DatasetKernel("added", rows)
        low, high = Fraction(0), Fraction(1)
        found: Design | None = None
        for step in range(bisection_steps + 1):
            mix = high if step == 0 else (low + high) / 2
            audited += 1
            design = _audit_design(model, kernels, design_kernel, mix, budget, delta, tau,
                                   directions, outputs)
            if design.audit.holds:
                found = design
                if step == 0:
                    break
                low = mix
            else:
                high = mix
                if step == 0 and bisection_steps == 0:
                    break
        if found is None and low == 0:
            audited += 1
            found = _audit_design(model, kernels, design_kernel, Fraction(0), budget, delta, tau,
                                  directions, outputs)
        if found is not None and found.audit.holds and (best is None or found.loss < best.loss):
            best = found
    if best is None:
        audited += 1
        fallback = DatasetKernel("added", {x: Distribution.point("0") for x in datasets})
        best = _audit_design(model, kernels, fallback, Fraction(0), budget, delta, tau,
                             directions, outputs)
        note += "only the uninformative added mechanism verified; "
    reason = note
    return Task1Result(tuple(names), budget.text, delta, tau, existing, best, len(objective_trace),
                       tuple(objective_trace), audited, reason)


def _rational_row(values) -> Distribution:
    probs = {a: Fraction(float(v)).limit_denominator(1000) for a, v in enumerate(values)}
    total = sum(probs.values(), Fraction(0))
    return Distribution({str(a): p / total for a, p in probs.items() if p})


def _audit_design(model, kernels, design_kernel, mix, budget, delta, tau, directions,
                  outputs) -> Design:
    uniform = Distribution({str(a): Fraction(1, outputs) for a in range(outputs)})
    rows = {x: Distribution.mixture([(mix, row), (1 - mix, uniform)])
            for x, row in design_kernel.rows.items()}
    kernel = DatasetKernel("added", rows)
    all_kernels = [*kernels, kernel]
    joint_rows = true_joint(model, all_kernels)
    audit = dcp_check(joint_rows, directions, budget, delta, "+".join(
        [k.name for k in all_kernels]))
    prior = model.secret_prior()
    membership = in_pi(posterior(prior, joint_rows), prior, tau, delta)
    return Design(kernel, mix, audit, _loss(model, all_kernels), membership)
