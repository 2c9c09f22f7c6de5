"""Claims of 001_3a97785a86d61e37.txt added or rewritten for issue 17: condition (20) decided
exactly (its counterexample re-verified by a separate high-precision evaluation), Remark 1
against an enumeration, Example 1 / Tables 5–6, Lemma 3 as printed, and Figures 1–4, 6–8."""

from __future__ import annotations

import json
import re
from fractions import Fraction as Q

import mpmath
import pytest

from pufferfish.models.files.multiuser_file import parse_multiuser_model
from pufferfish.models.multiuser import others_sum
from pufferfish.verify.multiuser.relaxed import column_polynomials, condition20_columns
from pufferfish.proofs_check.paper_001.enumeration import aggregate_law
from pufferfish.proofs_check.paper_001.example1 import printed_delta_star
from pufferfish.proofs_check.paper_001.multiuser import bernoulli_instances
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.multiuser.pairs import pair_conditionals
from pufferfish.verify.multiuser.relaxed import relaxed_condition
from pufferfish.verify.multiuser.thetas import lemma2_psi_min, lemma2_theta
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.transport.kantorovich import transport_plan


def column_sum(first, second, psi, eps, digits=60):
    """Σ_x π*(x, x') (e^{|x − x'|/θ} − e^ε) per column at θ = 1/log(e^ε + (e^ε − 1)ψ), in a
    private mpmath context (an evaluation independent of the polynomial reduction)."""
    ctx = mpmath.MPContext()
    ctx.dps = digits
    e = ctx.exp(ctx.mpf(eps.numerator) / eps.denominator)
    theta = 1 / ctx.log(e + (e - 1) * ctx.mpf(psi.numerator) / psi.denominator)
    sums = {}
    for x, x2, m in transport_plan(first, second).coupling:
        d = ctx.mpf(abs(x - x2).numerator) / abs(x - x2).denominator
        sums[x2] = sums.get(x2, 0) + ctx.mpf(m.numerator) / m.denominator * (ctx.exp(d / theta) - e)
    return sums


def _lemma2_setting(instance):
    model, eps = instance.params["model"], instance.params["epsilon"]
    user = model.user("i")
    psi = lemma2_psi_min(user.distribution.prob(Q(1)), user.alternative.prob(Q(1)),
                         others_sum(model, "i"))
    return model, eps, psi


def test_condition20_three_of_four_old_counterexamples_were_rounding(claim_results):
    """The old check evaluated (20) at the lower end of θ's enclosure: 4 violations.  Decided
    exactly, 3 are equalities (the column polynomial is identically 0) and 1 is a violation."""
    old = exact = equalities = 0
    for instance in bernoulli_instances():
        model, eps, psi = _lemma2_setting(instance)
        if psi is None:
            continue
        theta = lemma2_theta(psi, parse_budget(str(eps)))
        pairs = pair_conditionals(model, "PQ")[0]
        old += any(relaxed_condition(cp.first, cp.second, theta.lower,
                                     parse_budget(str(eps))).holds is not True for cp in pairs)
        signs = [s for cp in pairs for _, s in condition20_columns(cp.first, cp.second, psi, eps)]
        exact += 1 in signs
        equalities += 0 in signs and 1 not in signs
    assert (old, exact) == (4, 1)
    assert equalities == 4          # the 3 spurious ones and p = 2/3, q = 1 (never flagged)
    result = claim_results(claims_for(claim_id="001.lemma2.condition20")).results[0]
    assert (result.violated, result.undecided, result.instances) == (1, 0, 6)


def test_condition20_counterexample_reverified_from_its_model_file(claim_results):
    result = claim_results(claims_for(claim_id="001.lemma2.condition20")).results[0]
    data = json.loads(json.dumps(result.first_counterexample))
    model = parse_multiuser_model(data)                      # a valid model file
    eps = Q(re.search(r"ε = ([0-9/]+)", data["description"]).group(1))
    user = model.user("i")
    psi = lemma2_psi_min(user.distribution.prob(Q(1)), user.alternative.prob(Q(1)),
                         others_sum(model, "i"))
    (cp,) = pair_conditionals(model, "PQ")[0]
    sums = column_sum(cp.first, cp.second, psi, eps)
    assert max(sums.values()) > 0.01                      # far from 0: a genuine violation
    assert 0.039 < sums[Q(-1)] < 0.04                   # (1 + ψ) times it is p(v) ≈ 0.0511


def test_condition20_equality_columns_are_zero_at_high_precision():
    for instance in bernoulli_instances():
        model, eps, psi = _lemma2_setting(instance)
        if psi is None:
            continue
        for cp in pair_conditionals(model, "PQ")[0]:
            scale, polys = column_polynomials(cp.first, cp.second, psi)
            sums = column_sum(cp.first, cp.second, psi, eps, digits=80)
            for x2, poly in polys.items():
                if not poly:
                    assert abs(sums[x2]) < mpmath.mpf(10) ** -60


def test_remark1_enumeration_matches_the_toolkit_and_detects_a_shift():
    from pufferfish.models.multiuser import UserSecret, conditional
    for instance in list(bernoulli_instances())[:3]:
        model = instance.params["model"]
        assert aggregate_law(model, "i", None) == conditional(model, UserSecret("i", "absent"))
        assert aggregate_law(model, "i", Q(0)) == aggregate_law(model, "i", None)
        assert aggregate_law(model, "i", Q(1)) != aggregate_law(model, "i", None)


def test_example1_tables_and_lemma3_as_printed(claim_results):
    report = claim_results(claims_for(paper="001"))
    table5 = report.result("001.table5.printed")
    assert table5.violated == 1
    assert "F(2|s_i) printed 21/50, exactly 17/40" in table5.first_violation
    assert "F(4|s_j) printed 37/40, exactly 4/5" in table5.first_violation
    assert report.result("001.table6.printed").holds
    assert report.result("001.ex1.delta_star").holds
    assert "= 1, 2, 1" in report.result("001.ex1.equal_deltas").first_violation
    lemma3 = report.result("001.lemma3.support_points")
    assert lemma3.violated == lemma3.instances == 15
    for claim_id in ("001.fig1.shift", "001.fig2.presence", "001.fig3.absent", "001.fig4.eq13",
                     "001.fig6.user_only", "001.fig7.bernoulli", "001.fig8.lemma2",
                     "001.remark1.zero", "001.lemma3.lattice"):
        assert report.result(claim_id).holds, claim_id
    assert report.undecided == ()


@pytest.mark.parametrize("x, expected", [(Q(0), Q(0)), (Q(1), Q(1)), (Q(5), Q(0))])
def test_printed_delta_star_reads_the_open_minimum_as_an_infimum(x, expected):
    """μ = δ_5, ν = (δ_0 + δ_1)/2: over the reals the third case of (25) has no minimum; its
    infimum at x = 1 is 1, while the mass at 5 travels 4 and 5."""
    assert printed_delta_star({5: 1}, {0: Q(1, 2), 1: Q(1, 2)}, x) == expected
    assert transport_plan({5: 1}, {0: Q(1, 2), 1: Q(1, 2)}).largest_distance == 5
