"""Theorem 5 of Bai et al., Composition for Pufferfish Privacy (§5.2; proof in Appendix C) carried
out exactly: the classification of NfC constraint sets under post-processing, the proof's
construction, and a search for a violating post-processor.

Theorem 5 states that a non-redundant set of NfC constraints is post-processing invariant if every
β is one-hot and *not* invariant if some β mixes datasets.  What is true (module
:mod:`pufferfish.verify.nfc.postprocessing` gives the proof) is that every NfC constraint is
invariant.  :func:`theorem5_construction` follows the proof's Steps 1–3 with exact rationals — the
mechanism M̂ and the post-processor A — and evaluates both exactly, so a user sees that A∘M̂ still
satisfies the constraint; :func:`invariance_report` puts redundancy, the theorem's classification,
the proved verdict and the construction side by side.

Cost: the construction is one exact LP (:func:`~pufferfish.verify.nfc.redundancy.exact_lp`) plus
a few exact constraint evaluations per shift of Step 2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from mpmath.ctx_mp import MPContext

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import Mechanism, PostProcessed, TableMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import UniformPrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Dataset, Universe
from pufferfish.verify.nfc.constraints import (ConstraintEvaluation, ConstraintSet, NfcConstraint,
                                               evaluate_constraint)
from pufferfish.verify.nfc.redundancy import RedundancyReport, exact_lp, reduce_redundant
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.report import Explained


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
    context = _decimal_context(digits)
    while True:
        zero = [_exp_rational(context, eps * float(v) - shift, digits) for v in v_star]
        two = [_exp_rational(context, eps * float(v) - shift, digits) for v in v_prime]
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
    value, point = exact_lp(target, others, datasets, 1, cap=2)
    if value is None or point is None or value <= 1:
        raise ModelError(f"constraint {target.name!r} is implied by the others (redundant); "
                         "Theorem 5 is about non-redundant sets", "constraints")
    return point


def _decimal_context(digits: int) -> MPContext:
    """A private mpmath context at ``digits`` decimal digits (mpmath's global precision untouched)."""
    context = MPContext()
    context.dps = digits
    return context


def _exp_rational(context: MPContext, x: float, digits: int) -> Fraction:
    """A rational approximation of ``e^x`` with about ``digits`` significant digits (not a bound:
    the construction's mechanism is then checked exactly)."""
    value = context.exp(context.mpf(x))
    mantissa, exponent = context.frexp(value)
    scaled = int(context.nint(mantissa * context.mpf(10) ** digits))
    return Fraction(scaled, 10 ** digits) * Fraction(2) ** int(exponent)


# --------------------------------------------------------------------------------------------
# Classification (Theorem 5 as stated, beside the proved verdict)
# --------------------------------------------------------------------------------------------

@dataclass(repr=False, frozen=True)
class InvarianceReport(Explained):
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
                 f"Theorem 5 (Bai et al., Composition for Pufferfish Privacy, §5.2) classifies the "
                 f"non-redundant set as "
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
                           f"Theorem 5 construction (Bai et al., Composition for Pufferfish "
                           f"Privacy, App. C) for "
                           f"constraint {c.name} at ε = {budget.text}")


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


__all__ = ["Theorem5Construction", "theorem5_construction", "InvarianceReport", "invariance_report",
           "counterexample_model", "random_postprocessing_search"]
