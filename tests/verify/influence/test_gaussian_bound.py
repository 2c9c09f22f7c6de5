"""Certified bounds on a†(L) and a*(b) of Example 6.2 (000 §6.3, Theorem 9): the numerical grid
maximum never exceeds the certified upper bound, the bounds meet the tolerance, the degenerate
sets (empty L, the coordinate itself in L) and a*(b) over every L."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.verify.influence.gaussian import GaussianSetting, leakage_through
from pufferfish.verify.influence.gaussian_bound import certified_a_star, gaussian_leakage_bounds

SETTING = GaussianSetting(3, F(2), gamma=F(2), delta=F(1, 5))


@pytest.mark.parametrize("coordinate, low", [(1, (0,)), (1, (0, 2)), (0, (2,))])
def test_grid_maximum_lies_below_the_certified_upper_bound(coordinate, low):
    bound = gaussian_leakage_bounds(SETTING, coordinate, low, tolerance=F(1, 20))
    grid = leakage_through(SETTING, coordinate, low, grid=201).value
    assert bound.lower <= bound.upper <= bound.lower + F(1, 20)
    assert grid <= float(bound.upper) + 1e-12
    assert float(bound.lower) <= grid + 0.05      # the grid is fine enough to come close


def test_degenerate_sets():
    assert gaussian_leakage_bounds(SETTING, 1, ()).upper == 0
    with pytest.raises(ModelError, match="infinite"):
        gaussian_leakage_bounds(SETTING, 1, (1,))


def test_a_star_bounds_every_low_set():
    star = certified_a_star(SETTING, 1, 2, tolerance=F(1, 10))
    singles = [gaussian_leakage_bounds(SETTING, 1, (j,), tolerance=F(1, 10)) for j in (0, 2)]
    assert star.upper == min(s.upper for s in singles)
    assert star.lower == min(s.lower for s in singles)
    assert star.to_dict()["certified"] is True
