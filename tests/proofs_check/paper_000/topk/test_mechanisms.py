"""The four mechanisms of ``000_65109fe28ca61d17.txt`` §7.1.3 and their calibrations."""

from fractions import Fraction as F

import numpy as np
import pytest

from pufferfish.proofs_check.paper_000.topk.prior_fit import fit_chain
from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate
from pufferfish.verify.influence.chains import stationary_chain_curve_bounds
from pufferfish.proofs_check.paper_000.topk.mechanisms import (EPSILONS, calibrate_all, calibrate_group_exp, calibrate_group_lap,
                         release)
from pufferfish.verify.influence.translation import LogValue


@pytest.fixture(scope="module")
def setting():
    data = generate(SHAPES["activities"].scaled(0.1), seed=2)
    chain = fit_chain(data.train_sequences(), data.states, data.max_length())
    return data, chain, stationary_chain_curve_bounds([chain])


def test_calibrations_follow_the_stated_budget_splits(setting):
    data, chain, curve = setting
    T, m = chain.length, data.k
    for eps in ("0.5", "5"):
        cals = calibrate_all(eps, chain, curve, m, 3)
        ours, mqm, gexp, glap = (cals[k] for k in ("Ours-Exp", "MQM", "Group DP-Exp",
                                                    "Group DP-Lap"))
        # group DP: ε_DP = ε/T (certified lower fraction), Laplace T·m/ε per count
        assert abs(float(gexp.epsilon_dp) - float(F(eps)) / T) < 1e-12
        assert abs(glap.scale - T * m / float(F(eps))) < 1e-6 * glap.scale
        # Theorem 6 picks the best point; (T, 0) is on the curve, so Ours-Exp is never worse
        assert ours.epsilon_dp >= gexp.epsilon_dp
        a = ours.point.a
        assert a < LogValue.parse(eps, "e")
        assert abs(float(ours.epsilon_dp) - (float(F(eps)) - a.to_float()) / ours.point.b) < 1e-9
        # MQM's trivial quilt has score T/(ε/m): its σ is never larger than Group DP-Lap's
        assert mqm.scale <= glap.scale * (1 + 1e-9)
        assert "quilt" in mqm.source and "curve point" in ours.source
        assert ours.to_dict()["epsilon_dp_float"] > 0 and mqm.to_dict()["noise_scale"] > 0


def test_releases_are_rankings_and_seeded(setting):
    data, chain, curve = setting
    counts = data.counts()[data.groups[0]]
    for cal in calibrate_all("2", chain, curve, data.k, 3).values():
        a = release(cal, counts, np.random.default_rng(7))
        b = release(cal, counts, np.random.default_rng(7))
        assert a == b and len(set(a)) == 3 and all(0 <= x < data.k for x in a)


def test_large_budget_returns_the_true_top_k():
    """With a huge ε the exponential and Laplace releases are (almost surely) exact."""
    counts = np.array([50, 400, 10, 300, 200])
    rng = np.random.default_rng(0)
    exp = calibrate_group_exp("100000", 1, 3)
    lap = calibrate_group_lap("100000", 1, 5, 3)
    assert release(exp, counts, rng) == (1, 3, 4)
    assert release(lap, counts, rng) == (1, 3, 4)


def test_epsilons_of_the_tables():
    assert EPSILONS == ("0.5", "1", "2", "3", "4", "5")
