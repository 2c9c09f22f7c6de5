"""Claims of Ding et al., Multi-user Pufferfish Privacy, §4, Figures 1–4 and 6–8, on the paper's own
systems (Tables 2–3, :mod:`pufferfish.proofs_check.paper_001.instances`).  Figures 5 and 9 use UCI
data the project does not ship; they are listed as not checkable in
:mod:`pufferfish.proofs_check.paper_001.statements`.

=====================  =========================================================================
``001.fig1.shift``     Figure 1: sup_{supp π*} |x − x'| = 2 for (s_{a_4} = 5, s_{b_4} = 3), and
                       θ = 2/ε attains ε
``001.fig2.presence``  Figure 2: the distance is 5 for (s_{a_4} = 5, s_{⊥_4}), θ = 5/ε attains ε
``001.fig3.absent``    Figure 3 / §4.3.1: the distance is 5 for (s_{P_4}, s_{⊥_4}), θ = 5/ε
                       (equation (14)) attains ε
``001.fig4.eq13``      Figure 4: θ of (13) attains ε and is smaller than θ = 5/ε of (14)
``001.fig6.user_only`` Figure 6 / §4.4: sup_t Δ*(t) of (P_4, Q_4) = 2 = the distance for
                       (s_{P_4}, s_{Q_4}) and θ = 2/ε attains ε
``001.fig7.bernoulli`` Figure 7: the distance is 1 for Bernoulli(0.2) vs Bernoulli(0.9), θ = 1/ε
                       attains ε (Lemma 1)
``001.fig8.lemma2``    Figure 8: θ of (21) is smaller than 1/ε for every ε, and attains ε
=====================  =========================================================================

Each printed distance is compared with the comonotone plan of the exact conditionals and with
(25) evaluated literally step by step
(:func:`pufferfish.verify.transport.kantorovich.delta_star_brute_force`); each printed θ with the
certified actual level of ``X + Lap(θ)`` (:func:`pufferfish.verify.multiuser.levels.check_theta`),
at ε ∈ {1/2, 1, 2} (the figures plot a range of ε; the statement does not depend on it).  The
paper gives no presence probability ζ_4: ζ_4 = 1/2 (the ⊥ pairs constrain nothing at ζ_4 = 1).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.proofs_check.paper_001.instances import (paper_bernoulli_model,
                                                         paper_distribution_model,
                                                         paper_value_model)
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register
from pufferfish.verify.multiuser.levels import check_theta
from pufferfish.verify.multiuser.pairs import pair_conditionals
from pufferfish.verify.multiuser.thetas import Theta, eq13_theta, lemma2_psi_min, lemma2_theta
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.transport.kantorovich import (delta_star, delta_star_brute_force,
                                                     transport_plan)
from pufferfish.models.multiuser import others_sum

PAPER = paper("001").key
Q = Fraction
EPSILONS = (Q(1, 2), Q(1), Q(2))


def _instances(build, label: str):
    def generate() -> Iterator[Instance]:
        for eps in EPSILONS:
            yield Instance(f"{label}, ζ_4 = 1/2, ε = {eps}", {"model": build(), "epsilon": eps})
    return generate


def _data(model, detail: str, eps: Fraction) -> dict:
    from pufferfish.models.files.multiuser_file import multiuser_model_to_dict
    return multiuser_model_to_dict(model, f"counterexample ({cite(PAPER)}) at ε = {eps}: {detail}")


def _level(pairs, theta: Theta, eps: Fraction) -> str:
    return check_theta(pairs, theta, parse_budget(str(eps))).relation


def figure_check(pair_set: str, distance: Fraction, coefficient: Fraction, user_only=False):
    """The printed largest transported distance ``distance`` on ``pair_set`` and the printed
    ``θ = coefficient/ε``; with ``user_only`` also sup Δ*(P_4, Q_4) = ``distance`` (Theorem 4)."""
    def check(instance: Instance) -> ClaimOutcome:
        model, eps = instance.params["model"], instance.params["epsilon"]
        pairs, _ = pair_conditionals(model, pair_set)
        problems = []
        for cp in pairs:
            for a, b in ((cp.first, cp.second), (cp.second, cp.first)):
                moved = transport_plan(a, b).largest_distance
                literal = delta_star_brute_force(a, b)
                if not moved == literal == distance:
                    problems.append(f"{cp.pair.label}: printed distance {distance}; π* gives "
                                    f"{moved}, (25) literally {literal}")
        if user_only:
            user = model.user(model.targets[0])
            sup = delta_star(user.distribution, user.alternative).supremum
            if sup != distance:
                problems.append(f"sup Δ*(P_4, Q_4) = {sup}, printed {distance}")
        relation = _level(pairs, Theta.multiple(coefficient, eps), eps)
        if relation == "undecided":
            return ClaimOutcome.undecided_at(f"level at θ = {coefficient}/ε undecided")
        if relation == "above":
            problems.append(f"θ = {coefficient}/ε: the level exceeds ε")
        detail = "; ".join(problems) or (f"distance {distance}; θ = {coefficient}/ε: level "
                                         f"{relation}")
        return (ClaimOutcome(False, detail, _data(model, detail, eps)) if problems
                else ClaimOutcome(True, detail))
    return check


def figure4_check(factor: Fraction = Fraction(1)):
    """Figure 4: θ of (13) (times ``factor``; 1 in the paper) attains ε and is < θ = 5/ε of (14)."""
    def check(instance: Instance) -> ClaimOutcome:
        model, eps = instance.params["model"], instance.params["epsilon"]
        user = model.user(model.targets[0])
        theta = eq13_theta(user.distribution, parse_budget(str(eps)))
        if factor != 1:
            theta = Theta(theta.lower * factor, theta.upper * factor)
        pairs, _ = pair_conditionals(model, "P-absent")
        relation = _level(pairs, theta, eps)
        detail = (f"θ13 ∈ [{float(theta.lower):.10g}, {float(theta.upper):.10g}], θ14 = "
                  f"{5 / eps}; level at θ13: {relation}")
        if relation == "undecided":
            return ClaimOutcome.undecided_at(detail)
        if relation == "above" or not theta.upper < 5 / eps:
            return ClaimOutcome(False, detail, _data(model, detail, eps))
        return ClaimOutcome(True, detail)
    return check


def figure8_check(bound_factor: Fraction = Fraction(1)):
    """Figure 8: θ of (21) < ``bound_factor``/ε (1 in the paper) and θ of (21) attains ε."""
    def check(instance: Instance) -> ClaimOutcome:
        model, eps = instance.params["model"], instance.params["epsilon"]
        user = model.user(model.targets[0])
        psi = lemma2_psi_min(user.distribution.prob(Q(1)), user.alternative.prob(Q(1)),
                             others_sum(model, user.name))
        theta = lemma2_theta(psi, parse_budget(str(eps)))
        relation = _level(pair_conditionals(model, "PQ")[0], theta, eps)
        detail = (f"θ21 ∈ [{float(theta.lower):.10g}, {float(theta.upper):.10g}], "
                  f"{bound_factor}/ε = {bound_factor / eps}; level at θ21: {relation}")
        if relation == "undecided":
            return ClaimOutcome.undecided_at(detail)
        if relation == "above" or not theta.upper < bound_factor / eps:
            return ClaimOutcome(False, detail, _data(model, detail, eps))
        return ClaimOutcome(True, detail)
    return check


def _claim(claim_id, section, statement, generate, check, mutants):
    register(Claim(claim_id, PAPER, section, statement, generate, check, False, tuple(mutants)))


def _figure(claim_id, section, statement, build, label, pair_set, distance, user_only=False):
    generate = _instances(build, label)
    _claim(claim_id, section, statement, generate,
           figure_check(pair_set, Q(distance), Q(distance), user_only),
           [Mutant.checking(f"printed distance {distance} + 1",
                            figure_check(pair_set, Q(distance + 1), Q(distance), user_only),
                            generate),
            Mutant.checking(f"θ = {distance}/(2ε)",
                            figure_check(pair_set, Q(distance), Q(distance, 2), user_only),
                            generate)])


_figure("001.fig1.shift", "§4.1, Figure 1",
        "For Table 2 plus user 4 reporting 5 or 3, sup_{supp π*} |x − x'| = 2 and θ = 2/ε "
        "attains (ε, 𝕊_{a,b})-Pufferfish privacy.", paper_value_model, "Figure 1", "ab", 2)
_figure("001.fig2.presence", "§4.2, Figure 2",
        "For Table 2 plus user 4 reporting 5 or absent, sup_{supp π*} |x − x'| = 5 and θ = 5/ε "
        "attains (ε, 𝕊_{a,⊥})-Pufferfish privacy.", paper_value_model, "Figure 2", "a-absent", 5)
_figure("001.fig3.absent", "§4.3.1, Figure 3",
        "For Table 2 plus user 4 with P_4 of Table 3 or absent, sup_{supp π*} |x − x'| = 5 and "
        "θ = 5/ε (14) attains (ε, 𝕊_{P,⊥})-Pufferfish privacy.", paper_distribution_model,
        "Figure 3", "P-absent", 5)
_figure("001.fig6.user_only", "§4.4, Figure 6",
        "For Table 2 plus user 4 with P_4 or Q_4 of Table 3, sup_t Δ*(t) = 2 = sup_{supp π*} "
        "|x − x'| and θ = 2/ε attains (ε, 𝕊_{P,Q})-Pufferfish privacy.",
        paper_distribution_model, "Figure 6", "PQ", 2, user_only=True)
_figure("001.fig7.bernoulli", "§4.4.1, Figure 7",
        "For Table 2 plus user 4 Bernoulli(0.2) or Bernoulli(0.9), sup_{supp π*} |x − x'| = 1 "
        "and θ = 1/ε (Lemma 1) attains (ε, 𝕊_{P,Q})-Pufferfish privacy.",
        paper_bernoulli_model, "Figure 7", "PQ", 1)
_FIG4 = _instances(paper_distribution_model, "Figure 4")
_claim("001.fig4.eq13", "§4.3.1, Figure 4",
       "For the system of Figure 3, θ solving (13) attains ε and is smaller than θ = 5/ε of (14).",
       _FIG4, figure4_check(), [Mutant.checking("θ13 halved", figure4_check(Q(1, 2)), _FIG4)])
_FIG8 = _instances(paper_bernoulli_model, "Figure 8")
_claim("001.fig8.lemma2", "§4.4.1, Figure 8",
       "For the system of Figure 7, θ of (21) attains ε and is smaller than θ = 1/ε of Lemma 1.",
       _FIG8, figure8_check(),
       [Mutant.checking("θ21 compared with 1/(2ε)", figure8_check(Q(1, 2)), _FIG8)])
