"""NfC constraint sets under post-processing (``000_65109fe28ca61d17.txt`` §5.2, Theorem 5, and its
proof in Appendix C).

An NfC constraint (Equation 1, §5.1) names a dataset ``D_t`` (the left side), a secret pair and a
convex combination β over datasets of the second secret; a mechanism satisfies it at ε when, for
every output ω,

    P(ω|D_t) <= e^ε Π_ℓ P(ω|D_ℓ)^{β_ℓ}          (log form: v·w <= ε for v = log P(ω|·))

with ``w = e_t − β``.  Theorem 5 states that a non-redundant set of such constraints is
post-processing invariant if every β is one-hot, and *not* invariant if some β has two or more
nonzero entries.

**What is actually true: every NfC constraint is post-processing invariant.**  The weighted
geometric mean ``G(x) = Π_ℓ x_ℓ^{β_ℓ}`` (``β`` a convex combination) is concave and positively
homogeneous on the non-negative orthant, hence superadditive: ``G(Σ_k c_k x_k) >= Σ_k c_k G(x_k)``
for ``c_k >= 0``.  If ``A`` is any post-processor (a stochastic map), the likelihood of its output
``y`` is ``Σ_ω A(y|ω) P(ω|·)``, so

    P_A(y|D_t) = Σ_ω A(y|ω) P(ω|D_t) <= e^ε Σ_ω A(y|ω) G(P(ω|·)) <= e^ε G(P_A(y|·)).

The proof's Step 3 applies the AM–GM inequality termwise to ``Σ_i w_i log(x_i + y_i)`` although
``w`` has negative entries ``−β_ℓ``; for those terms the inequality is reversed, and the
post-processed value can only go *down*.  This module therefore (1) represents constraint sets,
(2) decides redundancy exactly, (3) reports Theorem 5's classification next to the verdict the
toolkit proves (invariant), (4) carries out the proof's construction with exact rationals — the
mechanism M̂ and the post-processor A of Steps 1–3 — and evaluates both exactly, so a user sees
that A∘M̂ still satisfies the constraint, and (5) audits any mechanism and post-processor.

Redundancy is an exact rational LP (sympy's exact simplex): constraint ``i`` is implied by the
others on ``{v <= 0}`` iff ``max {v·w_i : v·w_j <= ε (j ≠ i), v <= 0} <= ε``.  Because every
``w`` sums to 0, adding a constant to ``v`` changes nothing, so the feasible set is a cone shifted
by ``ε`` and the answer is the same for every ``ε > 0``: it is decided at ``ε = 1`` exactly, also
when the budget is transcendental (``log(3)``).  At ``ε = 0`` the LP is homogeneous (value 0 or
unbounded).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import sympy
from mpmath import mp
from sympy.solvers.simplex import UnboundedLPError, linprog

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import Mechanism, PostProcessed, TableMechanism, jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, fraction_str, ratio_key
from pufferfish.models.priors import UniformPrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Dataset, Universe
from pufferfish.verify.numerics.certified import Budget, compare_ratio, log_bounds, scale_budget


@dataclass(frozen=True)
class NfcConstraint:
    """``P(ω|left) <= e^ε Π_ℓ P(ω|D_ℓ)^{β_ℓ}`` for every output ω (Equation 1)."""

    name: str
    left: Dataset
    first: str
    second: str
    beta: tuple[tuple[Dataset, Fraction], ...]

    def __post_init__(self) -> None:
        total = sum((b for _, b in self.beta), Fraction(0))
        if not self.beta or total != 1 or any(b <= 0 for _, b in self.beta):
            raise ModelError(f"β must be positive weights summing to 1, got sum "
                             f"{fraction_str(total)}", f"constraints.{self.name}.beta")
        if any(d == self.left for d, _ in self.beta):
            raise ModelError("β weights the left-hand dataset itself; the two secrets of a pair "
                             "hold on different datasets", f"constraints.{self.name}.beta")

    @property
    def one_hot(self) -> bool:
        """A single nonzero β entry: a differential-privacy-style constraint."""
        return len(self.beta) == 1

    def weights(self, datasets: Sequence[Dataset]) -> list[Fraction]:
        """The vector ``w = e_left − β`` over ``datasets``."""
        position = {d: k for k, d in enumerate(datasets)}
        w = [Fraction(0)] * len(datasets)
        w[position[self.left]] += 1
        for dataset, b in self.beta:
            w[position[dataset]] -= b
        return w

    def to_dict(self) -> dict:
        return {"name": self.name, "left": list(self.left), "pair": [self.first, self.second],
                "beta": [[list(d), fraction_str(b)] for d, b in self.beta]}


@dataclass(frozen=True)
class ConstraintEvaluation:
    """The worst output of one constraint on one mechanism, decided exactly or certified."""

    constraint: str
    holds: bool
    relation: str                 # below / tight / above (value vs ε), or undecided
    output: object
    value_low: float              # certified bounds on log P(ω|D_t) − Σ β_ℓ log P(ω|D_ℓ)
    value_high: float
    exact_ratio: Ratio | None = None   # R = P_t^q / Π P_ℓ^{qβ_ℓ} when q is small
    power: int | None = None

    @property
    def value(self) -> float:
        """The constraint's value at the worst output (float, for reading)."""
        if self.value_low == self.value_high or math.isinf(self.value_high):
            return self.value_high
        return (self.value_low + self.value_high) / 2

    def to_dict(self) -> dict:
        data = {"constraint": self.constraint, "holds": self.holds, "relation": self.relation,
                "worst_output": jsonable_output(self.output), "value_float": self.value,
                "value_bounds": [self.value_low, self.value_high]}
        if self.exact_ratio is not None and (self.exact_ratio == INFINITY
                                             or len(fraction_str(self.exact_ratio)) < 300):
            data["value"] = ("inf" if self.exact_ratio == INFINITY
                             else f"log({fraction_str(self.exact_ratio)})/{self.power}")
        return data


EXACT_POWER_LIMIT = 256
"""Above this common denominator of β, constraints are decided by interval arithmetic instead of
exact powers (``P^q`` with a huge ``q`` cannot be formed)."""


def evaluate_constraint(constraint: NfcConstraint, mechanism: Mechanism,
                        budget: Budget) -> ConstraintEvaluation:
    """Decide Equation 1 for every output of ``mechanism``.

    With ``q`` the common denominator of β, the constraint at ω is ``R_ω <= e^{qε}`` for the
    rational ``R_ω = P(ω|D_t)^q / Π P(ω|D_ℓ)^{qβ_ℓ}``; for ``q <= 256`` that comparison is made
    exactly (:func:`pufferfish.verify.numerics.certified.compare_ratio`).  For larger ``q`` (β from a solver has
    denominators ``2^40``) the value ``log P(ω|D_t) − Σ β_ℓ log P(ω|D_ℓ)`` is enclosed with mpmath
    interval arithmetic at increasing precision; a comparison that no precision separates is
    reported ``undecided`` and does not count as holding.  ``P(ω|D_t) = 0`` satisfies the
    constraint; ``P(ω|D_t) > 0`` with some ``P(ω|D_ℓ) = 0`` violates it.
    """
    power = math.lcm(*(b.denominator for _, b in constraint.beta))
    left = mechanism.distribution(constraint.left)
    rows = [(mechanism.distribution(d), b) for d, b in constraint.beta]
    if power <= EXACT_POWER_LIMIT:
        return _evaluate_exactly(constraint, left, rows, power, budget)
    return _evaluate_by_intervals(constraint, left, rows, budget)


def _evaluate_exactly(constraint, left, rows, power, budget) -> ConstraintEvaluation:
    worst: tuple[Ratio, object] | None = None
    for output, p in left.items():
        denominator = Fraction(1)
        for row, b in rows:
            denominator *= row.prob(output) ** int(b * power)
        ratio: Ratio = INFINITY if not denominator else p ** power / denominator
        if worst is None or ratio_key(ratio) > ratio_key(worst[0]):
            worst = (ratio, output)
    if worst is None:
        return ConstraintEvaluation(constraint.name, True, "below", None, -math.inf, -math.inf)
    check = compare_ratio(worst[0], scale_budget(budget, power))
    if worst[0] == INFINITY:
        low = high = math.inf
    else:
        low, high = (x / power for x in log_bounds(worst[0]))
    return ConstraintEvaluation(constraint.name, check.holds, check.relation, worst[1], low, high,
                                worst[0], power)


def _evaluate_by_intervals(constraint, left, rows, budget) -> ConstraintEvaluation:
    from mpmath import iv

    best = None
    for bits in (128, 512, 2048):
        previous = iv.prec
        iv.prec = bits
        try:
            budget_interval = (iv.mpf(budget.epsilon.numerator) / budget.epsilon.denominator
                               if budget.ratio is None
                               else iv.log(iv.mpf(budget.ratio.numerator) / budget.ratio.denominator))
            values = []
            for output, p in left.items():
                if any(not row.prob(output) for row, _ in rows):
                    return ConstraintEvaluation(constraint.name, False, "above", output,
                                                math.inf, math.inf)
                value = iv.log(iv.mpf(p.numerator) / p.denominator)
                for row, b in rows:
                    q = row.prob(output)
                    value -= (iv.mpf(b.numerator) / b.denominator) * iv.log(
                        iv.mpf(q.numerator) / q.denominator)
                values.append((value, output))
            if not values:
                return ConstraintEvaluation(constraint.name, True, "below", None, -math.inf,
                                            -math.inf)
            value, output = max(values, key=lambda item: item[0].b)
            low = math.nextafter(float(value.a), -math.inf)
            high = math.nextafter(float(value.b), math.inf)
            best = (output, low, high)
            if value.b < budget_interval.a:
                return ConstraintEvaluation(constraint.name, True, "below", output, low, high)
            above = [(v, o) for v, o in values if v.a > budget_interval.b]
            if above:
                v, o = above[0]
                return ConstraintEvaluation(constraint.name, False, "above", o,
                                            math.nextafter(float(v.a), -math.inf),
                                            math.nextafter(float(v.b), math.inf))
        finally:
            iv.prec = previous
    output, low, high = best
    return ConstraintEvaluation(constraint.name, False, "undecided", output, low, high)


@dataclass(frozen=True)
class ConstraintSet:
    """A set of NfC constraints at one budget ε."""

    constraints: tuple[NfcConstraint, ...]
    budget: Budget

    @property
    def datasets(self) -> tuple[Dataset, ...]:
        seen: dict[Dataset, None] = {}
        for c in self.constraints:
            seen.setdefault(c.left, None)
            for d, _ in c.beta:
                seen.setdefault(d, None)
        return tuple(seen)

    def to_dict(self) -> dict:
        return {"nfc_constraints": 1, "epsilon": self.budget.text,
                "constraints": [c.to_dict() for c in self.constraints]}


def constraints_from_programs(result, budget: Budget) -> ConstraintSet:
    """The NfC constraints (Equation 1) given by the dual vectors β of solved NfC programs."""
    constraints = []
    for k, program in enumerate(result.programs):
        if program.infinite or not program.beta:
            continue
        constraints.append(NfcConstraint(f"c{k}", program.d_star, program.first, program.second,
                                         tuple(program.beta)))
    return ConstraintSet(tuple(constraints), budget)


# --------------------------------------------------------------------------------------------
# Redundancy (exact rational LP)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RedundancyReport:
    """Which constraints are implied by the others, and a non-redundant subset."""

    redundant: tuple[str, ...]
    kept: tuple[str, ...]
    lp_values: tuple[tuple[str, str], ...]     # constraint -> max v·w (units of ε) or "unbounded"

    def to_dict(self) -> dict:
        return {"redundant": list(self.redundant), "non_redundant": list(self.kept),
                "lp_values": {name: value for name, value in self.lp_values}}


def implied_value(target: NfcConstraint, others: Sequence[NfcConstraint],
                  datasets: Sequence[Dataset], epsilon_zero: bool = False) -> Fraction | None:
    """``max {v·w_target : v·w_j <= 1 (or 0), v <= 0}`` exactly; ``None`` when unbounded.

    ``target`` is implied by ``others`` iff the value is ``<= 1`` (``<= 0`` at ε = 0).  Solved as
    sympy's exact simplex over ``y = −v >= 0``: ``min y·w_target s.t. −y·w_j <= 1``.
    """
    value, _ = _exact_lp(target, others, datasets, 0 if epsilon_zero else 1)
    return value


def _exact_lp(target: NfcConstraint, others: Sequence[NfcConstraint], datasets: Sequence[Dataset],
              rhs: int, cap: int | None = None) -> tuple[Fraction | None, list[Fraction] | None]:
    """Maximise ``v·w_target`` over ``v <= 0`` with ``v·w_j <= rhs`` (and ``v·w_target <= cap``)."""
    def rational(x: Fraction) -> sympy.Rational:
        return sympy.Rational(x.numerator, x.denominator)

    cost = [rational(w) for w in target.weights(datasets)]
    rows = [[-rational(w) for w in c.weights(datasets)] for c in others]
    bounds = [rhs] * len(rows)
    if cap is not None:
        rows.append([-x for x in cost])
        bounds.append(cap)
    if not rows:
        rows, bounds = [[0] * len(datasets)], [1]
    try:
        value, point = linprog(cost, rows, bounds)
    except UnboundedLPError:
        return None, None
    return -_fraction(value), [-_fraction(y) for y in point]


def _fraction(value: sympy.Expr) -> Fraction:
    numerator, denominator = sympy.fraction(sympy.nsimplify(value))
    return Fraction(int(numerator), int(denominator))


def reduce_redundant(constraints: ConstraintSet) -> RedundancyReport:
    """Remove implied constraints one at a time until none is implied by the rest (exact)."""
    datasets = constraints.datasets
    zero = constraints.budget.epsilon == 0 if constraints.budget.epsilon is not None else False
    kept = list(constraints.constraints)
    values = {}
    removed = []
    changed = True
    while changed:
        changed = False
        for c in list(kept):
            others = [o for o in kept if o is not c]
            value = implied_value(c, others, datasets, zero)
            values[c.name] = "unbounded" if value is None else fraction_str(value)
            if value is not None and value <= (0 if zero else 1):
                kept.remove(c)
                removed.append(c.name)
                changed = True
                break
    return RedundancyReport(tuple(removed), tuple(c.name for c in kept), tuple(values.items()))


# --------------------------------------------------------------------------------------------
# Theorem 5's construction (Appendix C, Steps 1-3), carried out exactly
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Theorem5Construction:
    """The proof's M̂ and A for a mixed constraint, and what exact evaluation says about them."""

    constraint: NfcConstraint
    mechanism: TableMechanism
    postprocessed: PostProcessed
    mechanism_satisfies_all: bool
    before: ConstraintEvaluation          # the mixed constraint on M̂
    after: ConstraintEvaluation           # the mixed constraint on A∘M̂
    margin: float                          # how far below ε the rational M̂ was placed
    notes: tuple[str, ...] = ()

    @property
    def violation_found(self) -> bool:
        return self.mechanism_satisfies_all and not self.after.holds

    def to_dict(self) -> dict:
        return {"constraint": self.constraint.to_dict(),
                "mechanism_satisfies_all_constraints": self.mechanism_satisfies_all,
                "before": self.before.to_dict(), "after": self.after.to_dict(),
                "violation_found": self.violation_found, "margin": self.margin,
                "notes": list(self.notes)}


def theorem5_construction(constraints: ConstraintSet, mixed: NfcConstraint,
                          margin: float = 1e-9, digits: int = 40) -> Theorem5Construction:
    """Follow the proof of Theorem 5 with exact rationals and evaluate the result exactly.

    Step 1 (in units of ε, see the module docstring): ``u_b = −1`` (every constraint at 0);
    ``u_a`` maximises ``v·w_1`` under the other constraints (exact LP; > 1 because ``c_1`` is not
    redundant); ``u†`` is the point of the segment with ``u†·w_1 = 1 − margin`` (rational
    approximation cannot reach the face exactly: ``e^ε`` is irrational for rational ``ε ≠ 0``);
    ``v*``, ``v'`` are ``u†`` and ``u†`` moved along ``w_1``'s hyperplane in two β coordinates.
    Step 2: ``Pr[M̂ = 0] = e^{ε v* − c}``, ``Pr[M̂ = 2] = e^{ε v' − c}`` (rational approximations
    with ``digits`` digits), outputs 1 and 3 the complements to 1/2, ``c`` increased until every
    output meets every constraint.  Step 3: ``A`` maps 0 and 2 to 1 with probabilities
    ``p*/Pr[M̂(D_t) = 0]`` and ``p*/Pr[M̂(D_t) = 2]`` and everything else to 0.
    """
    datasets = constraints.datasets
    budget = constraints.budget
    if budget.epsilon == 0 or budget.infinite:
        raise ModelError("the construction needs 0 < ε < ∞ (at ε = 0 constant vectors are not "
                         "interior points)", "epsilon")
    eps = float(budget.epsilon) if budget.epsilon is not None else math.log(budget.ratio)
    others = [c for c in constraints.constraints if c is not mixed]
    w1 = mixed.weights(datasets)
    n = len(datasets)
    u_a = _maximiser(mixed, others, datasets)
    u_b = [Fraction(-1)] * n
    value_a = sum(w * u for w, u in zip(w1, u_a))
    target = 1 - Fraction(margin).limit_denominator(10**15)
    t = target / value_a                      # u_b·w1 = 0
    u_dagger = [b + t * (a - b) for a, b in zip(u_a, u_b)]
    position = {d: k for k, d in enumerate(datasets)}
    g1, g2 = (position[d] for d, _ in mixed.beta[:2])
    direction = [Fraction(0)] * n
    direction[g1], direction[g2] = w1[g2], -w1[g1]   # stays on w1's hyperplane
    others_w = [c.weights(datasets) for c in others]
    slack = min((1 - sum(w * u for w, u in zip(wj, u_dagger)) for wj in others_w),
                default=Fraction(1))
    scale = max(abs(x) for x in direction) * max((sum(abs(x) for x in wj) for wj in others_w),
                                                  default=Fraction(1))
    delta = min(Fraction(1, 2), slack / (2 * scale) if scale else Fraction(1, 2),
                min(-x for x in u_dagger) / (2 * max(abs(x) for x in direction)))
    v_star = [u + delta * d for u, d in zip(u_dagger, direction)]
    v_prime = u_dagger
    notes = []
    shift = 2
    mp.dps = digits
    while True:
        zero = [_exp_rational(eps * float(v) - shift, digits) for v in v_star]
        two = [_exp_rational(eps * float(v) - shift, digits) for v in v_prime]
        if max(zero + two) < Fraction(1, 2):
            rows = {d: Distribution({0: zero[k], 1: Fraction(1, 2) - zero[k],
                                     2: two[k], 3: Fraction(1, 2) - two[k]})
                    for k, d in enumerate(datasets)}
            mechanism = TableMechanism("M_hat", rows)
            evaluations = [evaluate_constraint(c, mechanism, budget)
                           for c in constraints.constraints]
            if all(e.holds for e in evaluations) or shift > 60:
                break
        shift += 2
    if shift > 2:
        notes.append(f"Step 2: shifted by c* = {shift} so the complement outputs meet every constraint")
    left = mechanism.distribution(mixed.left)
    p_star = min(left.prob(0), left.prob(2))
    mapping = {0: Distribution({1: p_star / left.prob(0), 0: 1 - p_star / left.prob(0)}),
               1: Distribution.point(0),
               2: Distribution({1: p_star / left.prob(2), 0: 1 - p_star / left.prob(2)}),
               3: Distribution.point(0)}
    post = PostProcessed("A_of_M_hat", mechanism, mapping)
    before = evaluate_constraint(mixed, mechanism, budget)
    after = evaluate_constraint(mixed, post, budget)
    satisfied = all(evaluate_constraint(c, mechanism, budget).holds for c in constraints.constraints)
    if after.holds:
        notes.append("A∘M̂ still satisfies the mixed constraint: the proof's inequality (3) applies "
                     "AM–GM to terms with negative weights −β_ℓ, where it is reversed; every NfC "
                     "constraint is preserved by post-processing (superadditivity of the weighted "
                     "geometric mean)")
    return Theorem5Construction(mixed, mechanism, post, satisfied, before, after, margin,
                                tuple(notes))


def _maximiser(target: NfcConstraint, others: Sequence[NfcConstraint],
               datasets: Sequence[Dataset]) -> list[Fraction]:
    """A point ``u <= 0`` with ``u·w_j <= 1`` for the others and ``u·w_target > 1`` (exact LP,
    the objective capped at 2 when it is unbounded)."""
    value, point = _exact_lp(target, others, datasets, 1, cap=2)
    if value is None or point is None or value <= 1:
        raise ModelError(f"constraint {target.name!r} is implied by the others (redundant); "
                         "Theorem 5 is about non-redundant sets", "constraints")
    return point


def _exp_rational(x: float, digits: int) -> Fraction:
    """A rational approximation of ``e^x`` with about ``digits`` significant digits."""
    value = mp.exp(mp.mpf(x))
    mantissa, exponent = mp.frexp(value)
    scaled = int(mp.nint(mantissa * mp.mpf(10) ** digits))
    return Fraction(scaled, 10 ** digits) * Fraction(2) ** int(exponent)


# --------------------------------------------------------------------------------------------
# Classification (Theorem 5 as stated, beside the proved verdict)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InvarianceReport:
    """Redundancy, Theorem 5's classification, the proved verdict and the construction attempt."""

    constraints: ConstraintSet
    redundancy: RedundancyReport
    theorem5_says_invariant: bool
    construction: Theorem5Construction | None
    notes: tuple[str, ...] = field(default=())

    @property
    def invariant(self) -> bool:
        """The verdict the toolkit proves: every NfC constraint set is post-processing invariant,
        unless an explicit, exactly verified violation was constructed (never, by the theorem in
        the module docstring — but the construction is checked, not assumed)."""
        return self.construction is None or not self.construction.violation_found

    def to_dict(self) -> dict:
        return {"check": "postprocessing_invariance", "constraints": self.constraints.to_dict(),
                "redundancy": self.redundancy.to_dict(),
                "theorem5_classification": "invariant" if self.theorem5_says_invariant
                else "not invariant",
                "invariant": self.invariant, "holds": self.invariant,
                "construction": self.construction.to_dict() if self.construction else None,
                "notes": list(self.notes)}

    def explain(self) -> str:
        lines = [f"{len(self.constraints.constraints)} NfC constraints at ε = "
                 f"{self.constraints.budget.text}: redundant {list(self.redundancy.redundant) or 'none'}"
                 f"; non-redundant {list(self.redundancy.kept)}",
                 f"Theorem 5 (000_65109fe28ca61d17.txt §5.2) classifies the non-redundant set as "
                 f"{'invariant (every β one-hot)' if self.theorem5_says_invariant else 'NOT invariant (a β mixes datasets)'}"]
        if self.construction is not None:
            c = self.construction
            lines.append(f"proof construction for {c.constraint.name}: M̂ satisfies every "
                         f"constraint: {c.mechanism_satisfies_all}; constraint value on M̂ "
                         f"{c.before.value:.12g} ({c.before.relation}), on A∘M̂ {c.after.value:.12g} "
                         f"({c.after.relation})")
        lines.append(f"verdict: {'post-processing invariant' if self.invariant else 'NOT invariant (verified counterexample)'}")
        lines.extend(f"note: {n}" for n in self.notes)
        if self.construction is not None:
            lines.extend(f"note: {n}" for n in self.construction.notes)
        return "\n".join(lines)


def invariance_report(constraints: ConstraintSet) -> InvarianceReport:
    """Reduce the set, classify it by Theorem 5, and try the proof's counterexample exactly."""
    redundancy = reduce_redundant(constraints)
    kept = [c for c in constraints.constraints if c.name in redundancy.kept]
    reduced = ConstraintSet(tuple(kept), constraints.budget)
    one_hot = all(c.one_hot for c in kept)
    construction = None
    notes = []
    if not one_hot:
        mixed = next(c for c in kept if not c.one_hot)
        if constraints.budget.epsilon == 0 or constraints.budget.infinite:
            notes.append("the proof's construction needs 0 < ε < ∞")
        else:
            construction = theorem5_construction(reduced, mixed)
    notes.append("proved: every NfC constraint is preserved by every post-processing "
                 "(the weighted geometric mean Π x_ℓ^β_ℓ is superadditive), so every set is "
                 "invariant")
    return InvarianceReport(constraints, redundancy, one_hot, construction, tuple(notes))


def counterexample_model(construction: Theorem5Construction, budget: Budget) -> PufferfishModel:
    """M̂ and A∘M̂ as a model file: an explicit universe of the constraint set's datasets, a uniform
    prior, the secrets {left} and {β datasets}, and both mechanisms (re-checkable by the toolkit)."""
    datasets = list(construction.mechanism.rows)
    width = len(datasets[0])
    attributes = [f"x{k + 1}" for k in range(width)]
    domains = [sorted({d[k] for d in datasets}, key=repr) for k in range(width)]
    universe = Universe.listed(attributes, domains, datasets)
    c = construction.constraint
    first = Secret.of_datasets(c.first, [c.left])
    second = Secret.of_datasets(c.second, [d for d, _ in c.beta])
    mapping = {o: construction.postprocessed.apply(o) for o in (0, 1, 2, 3)}
    post = PostProcessed("A_of_M_hat", construction.mechanism, mapping)
    return PufferfishModel(universe, {"uniform": UniformPrior("uniform", universe)},
                           {first.name: first, second.name: second}, [SecretPair(first, second)],
                           {"M_hat": construction.mechanism, "A_of_M_hat": post},
                           f"Theorem 5 construction (000_65109fe28ca61d17.txt App. C) for "
                           f"constraint {c.name} at ε = {budget.text}")


def parse_constraints(data: Mapping, path: str = "") -> ConstraintSet:
    """Read ``{"nfc_constraints": 1, "epsilon": E, "constraints": [...]}`` (see the README)."""
    from pufferfish.verify.numerics.certified import parse_budget

    if not isinstance(data, Mapping) or data.get("nfc_constraints") != 1:
        raise ModelError("a constraints file starts with \"nfc_constraints\": 1", "nfc_constraints")
    unknown = set(data) - {"nfc_constraints", "epsilon", "constraints", "description"}
    if unknown:
        raise ModelError(f"unknown key {sorted(unknown)[0]!r}", sorted(unknown)[0])
    if "epsilon" not in data:
        raise ModelError("missing the budget", "epsilon")
    budget = parse_budget(str(data["epsilon"]), "epsilon")
    raw = data.get("constraints")
    if not isinstance(raw, list) or not raw:
        raise ModelError("expected a non-empty list of constraints", "constraints")
    constraints = []
    names = set()
    for k, item in enumerate(raw):
        where = f"constraints.{k}"
        if not isinstance(item, Mapping):
            raise ModelError("expected an object", where)
        extra = set(item) - {"name", "left", "pair", "beta"}
        if extra:
            raise ModelError(f"unknown key {sorted(extra)[0]!r}", where)
        name = str(item.get("name", f"c{k}"))
        if name in names:
            raise ModelError(f"constraint name {name!r} is used twice", f"{where}.name")
        names.add(name)
        if not isinstance(item.get("left"), list):
            raise ModelError("expected the left dataset as a list of values", f"{where}.left")
        pair = item.get("pair", ["s1", "s2"])
        if not (isinstance(pair, list) and len(pair) == 2):
            raise ModelError("expected [first secret, second secret]", f"{where}.pair")
        beta_raw = item.get("beta")
        if not isinstance(beta_raw, list) or not beta_raw:
            raise ModelError("expected [[dataset, weight], ...]", f"{where}.beta")
        from pufferfish.models.numbers import exact
        beta = []
        for j, entry in enumerate(beta_raw):
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list)):
                raise ModelError("expected [dataset, weight]", f"{where}.beta.{j}")
            beta.append((tuple(entry[0]), exact(entry[1], f"{where}.beta.{j}.1")))
        constraint = NfcConstraint(name, tuple(item["left"]), str(pair[0]), str(pair[1]),
                                   tuple(beta))
        constraints.append(constraint)
    return ConstraintSet(tuple(constraints), budget)


def random_postprocessing_search(constraints: ConstraintSet, mechanism: Mechanism,
                                 trials: int, rng, outputs: int = 3) -> tuple[int, PostProcessed | None]:
    """Try ``trials`` random rational post-processors; return how many violated a constraint of the
    set on ``A∘mechanism`` (0 expected) and the first one that did."""
    source = sorted({o for d in constraints.datasets for o in mechanism.distribution(d).support},
                    key=repr)
    for k in range(trials):
        mapping = {}
        for o in source:
            weights = [rng.randint(0, 5) for _ in range(outputs)]
            if not any(weights):
                weights[0] = 1
            total = sum(weights)
            mapping[o] = Distribution({j: Fraction(w, total) for j, w in enumerate(weights) if w})
        post = PostProcessed(f"A{k}", mechanism, mapping)
        if any(not evaluate_constraint(c, post, constraints.budget).holds
               for c in constraints.constraints):
            return k + 1, post
    return 0, None


__all__ = ["NfcConstraint", "ConstraintSet", "ConstraintEvaluation", "evaluate_constraint",
           "constraints_from_programs", "reduce_redundant", "implied_value", "RedundancyReport",
           "theorem5_construction", "Theorem5Construction", "invariance_report", "InvarianceReport",
           "counterexample_model", "parse_constraints", "random_postprocessing_search",
           "scale_budget"]




# --------------------------------------------------------------------------------------------
# Post-processing audit of a mechanism
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PostprocessAudit:
    """Pufferfish, DP and NfC levels of ``M`` and of ``A∘M``."""

    mechanism: str
    postprocessed: str
    pufferfish: tuple          # (before, after) PufferfishResult
    dp: tuple                  # (before, after) DPResult
    nfc: tuple | None          # (before, after) NfcResult, or None when not computable
    notes: tuple[str, ...] = ()

    @property
    def pufferfish_increased(self) -> bool:
        return ratio_key(self.pufferfish[1].level_ratio) > ratio_key(self.pufferfish[0].level_ratio)

    @property
    def dp_increased(self) -> bool:
        return ratio_key(self.dp[1].max_ratio) > ratio_key(self.dp[0].max_ratio)

    @property
    def holds(self) -> bool:
        """Post-processing did not raise the Pufferfish or the DP level (it never may)."""
        return not (self.pufferfish_increased or self.dp_increased)

    def to_dict(self) -> dict:
        data = {"check": "postprocess", "mechanism": self.mechanism,
                "postprocessed": self.postprocessed, "holds": self.holds,
                "pufferfish": {"before": self.pufferfish[0].epsilon,
                               "after": self.pufferfish[1].epsilon,
                               "increased": self.pufferfish_increased},
                "dp": {"before": self.dp[0].epsilon, "after": self.dp[1].epsilon,
                       "increased": self.dp_increased},
                "notes": list(self.notes)}
        if self.nfc is not None:
            before, after = self.nfc
            data["nfc"] = {"before": [before.lower, before.upper],
                           "after": [after.lower, after.upper],
                           "change_at_most": after.upper - before.lower,
                           "change_at_least": after.lower - before.upper}
        return data

    def explain(self) -> str:
        p0, p1 = self.pufferfish
        d0, d1 = self.dp
        lines = [f"{self.mechanism} → {self.postprocessed}",
                 f"  Pufferfish level: {p0.epsilon} → {p1.epsilon}"
                 f"{'  INCREASED (impossible: report this model)' if self.pufferfish_increased else ''}",
                 f"  DP level ({d0.relation}): {d0.epsilon} → {d1.epsilon}"
                 f"{'  INCREASED (impossible: report this model)' if self.dp_increased else ''}"]
        if self.nfc is not None:
            before, after = self.nfc
            lines.append(f"  NfC value: [{before.lower:.12g}, {before.upper:.12g}] → "
                         f"[{after.lower:.12g}, {after.upper:.12g}] (change between "
                         f"{after.lower - before.upper:.3g} and {after.upper - before.lower:.3g})")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


def postprocess_audit(model: PufferfishModel, mechanism: Mechanism, postprocessed: Mechanism,
                      max_datasets: int, max_outputs: int) -> PostprocessAudit:
    """Levels before and after post-processing (Pufferfish and DP must not increase)."""
    from pufferfish.models.errors import UnsupportedError
    from pufferfish.verify.privacy.dp import dp_level
    from pufferfish.verify.nfc.programs import nfc_programs
    from pufferfish.verify.privacy.pufferfish import pufferfish_level

    puffer = tuple(pufferfish_level(model, m, None, max_datasets, max_outputs)
                   for m in (mechanism, postprocessed))
    dp = tuple(dp_level(model.universe, m, "entry", None, max_datasets, max_outputs)
               for m in (mechanism, postprocessed))
    notes = []
    try:
        nfc = tuple(nfc_programs(model, [m], None, max_datasets, max_outputs)
                    for m in (mechanism, postprocessed))
    except UnsupportedError as error:
        nfc = None
        notes.append(f"NfC value not computed: {error.reason}")
    return PostprocessAudit(mechanism.name, postprocessed.name, puffer, dp, nfc, tuple(notes))
