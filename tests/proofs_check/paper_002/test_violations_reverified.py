"""Counterexamples of violated 002 claims re-verified by a second, independent computation
(written out here from the definitions, not through the code the claims use)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest

from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.numerics.intervals import (endpoints, exp_interval, interval_context,
                                                  log_enclosure, rational_interval)


@pytest.fixture
def result_of(claim_results):
    """``result_of(claim_id)``: the result of a registered claim, which must be violated."""
    def violated(claim_id: str):
        result = claim_results(claims_for(claim_id=claim_id)).results[0]
        assert result.status == "violated", claim_id
        return result
    return violated


def test_flu_conditionals_fit_no_prior_by_elimination(result_of):
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


def test_xor_prior_needs_more_noise_than_the_group_sensitivity(result_of):
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


def test_algorithm4_as_printed_has_no_finite_quilt_for_a_single_node(result_of):
    """002.alg4.literal_finite at T = 1: the node's only candidates encode a missing side with
    a = b = 1, and the printed condition needs a, b above log(1/π_Θ)/g_Θ = log(3)/(3/10) > 3."""
    result = result_of("002.alg4.literal_finite")
    instance = result.first_counterexample["instance"]
    assert (instance["T"], instance["pi"], instance["g"]) == (1, "1/3", "3/10")
    low, _ = log_enclosure(Fraction(3), 64)
    assert low / Fraction(3, 10) > 3 > 1


def test_b10_gamma_of_a_flipping_chain_is_41_by_its_definition(result_of):
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


# --- 002.claimB11.exact_influence: Algorithm 5 with max-influence computed from the joint law ---

def chain_joint(model_file: dict) -> dict[tuple[int, ...], Fraction]:
    """The law of (X_1, ..., X_T) from the model file's ``markov`` prior, by the product rule
    P(x) = μ(x_1) Π_t P(x_t, x_{t+1}); checked against the loaded model's prior."""
    (prior,) = model_file["priors"].values()
    initial = {int(s): Fraction(p) for s, p in prior["markov"]["initial"].items()}
    kernel = {(int(s), int(t)): Fraction(p) for s, row in prior["markov"]["transition"].items()
              for t, p in row.items()}
    T = len(model_file["attributes"])
    joint = {}
    for x in product(model_file["domain"], repeat=T):
        p = initial.get(x[0], Fraction(0))
        for s, t in zip(x, x[1:]):
            p *= kernel.get((s, t), Fraction(0))
        joint[x] = p
    (loaded,) = parse_model(model_file).priors.values()
    assert all(loaded.probability(x) == p for x, p in joint.items())
    return joint


def max_influence_ratio(joint: dict, i: int, quilt: tuple[int, ...]) -> Fraction | None:
    """exp e(X_Q | X_i) of Definition 4.1 (one θ): the largest P(x_Q | X_i = a) / P(x_Q | X_i = b)
    over values a, b of positive probability and x_Q; None when it is infinite.  Nodes are
    numbered from 1."""
    given: dict[int, dict[tuple, Fraction]] = {}
    for x, p in joint.items():
        row = given.setdefault(x[i - 1], {})
        key = tuple(x[q - 1] for q in quilt)
        row[key] = row.get(key, Fraction(0)) + p
    rows = [{key: p / sum(row.values()) for key, p in row.items()}
            for row in given.values() if sum(row.values())]
    worst = Fraction(1)
    for top, bottom in product(rows, repeat=2):
        for key, p in top.items():
            if p and not bottom.get(key):
                return None
            if p:
                worst = max(worst, p / bottom[key])
    return worst


def quilt_scores(joint: dict, i: int, epsilon: Fraction) -> list[tuple]:
    """Every Markov quilt {X_{i−a}, X_{i+b}} of X_i in the chain (a side at X_0 or X_{T+1} left
    out; S_{Q,i} of §4.1 with no distance threshold) as ``(quilt, card(X_N), exp e(X_Q|X_i),
    score_low, score_high)``: the score card(X_N)/(ε − e(X_Q|X_i)) of Algorithm 2 certified,
    card(X_N) = a + b − 1; quilts with e ≥ ε (score ∞) omitted."""
    T = len(next(iter(joint)))
    scores = []
    for a in range(1, i + 1):
        for b in range(1, T - i + 2):
            quilt = tuple(q for q in (i - a, i + b) if 1 <= q <= T)
            ratio = max_influence_ratio(joint, i, quilt)
            if ratio is None:
                continue
            low, high = (Fraction(v) for v in log_enclosure(ratio, 96))
            if low >= epsilon:
                continue
            assert high < epsilon, f"undecided: e = log {ratio} against ε = {epsilon}"
            card = a + b - 1
            scores.append((quilt, card, ratio, card / (epsilon - low), card / (epsilon - high)))
    return scores


def best_quilt(joint: dict, i: int, epsilon: Fraction) -> tuple:
    """FindBestMarkovQuilt(i, ε): the quilt of least score, certified to beat every other."""
    best, *rest = sorted(quilt_scores(joint, i, epsilon), key=lambda s: s[3])
    assert all(best[4] < other[3] for other in rest), "the best quilt is not certified"
    return best


def fast_markov_quilt(joint: dict, epsilon: Fraction) -> tuple[tuple, Fraction, Fraction]:
    """Algorithm 5 run literally from i = ⌊T/2⌋: the last best quilt and an enclosure of σ_max;
    the run must end on a quilt with both sides inside the chain (Claim B.11's hypothesis)."""
    T = len(next(iter(joint)))
    i, explored, low, high = T // 2, set(), Fraction(0), Fraction(0)
    while i not in explored:
        explored.add(i)
        best = best_quilt(joint, i, epsilon)
        low, high = max(low, best[3]), max(high, best[4])
        has_left, has_right = any(q < i for q in best[0]), any(q > i for q in best[0])
        if has_left == has_right:
            break
        i = i - 1 if has_left else i + 1
    assert has_left and has_right, "Algorithm 5 ended on a boundary quilt: Claim B.11 does not apply"
    return best, low, high


def test_claim_b11_with_exact_influence_leaves_node_4_under_protected(result_of):
    """002.claimB11.exact_influence, T = 5, flip probability 9/10, X_1 = 0 surely, ε = 5:
    Algorithm 5 starts at X_2, whose best quilt {X_1, X_3} (interior) scores 1/(5 − log 9) ≈ 0.357
    (X_1 is constant, and P(X_3 | X_2) has ratio 9); but every quilt of X_4 scores at least 4/5 —
    the best is {X_1}, of max-influence 0 since X_1 is constant, while the shifted quilt
    {X_3, X_5} has e = log(15309/61) ≈ 5.53 > ε.  The chain does not start in its stationary law, so the
    shift does not carry X_2's score to X_4."""
    result = result_of("002.claimB11.exact_influence")
    assert "ε=5" in result.first_violation
    epsilon = Fraction(5)
    joint = chain_joint(result.first_counterexample)
    assert {x[0] for x, p in joint.items() if p} == {0}
    (quilt, card, ratio, _, _), fast_low, fast_high = fast_markov_quilt(joint, epsilon)
    assert (quilt, card, ratio) == ((1, 3), 1, 9)
    assert Fraction(35, 100) < fast_low < fast_high < Fraction(36, 100)   # 1/(5 − log 9)
    node4 = quilt_scores(joint, 4, epsilon)
    assert min(s[3] for s in node4) == Fraction(4, 5)                   # σ_4 = 4/5 ...
    assert ((1,), 4, 1, Fraction(4, 5), Fraction(4, 5)) in node4        # ... from {X_1}
    assert max_influence_ratio(joint, 4, (3, 5)) == Fraction(15309, 61)
    assert (3, 5) not in [s[0] for s in node4]                          # its score is ∞
    assert not any(c <= card and r <= ratio for _, c, r, _, _ in node4)  # no quilt as good
    assert fast_high < Fraction(4, 5)


def test_claim_b11_with_exact_influence_holds_on_the_stationary_chain(result_of):
    """The guard: the same chain started in its stationary law (1/2, 1/2) is shift-invariant, so
    Claim B.11's argument goes through with exact influence: at ε = 10 (at ε = 5 Algorithm 5
    ends on the empty quilt, outside the claim's hypothesis) it ends on {X_1, X_3} with
    e = log 81, and every node j has a quilt with at most as many nearby nodes and at most that
    max-influence, hence σ_j ≤ σ_max."""
    model_file = json.loads(json.dumps(result_of("002.claimB11.exact_influence")
                                       .first_counterexample))
    (prior,) = model_file["priors"].values()
    prior["markov"]["initial"] = {"0": "1/2", "1": "1/2"}
    joint = chain_joint(model_file)
    epsilon = Fraction(10)
    (quilt, card, ratio, _, _), _, _ = fast_markov_quilt(joint, epsilon)
    assert (quilt, card, ratio) == ((1, 3), 1, 81)
    for node in range(1, 6):
        assert any(c <= card and r <= ratio for _, c, r, _, _ in quilt_scores(joint, node, epsilon))


# --- 002.thmB9.proof_constant: the MQM histogram's expected ℓ∞ error from the definitions ---

def certified(evaluate) -> tuple[Fraction, Fraction]:
    """Exact endpoints of ``evaluate(context)`` computed in a private 120-bit interval context."""
    return endpoints(evaluate(interval_context(120)))


def lemma_b4_f(pi: Fraction, g: Fraction, t: int) -> tuple[Fraction, Fraction] | None:
    """f(t) = log((π_Θ + e^{−g_Θ t})/(π_Θ − e^{−g_Θ t})) of Lemma B.4 (Appendix B.5), enclosed;
    None where π_Θ ≤ e^{−g_Θ t} (no bound)."""
    def ratio(ctx):
        decay = exp_interval(ctx, -g * t)
        return (rational_interval(ctx, pi) + decay) / (rational_interval(ctx, pi) - decay)
    decay_low, decay_high = certified(lambda ctx: exp_interval(ctx, -g * t))
    if decay_low >= pi:
        return None
    assert decay_high < pi, f"undecided: e^(-g t) against π at t = {t}"
    return certified(lambda ctx: ctx.log(ratio(ctx)))


def node_quilt_scores(T: int, i: int, eps: Fraction, pi: Fraction, g: Fraction) -> list[tuple]:
    """Every quilt of X_i in a chain of length T with Lemma B.4's bound on its max-influence —
    f(b) + 2f(a) with both sides, 2f(a) with X_{i−a} only, f(b) with X_{i+b} only, 0 for the
    empty quilt (Algorithm 4's cases, with no distance threshold: a superset of the candidates of
    every reading of it) — as ``(a, b, score_low, score_high)``, score (a + b − 1)/(ε − e)."""
    scores = []
    for a in range(1, i + 1):
        for b in range(1, T - i + 2):
            parts = [lemma_b4_f(pi, g, a) if i - a >= 1 else (Fraction(0),) * 2,
                     lemma_b4_f(pi, g, b) if i + b <= T else (Fraction(0),) * 2]
            if None in parts:
                continue
            (left_low, left_high), (right_low, right_high) = parts
            e_low, e_high = 2 * left_low + right_low, 2 * left_high + right_high
            if e_low >= eps:
                continue
            assert e_high < eps, f"undecided: quilt ({a}, {b}) against ε"
            scores.append((a, b, (a + b - 1) / (eps - e_low), (a + b - 1) / (eps - e_high)))
    return scores


def expected_max_of_exponentials(k: int) -> Fraction:
    """E max(|L_1|, ..., |L_k|) for k independent Lap(1): |L_j| ~ Exp(1), so
    E max = ∫_0^∞ (1 − (1 − e^{−t})^k) dt = Σ_{j=1}^k (−1)^{j+1} C(k, j)/j (binomial expansion)."""
    from math import comb
    return sum((Fraction((-1) ** (j + 1) * comb(k, j), j) for j in range(1, k + 1)), Fraction(0))


def quilt_constant_a(eps: Fraction, pi: Fraction, g: Fraction) -> int:
    """a = ⌈log((e^{ε/6} + 1)/(e^{ε/6} − 1) · 1/π_Θ)/g_Θ⌉ of Theorem 4.4 / Lemma B.8, certified."""
    def inside(ctx):
        grow = exp_interval(ctx, eps / 6)
        return ctx.log((grow + 1) / (grow - 1) / rational_interval(ctx, pi)) / rational_interval(ctx, g)
    low, high = certified(inside)
    assert -(-low // 1) == -(-high // 1), "undecided ceiling"
    return int(-(-low // 1))


def test_theorem_b9_proof_constant_fails_by_the_expected_maximum_of_two_laplace_variables(
        result_of):
    """002.thmB9.proof_constant at k = 2, π_Θ = 3/10, g_Θ = 1/2, ε = 1/2: a = 9, C = 4a = 36,
    T = 2T_0 = 42.  Both Algorithms 3 and 5 score the middle node X_21 (Algorithm 5 starts
    there), whose best quilt under Lemma B.4's bound, {X_9, X_31}, scores 11/(ε − f(10) − 2f(12))
    = σ_21 ≈ 49.76, so the per-coordinate
    scale is b = 2σ_max/T ≥ 2.3695; the expected maximum of two |Lap(b)| is (2 − 1/2)·b ≥ 3.554,
    above the proof's 2C/(εT) = 72/21 ≈ 3.429 — while b itself is below it."""
    result = result_of("002.thmB9.proof_constant")
    assert "T=42, fast" in result.first_violation
    given = result.first_counterexample["instance"]
    k, pi, g, eps = given["k"], Fraction(given["pi"]), Fraction(given["g"]), Fraction(given["eps"])
    assert (k, pi, g, eps) == (2, Fraction(3, 10), Fraction(1, 2), Fraction(1, 2))
    a = quilt_constant_a(eps, pi, g)
    C, T = 4 * a, 2 * (2 * a + 3)
    assert (a, C, T) == (9, 36, 42)
    i = T // 2
    sigma_middle_low = min(low for _, _, low, _ in node_quilt_scores(T, i, eps, pi, g))
    scale_low = 2 * sigma_middle_low / T                          # σ_max ≥ σ_21
    assert Fraction(23695, 10000) < scale_low
    expected_error_low = expected_max_of_exponentials(k) * scale_low
    assert expected_max_of_exponentials(k) == Fraction(3, 2)
    assert expected_error_low > 2 * Fraction(C) / (eps * T) == Fraction(72, 21)


def test_theorem_b9_proof_constant_holds_for_the_scale_itself():
    """The guard: with one coordinate (k = 1, E|Lap(b)| = b) the proof's inequality is Lemma
    B.8's scale bound and holds — Algorithm 5's best quilt for X_21 is interior, so its σ_max is
    σ_21 ≤ 49.8 and b = 2σ_max/T ≤ 2.372 ≤ 72/21."""
    eps, pi, g, T = Fraction(1, 2), Fraction(3, 10), Fraction(1, 2), 42
    i = T // 2
    scores = sorted(node_quilt_scores(T, i, eps, pi, g), key=lambda s: s[2])
    (a, b, _, high), rest = scores[0], scores[1:]
    assert all(high < other[2] for other in rest) and i - a >= 1 and i + b <= T
    threshold_low, _ = certified(lambda ctx: ctx.log(1 / rational_interval(ctx, pi))
                                 / rational_interval(ctx, g))
    assert min(a, b) > threshold_low                   # a candidate under every reading
    assert high < Fraction(498, 10)
    assert expected_max_of_exponentials(1) * 2 * high / T <= 2 * Fraction(36) / (eps * T)
