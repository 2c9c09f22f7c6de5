"""Tests of pufferfish.verify.multiuser.levels (001_3a97785a86d61e37.txt §4.3, Theorem 3 and
equation (15)): deciding the level at a transcendental θ."""

from __future__ import annotations

from fractions import Fraction as Q

from pufferfish.models.distribution import Distribution
from pufferfish.models.multiuser import MultiUserModel, User, bernoulli
from pufferfish.verify.multiuser.levels import check_theta, decide_at_root, level_at
from pufferfish.verify.multiuser.pairs import pair_conditionals
from pufferfish.verify.multiuser.thetas import eq15_theta
from pufferfish.verify.numerics.certified import parse_budget


def test_decision_at_root_on_a_finer_lattice_than_theta():
    """θ15 = 1/log z* with the other user's values on ½ℤ: the decision works in u = z*^{1/2}
    (this used to fail with AttributeError: mpmath interval contexts have no n-th root).
    For values >= 0 the level at θ13 = θ15 is exactly ε, which the decision must find."""
    budget = parse_budget("1")
    for p in (Q(1, 5), Q(1, 2)):
        model = MultiUserModel((User("o", distribution=Distribution({Q(0): Q(1, 2), Q(1, 2): Q(1, 2)})),
                                User("i", Q(1, 2), bernoulli(p))), ("i",))
        pairs, _ = pair_conditionals(model, "P-absent")
        theta = eq15_theta(p, budget)
        assert not theta.exact
        assert level_at(pairs, theta.lower, budget).relation == "above"
        assert level_at(pairs, theta.upper, budget).relation == "below"
        assert decide_at_root(pairs, theta.root, budget) == "tight"
        assert check_theta(pairs, theta, budget).relation == "tight"
