"""The MQM histogram release (``002_e1f2e9a9937b8cda.txt`` Appendix B.2, Theorem B.9, B.12).

Known answers: the per-coordinate scale ``2σ_max/T`` on a 3-node binary chain worked by hand;
``E max |Lap|`` against numerical integration; the 2/T-Lipschitz constant by brute force.  The
chain generator's guarantees (π_min ≥ π_gen, g ≥ g_gen, reversible, positive) on many seeds; the
Theorem B.9 claims (the consistency claim holds, the proof's last inequality is violated) and a
check that the consistency claim can fail; Figure 4 written with tiny settings.
"""

from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import product

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.errors import ModelError
from pufferfish.models.chain_family import ChainFamily, chain_family_parameters, eigengap_interval
from pufferfish.verify.quilts.histogram import (expected_max_abs_laplace, harmonic_number,
                                                histogram_mechanism, state_histogram)
from pufferfish.proofs_check.paper_002.figures import figure4_data, generate_reversible_chain, make_figure4, sample_chains


# ------------------------------------------------------------------------------------------------
# the histogram query and its noise (Appendix B.2)
# ------------------------------------------------------------------------------------------------

def test_state_histogram_known_answer():
    assert state_histogram([0, 2, 2, 1], (0, 1, 2)) == (F(1, 4), F(1, 4), F(1, 2))
    with pytest.raises(ModelError, match="data.1"):
        state_histogram([0, 7], (0, 1))


def test_histogram_is_2_over_T_lipschitz_appendix_b12():
    """Appendix B.12: ‖F(D) − F(D')‖₁ ≤ 2/T for D, D' differing in one entry (attained)."""
    states, T = (0, 1, 2), 3
    worst = F(0)
    for d in product(states, repeat=T):
        f = state_histogram(d, states)
        for t, v in product(range(T), states):
            d2 = d[:t] + (v,) + d[t + 1:]
            worst = max(worst, sum(abs(x - y) for x, y in zip(f, state_histogram(d2, states))))
    assert worst == F(2, T)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_expected_max_abs_laplace_matches_integration(k):
    """E max_j |Lap(b)_j| = b·H_k (Rényi) vs ∫₀^∞ 1 − (1 − e^{−x/b})^k dx."""
    b = F(3, 7)
    integral = mpmath.quad(lambda x: 1 - (1 - mpmath.exp(-x / float(b))) ** k, [0, mpmath.inf])
    assert abs(float(expected_max_abs_laplace(k, b)) - float(integral)) < 1e-12
    assert harmonic_number(3) == F(11, 6)


def test_histogram_scale_by_hand_appendix_b2():
    """Appendix B.2 with MQMExact on X1 → X2 → X3, p0 = p1 = 3/4, stationary start, ε = log 27.

    By hand: P(X_j = y | X_i = x) is 3/4 or 1/4 for neighbours, 5/8 or 3/8 two steps apart.
    Node 2: {X1, X3} has e = log 9 and card 1 → 1/(log 27 − log 9) = 1/log 3 (∅: 3/log 27 and
    {X1}: 2/(log 27 − log 3) tie); nodes 1 and 3: {X2} has e = log 3, card 1 → 1/(2 log 3).
    So σ_max = 1/log 3 and the per-coordinate scale is b = 2σ_max/T = 2/(3 log 3) ≈ 0.6068;
    E‖M − F‖∞ = H_2·b = 1/log 3, E‖M − F‖₁ = 2b.
    """
    chain = MarkovChain.binary("3/4", "3/4", 3, ["1/2", "1/2"])
    mech = histogram_mechanism(3, "log(27)", family=ChainFamily((chain,), "stationary"),
                               method="exact")
    lo, hi = mech.scale_interval
    expected = 2 / (3 * math.log(3))
    assert float(lo) <= expected <= float(hi) and float(hi - lo) < 1e-12
    assert abs(float(mech.expected_linf_error) - 1 / math.log(3)) < 1e-12
    assert mech.expected_l1_error == 2 * mech.scale
    assert mech.k == 2 and mech.states == (0, 1)
    data = mech.to_dict()
    assert data["scale"] == str(mech.scale.numerator) + "/" + str(mech.scale.denominator)
    release = mech.release([0, 1, 1], np.random.default_rng(0))
    assert len(release) == 2


def test_histogram_trivial_quilt_known_answer():
    """T = 10 below the Lemma B.4 distance (log 4/(1/10) ≈ 13.9): only ∅ — σ = T/ε, b = 2/ε."""
    mech = histogram_mechanism(10, "2", states=(0, 1, 2), pi=F(1, 4), g=F(1, 10))
    lo, hi = mech.scale_interval
    assert lo <= 1 <= hi and hi - lo < F(1, 10**12)
    assert abs(mech.expected_linf_error - F(11, 6)) < F(1, 10**12)


def test_histogram_methods_agree_and_exact_is_smaller():
    """Exact max-influence ≤ Lemma B.4's bound, so MQMExact's scale ≤ MQMApprox's; Algorithm 5
    gives Algorithm 3's σ (Claims B.10–B.11)."""
    gen = generate_reversible_chain(3, "1/10", "3/10", seed=1, length=60)
    family = ChainFamily((gen.chain,), "any")
    pi, g = chain_family_parameters(family)
    approx = histogram_mechanism(60, "1", family=family, method="approx")
    fast = histogram_mechanism(60, "1", pi=pi, g=g, states=(0, 1, 2), method="fast")
    exact = histogram_mechanism(60, "1", family=family, method="exact")
    assert approx.scale == fast.scale
    assert exact.scale <= approx.scale


def test_histogram_bad_input():
    with pytest.raises(ModelError, match="--method"):
        histogram_mechanism(10, "1", states=(0, 1), pi=F(1, 4), g=F(1, 2), method="nope")
    with pytest.raises(ModelError, match="--method"):
        histogram_mechanism(10, "1", states=(0, 1), method="exact")
    with pytest.raises(ModelError, match="--epsilon"):
        histogram_mechanism(10, "0", states=(0, 1), pi=F(1, 4), g=F(1, 2))
    with pytest.raises(ModelError, match="--states"):
        histogram_mechanism(10, "1", pi=F(1, 4), g=F(1, 2))


# ------------------------------------------------------------------------------------------------
# the chain generator of Appendix B.12
# ------------------------------------------------------------------------------------------------

@settings(max_examples=12, deadline=None)
@given(k=st.integers(2, 5), seed=st.integers(0, 10**6),
       pi_num=st.integers(1, 19), g_num=st.integers(1, 19))
def test_generator_guarantees(k, seed, pi_num, g_num):
    """π_min(P) ≥ π_gen (exact), g(P) ≥ g_gen (certified), reversible, P > 0."""
    pi_gen, g_gen = F(pi_num, 20 * k), F(g_num, 20)
    gen = generate_reversible_chain(k, pi_gen, g_gen, seed=seed)
    P = gen.chain.matrix
    assert min(gen.chain.stationary()) == gen.pi_min >= pi_gen
    assert eigengap_interval(gen.chain) == gen.gap and gen.gap[0] >= g_gen
    assert gen.chain.is_reversible() and all(p > 0 for row in P for p in row)
    lams = sorted(abs(np.linalg.eigvals(np.array([[float(p) for p in r] for r in P]))))
    assert abs((1 - lams[-2]) - float(gen.gap[0])) < 1e-9         # numerical cross-check


def test_generator_is_seeded_and_checks_input():
    a = generate_reversible_chain(5, "1/20", "1/10", seed=3)
    b = generate_reversible_chain(5, "1/20", "1/10", seed=3)
    assert a.chain.matrix == b.chain.matrix
    assert a.chain.matrix != generate_reversible_chain(5, "1/20", "1/10", seed=4).chain.matrix
    with pytest.raises(ModelError, match="pi_gen"):
        generate_reversible_chain(5, "1/4", "1/10")
    with pytest.raises(ModelError, match="g_gen"):
        generate_reversible_chain(3, "1/10", "1")


def test_sampler_matches_the_chain():
    """Numerical: empirical transition frequencies of sampled paths are close to P."""
    gen = generate_reversible_chain(3, "1/10", "1/2", seed=0)
    x = sample_chains(gen.chain.matrix, [1, 0, 0], 400, 50, np.random.default_rng(1))
    assert x.shape == (50, 400) and (x[:, 0] == 0).all()
    pairs = np.zeros((3, 3))
    np.add.at(pairs, (x[:, :-1].ravel(), x[:, 1:].ravel()), 1)
    emp = pairs / pairs.sum(axis=1, keepdims=True)
    assert np.abs(emp - np.array([[float(p) for p in r] for r in gen.chain.matrix])).max() < 0.05


# ------------------------------------------------------------------------------------------------
# Theorem B.9
# ------------------------------------------------------------------------------------------------

def _claim(claim_id):
    from pufferfish.proofs_check.registry import all_claims
    return next(c for c in all_claims() if c.id == claim_id)


def test_theorem_b9_claims(claim_results):
    result = claim_results([_claim("002.thmB9.consistency")]).results[0]
    assert result.errors == 0, result.first_error
    assert result.status == "holds" and result.instances >= 30
    proof = claim_results([_claim("002.thmB9.proof_constant")]).results[0]
    assert proof.errors == 0, proof.first_error
    assert proof.status == "violated" and "H_k" in proof.first_violation


def test_theorem_b9_check_on_a_small_instance_and_it_can_fail(monkeypatch):
    claim = _claim("002.thmB9.consistency")
    instance = next(i for i in claim.generate() if "k=2 (" in i.label and "ε=5" in i.label)
    outcome = claim.check(instance)
    assert outcome.holds and "C = 4a" in outcome.detail
    # the group-DP noise σ = T/ε (Appendix A.2.1) grows with T: the check must reject it
    import dataclasses
    from pufferfish.proofs_check.paper_002 import quilt_histogram as claims
    original = claims.histogram_mechanism

    def group_dp(length, epsilon, **kw):
        mech = original(length, epsilon, **kw)
        sigma = length / float(F(epsilon))
        return dataclasses.replace(mech, mqm=dataclasses.replace(mech.mqm, sigma=(sigma, sigma)))
    monkeypatch.setattr(claims, "histogram_mechanism", group_dp)
    outcome = claim.check(instance)
    assert not outcome.holds and "2C/(εT)" in outcome.detail


# ------------------------------------------------------------------------------------------------
# Figure 4
# ------------------------------------------------------------------------------------------------

TINY = dict(repetitions=4, epsilons=("1/2", "2"), pi_ests=("1/50", "1/20"),
            g_ests=("1/20", "1/10"), lengths=(150, 300), length=200)


def test_figure4_data_tiny():
    """Appendix B.12: the exact expected L1 error k·2σ_max/T decreases in ε and does not increase
    in π_est, g_est and T (numerical simulation alongside)."""
    d = figure4_data(**TINY)
    assert d["numerical"] and set(d["panels"]) == {"pi_est", "g_est", "T"}
    assert F(d["chain"]["pi_min"]) >= F(1, 20) and d["chain"]["eigengap"][0] >= 0.1
    for lines in d["panels"].values():
        for line in lines:
            e = line["expected_l1"]
            assert all(x > y for x, y in zip(e, e[1:])) and len(line["mean_l1"]) == 2
        for j in range(2):
            column = [line["expected_l1"][j] for line in lines]
            assert all(x >= y for x, y in zip(column, column[1:]))
    with pytest.raises(ModelError, match="pi_est"):
        figure4_data(**{**TINY, "pi_ests": ("1/10",)})


def test_make_figure4_direct(tmp_path):
    path = make_figure4(tmp_path, **{**TINY, "repetitions": 2})
    assert path.name == "figure_4.png" and path.stat().st_size > 1000
