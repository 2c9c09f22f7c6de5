"""Claims of ``001_3a97785a86d61e37.txt`` §2–4 and Appendix A, checked with
:mod:`pufferfish.models.multiuser`, :mod:`pufferfish.verify.transport.kantorovich` and the modules of
:mod:`pufferfish.verify.multiuser` (``pairs``, ``thetas``, ``levels``, ``relaxed``, ``calibration``).
The paper's own systems (Tables 2–3) are in :mod:`pufferfish.proofs_check.paper_001.instances`.

================================  ==============================================================
``001.prop1.kantorovich``         Proposition 1: θ = (largest transported distance)/ε attains ε
``001.prop2.delta_star``          Proposition 2: θ = sup Δ*/ε (lattice) attains ε
``001.lemma3.lattice``            Lemma 3: sup Δ* = largest transported distance (on the lattice
                                  of the support; see :mod:`pufferfish.verify.transport.kantorovich`)
``001.appA1.shift``               Appendix A.1: the largest transported distance is |a − b| for
                                  (s_a, s_b) and |a| for (s_a, s_⊥)
``001.thm1.values``               Theorem 1: θ = max|a − b|/ε attains ε on 𝕊_{a,b}
``001.thm2.presence``             Theorem 2: θ = max|a|/ε attains ε on 𝕊_{a,⊥}
``001.remark1.zero``              Remark 1: X | s_⊥ has the law of X | s_0
``001.thm3.eq13``                 Theorem 3: θ solving (13) attains ε on 𝕊_{P,⊥}
``001.thm3.eq14``                 Theorem 3: θ of (14) attains ε on 𝕊_{P,⊥}
``001.remark2.relaxed``           Remark 2: θ of (13) <= θ of (14)
``001.eq15.bernoulli``            §4.3.2: (15) is the root of (13) for Bernoulli users and is <= 1/ε
``001.thm4.user_only``            Theorem 4: θ = sup Δ*(F_P, F_Q)/ε attains ε on 𝕊_{P,Q}
``001.lemma1.bernoulli``          Lemma 1: θ = 1/ε attains ε for Bernoulli P_i, Q_i
``001.lemma2.relaxed``            Lemma 2: θ of (21) attains ε (both directions)
``001.lemma2.smaller``            Figure 8: θ of (21) <= 1/ε
``001.lemma2.condition20``        proof of Lemma 2: (20) holds at θ of (21) for π* of (P, Q)
``001.thm3.eq13_tight``           observation: for values >= 0 the level at θ of (13) is exactly ε
================================  ==============================================================

Instances: systems of 1–3 other users (values in small integer ranges, some negative, some
rational), presence ζ ∈ {1, 1/2, 1/3} for the others and ζ_i ∈ {1, 2/3} for the protected user
(ζ_i = 1 makes the pairs with s_⊥ vacuous — they are then skipped, as the Pufferfish definition
says), both readings of the other users' absence, user distributions with zero-mass values inside
their support, Bernoulli pairs with p < q, p > q and p = q, and ε ∈ {1/2, 1, 2}.  Every level is
the certified actual level of X + Lap(θ) over all real outputs (module
:mod:`pufferfish.verify.transport.laplace_level`); an undecided comparison counts as a failure of the check.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.multiuser import (MultiUserModel, User, bernoulli, conditional, is_bernoulli,
                              others_sum)
from pufferfish.models.files.multiuser_file import multiuser_model_to_dict
from pufferfish.proofs_check.paper_001.condition20 import MAX_BITS as CONDITION20_MAX_BITS
from pufferfish.proofs_check.paper_001.condition20 import condition20_columns
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, register
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.multiuser.calibration import calibrator_theta
from pufferfish.verify.multiuser.levels import check_theta
from pufferfish.verify.multiuser.pairs import pair_conditionals
from pufferfish.verify.multiuser.thetas import eq13_theta, eq15_theta, lemma2_psi_min, lemma2_theta
from pufferfish.verify.transport.kantorovich import delta_star, transport_plan

PAPER = "001_3a97785a86d61e37.txt"
Q = Fraction


def _fail(model: MultiUserModel, claim_id: str, instance: Instance, detail: str) -> ClaimOutcome:
    data = multiuser_model_to_dict(model, f"counterexample to {claim_id} ({PAPER}): "
                                          f"{instance.label}: {detail}")
    data["epsilon"] = str(instance.params.get("epsilon"))
    return ClaimOutcome(False, detail, data)


def _outcome(holds: bool, model, claim_id, instance, detail) -> ClaimOutcome:
    return ClaimOutcome(True, detail) if holds else _fail(model, claim_id, instance, detail)


# --------------------------------------------------------------------------------------------
# instances
# --------------------------------------------------------------------------------------------

def _random_dist(rng: random.Random, values, zero_inside: bool = False) -> Distribution:
    weights = [rng.randint(1, 6) for _ in values]
    if zero_inside and len(values) >= 3:
        weights[rng.randrange(1, len(values) - 1)] = 0
    total = sum(weights)
    return Distribution({Q(v): Q(w, total) for v, w in zip(values, weights) if w})


def _others(rng: random.Random, count: int, rational: bool = False) -> list[User]:
    users = []
    for k in range(count):
        low = rng.randint(-1, 1)
        values = [Q(v, 2) if rational else Q(v) for v in range(low, low + rng.randint(2, 4))]
        users.append(User(f"o{k}", rng.choice([Q(1), Q(1, 2), Q(1, 3)]),
                          _random_dist(rng, values, rng.random() < 0.3)))
    return users


def general_instances() -> Iterator[Instance]:
    """Protected users with general distributions P, Q (zero mass inside, shifts, negatives)."""
    rng = random.Random(2024)
    shapes = [("P below Q", [0, 1, 2], [2, 3, 4]), ("P above Q", [3, 4, 5], [0, 1, 2]),
              ("P = Q", [1, 2, 3], None), ("zero mass inside", [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]),
              ("negative values", [-2, 0, 1], [-1, 0, 2]), ("point masses", [2], [5]),
              ("rational values", ["1/2", "3/2"], ["0", "5/2"])]
    for k, (label, p_values, q_values) in enumerate(shapes):
        p = _random_dist(rng, [Q(v) for v in p_values], zero_inside=True)
        q = p if q_values is None else _random_dist(rng, [Q(v) for v in q_values], zero_inside=True)
        presence = Q(1) if k % 2 else Q(2, 3)
        target = User("i", presence, p, q)
        others = _others(rng, rng.randint(1, 3), rational=(label == "rational values"))
        policy = "marginal" if k % 3 else "present"
        eps = [Q(1, 2), Q(1), Q(2)][k % 3]
        model = MultiUserModel(tuple(others) + (target,), ("i",), policy)
        yield Instance(f"{label}, ζ_i = {presence}, others {policy}, ε = {eps}",
                       {"model": model, "epsilon": eps})
    yield Instance("no other users, ζ_i = 1/2, ε = 1",
                   {"model": MultiUserModel((User("i", Q(1, 2), _random_dist(rng, [Q(0), Q(3)]),
                                                  _random_dist(rng, [Q(1), Q(2)])),), ("i",)),
                    "epsilon": Q(1)})


def bernoulli_instances() -> Iterator[Instance]:
    """Bernoulli protected users: p < q, p > q, p = q, p = 0, q = 1."""
    rng = random.Random(7)
    cases = [(Q(1, 5), Q(9, 10)), (Q(9, 10), Q(1, 5)), (Q(1, 2), Q(1, 2)), (Q(0), Q(1, 3)),
             (Q(2, 3), Q(1)), (Q(1, 10), Q(1, 5))]
    for k, (p, q) in enumerate(cases):
        presence = Q(1) if k % 2 else Q(1, 2)
        others = _others(rng, 1 + k % 3)
        if k == 0:
            others = [User(f"b{j}", Q(1), bernoulli(Q(j + 1, 4))) for j in range(3)]
        policy = "present" if k % 3 == 2 else "marginal"
        eps = [Q(1, 2), Q(1), Q(2)][k % 3]
        model = MultiUserModel(tuple(others) + (User("i", presence, bernoulli(p), bernoulli(q)),),
                               ("i",), policy)
        yield Instance(f"Bernoulli p = {p}, q = {q}, ζ_i = {presence}, others {policy}, ε = {eps}",
                       {"model": model, "epsilon": eps})


def all_instances() -> Iterator[Instance]:
    yield from general_instances()
    yield from bernoulli_instances()


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------

def _calibrator_check(claim_id: str, name: str, pair_sets: tuple[str, ...]):
    def check(instance: Instance) -> ClaimOutcome:
        model, eps = instance.params["model"], instance.params["epsilon"]
        budget = parse_budget(str(eps))
        details = []
        for pair_set in pair_sets:
            pairs, vacuous = pair_conditionals(model, pair_set)
            applicable, reason, theta, _ = calibrator_theta(name, model, pair_set, pairs, budget)
            if not applicable:
                details.append(f"{pair_set}: not applicable ({reason})")
                continue
            result = check_theta(pairs, theta, budget)
            level = result.level
            text = (f"{pair_set}: θ {theta.text()}, level ε ∈ [{level.epsilon_lower:.6g}, "
                    f"{level.epsilon_upper:.6g}] ({result.relation}); {len(vacuous)} vacuous")
            if result.relation in ("above", "undecided"):
                return _fail(model, claim_id, instance, text)
            details.append(text)
        return ClaimOutcome(True, "; ".join(details))
    return check


def _check_lemma3(instance: Instance) -> ClaimOutcome:
    model = instance.params["model"]
    user = model.user("i")
    checked = []
    for pair_set in ("ab", "a-absent", "P-absent", "PQ"):
        for cp in pair_conditionals(model, pair_set)[0]:
            checked.append((f"{pair_set} {cp.pair.label}", cp.first, cp.second))
    checked.append(("P_i vs Q_i", user.distribution, user.alternative))
    for label, first, second in checked:
        for a, b in ((first, second), (second, first)):
            moved = transport_plan(a, b).largest_distance
            sup = delta_star(a, b).supremum
            if moved != sup:
                return _fail(model, "001.lemma3.lattice", instance,
                             f"{label}: sup Δ* = {sup} but the largest transported distance is {moved}")
    return ClaimOutcome(True, f"equal on {2 * len(checked)} ordered pairs")


def _check_shift(instance: Instance) -> ClaimOutcome:
    model = instance.params["model"]
    for pair_set in ("ab", "a-absent"):
        for cp in pair_conditionals(model, pair_set)[0]:
            a = cp.pair.first.value
            b = cp.pair.second.value if pair_set == "ab" else Fraction(0)
            moved = transport_plan(cp.first, cp.second).largest_distance
            if moved != abs(a - b):
                return _fail(model, "001.appA1.shift", instance,
                             f"{cp.pair.label}: largest transported distance {moved} ≠ {abs(a - b)}")
    return ClaimOutcome(True, "largest transported distance equals the shift")


def _check_remark1(instance: Instance) -> ClaimOutcome:
    from pufferfish.models.multiuser import UserSecret
    model = instance.params["model"]
    absent = conditional(model, UserSecret("i", "absent"))
    zero = conditional(model, UserSecret("i", "value", Fraction(0)))
    return _outcome(absent == zero, model, "001.remark1.zero", instance,
                    "X | s_⊥ = X | s_0" if absent == zero else "X | s_⊥ differs from X | s_0")


def _check_remark2(instance: Instance) -> ClaimOutcome:
    model, eps = instance.params["model"], instance.params["epsilon"]
    user = model.user("i")
    budget = parse_budget(str(eps))
    theta13 = eq13_theta(user.distribution, budget)
    theta14 = max(abs(t) for t in user.values) / eps
    return _outcome(theta13.upper <= theta14, model, "001.remark2.relaxed", instance,
                    f"θ13 <= {float(theta13.upper):.10g}, θ14 = {theta14}")


def _check_eq15(instance: Instance) -> ClaimOutcome:
    model, eps = instance.params["model"], instance.params["epsilon"]
    user = model.user("i")
    if not is_bernoulli(user.distribution):
        return ClaimOutcome(True, "not Bernoulli")
    budget = parse_budget(str(eps))
    p = user.distribution.prob(Fraction(1))
    t15, t13 = eq15_theta(p, budget), eq13_theta(user.distribution, budget)
    overlap = t15.lower <= t13.upper and t13.lower <= t15.upper
    smaller = t15.upper <= 1 / eps
    return _outcome(overlap and smaller, model, "001.eq15.bernoulli", instance,
                    f"θ15 ∈ [{float(t15.lower):.12g}, {float(t15.upper):.12g}], θ13 ∈ "
                    f"[{float(t13.lower):.12g}, {float(t13.upper):.12g}], 1/ε = {1 / eps}")


def _lemma2(instance: Instance):
    model, eps = instance.params["model"], instance.params["epsilon"]
    user = model.user("i")
    p, q = user.distribution.prob(Fraction(1)), user.alternative.prob(Fraction(1))
    psi = lemma2_psi_min(p, q, others_sum(model, "i"))
    return model, eps, psi


def _check_lemma2_smaller(instance: Instance) -> ClaimOutcome:
    model, eps, psi = _lemma2(instance)
    if psi is None:
        return ClaimOutcome(True, "p = q: no constraint")
    theta = lemma2_theta(psi, parse_budget(str(eps)))
    return _outcome(theta.upper <= 1 / eps, model, "001.lemma2.smaller", instance,
                    f"θ21 <= {float(theta.upper):.10g}, 1/ε = {1 / eps}")


def condition20_check(psi_shift: Fraction = Fraction(0)):
    """The check of ``001.lemma2.condition20``: (20) decided exactly at θ of (21)
    (:mod:`pufferfish.proofs_check.paper_001.condition20`); ``psi_shift`` is added to the least ψ
    (0 for the paper's statement; a positive shift is a mutant with a too small θ)."""
    def check(instance: Instance) -> ClaimOutcome:
        model, eps, psi = _lemma2(instance)
        if psi is None:
            return ClaimOutcome(True, "p = q: no constraint")
        psi += psi_shift
        pairs, _ = pair_conditionals(model, "PQ")
        equalities = 0
        for cp in pairs:
            for x2, sign in condition20_columns(cp.first, cp.second, psi, eps):
                if sign == 1:
                    return _fail(model, "001.lemma2.condition20", instance,
                                 f"(20) fails at θ21 = 1/log(e^ε + (e^ε − 1)·{psi}) in column "
                                 f"x' = {x2} (π* of X|s_P, X|s_Q; exact sign +1)")
                if sign is None:
                    return ClaimOutcome.undecided_at(
                        f"(20) in column x' = {x2}: sign not decided within "
                        f"{CONDITION20_MAX_BITS} bits")
                equalities += sign == 0
        return ClaimOutcome(True, f"(20) holds at θ21 (exactly; {equalities} column(s) with "
                                  "equality)")
    return check


def _check_eq13_tight(instance: Instance) -> ClaimOutcome:
    model, eps = instance.params["model"], instance.params["epsilon"]
    user = model.user("i")
    if min(user.distribution.support) < 0 or set(user.distribution.support) == {Fraction(0)}:
        return ClaimOutcome(True, "values not all >= 0 (or D = 0): not in scope")
    budget = parse_budget(str(eps))
    pairs, _ = pair_conditionals(model, "P-absent")
    if not pairs:
        return ClaimOutcome(True, "vacuous")
    result = check_theta(pairs, eq13_theta(user.distribution, budget), budget)
    return _outcome(result.relation == "tight", model, "001.thm3.eq13_tight", instance,
                    f"level at θ13: {result.relation}")


def _check_thm4_user_only(instance: Instance) -> ClaimOutcome:
    model = instance.params["model"]
    user = model.user("i")
    bound = delta_star(user.distribution, user.alternative).supremum
    for cp in pair_conditionals(model, "PQ")[0]:
        moved = transport_plan(cp.first, cp.second).largest_distance
        if moved > bound:
            return _fail(model, "001.thm4.user_only", instance,
                         f"W∞ of the conditionals {moved} > sup Δ*(P, Q) = {bound}")
    return ClaimOutcome(True, f"largest transported distance <= sup Δ*(P, Q) = {bound}")


def _claim(claim_id, section, statement, generate, check, observation=False):
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation))


_ALL = ("ab", "a-absent", "P-absent", "PQ")
_claim("001.prop1.kantorovich", "§2, Proposition 1, equation (5)",
       "Laplace noise with θ = max sup_{supp π*} |x − x'| / ε attains (ε, 𝕊)-Pufferfish privacy.",
       all_instances, _calibrator_check("001.prop1.kantorovich", "proposition1", _ALL))
_claim("001.prop2.delta_star", "Appendix A, Proposition 2, equation (28)",
       "Laplace noise with θ = max sup_x Δ*(x) / ε attains (ε, 𝕊)-Pufferfish privacy.",
       all_instances, _calibrator_check("001.prop2.delta_star", "proposition2", _ALL))
_claim("001.lemma3.lattice", "Appendix A, Lemma 3, equation (25)",
       "sup_{(x,x') ∈ supp π*} |x − x'| = sup_x Δ*(x) (Δ* on the lattice of the support).",
       all_instances, _check_lemma3)
_claim("001.appA1.shift", "Appendix A.1",
       "The largest transported distance is |a_i − b_i| for (s_a, s_b) and |a_i| for (s_a, s_⊥).",
       all_instances, _check_shift)
_claim("001.thm1.values", "§4.1, Theorem 1, equation (10)",
       "θ = max |a_i − b_i| / ε attains (ε, 𝕊_{a,b})-Pufferfish privacy.",
       all_instances, _calibrator_check("001.thm1.values", "theorem1", ("ab",)))
_claim("001.thm2.presence", "§4.2, Theorem 2, equation (12)",
       "θ = max |a_i| / ε attains (ε, 𝕊_{a,⊥})-Pufferfish privacy.",
       all_instances, _calibrator_check("001.thm2.presence", "theorem2", ("a-absent",)))
_claim("001.remark1.zero", "§4.2, Remark 1",
       "A missing user is equivalent to a user reporting 0 (X | s_⊥ has the law of X | s_0).",
       all_instances, _check_remark1)
_claim("001.thm3.eq13", "§4.3, Theorem 3, equation (13)",
       "θ with E[e^{|D_i|/θ}] = e^ε attains (ε, 𝕊_{P,⊥})-Pufferfish privacy.",
       all_instances, _calibrator_check("001.thm3.eq13", "theorem3_eq13", ("P-absent",)))
_claim("001.thm3.eq14", "§4.3, Theorem 3, equation (14)",
       "θ = max_{t ∈ 𝒟_i} |t| / ε attains (ε, 𝕊_{P,⊥})-Pufferfish privacy.",
       all_instances, _calibrator_check("001.thm3.eq14", "theorem3_eq14", ("P-absent",)))
_claim("001.remark2.relaxed", "§4.3, Remark 2",
       "Condition (13) gives a θ no larger than (14).", all_instances, _check_remark2)
_claim("001.eq15.bernoulli", "§4.3.2, equation (15)",
       "For Bernoulli(p) users (13) has the closed form (15), smaller than 1/ε.",
       bernoulli_instances, _check_eq15)
_claim("001.thm4.user_only", "§4.4, Theorem 4, equations (16)-(17)",
       "θ = sup_t Δ*(t)/ε on F_P, F_Q attains (ε, 𝕊_{P,Q})-Pufferfish privacy.",
       all_instances, _calibrator_check("001.thm4.user_only", "theorem4", ("PQ",)))
_claim("001.thm4.bound", "§4.4, proof of Theorem 4",
       "The largest transported distance between X|s_P and X|s_Q is at most sup Δ*(F_P, F_Q), "
       "whatever the other users.", all_instances, _check_thm4_user_only)
_claim("001.lemma1.bernoulli", "§4.4.1, Lemma 1, equation (18)",
       "For Bernoulli P_i, Q_i, θ = 1/ε attains (ε, 𝕊_{P,Q})-Pufferfish privacy.",
       bernoulli_instances, _calibrator_check("001.lemma1.bernoulli", "lemma1", ("PQ",)))
_claim("001.lemma2.relaxed", "§4.4.1, Lemma 2, equation (21)",
       "For Bernoulli P_i, Q_i, θ of (21) attains (ε, 𝕊_{P,Q})-Pufferfish privacy.",
       bernoulli_instances, _calibrator_check("001.lemma2.relaxed", "lemma2", ("PQ",)))
_claim("001.lemma2.smaller", "§4.4.1, Figure 8",
       "θ of (21) is smaller than θ = 1/ε of Lemma 1.", bernoulli_instances, _check_lemma2_smaller)
_claim("001.lemma2.condition20", "§4.4.1, proof of Lemma 2, equations (20), (23)",
       "At θ of (21) the relaxed condition (20) holds for the Kantorovich plan π* of "
       "(X|s_P, X|s_Q).", bernoulli_instances, condition20_check())
_claim("001.thm3.eq13_tight", "§4.3, Theorem 3 (observation)",
       "For values >= 0 the actual level of X + Lap(θ13) is exactly ε, so θ13 is the minimal θ.",
       all_instances, _check_eq13_tight, observation=True)
