"""Claims of Ding et al., Multi-user Pufferfish Privacy, §2–4 and Appendix A, checked with
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
:mod:`pufferfish.verify.transport.laplace_level`); a comparison that stays
open at certified precision makes the instance *undecided* (never a pass, never a violation).
Every claim carries mutants (a θ halved, an inequality reversed, a formula changed) that its
check must reject.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.models.distribution import Distribution
from pufferfish.models.multiuser import (MultiUserModel, User, bernoulli, conditional, is_bernoulli,
                              others_sum)
from pufferfish.models.files.multiuser_file import multiuser_model_to_dict
from pufferfish.verify.multiuser.relaxed import MAX_BITS as CONDITION20_MAX_BITS
from pufferfish.verify.multiuser.relaxed import condition20_columns
from pufferfish.proofs_check.paper_001.enumeration import aggregate_law
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.multiuser.calibration import calibrator_theta
from pufferfish.verify.multiuser.levels import check_theta
from pufferfish.verify.multiuser.pairs import pair_conditionals
from pufferfish.verify.multiuser.thetas import Theta, eq13_theta, eq15_theta, lemma2_psi_min, lemma2_theta
from pufferfish.verify.transport.kantorovich import delta_star, transport_plan

PAPER = paper("001").key
Q = Fraction


def _fail(model: MultiUserModel, claim_id: str, instance: Instance, detail: str) -> ClaimOutcome:
    """A violation whose counterexample is a valid multi-user model file; ε is in its
    description (the instance label names it)."""
    data = multiuser_model_to_dict(model, f"counterexample to {claim_id} ({cite(PAPER)}): "
                                          f"{instance.label}: {detail}")
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

def _scaled(theta: Theta, factor: Fraction) -> Theta:
    """``factor · θ`` (an exact multiple keeps its coefficient; an enclosure loses its root)."""
    coefficient = None if theta.coefficient is None else theta.coefficient * factor
    return Theta(theta.lower * factor, theta.upper * factor, coefficient)


def calibrator_check(claim_id: str, name: str, pair_sets: tuple[str, ...],
                     factor: Fraction = Fraction(1)):
    """The check that the calibrator ``name``'s θ (times ``factor``: 1 for the paper's formula,
    another constant for a mutant) attains ε on ``pair_sets``: the certified actual level of
    ``X + Lap(θ)``; a comparison that stays open at the root is *undecided*."""
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
            if factor != 1:
                theta = _scaled(theta, factor)
            result = check_theta(pairs, theta, budget)
            level = result.level
            text = (f"{pair_set}: θ {theta.text()}, level ε ∈ [{level.epsilon_lower:.6g}, "
                    f"{level.epsilon_upper:.6g}] ({result.relation}); {len(vacuous)} vacuous")
            if result.relation == "above":
                return _fail(model, claim_id, instance, text)
            if result.relation == "undecided":
                return ClaimOutcome.undecided_at(text)
            details.append(text)
        return ClaimOutcome(True, "; ".join(details))
    return check


def lemma3_check(moved_of=lambda plan: plan.largest_distance, label="largest transported distance"):
    """Lemma 3: ``sup Δ*`` (:func:`delta_star`, on the lattice) equals ``moved_of(π*)`` (the
    largest transported distance for the paper's statement) on every ordered pair."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        user = model.user("i")
        checked = []
        for pair_set in _ALL:
            for cp in pair_conditionals(model, pair_set)[0]:
                checked.append((f"{pair_set} {cp.pair.label}", cp.first, cp.second))
        checked.append(("P_i vs Q_i", user.distribution, user.alternative))
        for name, first, second in checked:
            for a, b in ((first, second), (second, first)):
                moved = moved_of(transport_plan(a, b))
                sup = delta_star(a, b).supremum
                if moved != sup:
                    return _fail(model, "001.lemma3.lattice", instance,
                                 f"{name}: sup Δ* = {sup} but the {label} is {moved}")
        return ClaimOutcome(True, f"equal on {2 * len(checked)} ordered pairs")
    return check


def shift_check(expected=lambda a, b: abs(a - b)):
    """Appendix A.1: the largest transported distance is ``expected(a, b)`` (``|a − b|`` in the
    paper; ``b = 0`` for ``(s_a, s_⊥)``)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        for pair_set in ("ab", "a-absent"):
            for cp in pair_conditionals(model, pair_set)[0]:
                a = cp.pair.first.value
                b = cp.pair.second.value if pair_set == "ab" else Fraction(0)
                moved = transport_plan(cp.first, cp.second).largest_distance
                if moved != expected(a, b):
                    return _fail(model, "001.appA1.shift", instance,
                                 f"{cp.pair.label}: largest transported distance {moved} ≠ "
                                 f"{expected(a, b)}")
        return ClaimOutcome(True, "largest transported distance equals the shift")
    return check


def remark1_check(reported: Fraction = Fraction(0)):
    """Remark 1: the toolkit's ``X | s_⊥`` equals the law of ``X`` when user i reports
    ``reported`` (0 in the paper), enumerated independently by
    :func:`pufferfish.proofs_check.paper_001.enumeration.aggregate_law` over every presence and
    value of the other users; and the toolkit's ``X | s_0`` equals the enumerated law with user i
    absent."""
    def check(instance: Instance) -> ClaimOutcome:
        from pufferfish.models.multiuser import UserSecret
        model = instance.params["model"]
        absent = conditional(model, UserSecret("i", "absent"))
        reporting = conditional(model, UserSecret("i", "value", Fraction(0)))
        by_enumeration = aggregate_law(model, "i", reported)
        absent_by_enumeration = aggregate_law(model, "i", None)
        if absent != by_enumeration:
            return _fail(model, "001.remark1.zero", instance,
                         f"X | s_⊥ differs from the enumerated law of X with user i reporting "
                         f"{reported}")
        if reporting != absent_by_enumeration:
            return _fail(model, "001.remark1.zero", instance,
                         "X | s_0 differs from the enumerated law of X with user i absent")
        return ClaimOutcome(True, f"X | s_⊥ = X | s_0 = the enumerated law "
                                  f"({len(absent)} values)")
    return check


def remark2_check(reversed_: bool = False):
    """Remark 2: θ of (13) <= θ of (14) (``reversed_`` checks the opposite inequality, a mutant);
    an enclosure of θ13 straddling θ14 is undecided."""
    def check(instance: Instance) -> ClaimOutcome:
        model, eps = instance.params["model"], instance.params["epsilon"]
        user = model.user("i")
        theta13 = eq13_theta(user.distribution, parse_budget(str(eps)))
        theta14 = max(abs(t) for t in user.values) / eps
        low, high = (theta13.lower, theta13.upper) if not reversed_ else (-theta13.upper,
                                                                          -theta13.lower)
        bound = theta14 if not reversed_ else -theta14
        detail = (f"θ13 ∈ [{float(theta13.lower):.10g}, {float(theta13.upper):.10g}], "
                  f"θ14 = {theta14}")
        if high <= bound:
            return ClaimOutcome(True, detail)
        if low > bound:
            return _fail(model, "001.remark2.relaxed", instance, detail)
        return ClaimOutcome.undecided_at(detail)
    return check


def eq15_check(p_of=lambda p: p):
    """(15) at ``p_of(p)`` (``p`` in the paper) encloses the root of (13) and is <= 1/ε."""
    def check(instance: Instance) -> ClaimOutcome:
        model, eps = instance.params["model"], instance.params["epsilon"]
        user = model.user("i")
        if not is_bernoulli(user.distribution):
            return ClaimOutcome(True, "not Bernoulli")
        budget = parse_budget(str(eps))
        p = user.distribution.prob(Fraction(1))
        t15, t13 = eq15_theta(p_of(p), budget), eq13_theta(user.distribution, budget)
        overlap = t15.lower <= t13.upper and t13.lower <= t15.upper
        smaller = t15.upper <= 1 / eps
        return _outcome(overlap and smaller, model, "001.eq15.bernoulli", instance,
                        f"θ15 ∈ [{float(t15.lower):.12g}, {float(t15.upper):.12g}], θ13 ∈ "
                        f"[{float(t13.lower):.12g}, {float(t13.upper):.12g}], 1/ε = {1 / eps}")
    return check


def _lemma2(instance: Instance):
    model, eps = instance.params["model"], instance.params["epsilon"]
    user = model.user("i")
    p, q = user.distribution.prob(Fraction(1)), user.alternative.prob(Fraction(1))
    psi = lemma2_psi_min(p, q, others_sum(model, "i"))
    return model, eps, psi


def lemma2_smaller_check(reversed_: bool = False):
    """Figure 8: θ of (21) <= 1/ε (``reversed_``: the opposite inequality, a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        model, eps, psi = _lemma2(instance)
        if psi is None:
            return ClaimOutcome(True, "p = q: no constraint")
        theta = lemma2_theta(psi, parse_budget(str(eps)))
        low, high, bound = ((theta.lower, theta.upper, 1 / eps) if not reversed_
                            else (-theta.upper, -theta.lower, -1 / eps))
        detail = f"θ21 ∈ [{float(theta.lower):.10g}, {float(theta.upper):.10g}], 1/ε = {1 / eps}"
        if high <= bound:
            return ClaimOutcome(True, detail)
        if low > bound:
            return _fail(model, "001.lemma2.smaller", instance, detail)
        return ClaimOutcome.undecided_at(detail)
    return check


def condition20_check(psi_shift: Fraction = Fraction(0)):
    """The check of ``001.lemma2.condition20``: (20) decided exactly at θ of (21)
    (:func:`pufferfish.verify.multiuser.relaxed.condition20_columns`); ``psi_shift`` is added to the least ψ
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


def eq13_tight_check(factor: Fraction = Fraction(1)):
    """Observation: for values >= 0 the level of ``X + Lap(factor · θ13)`` is exactly ε
    (``factor`` 1; another factor is a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        model, eps = instance.params["model"], instance.params["epsilon"]
        user = model.user("i")
        if min(user.distribution.support) < 0 or set(user.distribution.support) == {Fraction(0)}:
            return ClaimOutcome(True, "values not all >= 0 (or D = 0): not in scope")
        budget = parse_budget(str(eps))
        pairs, _ = pair_conditionals(model, "P-absent")
        if not pairs:
            return ClaimOutcome(True, "vacuous")
        theta = eq13_theta(user.distribution, budget)
        result = check_theta(pairs, theta if factor == 1 else _scaled(theta, factor), budget)
        if result.relation == "undecided":
            return ClaimOutcome.undecided_at("level at θ13: undecided")
        return _outcome(result.relation == "tight", model, "001.thm3.eq13_tight", instance,
                        f"level at θ13: {result.relation}")
    return check


def thm4_bound_check(factor: Fraction = Fraction(1)):
    """Proof of Theorem 4: the largest transported distance between X|s_P and X|s_Q is at most
    ``factor ·`` sup Δ*(P, Q) (``factor`` 1 in the paper)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        user = model.user("i")
        bound = factor * delta_star(user.distribution, user.alternative).supremum
        for cp in pair_conditionals(model, "PQ")[0]:
            moved = transport_plan(cp.first, cp.second).largest_distance
            if moved > bound:
                return _fail(model, "001.thm4.bound", instance,
                             f"W∞ of the conditionals {moved} > sup Δ*(P, Q) = {bound}")
        return ClaimOutcome(True, f"largest transported distance <= sup Δ*(P, Q) = {bound}")
    return check


def _claim(claim_id, section, statement, generate, check, mutants=(), observation=False):
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation,
                   tuple(mutants)))


def _few(generate, count: int = 4):
    """The first ``count`` instances of ``generate`` (mutant runs stay cheap)."""
    return lambda: (i for k, i in zip(range(count), generate()))


def _halved(claim_id: str, name: str, pair_sets: tuple[str, ...], generate) -> Mutant:
    return Mutant.checking(f"θ of {name} halved (the constant 1 of θ = c/ε becomes 1/2)",
                           calibrator_check(claim_id, name, pair_sets, Fraction(1, 2)),
                           _few(generate, 8))


def _calibrator(claim_id, section, statement, generate, name, pair_sets):
    _claim(claim_id, section, statement, generate, calibrator_check(claim_id, name, pair_sets),
           [_halved(claim_id, name, pair_sets, generate)])


_ALL = ("ab", "a-absent", "P-absent", "PQ")
_calibrator("001.prop1.kantorovich", "§2, Proposition 1, equation (5)",
            "Laplace noise with θ = max sup_{supp π*} |x − x'| / ε attains (ε, 𝕊)-Pufferfish "
            "privacy.", all_instances, "proposition1", _ALL)
_calibrator("001.prop2.delta_star", "Appendix A, Proposition 2, equation (28)",
            "Laplace noise with θ = max sup_x Δ*(x) / ε attains (ε, 𝕊)-Pufferfish privacy.",
            all_instances, "proposition2", _ALL)
_claim("001.lemma3.lattice", "Appendix A, Lemma 3, equation (25)",
       "sup_{(x,x') ∈ supp π*} |x − x'| = sup_x Δ*(x) (Δ* on the lattice of the support).",
       all_instances, lemma3_check(),
       [Mutant.checking("W1 (the mean transported distance) in place of the largest",
                        lemma3_check(lambda plan: plan.w1, "W1"), all_instances)])
_claim("001.appA1.shift", "Appendix A.1",
       "The largest transported distance is |a_i − b_i| for (s_a, s_b) and |a_i| for (s_a, s_⊥).",
       all_instances, shift_check(),
       [Mutant.checking("|a_i| + |b_i| in place of |a_i − b_i|",
                        shift_check(lambda a, b: abs(a) + abs(b)), all_instances)])
_calibrator("001.thm1.values", "§4.1, Theorem 1, equation (10)",
            "θ = max |a_i − b_i| / ε attains (ε, 𝕊_{a,b})-Pufferfish privacy.",
            all_instances, "theorem1", ("ab",))
_calibrator("001.thm2.presence", "§4.2, Theorem 2, equation (12)",
            "θ = max |a_i| / ε attains (ε, 𝕊_{a,⊥})-Pufferfish privacy.",
            all_instances, "theorem2", ("a-absent",))
_claim("001.remark1.zero", "§4.2, Remark 1",
       "A missing user is equivalent to a user reporting 0 (X | s_⊥ has the law of X | s_0), "
       "checked against an enumeration of every configuration of the other users.",
       all_instances, remark1_check(),
       [Mutant.checking("a missing user equivalent to a user reporting 1",
                        remark1_check(Fraction(1)), _few(all_instances))])
_calibrator("001.thm3.eq13", "§4.3, Theorem 3, equation (13)",
            "θ with E[e^{|D_i|/θ}] = e^ε attains (ε, 𝕊_{P,⊥})-Pufferfish privacy.",
            all_instances, "theorem3_eq13", ("P-absent",))
_calibrator("001.thm3.eq14", "§4.3, Theorem 3, equation (14)",
            "θ = max_{t ∈ 𝒟_i} |t| / ε attains (ε, 𝕊_{P,⊥})-Pufferfish privacy.",
            all_instances, "theorem3_eq14", ("P-absent",))
_claim("001.remark2.relaxed", "§4.3, Remark 2",
       "Condition (13) gives a θ no larger than (14).", all_instances, remark2_check(),
       [Mutant.checking("the inequality reversed (θ13 >= θ14)", remark2_check(True),
                        all_instances)])
_claim("001.eq15.bernoulli", "§4.3.2, equation (15)",
       "For Bernoulli(p) users (13) has the closed form (15), smaller than 1/ε.",
       bernoulli_instances, eq15_check(),
       [Mutant.checking("(15) with p and 1 − p exchanged", eq15_check(lambda p: 1 - p),
                        bernoulli_instances)])
_calibrator("001.thm4.user_only", "§4.4, Theorem 4, equations (16)-(17)",
            "θ = sup_t Δ*(t)/ε on F_P, F_Q attains (ε, 𝕊_{P,Q})-Pufferfish privacy.",
            all_instances, "theorem4", ("PQ",))
_claim("001.thm4.bound", "§4.4, proof of Theorem 4",
       "The largest transported distance between X|s_P and X|s_Q is at most sup Δ*(F_P, F_Q), "
       "whatever the other users.", all_instances, thm4_bound_check(),
       [Mutant.checking("the bound halved", thm4_bound_check(Fraction(1, 2)), all_instances)])
_calibrator("001.lemma1.bernoulli", "§4.4.1, Lemma 1, equation (18)",
            "For Bernoulli P_i, Q_i, θ = 1/ε attains (ε, 𝕊_{P,Q})-Pufferfish privacy.",
            bernoulli_instances, "lemma1", ("PQ",))
_calibrator("001.lemma2.relaxed", "§4.4.1, Lemma 2, equation (21)",
            "For Bernoulli P_i, Q_i, θ of (21) attains (ε, 𝕊_{P,Q})-Pufferfish privacy.",
            bernoulli_instances, "lemma2", ("PQ",))
_claim("001.lemma2.smaller", "§4.4.1, Figure 8",
       "θ of (21) is smaller than θ = 1/ε of Lemma 1.", bernoulli_instances,
       lemma2_smaller_check(),
       [Mutant.checking("the inequality reversed (θ21 >= 1/ε)", lemma2_smaller_check(True),
                        bernoulli_instances)])
_claim("001.lemma2.condition20", "§4.4.1, proof of Lemma 2, equations (20), (23)",
       "At θ of (21) the relaxed condition (20) holds for the Kantorovich plan π* of "
       "(X|s_P, X|s_Q) (decided exactly).", bernoulli_instances, condition20_check(),
       [Mutant.checking("ψ of (21) increased by 1 (θ too small)",
                        condition20_check(Fraction(1)), bernoulli_instances)])
_claim("001.thm3.eq13_tight", "§4.3, Theorem 3 (observation)",
       "For values >= 0 the actual level of X + Lap(θ13) is exactly ε, so θ13 is the minimal θ.",
       all_instances, eq13_tight_check(),
       [Mutant.checking("θ13 doubled", eq13_tight_check(Fraction(2)), _few(all_instances, 8))],
       observation=True)
