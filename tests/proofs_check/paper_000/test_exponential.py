"""Algorithm 2 of ``000_65109fe28ca61d17.txt`` (Appendix B) and §6.4.2's exponential mechanism:
the claims hold, cover the regimes, agree with a brute-force computation, and fail when the
exponent is changed."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

from mpmath.ctx_mp import MPContext

from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.proofs_check.paper_000 import exponential
from pufferfish.proofs_check.paper_000.exponential import (algorithm2_instances, check_exponential_dp,
                                                           coarse_distance, distance, lipschitz,
                                                           squared_distance)
from pufferfish.proofs_check.paper_000.figures import binary_chain_model
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.influence.chains import chain_influence_curve

IDS = ("000.alg2.printed_private", "000.alg2.best_point_private", "000.sec642.exponential_dp")


def test_algorithm_2_claims_hold_with_mutants(claim_results):
    claims = [c for c in claims_for(paper="000") if c.id in IDS]
    assert len(claims) == 3 and all(c.mutants for c in claims)
    report = claim_results(claims)
    assert report.holds, report.explain()
    assert [r.instances for r in report.results] == [72, 72, 27]


def test_instances_cover_the_regimes():
    labels = [i.label for i in algorithm2_instances()]
    for needle in ("strong", "weak", "independent", "anti-correlated", "ε_puffer=1/10",
                   "ε_puffer=5", "−⌊|c − r|/2⌋", "−(c − r)²", "T=3", "T=4"):
        assert any(needle in label for label in labels), needle
    assert lipschitz(distance, 4) == lipschitz(coarse_distance, 4) == 1
    assert lipschitz(squared_distance, 3) == 5
    assert coarse_distance(2, 2, 3) == coarse_distance(2, 3, 3) == 0       # tied top scores


def _brute_force_level(p, q, length, epsilon, utility) -> float:
    """max over x_i = a vs x_i = b and outputs of log Pr[r | a]/Pr[r | b], enumerating datasets,
    best-point ε_DP, at 200 bits in a private mpmath context."""
    ctx = MPContext()
    ctx.prec = 200
    curve = chain_influence_curve(binary_chain_model(p, q, length), max_b=length)
    p, q = ctx.mpf(p.numerator) / p.denominator, ctx.mpf(q.numerator) / q.denominator
    pi0 = (1 - q) / (2 - p - q)
    eps = ctx.mpf(epsilon.numerator) / epsilon.denominator
    eps_dp = max((eps - ctx.log(ctx.mpf(pt.max_ratio.numerator) / pt.max_ratio.denominator)) / pt.b
                 for pt in curve.points if pt.b > 0 and pt.max_ratio != exponential.INFINITY
                 and ctx.log(ctx.mpf(pt.max_ratio.numerator) / pt.max_ratio.denominator) < eps)
    big_l = lipschitz(utility, length)

    def prob(d):
        value = pi0 if d[0] == 0 else 1 - pi0
        for a, b in zip(d, d[1:]):
            value *= (p if b == 0 else 1 - p) if a == 0 else (q if b == 1 else 1 - q)
        return value

    def law(c):
        w = [ctx.exp(utility(c, r, length) * eps_dp / (2 * big_l)) for r in range(length + 1)]
        return [x / sum(w) for x in w]

    worst = ctx.mpf("-inf")
    for i in range(length):
        given = {}
        for a in (0, 1):
            rows = [d for d in itertools.product((0, 1), repeat=length) if d[i] == a]
            total = sum(prob(d) for d in rows)
            given[a] = [sum(prob(d) * law(sum(d))[r] for d in rows) / total
                        for r in range(length + 1)]
        for a, b in ((0, 1), (1, 0)):
            worst = max(worst, max(ctx.log(given[a][r] / given[b][r]) for r in range(length + 1)))
    return float(worst)


def test_best_point_margin_matches_a_brute_force_enumeration():
    check = exponential.pufferfish_check("000.alg2.best_point_private",
                                          exponential.best_point_epsilon)
    for instance in algorithm2_instances():
        params = instance.params
        if params["T"] != 3 or params["epsilon"] != 1 or params["p"] == params["q"]:
            continue
        outcome = check(instance)
        low, high = map(float, re.search(r"in \[([^,]+), ([^\]]+)\]", outcome.detail).groups())
        level = _brute_force_level(params["p"], params["q"], 3, params["epsilon"],
                                   exponential.UTILITIES[params["utility"]])
        assert outcome.holds and level < 1
        assert abs((1 - level) - low) < 1e-5 and abs((1 - level) - high) < 1e-5, instance.label


def test_a_larger_exponent_is_a_certified_violation_with_a_model(monkeypatch):
    monkeypatch.setattr(exponential, "EXPONENT_FACTOR", Fraction(4))
    check = exponential.pufferfish_check("000.alg2.printed_private", exponential.printed_epsilon)
    strong = next(i for i in algorithm2_instances() if i.params["p"] == Fraction(19, 20)
                  and i.params["epsilon"] == 1 and i.params["T"] == 3)
    outcome = check(strong)
    assert outcome.violated and "certified negative" in outcome.detail
    model = parse_model({k: v for k, v in outcome.counterexample.items()})
    assert model.universe.width == 3


def test_dropping_the_two_breaks_differential_privacy(monkeypatch):
    instance = next(i for i in exponential.exponential_dp_instances()
                    if i.params["utility"] == "−|c − r|" and i.params["epsilon_dp"] == 1)
    assert check_exponential_dp(instance).holds
    monkeypatch.setattr(exponential, "EXPONENT_FACTOR", Fraction(1))
    assert check_exponential_dp(instance).violated
