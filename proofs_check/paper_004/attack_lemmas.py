"""Claims of Zhang et al., Differential Confounding Privacy and Inverse Composition, App. L, Lemma 5
(cross-entropy ordering ⇔ Blackwell ordering, over every attack model σ) and App. M, Lemma 8
(hypothesis (16) ⇒ (ε_g, δ_g)-DCP), on finite models.

================================  ===============================================================
``004.lemma5``                    Lemma 5: (i) CEL(J_[2]) <= CEL(J_12) ⇔ (ii) T(D_[2](s0),
                                  D_[2](s1)) <= T(D_12(s0), D_12(s1)) for every adjacent pair and
                                  α; equality iff D_[2] = D_12.  (ii) is decided twice: by the
                                  trade-off curves and by the best attack models at every prior
``004.lemma8``                    Lemma 8 as printed: (16) for every event W and pair ⟹
                                  Pr^s[W] <= e^ε_g Pr^{s'}[W] + δ_g
``004.lemma8.hypothesis_is_pure`` observation: for δ_g < 1 the printed (16) holds iff the
                                  mechanism is (ε_g, 0)-DCP (the event inside Pr does not depend
                                  on the random output), so Lemma 8 is a weakening of pure DCP
``004.lemma8.pointwise``          the reading of [37], Proposition 1 that the text cites:
                                  Pr_{Y~ψ(·|s)}[ψ(Y|s)/ψ(Y|s') <= e^ε_g] >= 1 − δ_g for every
                                  pair ⟹ (ε_g, δ_g)-DCP
================================  ===============================================================

Lemma 5 and the attack models.  Lemma 5 opens with "let A(σ), σ: Y1 × Y2 -> Δ(S), be any attack
model", and its proof goes through Blackwell's theorem ([38], Theorem 10): D_[2] is more
informative than D_12 when every attack does at least as well on it.  For a pair (s0, s1) with
prior weights (w, 1 − w), an attack σ succeeds with probability
``V(σ) = w Σ_y D(y|s0) σ(s0|y) + (1 − w) Σ_y D(y|s1) σ(s1|y)``, linear in σ; the attack models
form a product of simplices whose vertices are the deterministic σ, so the best attack is a
deterministic one and ``max_σ V = B_D(w) = Σ_y max(w D(y|s0), (1 − w) D(y|s1))``.  Testing s0
against s1, ``1 − B_D(w) = min_φ (w α_φ + (1 − w) β_φ)``, the support function of the trade-off
curve, so ``T_[2] <= T_12`` everywhere iff ``B_[2](w) >= B_12(w)`` for every ``w ∈ [0, 1]``.
``B_[2] − B_12`` is piecewise linear in w with breakpoints at ``w = D(y|s1)/(D(y|s0) + D(y|s1))``,
so comparing at those points and at 0 and 1 decides it for every w: the "every σ" side is
decided exactly, independently of the trade-off curves.  (i) is decided by a certified
interval of ``CEL(J_12) − CEL(J_[2])``
(:func:`pufferfish.verify.dcp.composition.cross_entropy_gap`).  Lemma 4 makes (i) always true,
so Lemma 5 stands or falls with Proposition 4.

Lemma 8 as printed.  In (16) the event ``Pr^s[W]/Pr^{s'}[W] <= e^ε_g`` does not depend on the
random output Ȳ, so ``Pr_Ȳ[·]`` is 0 or 1 and, for δ_g < 1, (16) for every W says the mechanism
is (ε_g, 0)-DCP; the conclusion then holds with any δ_g >= 0.  The printed lemma is true but a
weakening of pure DCP; the strong Bayesian DP of [37] bounds the *pointwise* privacy loss, which
``004.lemma8.pointwise`` checks.  Events are enumerated literally
(:func:`pufferfish.proofs_check.paper_004.composition.worst_event_excess`); the pure level
comes from :func:`pufferfish.verify.dcp.levels.dcp_level`, another code path.
Cost: ``O(|pairs| · 2^n · n)`` per grid point for n outputs (at most 8 here).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations

from pufferfish.models.files.dcp_file import dcp_model_to_dict
from pufferfish.models.numbers import INFINITY, fraction_str
from pufferfish.proofs_check.paper_004.composition import (PAPER, model_instances,
                                                        worst_event_excess)
from pufferfish.proofs_check.registry import (Claim, ClaimOutcome, Instance, Mutant, register,
                                              violation)
from pufferfish.verify.dcp.composition import (cross_entropy_gap, product_of_effective,
                                               true_joint)
from pufferfish.verify.dcp.levels import dcp_level, tradeoff_compare, tradeoff_curve

Q = Fraction
RATIOS = (Q(1), Q(3, 2), Q(2), Q(4))
"""e^ε_g of the Lemma 8 grid."""
DELTAS = (Q(0), Q(1, 4), Q(1, 2), Q(1))
"""δ_g of the Lemma 8 grid; δ_g = 1 lies outside the printed range [0, 1) (a boundary case)."""


# --------------------------------------------------------------------------------------------
# Lemma 5
# --------------------------------------------------------------------------------------------

def best_attack_success(rows, s0, s1, w: Fraction) -> Fraction:
    """``max_σ V(σ)`` for prior weights ``(w, 1 − w)`` on ``(s0, s1)``: the best deterministic
    attack, ``Σ_y max(w D(y|s0), (1 − w) D(y|s1))`` (exact)."""
    outputs = set(rows[s0].support) | set(rows[s1].support)
    return sum((max(w * rows[s0].prob(y), (1 - w) * rows[s1].prob(y)) for y in outputs), Q(0))


def attack_breakpoints(*row_sets_and_pair) -> list[Fraction]:
    """The priors ``w`` where some output's best guess changes, for each ``(rows, s0, s1)``."""
    points = {Q(0), Q(1)}
    for rows, s0, s1 in row_sets_and_pair:
        for y in set(rows[s0].support) | set(rows[s1].support):
            p, q = rows[s0].prob(y), rows[s1].prob(y)
            if p + q:
                points.add(q / (p + q))
    return sorted(points)


def attack_order(truth, product, s0, s1) -> tuple[bool, bool]:
    """``(B_[2](w) >= B_12(w) for every w, B_[2] = B_12 for every w)``, decided at the
    breakpoints of both and at w = 0, 1."""
    points = attack_breakpoints((truth, s0, s1), (product, s0, s1))
    values = [(best_attack_success(truth, s0, s1, w), best_attack_success(product, s0, s1, w))
              for w in points]
    return all(t >= p for t, p in values), all(t == p for t, p in values)


def lemma5_check(cel_reversed: bool = False, tradeoff_swapped: bool = False):
    """Lemma 5 on one model (``cel_reversed``: (i) read as CEL(J_[2]) >= CEL(J_12), a mutant;
    ``tradeoff_swapped``: (ii) read as T_12 <= T_[2], a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        kernels = list(model.mechanisms.values())
        truth, product = true_joint(model, kernels), product_of_effective(model, kernels)
        same = all(truth[s] == product[s] for s in truth)
        gap = cross_entropy_gap(model, kernels)
        if gap.equal:
            side_i, i_equal = True, True
        elif (gap.upper < 0) if cel_reversed else (gap.lower > 0):
            side_i, i_equal = True, False
        elif (gap.lower > 0) if cel_reversed else (gap.upper < 0):
            side_i, i_equal = False, False
        else:
            return ClaimOutcome.undecided_at(f"sign of CEL(J_12) − CEL(J_[2]) ∈ "
                                             f"[{gap.lower:.3g}, {gap.upper:.3g}] not decided")
        side_ii = ii_equal = True
        attack_ii = attack_equal = True
        where = None
        for s0, s1 in model.directions():
            curves = (tradeoff_curve(truth[s0], truth[s1]),
                      tradeoff_curve(product[s0], product[s1]))
            below, equal, alpha = tradeoff_compare(*(curves[::-1] if tradeoff_swapped
                                                     else curves))
            better, tie = attack_order(truth, product, s0, s1)
            if not below and where is None:
                where = f"{s0}->{s1} at α = {fraction_str(alpha)}"
            side_ii, ii_equal = side_ii and below, ii_equal and equal
            attack_ii, attack_equal = attack_ii and better, attack_equal and tie
        detail = (f"(i) CEL(J_[2]) <= CEL(J_12): {side_i}{' (equal)' if i_equal else ''}; "
                  f"(ii) T_[2] <= T_12 on every pair: {side_ii}"
                  f"{' (equal)' if ii_equal else ''}"
                  f"{f', fails {where}' if where else ''}; best attacks on D_[2] >= on D_12 at "
                  f"every prior: {attack_ii}; D_[2] = D_12: {same}")
        problems = []
        if (attack_ii, attack_equal) != (side_ii, ii_equal):
            problems.append("the attack-model side disagrees with the trade-off curves")
        if side_i != side_ii:
            problems.append("(i) and (ii) differ")
        if not (i_equal == ii_equal == same):
            problems.append("the equality cases differ")
        if not problems:
            return ClaimOutcome(True, detail)
        return violation("004.lemma5", PAPER, instance, f"{'; '.join(problems)}: {detail}",
                         model, dcp_model_to_dict)
    return check


def _pairs_of_mechanisms() -> Iterator[Instance]:
    return model_instances(2, 2)


def _holding(check, generate):
    """The instances of ``generate`` on which ``check`` holds (a mutant must fail on them)."""
    return lambda: (i for i in generate() if check(i).holds)


# --------------------------------------------------------------------------------------------
# Lemma 8
# --------------------------------------------------------------------------------------------

def _events(rows, s, t):
    outputs = sorted(set(rows[s].support) | set(rows[t].support), key=repr)
    for size in range(len(outputs) + 1):
        yield from combinations(outputs, size)


def printed_hypothesis(rows, directions, ratio: Fraction, delta: Fraction) -> bool:
    """(16) as printed, for every event W and ordered pair: ``Pr_{Ȳ~ψ(·|s)}[Pr^s[W] <= e^ε
    Pr^{s'}[W]] >= 1 − δ`` (the ratio cross-multiplied, so ``0/0`` counts as at most e^ε)."""
    for s, t in directions:
        for event in _events(rows, s, t):
            p = sum((rows[s].prob(y) for y in event), Q(0))
            q = sum((rows[t].prob(y) for y in event), Q(0))
            inside = p <= ratio * q
            # the probability over Ȳ ~ ψ(·|s) of an event that does not depend on Ȳ
            mass = sum((rows[s].prob(y) for y in rows[s].support if inside), Q(0))
            if mass < 1 - delta:
                return False
    return True


def pointwise_hypothesis(rows, directions, ratio: Fraction, delta: Fraction) -> bool:
    """The strong Bayesian DP of [37]: ``Pr_{Y~ψ(·|s)}[ψ(Y|s) <= e^ε ψ(Y|s')] >= 1 − δ``."""
    for s, t in directions:
        mass = sum((p for y, p in rows[s].items() if p <= ratio * rows[t].prob(y)), Q(0))
        if mass < 1 - delta:
            return False
    return True


def _rows(model):
    return true_joint(model, list(model.mechanisms.values()))


def lemma8_check(hypothesis=printed_hypothesis, claim_id: str = "004.lemma8",
                 ratio_factor: Fraction = Q(1), delta_factor: Fraction = Q(1)):
    """Hypothesis ⟹ conclusion on the grid, the conclusion decided on every event
    (``ratio_factor``/``delta_factor`` scale e^ε_g and δ_g in the conclusion: 1 in the paper)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        rows, directions = _rows(model), model.directions()
        assumed = 0
        for ratio in RATIOS:
            for delta in DELTAS:
                if not hypothesis(rows, directions, ratio, delta):
                    continue
                assumed += 1
                excess = worst_event_excess(rows, directions, ratio * ratio_factor)
                if excess > delta * delta_factor:
                    return violation(claim_id, PAPER, instance,
                                     f"e^ε_g = {fraction_str(ratio)}, δ_g = {fraction_str(delta)}:"
                                     f" the hypothesis holds but max_W (Pr^s[W] − "
                                     f"{fraction_str(ratio * ratio_factor)} Pr^s'[W]) = "
                                     f"{fraction_str(excess)} > {fraction_str(delta * delta_factor)}",
                                     model, dcp_model_to_dict)
        return ClaimOutcome(True, f"the conclusion holds at the {assumed} of {len(RATIOS) * len(DELTAS)} "
                                  "grid points where the hypothesis holds")
    return check


def purity_check(deltas=tuple(d for d in DELTAS if d < 1)):
    """For δ_g in ``deltas``: printed (16) ⇔ (ε_g, 0)-DCP (least pure e^ε from
    :func:`pufferfish.verify.dcp.levels.dcp_level` <= e^ε_g)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        rows, directions = _rows(model), model.directions()
        pure = dcp_level(rows, directions, Q(0)).ratio
        for ratio in RATIOS:
            is_pure = pure != INFINITY and pure <= ratio
            for delta in deltas:
                if printed_hypothesis(rows, directions, ratio, delta) != is_pure:
                    return violation("004.lemma8.hypothesis_is_pure", PAPER, instance,
                                     f"e^ε_g = {fraction_str(ratio)}, δ_g = {fraction_str(delta)}: "
                                     f"(16) holds: {not is_pure}, (ε_g, 0)-DCP: {is_pure} "
                                     f"(least pure e^ε = {fraction_str(pure) if pure != INFINITY else '∞'})",
                                     model, dcp_model_to_dict)
        return ClaimOutcome(True, f"(16) ⇔ (ε_g, 0)-DCP for δ_g in "
                                  f"{{{', '.join(fraction_str(d) for d in deltas)}}} "
                                  f"(least pure e^ε = {fraction_str(pure) if pure != INFINITY else '∞'})")
    return check


def _models() -> Iterator[Instance]:
    return model_instances(1)


register(Claim(
    "004.lemma5", PAPER, "App. L, Lemma 5",
    "for any attack model σ: (i) CEL(J_[2]) <= CEL(J_12) ⇔ (ii) T(D_[2](s0), D_[2](s1)) <= "
    "T(D_12(s0), D_12(s1)) for every adjacent pair and α, equality iff D_[2] = D_12 ((ii) "
    "decided by the trade-off curves and, independently, by the best deterministic attacks at "
    "every prior; (i) by a certified interval)",
    _pairs_of_mechanisms, lemma5_check(), False,
    (Mutant.checking("(i) read as CEL(J_[2]) >= CEL(J_12)", lemma5_check(cel_reversed=True),
                     _holding(lemma5_check(), _pairs_of_mechanisms)),
     Mutant.checking("(ii) read as T_12 <= T_[2]", lemma5_check(tradeoff_swapped=True),
                     _holding(lemma5_check(), _pairs_of_mechanisms)))))
register(Claim(
    "004.lemma8", PAPER, "App. M, Lemma 8",
    "(16) as printed for every event W and adjacent pair implies Pr^s[W] <= e^ε_g Pr^{s'}[W] "
    "+ δ_g (e^ε_g in {1, 3/2, 2, 4}, δ_g in {0, 1/4, 1/2} and the boundary δ_g = 1; every "
    "event enumerated)",
    _models, lemma8_check(), False,
    (Mutant.checking("e^ε_g halved in the conclusion", lemma8_check(ratio_factor=Q(1, 2)),
                     _models),)))
register(Claim(
    "004.lemma8.hypothesis_is_pure", PAPER, "App. M, Lemma 8 (observation)",
    "for δ_g < 1 the printed hypothesis (16) holds iff the mechanism is (ε_g, 0)-DCP: the event "
    "inside Pr_Ȳ does not depend on Ȳ, so Lemma 8 as printed weakens pure DCP",
    _models, purity_check(), True,
    (Mutant.checking("the equivalence also required at δ_g = 1 (outside the printed range)",
                     purity_check(DELTAS), _models),)))
register(Claim(
    "004.lemma8.pointwise", PAPER, "App. M, Lemma 8 (reading of [37], Proposition 1)",
    "Pr_{Y~ψ(·|s)}[ψ(Y|s) <= e^ε_g ψ(Y|s')] >= 1 − δ_g for every adjacent pair implies "
    "(ε_g, δ_g)-DCP (the strong Bayesian DP the text cites; every event enumerated)",
    _models, lemma8_check(pointwise_hypothesis, "004.lemma8.pointwise"), False,
    (Mutant.checking("δ_g halved in the conclusion",
                     lemma8_check(pointwise_hypothesis, "004.lemma8.pointwise",
                                  delta_factor=Q(1, 2)), _models),)))
