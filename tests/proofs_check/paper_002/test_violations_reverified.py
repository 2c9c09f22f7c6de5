"""Counterexamples of violated 002 claims re-verified by a second, independent computation
(written out here from the definitions, not through the code the claims use)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from pufferfish.proofs_check.registry import claims_for
from pufferfish.proofs_check.runner import run_claim
from pufferfish.verify.numerics.intervals import log_enclosure


def result_of(claim_id: str):
    result = run_claim(claims_for(claim_id=claim_id)[0])
    assert result.status == "violated", claim_id
    return result


def test_flu_conditionals_fit_no_prior_by_elimination():
    """002.flu.realizable: if every person i has P(N = n | X_i = x) = c_x(n), then
    P(N = n) = c_1(n)π_i + c_0(n)(1 − π_i) and Σ_i P(N = n, X_i = 1) = n·P(N = n), so the common
    π = P(X_i = 1) solves n(c_1(n)π + c_0(n)(1 − π)) = 4·c_1(n)π for every n — but n = 1 and n = 2
    give different π."""
    result = result_of("002.flu.realizable")
    given = result.first_counterexample["instance"]
    c0 = {int(n): Fraction(p) for n, p in given["P(N | X_i = 0)"].items()}
    c1 = {int(n): Fraction(p) for n, p in given["P(N | X_i = 1)"].items()}

    def forced_pi(n: int) -> Fraction:
        # n·c0 + π·n·(c1 − c0) = 4·c1·π  ⇒  π = n·c0 / (4·c1 − n·(c1 − c0))
        a, b = c0.get(n, Fraction(0)), c1.get(n, Fraction(0))
        return n * a / (4 * b - n * (b - a))

    assert forced_pi(1) == Fraction(2, 11) and forced_pi(2) == Fraction(2, 5)


def test_xor_prior_needs_more_noise_than_the_group_sensitivity():
    """002.thm3.3.group_sensitivity: x3 = x1 XOR x2 with x1, x2 fair; the sum given x1 = 0 is 0
    or 2 (1/2 each) and given x1 = 1 is always 2, so W∞ = 2, while changing one bit moves the
    sum by 1."""
    result_of("002.thm3.3.group_sensitivity")
    given: dict[int, dict[int, Fraction]] = {0: {}, 1: {}}
    for x1, x2 in product((0, 1), repeat=2):
        total = x1 + x2 + (x1 ^ x2)
        given[x1][total] = given[x1].get(total, Fraction(0)) + Fraction(1, 2)
    assert given == {0: {0: Fraction(1, 2), 2: Fraction(1, 2)}, 1: {2: Fraction(1)}}
    w_infinity = max(abs(a - b) for a in given[0] for b in given[1])  # a point mass: every pair moves
    sensitivity = max(abs(sum(d) - sum(d[:i] + (1 - d[i],) + d[i + 1:]))
                      for d in product((0, 1), repeat=3) for i in range(3))
    assert (w_infinity, sensitivity) == (2, 1)


def test_algorithm4_as_printed_has_no_finite_quilt_for_a_single_node():
    """002.alg4.literal_finite at T = 1: the node's only candidates encode a missing side with
    a = b = 1, and the printed condition needs a, b above log(1/π_Θ)/g_Θ = log(3)/(3/10) > 3."""
    result = result_of("002.alg4.literal_finite")
    instance = result.first_counterexample["instance"]
    assert (instance["T"], instance["pi"], instance["g"]) == (1, "1/3", "3/10")
    low, _ = log_enclosure(Fraction(3), 64)
    assert low / Fraction(3, 10) > 3 > 1


def test_b10_gamma_of_a_flipping_chain_is_41_by_its_definition():
    """002.B10.gamma_formula at p0 = p1 = 1/10: exp(2γ) is the largest ratio of
    Pr[X_i = s | neighbours] when one neighbour changes; for an interior node of a binary chain
    Pr[X_i = s | a, b] ∝ T(a, s)·T(s, b), which this test evaluates from the kernel directly."""
    result = result_of("002.B10.gamma_formula")
    assert "from the definition = 41" in result.first_violation
    one, nine = Fraction(1, 10), Fraction(9, 10)
    for kernel in ({(0, 0): one, (0, 1): nine, (1, 0): nine, (1, 1): one},     # p = stay
                   {(0, 0): nine, (0, 1): one, (1, 0): one, (1, 1): nine}):    # p = move
        def given(s: int, a: int, b: int) -> Fraction:
            weights = [kernel[(a, t)] * kernel[(t, b)] for t in (0, 1)]
            return weights[s] / sum(weights)
        ratio = max(given(s, a, b) / given(s, 1 - a, b)
                    for s, a, b in product((0, 1), repeat=3))
        assert ratio == 41
