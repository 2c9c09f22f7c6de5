"""Tests of pufferfish.verify.multiuser.calibration (the ``multiuser`` subcommand: tests/cli)
(001_3a97785a86d61e37.txt §2 Proposition 1, §4 Theorems 1–4, Lemmas 1–2, equations (13)–(21),
Figures 1–4 and 6–8; Appendix A Proposition 2)."""

from __future__ import annotations

import math
from fractions import Fraction as Q

import mpmath
import pytest

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.multiuser import bernoulli
from pufferfish.proofs_check.paper_001.instances import (paper_bernoulli_model,
                                                        paper_distribution_model, paper_table3,
                                                        paper_value_model)
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.multiuser.calibration import calibrate
from pufferfish.verify.multiuser.levels import check_theta, level_at, minimal_theta
from pufferfish.verify.multiuser.pairs import pair_conditionals
from pufferfish.verify.multiuser.relaxed import exp_sum_sign, relaxed_condition
from pufferfish.verify.multiuser.thetas import (eq13_polynomial, eq13_theta, eq15_theta,
                                                lemma2_psi_min, lemma2_theta)

EXAMPLES = example_path("quickstart.json").parent
ONE = parse_budget("1")


def _thetas(report):
    return {c.name: c for c in report.calibrations if c.applicable}


def test_figure1_theorem1_and_proposition1_give_2_over_epsilon():
    """Figure 1 (a4 = 5, b4 = 3): Theorem 1 and Proposition 1 both give θ = 2/ε; the actual
    level at θ = 2/ε is exactly ε (the pair is a pure shift by 2: tight), minimal θ = 2/ε."""
    report = calibrate(paper_value_model(), "ab", parse_budget("1/2"))
    c = _thetas(report)
    assert c["theorem1"].theta.coefficient == 2 == c["proposition1"].theta.coefficient
    assert c["proposition2"].theta.coefficient == 2
    assert c["theorem1"].check.relation == "tight"
    assert report.minimal.upper == 4 and report.minimal.lower > Q(399, 100)


def test_figure2_theorem2_gives_5_over_epsilon():
    """Figure 2 (a4 = 5 vs absent): θ = 5/ε by Theorem 2 and by Proposition 1; level tight."""
    c = _thetas(calibrate(paper_value_model(), "a-absent", ONE, minimal=False))
    assert c["theorem2"].theta.coefficient == 5 == c["proposition1"].theta.coefficient
    assert c["theorem2"].check.relation == "tight"


def test_figures_3_and_4_theorem3():
    """Figure 3: (14) and Proposition 1 give θ = 5/ε.  Figure 4: (13) gives a smaller θ; at ε = 1
    the root of 0.4z + 0.1z² + 0.1z⁴ + 0.4z⁵ = e (z = e^{1/θ}) is θ ≈ 3.4697696127 (Brent's
    method in the paper; here certified), and the level there is exactly ε (tight)."""
    report = calibrate(paper_distribution_model(), "P-absent", ONE)
    c = _thetas(report)
    assert c["theorem3_eq14"].theta.coefficient == 5 == c["proposition1"].theta.coefficient
    theta13 = c["theorem3_eq13"].theta
    z = mpmath.findroot(lambda z: 0.4 * z + 0.1 * z ** 2 + 0.1 * z ** 4 + 0.4 * z ** 5 - math.e, 1.3)
    assert float(theta13.lower) <= 1 / float(mpmath.log(z)) * (1 + 1e-12)
    assert float(theta13.upper) >= 1 / float(mpmath.log(z)) * (1 - 1e-12)
    assert theta13.upper - theta13.lower < Q(1, 10 ** 9)
    assert c["theorem3_eq13"].check.relation == "tight"
    assert report.minimal.lower <= theta13.upper and theta13.lower <= report.minimal.upper


def test_figure6_theorem4_and_proposition1_give_2_over_epsilon():
    """Figure 6 / §4.4: sup Δ*(t) on F_P4, F_Q4 is 2 and Proposition 1 on X | s_P4, X | s_Q4 is 2."""
    c = _thetas(calibrate(paper_distribution_model(), "PQ", ONE, minimal=False))
    assert c["theorem4"].theta.coefficient == 2 == c["proposition1"].theta.coefficient
    assert c["theorem4"].check.holds


def test_figures_7_and_8_bernoulli():
    """Figure 7: Proposition 1 and Lemma 1 give θ = 1/ε.  Figure 8: Lemma 2's θ is
    1/log(e^ε + (e^ε − 1)·2/7) (ψ_min = p/(q − p) = 2/7, reached where Pr(S = x) = 0), smaller than
    1/ε; both attain ε."""
    for eps in ("1/4", "1", "2"):
        budget = parse_budget(eps)
        c = _thetas(calibrate(paper_bernoulli_model(), "PQ", budget, minimal=False))
        assert c["lemma1"].theta.coefficient == 1 == c["proposition1"].theta.coefficient
        assert c["lemma2"].extra["psi_min"] == {"u4": "2/7"}
        e = float(Q(eps))
        assert float(c["lemma2"].theta.lower) == pytest.approx(1 / math.log(math.exp(e) + (math.exp(e) - 1) * 2 / 7))
        assert c["lemma2"].theta.upper < 1 / Q(eps)
        assert c["lemma2"].check.holds and c["lemma1"].check.holds


def test_eq15_equals_eq13_for_bernoulli():
    """§4.3.2: for Bernoulli(p) the root of (13) is (15): 1/log((e^ε − 1 + p)/p) < 1/ε."""
    for p in (Q(1, 5), Q(1, 2), Q(9, 10)):
        t15, t13 = eq15_theta(p, ONE), eq13_theta(bernoulli(p), ONE)
        assert t15.lower <= t13.upper and t13.lower <= t15.upper
        assert float(t15.lower) == pytest.approx(1 / math.log((math.e - 1 + float(p)) / float(p)))
        assert t15.upper < 1
    assert eq15_theta(Q(1), ONE).coefficient == 1 and eq15_theta(Q(0), ONE).upper == 0


def test_eq13_polynomial_form():
    """(13) as a polynomial in z = e^{1/(Lθ)} (L = 2 for half-integer values)."""
    assert eq13_polynomial(paper_table3()[0]) == (1, {1: Q(2, 5), 2: Q(1, 10), 4: Q(1, 10), 5: Q(2, 5)})
    from pufferfish.models.distribution import Distribution
    assert eq13_polynomial(Distribution({Q(-1, 2): Q(1, 2), Q(3, 2): Q(1, 2)})) == (2, {1: Q(1, 2), 3: Q(1, 2)})


def test_lemma2_psi_ignores_points_where_the_denominator_vanishes():
    from pufferfish.models.distribution import Distribution
    others = Distribution({Q(0): Q(1, 4), Q(1): Q(3, 4)})
    # x = 1: r = 3; x = 2: r = 0 -> ψ_min = p/(q − p)
    assert lemma2_psi_min(Q(1, 5), Q(9, 10), others) == Q(2, 7)
    assert lemma2_psi_min(Q(9, 10), Q(1, 5), others) == Q(2, 7)
    assert lemma2_psi_min(Q(1, 2), Q(1, 2), others) is None
    assert lemma2_theta(Q(0), ONE).coefficient == 1


def test_relaxed_condition_20_fails_at_lemma2_theta_on_figure7():
    """The proof of Lemma 2 derives (21) from (20); on the Figure 7 system (20) is *violated* at
    θ21 for the Kantorovich plan π* of (X | s_P4, X | s_Q4), although the actual level at θ21 is
    below ε.  (20) does hold at θ = 1/ε (Lemma 1) there."""
    model = paper_bernoulli_model()
    (cp,), _ = pair_conditionals(model, "PQ")
    theta21 = lemma2_theta(Q(2, 7), ONE)
    assert relaxed_condition(cp.first, cp.second, theta21.lower, ONE).holds is False
    assert relaxed_condition(cp.first, cp.second, Q(1), ONE).holds is True
    assert check_theta((cp,), theta21, ONE).holds


def test_exp_sum_sign_exact_zero_and_signs():
    assert exp_sum_sign({Q(1): Q(1), Q(0): Q(-1)}) == 1
    assert exp_sum_sign({Q(1): Q(0), Q(2): Q(0)}) == 0
    assert exp_sum_sign({Q(0): Q(3), Q(1): Q(-1)}) == 1      # 3 > e
    assert exp_sum_sign({Q(0): Q(2), Q(1): Q(-1)}) == -1


def test_level_is_nonincreasing_in_theta_and_minimal_theta_brackets():
    model = paper_bernoulli_model()
    pairs, _ = pair_conditionals(model, "PQ")
    levels = [level_at(pairs, Q(k, 4), ONE).ratio_upper for k in range(1, 9)]
    assert all(a >= b for a, b in zip(levels, levels[1:]))
    best = minimal_theta(pairs, ONE)
    assert level_at(pairs, best.upper, ONE).relation in ("below", "tight")
    assert level_at(pairs, best.lower, ONE).relation == "above"


def test_always_present_user_makes_absence_pairs_vacuous():
    report = calibrate(paper_distribution_model(presence=Q(1)), "P-absent", ONE)
    assert len(report.vacuous) == 1 and not report.pairs
    assert report.minimal.upper == 0 and report.holds is True


def test_log_budget_refused():
    with pytest.raises(UnsupportedError):
        calibrate(paper_value_model(), "ab", parse_budget("log(2)"))
    with pytest.raises(ModelError):
        calibrate(paper_value_model(), "ab", parse_budget("0"))


def test_claims_of_paper_001(claim_results):
    """Every claim runs; the statements refuted on the generated instances are exactly the
    proof step of Lemma 2 (condition (20) at θ21) and the printed statements of Appendix A that
    differ from the exact values (Table 5, Example 1's "Δ*(2) = Δ*(3) = Δ*(4)", Lemma 3 read
    over the support points)."""
    from pufferfish.proofs_check.registry import claims_for
    report = claim_results(claims_for(paper="001"))
    results = {r.claim.id: r for r in report.results}
    assert all(r.errors == 0 for r in results.values())
    violated = {cid for cid, r in results.items() if r.violated}
    assert violated == {"001.lemma2.condition20", "001.table5.printed", "001.ex1.equal_deltas",
                        "001.lemma3.support_points"}
    assert results["001.lemma2.condition20"].first_counterexample["multiuser_model"] == 1


def test_the_report_decides_condition_20_exactly_at_lemma2_theta():
    """The guide's example (docs/guide.md): (20) holds forward with equality in a column (an evaluation at a
    rational end of θ's enclosure reported it violated) and fails backward."""
    from pufferfish.models.files.multiuser_file import load_multiuser_model
    from pufferfish.verify.multiuser.relaxed import relaxed_condition_at_lemma2

    model = load_multiuser_model(example_path("multiuser_bernoulli.json"))
    report = calibrate(model, "PQ", parse_budget("1"), minimal=False)
    (relaxed,) = report.relaxed.values()
    assert relaxed["theta"] == "lemma2 (exact)"
    assert relaxed["forward"]["holds"] is True and 0 in [s for _, s in relaxed["forward"]["columns"]]
    assert relaxed["backward"]["holds"] is False
    # evaluated at the rational lower end of θ's enclosure, the forward direction looks violated
    (pair,) = pair_conditionals(model, "PQ")[0]
    lemma2 = next(c for c in report.calibrations if c.name == "lemma2")
    assert relaxed_condition(pair.first, pair.second, lemma2.theta.lower,
                             parse_budget("1")).holds is False
