"""Composition of DCP mechanisms: the true joint, the DP-style product, the dependence term L^G,
invertibility of G, the reductions to Pufferfish and DP, and composition audits beside DP's
basic and optimal composition bounds.

Sources: Zhang et al., Differential Confounding Privacy and Inverse Composition, §III and
Appendix C.

* **True joint** of ``k`` mechanisms run on the same dataset (eq. (10)):
  ``D_[k](ȳ | s) = Σ_x Π_i γ_i(y_i | x) P_θ(x | s)``.
* **Product of the effective mechanisms** ``D_{1..k}(ȳ | s) = Π_i ψ_i(y_i | s)`` (App. L,
  ``D_{1,2}``): what treating the effective mechanisms as independent DP mechanisms assumes
  (the composition ``N(ψ)`` of §III).
* **Dependence term** of eq. (11): ``L_b = L^G + L^id`` with ``L^id = Σ_i log ψ_i^{s0}/ψ_i^{s1}``,
  so per output ``e^{L^G(ȳ)} = (D_[k](ȳ|s0) Π_i ψ_i(y_i|s1)) / (D_[k](ȳ|s1) Π_i ψ_i(y_i|s0))``.
  For discrete outputs Sklar's copula is not unique; we use the copula-density ratio
  ``c_s(ȳ) = D_[k](ȳ|s) / Π_i ψ_i(y_i|s)`` where the product is positive and ``c_s(ȳ) = 1``
  where it is zero (there ``D_[k](ȳ|s) = 0`` too, so the copula is irrelevant), and
  ``e^{L^G} = c_{s0}/c_{s1}``; this is what eq. (11) leaves once ``L^id`` is removed, and it is
  ``INFINITY`` where ``c_{s1} = 0``.  Values are given for ``ȳ`` with ``D_[k](ȳ|s0) > 0``.
  ``L^G ≠ 0`` means ``Pr_{Ȳ ~ D_[k](·|s0)}[L^G(Ȳ) ≠ 0] > 0``.
* **Invertible G** (Definition 2): every secret ``s`` with ``P_θ(s) > 0`` has a dataset ``x_s``
  with ``P_θ(x_s | s) = 1``.  Reductions: if ``S`` is a function of ``X`` (``P_θ(s | x) ∈ {0,1}``)
  DCP with ``δ = 0`` is Pufferfish privacy with the single prior ``P_θ(x)`` and the secrets
  ``{x : G(x) = s}`` (App. C.3); if ``G`` is invertible and adjacent secrets have distinct
  ``x_s``, DCP is DP on the dataset pairs ``(x_s, x_s')`` and ``ψ_i(·|s) = γ_i(·|x_s)``
  (App. C.4, App. J).
* **DP composition bounds** applied to the individual levels ``(ε_i, δ_i)``: basic composition
  ``(Σ ε_i, Σ δ_i)`` and the optimal composition theorem (Kairouz, Oh, Viswanath, ICML 2015,
  Theorem 3.3; Murtagh and Vadhan, TCC 2016, Theorem 1.5 — reference [6] of Zhang et al.): the
  composition is ``(ε_g, δ_g)``-DP iff

      (1/Π_i(1+e^{ε_i})) Σ_{S⊆[k]} max(e^{Σ_{i∈S} ε_i} − e^{ε_g} e^{Σ_{i∉S} ε_i}, 0)
          <= 1 − (1 − δ_g)/Π_i(1 − δ_i).

  The left side is the hockey-stick divergence of the product of randomized-response pairs
  ``(e^{ε_i}, 1)/(1+e^{ε_i})`` against their mirror images; equal ``ε_i`` are grouped (binomial
  counts), so ``m`` distinct levels of multiplicities ``k_j`` cost ``Π_j (k_j + 1)`` atoms instead
  of ``2^k``.  With ``e^{ε_i}`` rational the bound ``ε_g`` for a rational ``δ_g`` is the log of an
  exact rational (same piecewise inversion as :func:`pufferfish.verify.dcp.levels.least_ratio`).  It is
  cross-checked against the exact composition of the extremal mechanisms of Kairouz et al.
  (outputs ``0..3`` with ``P = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0)`` and ``Q`` its mirror).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
import math
from itertools import product as cartesian
from math import comb

from pufferfish.models.dcp import DCPModel, DatasetKernel
from pufferfish.models.distribution import Distribution, product_distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.verify.numerics.certified import Budget, parse_budget
from pufferfish.verify.numerics.intervals import endpoints, interval_context, log_interval, rational_interval
from pufferfish.verify.dcp.levels import (DCPDelta, DCPLevel, dcp_delta, dcp_level, effective_mechanism,
                        hockey_stick, least_ratio)
from pufferfish.verify.report import Explained

__all__ = ["effective_mechanism", "joint_kernel", "true_joint", "product_of_effective",
           "dependence_term", "invertibility", "reduction", "optimal_composition_ratio",
           "optimal_composition_delta", "extremal_pair", "composition_audit", "cross_entropy_gap"]


# --------------------------------------------------------------------------------------------
# joint, product, dependence term
# --------------------------------------------------------------------------------------------

def joint_kernel(kernels: Sequence[DatasetKernel], name: str | None = None) -> DatasetKernel:
    """The composition ``M(x; γ̄) = (M_1(x), ..., M_k(x))`` run on the same ``x`` (§III).

    Outputs are tuples; the mechanisms' randomness is independent given ``x``.
    """
    if not kernels:
        raise ModelError("a composition needs at least one mechanism", "--mechanism")
    datasets = set(kernels[0].rows)
    for k in kernels[1:]:
        datasets &= set(k.rows)
    rows = {x: product_distribution(k.row(x) for k in kernels) for x in kernels[0].rows
            if x in datasets}
    return DatasetKernel(name or "+".join(k.name for k in kernels), rows)


def true_joint(model: DCPModel, kernels: Sequence[DatasetKernel]) -> dict[Hashable, Distribution]:
    """``D_[k](ȳ | s)`` of eq. (10): the effective mechanism of :func:`joint_kernel`."""
    return effective_mechanism(model, joint_kernel(kernels))


def product_of_effective(model: DCPModel,
                         kernels: Sequence[DatasetKernel]) -> dict[Hashable, Distribution]:
    """``Π_i ψ_i(y_i | s)``: the composition ``N(ψ̄)`` of the effective mechanisms (§III)."""
    rows = [effective_mechanism(model, k) for k in kernels]
    return {s: product_distribution(r[s] for r in rows) for s in rows[0]}


@dataclass(frozen=True)
class DependenceTerm:
    """``e^{L^G(ȳ)}`` of eq. (11) for one ordered pair, over the outputs ``ȳ`` possible under ``s0``.

    ``values`` holds ``(ȳ, Pr[ȳ | s0], ratio)`` with ``ratio`` an exact rational, ``INFINITY`` or
    ``None`` (undefined: ``∞ − ∞``).  ``nonzero`` says ``Pr_{s0}[L^G ≠ 0] > 0``.
    """

    pair: tuple
    values: tuple[tuple[Hashable, Fraction, Ratio | None], ...]

    @property
    def nonzero_mass(self) -> Fraction:
        return sum((m for _, m, r in self.values if r is None or r != 1), Fraction(0))

    @property
    def nonzero(self) -> bool:
        return self.nonzero_mass > 0

    def to_dict(self) -> dict:
        return {"pair": [str(s) for s in self.pair], "nonzero": self.nonzero,
                "nonzero_mass": fraction_str(self.nonzero_mass),
                "outputs": [{"output": [str(v) for v in y], "probability": fraction_str(m),
                             "exp_LG": None if r is None else fraction_str(r),
                             "LG": "undefined" if r is None else _signed_log(r),
                             "LG_float": None if r is None else _signed_float(r)}
                            for y, m, r in self.values]}


def _signed_log(r: Ratio) -> str:
    if r == INFINITY or r >= 1:
        return epsilon_str(r)
    if r == 0:
        return "-inf"
    return f"-log({fraction_str(1 / Fraction(r))})"


def _signed_float(r: Ratio) -> float:
    if r == INFINITY:
        return float("inf")
    if r == 0:
        return float("-inf")
    return epsilon_float(r) if r >= 1 else -epsilon_float(1 / Fraction(r))


def dependence_term(model: DCPModel, kernels: Sequence[DatasetKernel], s0: Hashable,
                    s1: Hashable) -> DependenceTerm:
    """``e^{L^G}`` of eq. (11) per output for the ordered pair ``(s0, s1)`` (exact).

    >>> m = DCPModel.build({"s0": {"a": "1/4", "b": "1/4"}, "s1": {"c": "1/4", "d": "1/4"}},
    ...     "all", {"m1": {"a": {1: 1}, "b": {0: 1}, "c": {1: 1}, "d": {0: 1}},
    ...             "m2": {"a": {1: 1}, "b": {0: 1}, "c": {0: 1}, "d": {1: 1}}})
    >>> dependence_term(m, list(m.mechanisms.values()), "s0", "s1").values[0][2]
    inf
    """
    joint = true_joint(model, kernels)
    marginals = [effective_mechanism(model, k) for k in kernels]

    def copula(s, y) -> Fraction:
        independent = Fraction(1)
        for i, part in enumerate(y):
            independent *= marginals[i][s].prob(part)
        return joint[s].prob(y) / independent if independent else Fraction(1)

    values = []
    for y, mass in joint[s0].items():
        c0, c1 = copula(s0, y), copula(s1, y)
        values.append((y, mass, INFINITY if not c1 else c0 / c1))
    return DependenceTerm((s0, s1), tuple(values))


# --------------------------------------------------------------------------------------------
# invertibility (Definition 2) and reductions (App. C.3–C.4)
# --------------------------------------------------------------------------------------------

@dataclass(repr=False, frozen=True)
class Invertibility(Explained):
    """Definition 2: ``holds`` with ``datasets[s] = x_s``, else the first failing secret."""

    holds: bool
    datasets: Mapping[Hashable, Hashable]
    failing: Hashable | None = None
    failing_row: Distribution | None = None

    def to_dict(self) -> dict:
        data = {"invertible": self.holds,
                "x_s": {str(s): str(x) for s, x in self.datasets.items()}}
        if self.failing is not None:
            data["failing_secret"] = str(self.failing)
            data["P(x|s)"] = {str(x): fraction_str(p) for x, p in self.failing_row.items()}
        return data

    def explain(self) -> str:
        if self.holds:
            return "G is invertible (Definition 2): " + ", ".join(
                f"{s} -> {x}" for s, x in self.datasets.items())
        return f"G is not invertible (Definition 2): P(x | {self.failing}) = " + ", ".join(
            f"{x}: {fraction_str(p)}" for x, p in self.failing_row.items())


def invertibility(model: DCPModel) -> Invertibility:
    """Decide Definition 2 exactly: is every ``P_θ(·|s)`` (``P_θ(s) > 0``) a point mass?"""
    found = {}
    prior = model.secret_prior()
    for s in model.secrets:
        if not prior.prob(s):
            continue
        row = model.dataset_given(s)
        if len(row) != 1:
            return Invertibility(False, found, s, row)
        found[s] = row.support[0]
    return Invertibility(True, found)


@dataclass(frozen=True)
class Reduction:
    """Which classical notion DCP reduces to on this model (App. C.3–C.4)."""

    kind: str                     # "dp", "pufferfish" or "none"
    invertible: Invertibility
    deterministic_secret: bool    # S is a function of X (P(s|x) ∈ {0, 1})
    reason: str

    def to_dict(self) -> dict:
        return {"reduces_to": self.kind, "deterministic_secret": self.deterministic_secret,
                "reason": self.reason, **self.invertible.to_dict()}


def reduction(model: DCPModel) -> Reduction:
    """Classify the model: DP (App. C.4), Pufferfish (App. C.3) or genuinely confounded."""
    inv = invertibility(model)
    deterministic = all(len(model.secret_given(x)) == 1 for x in model.dataset_marginal().support)
    if inv.holds:
        clashes = [(a, b) for a, b in model.directions() if inv.datasets[a] == inv.datasets[b]]
        if not clashes:
            return Reduction("dp", inv, deterministic,
                             "G is invertible and adjacent secrets have distinct datasets x_s: "
                             "psi_i(.|s) = gamma_i(.|x_s) (App. C.4, App. J)")
    if deterministic:
        return Reduction("pufferfish", inv, True,
                         "S is a function of X: (eps, 0)-DCP is eps-Pufferfish privacy with the "
                         "single prior P(x) and secrets {x : G(x) = s} (App. C.3)")
    return Reduction("none", inv, False, "G is randomized and not invertible: the secret is "
                     "confounded with the dataset")


# --------------------------------------------------------------------------------------------
# DP composition bounds from the individual levels
# --------------------------------------------------------------------------------------------

def _levels(levels: Iterable[tuple[object, object]]) -> list[tuple[Fraction, Fraction]]:
    out = []
    for k, (ratio, delta) in enumerate(levels):
        if ratio == INFINITY:
            raise ModelError("an individual level is infinite; the DP bounds are vacuous",
                             f"levels.{k}")
        r, d = Fraction(ratio), Fraction(delta)  # type: ignore[arg-type]
        if r < 1 or not 0 <= d <= 1:
            raise ModelError(f"a level needs e^eps >= 1 and delta in [0, 1], got "
                             f"({fraction_str(r)}, {fraction_str(d)})", f"levels.{k}")
        out.append((r, d))
    return out


def _rr_pair(levels: list[tuple[Fraction, Fraction]]) -> tuple[Distribution, Distribution]:
    """The product of randomized-response pairs, grouped by equal ``e^{ε_i}`` (count vectors)."""
    groups: dict[Fraction, int] = {}
    for r, _ in levels:
        groups[r] = groups.get(r, 0) + 1
    ratios = list(groups)
    norm = Fraction(1)
    for r, _ in levels:
        norm *= 1 + r
    p_atoms, q_atoms = {}, {}
    for counts in cartesian(*(range(groups[r] + 1) for r in ratios)):
        weight, p_mass, q_mass = 1, Fraction(1), Fraction(1)
        for r, c in zip(ratios, counts):
            weight *= comb(groups[r], c)
            p_mass *= r ** c
            q_mass *= r ** (groups[r] - c)
        p_atoms[counts] = weight * p_mass / norm
        q_atoms[counts] = weight * q_mass / norm
    return Distribution._trusted({k: v for k, v in p_atoms.items() if v}), \
        Distribution._trusted({k: v for k, v in q_atoms.items() if v})


def _survival(levels: list[tuple[Fraction, Fraction]]) -> Fraction:
    result = Fraction(1)
    for _, d in levels:
        result *= 1 - d
    return result


def optimal_composition_ratio(levels: Iterable[tuple[object, object]], delta: Fraction) -> Ratio:
    """Least ``e^{ε_g}`` with the composition of ``(ε_i, δ_i)``-DP mechanisms ``(ε_g, δ)``-DP.

    ``levels`` are ``(e^{ε_i}, δ_i)``; Murtagh–Vadhan Theorem 1.5 (module doc).  Returns
    ``INFINITY`` when no ε suffices (``δ < 1 − Π(1 − δ_i)``).

    >>> optimal_composition_ratio([(3, 0)], Fraction(0))
    Fraction(3, 1)
    """
    parsed = _levels(levels)
    survival = _survival(parsed)
    if survival == 0:
        return Fraction(1)
    slack = 1 - (1 - Fraction(delta)) / survival
    if slack < 0:
        return INFINITY
    p, q = _rr_pair(parsed)
    return least_ratio(p, q, slack).ratio


def optimal_composition_delta(levels: Iterable[tuple[object, object]],
                              epsilon: Budget | str) -> tuple[Fraction | None, Fraction, Fraction]:
    """Least ``δ_g`` for a given ``ε_g`` (Murtagh–Vadhan Theorem 1.5): ``(exact or None, lower, upper)``.

    ``δ_g = 1 − Π(1−δ_i)(1 − HS)`` with ``HS`` the randomized-response hockey-stick divergence,
    exact when ``e^{ε_g}`` is rational, else certified bounds.
    """
    parsed = _levels(levels)
    survival = _survival(parsed)
    p, q = _rr_pair(parsed)
    h = hockey_stick(p, q, epsilon if isinstance(epsilon, Budget) else parse_budget(epsilon))
    value = None if h.value is None else 1 - survival * (1 - h.value)
    return value, 1 - survival * (1 - h.lower), 1 - survival * (1 - h.upper)


def extremal_pair(ratio: Fraction, delta: Fraction) -> tuple[Distribution, Distribution]:
    """Kairouz–Oh–Viswanath's extremal ``(ε, δ)``-DP pair on outputs ``0..3`` (module doc)."""
    r, d = Fraction(ratio), Fraction(delta)
    p = {0: d, 1: (1 - d) * r / (1 + r), 2: (1 - d) / (1 + r), 3: Fraction(0)}
    q = {0: Fraction(0), 1: (1 - d) / (1 + r), 2: (1 - d) * r / (1 + r), 3: d}
    return Distribution(p), Distribution(q)


# --------------------------------------------------------------------------------------------
# the composition audit
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CompositionRow:
    """One line of the side-by-side table: the least ε for δ and/or δ(ε) of one method."""

    method: str
    ratio: Ratio | None
    delta_exact: Fraction | None = None
    delta_lower: Fraction | None = None
    delta_upper: Fraction | None = None
    note: str = ""

    def to_dict(self) -> dict:
        data: dict = {"method": self.method, "note": self.note}
        if self.ratio is not None:
            data.update({"max_ratio": fraction_str(self.ratio), "epsilon": epsilon_str(self.ratio),
                         "epsilon_float": epsilon_float(self.ratio)})
        if self.delta_lower is not None:
            data.update({"delta": None if self.delta_exact is None else fraction_str(self.delta_exact),
                         "delta_bounds": [fraction_str(self.delta_lower),
                                          fraction_str(self.delta_upper)],
                         "delta_float": float(self.delta_upper)})
        return data


@dataclass(frozen=True)
class CompositionAudit:
    """Composition of DCP mechanisms on one model: the true joint beside DP-style predictions.

    ``individual`` are the levels ``(ε_i, δ_i)`` of each mechanism; ``rows`` the table (true
    joint, product of effective mechanisms, basic and optimal DP bounds); ``dependence`` the
    ``L^G`` terms per ordered pair; ``basic_holds`` whether the true joint satisfies
    ``(Σ ε_i, Σ δ_i)``-DCP (decided exactly).
    """

    mechanisms: tuple[str, ...]
    delta: Fraction | None
    epsilon: str | None
    individual: tuple[DCPLevel, ...]
    rows: tuple[CompositionRow, ...]
    dependence: tuple[DependenceTerm, ...]
    basic_holds: bool | None
    true_level: DCPLevel | None = None
    true_delta: DCPDelta | None = None
    reduction: Reduction | None = None
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        return {"check": "dcp_composition", "mechanisms": list(self.mechanisms),
                "delta": None if self.delta is None else fraction_str(self.delta),
                "epsilon": self.epsilon,
                "individual": [lv.to_dict() for lv in self.individual],
                "table": [r.to_dict() for r in self.rows],
                "basic_composition_holds": self.basic_holds,
                "true_joint": self.true_level.to_dict() if self.true_level else None,
                "true_joint_delta": self.true_delta.to_dict() if self.true_delta else None,
                "dependence": [d.to_dict() for d in self.dependence],
                "reduction": self.reduction.to_dict() if self.reduction else None,
                "notes": list(self.notes)}


def composition_audit(model: DCPModel, names: Sequence[str] | None = None,
                      delta: Fraction | None = Fraction(0), epsilon: Budget | str | None = None,
                      individual_deltas: Sequence[Fraction] | None = None) -> CompositionAudit:
    """Audit the composition of the named mechanisms (all of the model's by default).

    Individual levels: ``ε_i`` is the least ε for ``δ_i`` (default ``δ_i = 0``).  Rows: the least
    ε for ``delta`` of the true joint (eq. (10)), of the product ``N(ψ̄)`` (the paper's
    ``opt_δ`` underlined), of basic composition and of the optimal composition theorem; with
    ``epsilon`` also ``δ(ε)`` of each.  Exact throughout (certified where ``e^ε`` is irrational).
    """
    names = list(names) if names else list(model.mechanisms)
    if not names:
        raise ModelError("the model has no mechanisms to compose", "mechanisms")
    kernels = [model.mechanism(n) for n in names]
    directions = model.directions()
    if individual_deltas is None:
        individual_deltas = [Fraction(0)] * len(kernels)
    if len(individual_deltas) != len(kernels):
        raise ModelError(f"give one individual delta per mechanism ({len(kernels)})",
                         "--individual-delta")
    budget = None
    if epsilon is not None:
        budget = epsilon if isinstance(epsilon, Budget) else parse_budget(epsilon)
    individual = tuple(dcp_level(effective_mechanism(model, k), directions, d, k.name)
                       for k, d in zip(kernels, individual_deltas))
    truth = true_joint(model, kernels)
    product = product_of_effective(model, kernels)
    rows: list[CompositionRow] = []
    notes: list[str] = []
    true_level = dcp_level(truth, directions, delta, "true joint") if delta is not None else None
    prod_level = dcp_level(product, directions, delta, "product") if delta is not None else None
    true_delta = dcp_delta(truth, directions, budget, "true joint") if budget else None
    prod_delta = dcp_delta(product, directions, budget, "product") if budget else None

    def row(method, level, hs, note):
        return CompositionRow(method, None if level is None else level.ratio,
                              None if hs is None else hs.value, None if hs is None else hs.lower,
                              None if hs is None else hs.upper, note)

    rows.append(row("true joint (eq. 10)", true_level, true_delta,
                    "the k mechanisms run on the same x"))
    rows.append(row("product of effective mechanisms", prod_level, prod_delta,
                    "DP-style assumption: outputs independent given s"))
    finite = all(lv.ratio != INFINITY for lv in individual)
    levels = [(lv.ratio, lv.delta) for lv in individual]
    basic_ratio: Ratio = INFINITY
    basic_delta = sum((lv.delta for lv in individual), Fraction(0))
    basic_holds = None
    if finite:
        basic_ratio = Fraction(1)
        for lv in individual:
            basic_ratio *= lv.ratio  # type: ignore[operator]
        basic_dcp = dcp_delta(truth, directions, f"log({basic_ratio})", "true joint")
        basic_holds = basic_dcp.value <= basic_delta  # type: ignore[operator]
        rows.append(CompositionRow(f"basic composition (sum eps_i, sum delta_i = "
                                   f"{fraction_str(basic_delta)})", basic_ratio, None, None, None,
                                   "valid for the true joint: " + ("yes" if basic_holds else
                                                                   "NO")))
        if delta is not None:
            rows.append(CompositionRow("optimal DP composition (Murtagh-Vadhan Thm 1.5)",
                                       optimal_composition_ratio(levels, delta), None, None, None,
                                       "from the individual levels only"))
        if budget is not None:
            value, low, high = optimal_composition_delta(levels, budget)
            rows.append(CompositionRow("optimal DP composition: delta(eps)", None, value, low,
                                       high, "from the individual levels only"))
    else:
        notes.append("an individual level is infinite for its delta_i: the DP bounds are vacuous")
    dependence = tuple(dependence_term(model, kernels, a, b) for a, b in directions)
    return CompositionAudit(tuple(names), delta, None if budget is None else budget.text,
                            individual, tuple(rows), dependence, basic_holds, true_level,
                            true_delta, reduction(model), tuple(notes))


# --------------------------------------------------------------------------------------------
# Lemma 4: expected cross-entropy of the true and the product posteriors
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CrossEntropyGap:
    """``CEL(J_{1..k}) − CEL(J_[k]) = KL(J_[k] ‖ J_{1..k})`` (Zhang et al., Differential Confounding
    Privacy and Inverse Composition, App. L, Lemma 4), certified.

    ``equal`` says the two posteriors coincide exactly (then the gap is exactly 0).
    """

    lower: float
    upper: float
    equal: bool

    def to_dict(self) -> dict:
        return {"gap_bounds": [self.lower, self.upper], "posteriors_equal": self.equal}


def cross_entropy_gap(model: DCPModel, kernels: Sequence[DatasetKernel]) -> CrossEntropyGap:
    """Certified bounds on ``Σ_{s,ȳ} P(s, ȳ) log(J_[k](s|ȳ)/J_{1..k}(s|ȳ))`` (a 96-bit
    interval sum, :mod:`pufferfish.verify.numerics.intervals`).

    ``P(s, ȳ) = P_θ(s) D_[k](ȳ|s)`` is the true joint; ``J_[k]`` its posterior and ``J_{1..k}``
    the posterior of the product (both exact rationals); the logs are bounded by intervals.
    """
    prior = model.secret_prior()
    truth = true_joint(model, kernels)
    product = product_of_effective(model, kernels)
    outputs = list(dict.fromkeys(y for row in truth.values() for y in row.support))
    equal = True
    context = interval_context(96)
    total = context.mpf(0)
    for y in outputs:
        p_true = sum((prior.prob(s) * truth[s].prob(y) for s in truth), Fraction(0))
        p_prod = sum((prior.prob(s) * product[s].prob(y) for s in truth), Fraction(0))
        for s in truth:
            joint = prior.prob(s) * truth[s].prob(y)
            j_true = joint / p_true
            j_prod = prior.prob(s) * product[s].prob(y) / p_prod if p_prod else Fraction(0)
            if j_true != j_prod:
                equal = False
            if not joint:
                continue
            total += rational_interval(context, joint) * log_interval(context, j_true / j_prod)
    low, high = (float(x) for x in endpoints(total))
    if equal:
        return CrossEntropyGap(0.0, 0.0, True)
    return CrossEntropyGap(math.nextafter(low, -math.inf), math.nextafter(high, math.inf), False)


# --------------------------------------------------------------------------------------------
# App. C.3: the Pufferfish reduction, cross-checked with the toolkit's Pufferfish audit
# --------------------------------------------------------------------------------------------

def as_pufferfish_model(model: DCPModel, mechanism: str):
    """The Pufferfish instantiation of a DCP model whose secret is a function of the dataset.

    App. C.3 of Zhang et al., Differential Confounding Privacy and Inverse Composition: when
    ``S = G(X)`` deterministically, ``(ε, 0)``-DCP of a mechanism is ε-Pufferfish privacy with the
    single prior ``P_θ(x)``, the secrets ``{x : G(x) = s}`` and the adjacent pairs as secret pairs.
    The result is an ordinary :class:`~pufferfish.models.model.PufferfishModel` (one attribute ``x``
    whose values are the datasets), so :func:`pufferfish.verify.privacy.pufferfish.pufferfish_level`
    can be run on it independently.
    """
    from pufferfish.models.mechanisms import TableMechanism
    from pufferfish.models.model import PufferfishModel
    from pufferfish.models.priors import TablePrior
    from pufferfish.models.secrets import Secret, SecretPair
    from pufferfish.models.universe import Universe

    if reduction(model).kind not in ("pufferfish", "dp") or not all(
            len(model.secret_given(x)) == 1 for x in model.dataset_marginal().support):
        raise ModelError("the secret is not a function of the dataset, so DCP does not reduce to "
                         "Pufferfish privacy (App. C.3)", "joint")
    datasets = list(model.dataset_marginal().support)
    universe = Universe.listed(["x"], [datasets], [(x,) for x in datasets])
    prior = TablePrior("P_theta", Distribution({(x,): p for x, p in
                                                model.dataset_marginal().items()}))
    secrets = {}
    for s in model.secret_prior().support:
        members = [(x,) for x in datasets if model.secret_given(x).prob(s)]
        secrets[str(s)] = Secret.of_datasets(str(s), members)
    pairs = [SecretPair(secrets[str(a)], secrets[str(b)]) for a, b in model.pairs
             if str(a) in secrets and str(b) in secrets]
    kernel = model.mechanism(mechanism)
    table = TableMechanism(mechanism, {(x,): kernel.row(x) for x in datasets})
    return PufferfishModel(universe, {"P_theta": prior}, secrets, pairs, {mechanism: table},
                           f"Pufferfish reduction (App. C.3) of DCP mechanism {mechanism}")


def pufferfish_cross_check(model: DCPModel, mechanism: str) -> tuple[object, object]:
    """``(least e^ε of (ε, 0)-DCP, e^ε of the Pufferfish level of the reduction)``; App. C.3 says
    they are equal.  Both are exact."""
    from pufferfish.verify.privacy.pufferfish import pufferfish_level

    rows = effective_mechanism(model, model.mechanism(mechanism))
    dcp = dcp_level(rows, model.directions(), Fraction(0), mechanism)
    reduced = as_pufferfish_model(model, mechanism)
    return dcp.ratio, pufferfish_level(reduced, reduced.mechanism(mechanism)).level_ratio
