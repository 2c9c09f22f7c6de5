"""Claims of Zhang et al., Differential Confounding Privacy and Inverse Composition, §IV (inverse
composition: Π[τ, δ], Task-1, Task-2, Theorem 2 (iii)) and App. M (Lemma 6), on finite models.

=============================  ==================================================================
``004.thm2.iii``               Theorem 2 (iii), δ_g = 0, "only if": if the composition is
                               ε(τ, θ)-DCP then τ solves Task-2 (the posterior μ ∈ Π[τ, 0]),
                               checked at the least such τ
``004.thm2.i``                 Theorem 2 (i), necessary condition: Π[τ_g, δ_g] ≠ ∅ ⟹ the
                               existing composition is (ε(τ_g, θ), δ_g)-DCP (else no α* exists)
``004.thm2.iii.task1``         the same for the first sentence of Theorem 2 (iii) (δ_g = 0)
``004.lemma6``                 Lemma 6: F(s|y) >= e^{−ε} P(s) and E_{S~F}[F(S|y)/P(S)] <= δ e^ε
                               imply Pr_{S~F}[e^{−ε} <= F(S|y)/P(S) <= e^ε] >= 1 − δ
``004.tasks.pi_convex``        §IV: Π[τ, δ] is convex in (π, τ)
``004.tasks.joint_convexity``  §IV: with the score L̂, (Task-1) and (Task-2) are convex programs
                               (read: the objective is convex in (α, π) jointly)
=============================  ==================================================================

Readings.  Task-2 has no added mechanism here (α uninformative), so the follower's best response
is the true posterior μ and the solutions of Task-2 at δ = 0 are the τ with μ ∈ Π[τ, 0]
(:mod:`pufferfish.verify.dcp.inverse`).  The least τ at which the composition is ε(τ, θ)-DCP is
``1 + (L − 1) P*_θ`` for the exact pure level ``L = max_{(s,s'), y} ψ(y|s)/ψ(y|s')``, computed
here from the composed rows.  The objective of (Task-1) with L̂ is
``J(α, π) = Σ_{s, ȳ, y_α} P_θ(s) ψ(ȳ|s) α(y_α|s) (−log π(s|ȳ, y_α))`` (§IV: the factor
``P_{α,γ}`` cancels); its midpoint convexity is decided by a certified sign of a sum of logs.
The toolkit's Task-1 solver uses only what holds — convex in π for fixed α, linear in α — and
alternates (:func:`pufferfish.verify.dcp.inverse.task1`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.models.distribution import Distribution
from pufferfish.models.files.dcp_file import dcp_model_to_dict
from pufferfish.models.numbers import INFINITY, fraction_str
from pufferfish.proofs_check.paper_004.composition import model_instances
from pufferfish.proofs_check.registry import (Claim, ClaimOutcome, Instance, Mutant, register,
                                              violation)
from pufferfish.verify.dcp.composition import true_joint
from pufferfish.proofs_check.paper_004.composition import worst_event_excess
from pufferfish.verify.dcp.inverse import in_pi, least_tau, min_prior, pi_nonempty, posterior
from pufferfish.verify.numerics.intervals import certified_sign, log_interval, rational_interval

PAPER = paper("004").key
Q = Fraction


def pure_level(rows, directions):
    """``max_{(s,s'), y} ψ(y|s)/ψ(y|s')`` (``INFINITY`` when some output has ψ(y|s') = 0 < ψ(y|s))."""
    level = Q(1)
    for s, t in directions:
        for y, p in rows[s].items():
            q = rows[t].prob(y)
            if not q:
                return INFINITY
            level = max(level, p / q)
    return level


def thm2_iii_check(prior_factor: Fraction = Q(1)):
    """Theorem 2 (iii) "only if" at the least τ with the composition ε(τ, θ)-DCP
    (``prior_factor`` divides P*_θ in ε(τ, θ): 1 in the paper; 2 is a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        rows = true_joint(model, list(model.mechanisms.values()))
        level = pure_level(rows, model.directions())
        if level == INFINITY:
            return ClaimOutcome(True, "no finite pure level: no τ makes the composition "
                                      "ε(τ, θ)-DCP")
        p_star = min_prior(model) / prior_factor
        tau = 1 + (level - 1) * p_star
        prior = model.secret_prior()
        mu = posterior(prior, rows)
        member = in_pi(mu, prior, tau, Q(0))
        star = least_tau(mu, prior, Q(0))
        detail = (f"least τ with ε(τ, θ)-DCP: {fraction_str(tau)} (pure level e^ε = "
                  f"{fraction_str(level)}); Task-2 τ* = {fraction_str(star)}; μ ∈ Π[τ, 0]: "
                  f"{member.holds}")
        if member.holds:
            return ClaimOutcome(True, detail)
        return violation("004.thm2.iii", PAPER, instance, f"{detail} ({member.violation})", model,
                         dcp_model_to_dict)
    return check


def task1_necessary_check(deltas: tuple[Fraction, ...], claim_id: str,
                          taus: tuple[Fraction, ...] = (Q(1), Q(2), Q(4)),
                          require_nonempty: bool = True):
    """A necessary condition of Theorem 2 (i)/(iii): for every τ_g with Π[τ_g, δ_g] ≠ ∅ the
    existing composition must already be (ε(τ_g, θ), δ_g)-DCP, since the extension by any added
    mechanism α (α* included) projects onto it (post-processing can only lower the worst event).
    Checked by enumerating every event; α* itself is not computed.  ``require_nonempty`` False
    drops the hypothesis Π ≠ ∅ (a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        rows = true_joint(model, list(model.mechanisms.values()))
        p_star = min_prior(model)
        for delta in deltas:
            for tau in taus:
                if require_nonempty and not pi_nonempty(tau, delta):
                    continue
                ratio = 1 + (tau - 1) / p_star
                excess = worst_event_excess(rows, model.directions(), ratio)
                if excess > delta:
                    return violation(claim_id, PAPER, instance,
                                     f"τ_g = {fraction_str(tau)}, δ_g = {fraction_str(delta)}: "
                                     f"Π ≠ ∅ but the existing composition has δ = "
                                     f"{fraction_str(excess)} at e^ε(τ_g, θ) = "
                                     f"{fraction_str(ratio)}, so no added mechanism (α* "
                                     "included) makes the extension DCP", model,
                                     dcp_model_to_dict)
        return ClaimOutcome(True, "the existing composition meets every target with Π ≠ ∅ "
                                  "(necessary condition only; α* is not computed)")
    return check


def lemma6_instances() -> Iterator[Instance]:
    """Posteriors F(·|y) and priors P on 2–4 secrets (seeded), e^ε ∈ {1, 3/2, 2, 4}, δ ∈ {1/10,
    1/4, 1/2, 3/4}; first the boundary case F = P and a point where F/P exceeds e^ε."""
    yield Instance("F = P = (1/2, 1/2), e^ε = 1, δ = 1", {"F": (Q(1, 2), Q(1, 2)),
                                                         "P": (Q(1, 2), Q(1, 2)),
                                                         "ratio": Q(1), "delta": Q(1)})
    yield Instance("P = (9/10, 1/10), F = (1/2, 1/2), e^ε = 4, δ = 3/4",
                   {"F": (Q(1, 2), Q(1, 2)), "P": (Q(9, 10), Q(1, 10)), "ratio": Q(4),
                    "delta": Q(3, 4)})
    rng = random.Random(6)
    for k in range(40):
        n = 2 + k % 3
        prior = [rng.randint(1, 9) for _ in range(n)]
        post = [rng.randint(1, 9) for _ in range(n)]
        yield Instance(f"seeded {k}: {n} secrets",
                       {"F": tuple(Q(w, sum(post)) for w in post),
                        "P": tuple(Q(w, sum(prior)) for w in prior),
                        "ratio": (Q(1), Q(3, 2), Q(2), Q(4))[k % 4],
                        "delta": (Q(1, 10), Q(1, 4), Q(1, 2), Q(3, 4))[k // 4 % 4]})


def lemma6_check(conclusion_slack: Fraction = Q(1)):
    """Lemma 6 on one posterior: hypotheses decided exactly, then Pr[in range] >= 1 − s·δ
    (``s`` = ``conclusion_slack``: 1 in the paper; a smaller slack is a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        f, p = instance.params["F"], instance.params["P"]
        r, delta = instance.params["ratio"], instance.params["delta"]
        lower = all(fs >= ps / r for fs, ps in zip(f, p))
        expectation = sum(fs * fs / ps for fs, ps in zip(f, p))
        if not (lower and expectation <= delta * r):
            return ClaimOutcome(True, f"hypotheses do not hold (E[F/P] = "
                                      f"{fraction_str(expectation)}, δe^ε = "
                                      f"{fraction_str(delta * r)}): nothing to check")
        inside = sum(fs for fs, ps in zip(f, p) if ps / r <= fs <= r * ps)
        detail = (f"Pr[e^-ε <= F/P <= e^ε] = {fraction_str(inside)}, 1 − δ = "
                  f"{fraction_str(1 - conclusion_slack * delta)}")
        if inside >= 1 - conclusion_slack * delta:
            return ClaimOutcome(True, detail)
        return ClaimOutcome(False, detail, {"description": f"counterexample to 004.lemma6 "
                                            f"({cite(PAPER)}): {instance.label}: {detail}",
                                            "F": [str(v) for v in f], "P": [str(v) for v in p],
                                            "e^epsilon": str(r), "delta": str(delta)})
    return check


def _random_pi(rng: random.Random, prior: Distribution, tau: Fraction, outputs: int) -> dict:
    """A response strategy in Π[τ, 0]: each row mixes P_θ with a random distribution."""
    pi = {}
    for y in range(outputs):
        weights = {s: Q(rng.randint(0, 5)) for s in prior.support}
        total = sum(weights.values()) or Q(1)
        lam = Q(rng.randint(0, 4), 4) * (1 - 1 / tau)
        pi[y] = Distribution({s: (1 - lam) * prior.prob(s) + lam * (weights[s] / total
                                                                     if sum(weights.values())
                                                                     else prior.prob(s))
                              for s in prior.support})
    return pi


def pi_instances() -> Iterator[Instance]:
    """Pairs (π1, τ1), (π2, τ2) of members of Π[τ, δ] (seeded; δ ∈ {0, 1/2, 1})."""
    rng = random.Random(17)
    made = 0
    while made < 30:
        n = 2 + made % 3
        weights = [rng.randint(1, 6) for _ in range(n)]
        prior = Distribution({f"s{i}": Q(w, sum(weights)) for i, w in enumerate(weights)})
        delta = (Q(0), Q(1, 2), Q(1))[made % 3]
        taus = [Q(rng.randint(2, 12), 2) for _ in range(2)]
        if delta:
            taus = [max(t, 1 / delta) for t in taus]
        pis = [_random_pi(rng, prior, t, 2) for t in taus]
        if not all(in_pi(pi, prior, t, delta).holds for pi, t in zip(pis, taus)):
            continue
        made += 1
        yield Instance(f"seeded pair {made}: {n} secrets, δ = {delta}, τ = {taus}",
                       {"prior": prior, "delta": delta, "taus": taus, "pis": pis})


def pi_convex_check(tau_of=lambda taus: (taus[0] + taus[1]) / 2):
    """Midpoint convexity of Π[τ, δ] in (π, τ): ((π1 + π2)/2, tau_of(τ1, τ2)) ∈ Π[·, δ]
    (the average τ in the paper's reading; the smaller τ is a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        prior, delta = instance.params["prior"], instance.params["delta"]
        first, second = instance.params["pis"]
        mid = {y: Distribution({s: (first[y].prob(s) + second[y].prob(s)) / 2
                                for s in prior.support}) for y in first}
        tau = tau_of(instance.params["taus"])
        member = in_pi(mid, prior, tau, delta)
        detail = f"midpoint in Π[{fraction_str(tau)}, {fraction_str(delta)}]: {member.holds}"
        if member.holds:
            return ClaimOutcome(True, detail)
        return ClaimOutcome(False, f"{detail} ({member.violation})",
                            {"description": f"counterexample to 004.tasks.pi_convex "
                                            f"({cite(PAPER)}): {instance.label}: "
                                            f"{member.violation}"})
    return check


def task_objective_terms(prior, alpha, pi) -> dict[Fraction, Fraction]:
    """``J(α, π)`` as ``{π value: total weight}`` (``J = Σ weight · (−log value)``), for one
    secret-independent existing output (the worst case of the reading: no existing mechanism)."""
    terms: dict[Fraction, Fraction] = {}
    for s, ps in prior.items():
        for y, a in alpha[s].items():
            if a:
                value = pi[y].prob(s)
                terms[value] = terms.get(value, Q(0)) + ps * a
    return terms


def joint_convexity_instances() -> Iterator[Instance]:
    """Two points (α, π) of a Task-1 instance with two secrets (P_θ = (1/2, 1/2), τ = 4, δ = 0):
    the identity release with a confident response, and the swapped release with the swapped
    response; then seeded pairs on 2–3 secrets."""
    prior = Distribution({"s0": Q(1, 2), "s1": Q(1, 2)})
    ident = {"s0": {0: Q(1)}, "s1": {1: Q(1)}}
    swap = {"s0": {1: Q(1)}, "s1": {0: Q(1)}}
    confident = {0: Distribution({"s0": Q(7, 8), "s1": Q(1, 8)}),
                 1: Distribution({"s0": Q(1, 8), "s1": Q(7, 8)})}
    swapped = {0: Distribution({"s0": Q(1, 8), "s1": Q(7, 8)}),
               1: Distribution({"s0": Q(7, 8), "s1": Q(1, 8)})}
    yield Instance("identity vs swapped release, P_θ = (1/2, 1/2), τ = 4",
                   {"prior": prior, "points": ((ident, confident), (swap, swapped))})
    rng = random.Random(23)
    for k in range(10):
        n = 2 + k % 2
        secrets = [f"s{i}" for i in range(n)]
        prior = Distribution({s: Q(1, n) for s in secrets})
        points = []
        for _ in range(2):
            alpha = {}
            for s in secrets:
                w = [rng.randint(0, 4) for _ in range(2)]
                w[rng.randrange(2)] += 1
                alpha[s] = {y: Q(v, sum(w)) for y, v in enumerate(w)}
            pi = _random_pi(rng, prior, Q(4), 2)
            points.append((alpha, pi))
        yield Instance(f"seeded pair {k}: {n} secrets", {"prior": prior, "points": tuple(points)})


def joint_convexity_check(alpha_fixed: bool = False, lam: Fraction = Q(1, 2)):
    """Convexity of J in (α, π) along a chord: J(λA + (1 − λ)B) <= λJ(A) + (1 − λ)J(B), decided
    by a certified sign of ``Σ c_v log v`` (``alpha_fixed``: both points share A's α, i.e.
    convexity in π alone — the property the toolkit's solver relies on)."""
    def check(instance: Instance) -> ClaimOutcome:
        prior = instance.params["prior"]
        (alpha_a, pi_a), (alpha_b, pi_b) = instance.params["points"]
        if alpha_fixed:
            alpha_b = alpha_a
        mid_alpha = {s: {y: lam * alpha_a[s].get(y, Q(0)) + (1 - lam) * alpha_b[s].get(y, Q(0))
                         for y in set(alpha_a[s]) | set(alpha_b[s])} for s in prior.support}
        mid_pi = {y: Distribution({s: lam * pi_a[y].prob(s) + (1 - lam) * pi_b[y].prob(s)
                                   for s in prior.support}) for y in pi_a}
        # gap = λJ(A) + (1 − λ)J(B) − J(mid) = Σ c log v; convex along the chord iff gap >= 0
        gap: dict[Fraction, Fraction] = {}
        for terms, weight in ((task_objective_terms(prior, alpha_a, pi_a), -lam),
                              (task_objective_terms(prior, alpha_b, pi_b), lam - 1),
                              (task_objective_terms(prior, mid_alpha, mid_pi), Q(1))):
            for value, c in terms.items():
                gap[value] = gap.get(value, Q(0)) + weight * c
        gap = {v: c for v, c in gap.items() if c and v != 1}
        if not gap:
            return ClaimOutcome(True, "J on the chord equals the chord exactly")

        def enclosure(context):
            return sum((rational_interval(context, c) * log_interval(context, v)
                        for v, c in gap.items()), context.mpf(0))
        try:
            sign = certified_sign(enclosure, 64, 1 << 12)
        except ArithmeticError:
            return ClaimOutcome.undecided_at("the sign of λJ(A) + (1 − λ)J(B) − J(mid) was not "
                                             "decided within 4096 bits")
        if sign > 0:
            return ClaimOutcome(True, f"J(mid) < λJ(A) + (1 − λ)J(B) at λ = {lam} (certified)")
        variables = "π (α fixed)" if alpha_fixed else "(α, π)"
        detail = (f"J(mid) > λJ(A) + (1 − λ)J(B) at λ = {lam} (certified): the objective is not "
                  f"convex in {variables}")
        return ClaimOutcome(False, detail, {"description": f"counterexample ({cite(PAPER)}, §IV): "
                                            f"{instance.label}: {detail}"})
    return check


def _claim(claim_id, section, statement, generate, check, mutants, observation=False):
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation,
                   tuple(mutants)))


def _models() -> Iterator[Instance]:
    return model_instances(1)


_claim("004.thm2.iii", "§IV, Theorem 2 (iii), δ_g = 0",
       "M(γ) is ε(τ, θ)-DCP only if τ solves (Task-2) (μ ∈ Π[τ, 0]); checked at the least τ "
       "for which M(γ) is ε(τ, θ)-DCP", _models, thm2_iii_check(),
       [Mutant.checking("P*_θ halved in ε(τ, θ)", thm2_iii_check(Q(2)), _models)])
_claim("004.thm2.i", "§IV, Theorem 2 (i) (necessary condition)",
       "for any τ_g >= 1 with Π[τ_g, δ_g] ≠ ∅ the composition with the Task-1 design α* is "
       "(ε(τ_g, θ), δ_g)-DCP (δ_g in {1/4, 1/2}, τ_g in {1, 2, 4}); checked through the "
       "necessary condition that the existing composition already is", _models,
       task1_necessary_check((Q(1, 4), Q(1, 2)), "004.thm2.i"),
       [Mutant.checking("the hypothesis Π[τ_g, δ_g] ≠ ∅ dropped, on the invertible (DP-like) "
                        "model only",
                        task1_necessary_check((Q(1, 4), Q(1, 2)), "004.thm2.i",
                                              require_nonempty=False),
                        lambda: (i for k, i in zip(range(1), _models())))])
_claim("004.thm2.iii.task1", "§IV, Theorem 2 (iii), first sentence (necessary condition)",
       "when δ_g = 0, the composition with the Task-1 design α† is ε(τ_g, θ)-DCP if "
       "Π[τ_g, 0] ≠ ∅ (τ_g in {1, 2, 4}); checked through the necessary condition that the "
       "existing composition already is", _models,
       task1_necessary_check((Q(0),), "004.thm2.iii.task1"),
       [Mutant.checking("δ_g = 0 replaced by 1/4 with Π[τ_g, 1/4] ≠ ∅ not required",
                        task1_necessary_check((Q(1, 4),), "004.thm2.iii.task1",
                                              require_nonempty=False), _models)])
_claim("004.lemma6", "App. M, Lemma 6",
       "F(s|y) >= e^{−ε} P(s) and E_{S~F}[F(S|y)/P(S)] <= δ e^ε imply "
       "Pr_{S~F}[e^{−ε} <= F(S|y)/P(S) <= e^ε] >= 1 − δ", lemma6_instances, lemma6_check(),
       [Mutant.checking("conclusion >= 1 − δ/4", lemma6_check(Q(1, 4)), lemma6_instances)])
_claim("004.tasks.pi_convex", "§IV, Convex Optimization",
       "Π[τ_g, δ_g] is convex in π and τ_g (midpoints of members are members at the mean τ)",
       pi_instances, pi_convex_check(),
       [Mutant.checking("the midpoint at the smaller τ", pi_convex_check(lambda t: min(t)),
                        pi_instances)])
_claim("004.tasks.joint_convexity", "§IV, Convex Optimization",
       "with the score L̂, (Task-1) and (Task-2) reduce to convex programs (read: the objective "
       "is convex in (α, π) jointly; the toolkit's Task-1 solver uses convexity in π and "
       "linearity in α only)", joint_convexity_instances, joint_convexity_check(),
       [Mutant.checking("convexity tested at the chord point λ = 1/3",
                        joint_convexity_check(False, Q(1, 3)), joint_convexity_instances)])
_claim("004.tasks.convex_in_pi", "§IV, Convex Optimization (observation)",
       "the objective of (Task-1) with L̂ is convex in π for a fixed α (what the toolkit's "
       "alternating solver relies on)", joint_convexity_instances, joint_convexity_check(True),
       [Mutant.checking("α allowed to vary along the chord (the paper's joint reading)",
                        joint_convexity_check(False), joint_convexity_instances)],
       observation=True)
