"""The counterexamples of Theorem 8's claims re-verified by a second code path: the brute-force
a(b)-influence curve (:func:`pufferfish.verify.influence.curves.influence_curve`, every split of
the attributes) on the model file each violation carries, against Theorem 8's closed form."""

from __future__ import annotations

from fractions import Fraction

from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.proofs_check.paper_000.influence import theorem8_ratio
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.influence.curves import influence_curve


def brute_force_ratio(model_file: dict, b: int) -> Fraction:
    curve = influence_curve(parse_model(model_file), max_b=b)
    return curve.points[b].max_ratio


def test_the_boundary_counterexample_is_a_brute_force_fact(claim_results):
    result = claim_results(claims_for(claim_id="000.thm8.boundary")).results[0]
    assert result.status == "violated"
    # p = q = 1/100, T = 2, b = 1: the exact level is log 99, the closed form log 9801
    exact = brute_force_ratio(result.first_counterexample, 1)
    assert exact == 99
    assert theorem8_ratio(Fraction(1, 100), Fraction(1, 100), 1) == 9801 != exact


def test_the_symbolic_counterexample_is_a_brute_force_fact(claim_results):
    result = claim_results(claims_for(claim_id="000.thm8.symbolic")).results[0]
    assert result.status == "violated"
    # the witness of the differing region: p = 41/4096, q = 1/10, T = 5, b = 2
    p, q = Fraction(41, 4096), Fraction(1, 10)
    exact = brute_force_ratio(result.first_counterexample, 2)
    assert exact == (Fraction(819, 100) - 81 * p / 10) / (p * (1 - p) * (10 * p + 1))
    assert theorem8_ratio(p, q, 2) == (10 * p**2 - 9 * p + 9) / (10 * p**2 + p) != exact


def test_the_closed_form_counterexample_is_a_brute_force_fact(claim_results):
    result = claim_results(claims_for(claim_id="000.thm8.closed_form")).results[0]
    assert result.status == "violated"
    # p = 1/100, q = 1/10, T = 5, b = 2 (anti-correlated chain): log(90100/121) vs log(8911/11)
    exact = brute_force_ratio(result.first_counterexample, 2)
    assert exact == Fraction(90100, 121)
    assert theorem8_ratio(Fraction(1, 100), Fraction(1, 10), 2) == Fraction(8911, 11) != exact
