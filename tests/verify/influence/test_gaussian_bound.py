"""Certified bounds on a†(L) and a*(b) of Example 6.2 (000 §6.3, Theorem 9): the numerical grid
maximum never exceeds the certified upper bound, the bounds meet the tolerance, the two interval
backends (arb balls, mpmath intervals) agree, translated and reflected sets give the same value,
weak correlations (a† near 0) are bounded to a width proportional to a†, the degenerate sets
(empty L, the coordinate itself in L) and a*(b) over every L."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.verify.influence.gaussian import GaussianSetting, leakage_through
from pufferfish.verify.influence.gaussian_bound import (LeakageCache, LeakageEnclosure,
                                                        certified_a_star, gaussian_leakage_bounds,
                                                        offset_class)

SETTING = GaussianSetting(3, F(2), gamma=F(2), delta=F(1, 5))
PAPER = GaussianSetting(5, F(2))        # γ = 5, δ = 1/10 as in 000 §6.3


@pytest.mark.parametrize("coordinate, low", [(1, (0,)), (1, (0, 2)), (0, (2,))])
def test_grid_maximum_lies_below_the_certified_upper_bound(coordinate, low):
    bound = gaussian_leakage_bounds(SETTING, coordinate, low, tolerance=F(1, 20))
    grid = leakage_through(SETTING, coordinate, low, grid=201).value
    assert bound.lower <= bound.upper <= bound.lower + F(1, 20)
    assert grid <= float(bound.upper) + 1e-12
    assert float(bound.lower) <= grid + 0.05      # the grid is fine enough to come close


@pytest.mark.parametrize("setting, coordinate, low", [
    (SETTING, 1, (0,)), (SETTING, 0, (1, 2)), (PAPER, 2, (0, 4)), (PAPER, 1, (4,))])
def test_arb_and_mpmath_backends_enclose_the_same_value(setting, coordinate, low):
    arb = gaussian_leakage_bounds(setting, coordinate, low, tolerance=F(1, 50))
    iv = gaussian_leakage_bounds(setting, coordinate, low, tolerance=F(1, 50), backend="mpmath-iv")
    assert max(arb.lower, iv.lower) <= min(arb.upper, iv.upper)
    grid = leakage_through(setting, coordinate, low, grid=401).value
    assert grid <= float(min(arb.upper, iv.upper)) + 1e-9


def test_translated_and_reflected_sets_share_one_value():
    assert offset_class(1, (3, 4)) == offset_class(3, (0, 1)) == offset_class(0, (2, 3))
    first = gaussian_leakage_bounds(PAPER, 1, (3, 4), tolerance=F(1, 100))
    mirrored = gaussian_leakage_bounds(PAPER, 3, (0, 1), tolerance=F(1, 100))
    assert max(first.lower, mirrored.lower) <= min(first.upper, mirrored.upper)
    cache = LeakageCache(PAPER)
    assert cache.enclosure(1, (3, 4)) is cache.enclosure(3, (0, 1)) is cache.enclosure(2, (4, 5))


def test_weak_correlation_is_bounded_relative_to_its_size():
    weak = GaussianSetting(6, F(1, 2))          # Σ at distance 3: e^{-18}
    bound = gaussian_leakage_bounds(weak, 2, (5,), tolerance=F(1, 10**7))
    assert 0 < bound.lower <= bound.upper <= bound.lower + F(1, 10**7)
    assert bound.upper < F(1, 10**5)
    assert bound.cells < 1000


def test_degenerate_sets():
    assert gaussian_leakage_bounds(SETTING, 1, ()).upper == 0
    with pytest.raises(ModelError, match="infinite"):
        gaussian_leakage_bounds(SETTING, 1, (1,))
    with pytest.raises(ModelError, match="backend"):
        gaussian_leakage_bounds(SETTING, 1, (0,), backend="float")


def test_a_star_bounds_every_low_set():
    star = certified_a_star(SETTING, 1, 2, tolerance=F(1, 10))
    singles = [gaussian_leakage_bounds(SETTING, 1, (j,), tolerance=F(1, 10)) for j in (0, 2)]
    assert star.upper == min(s.upper for s in singles)
    assert star.lower == min(s.lower for s in singles)
    assert star.to_dict()["certified"] is True


def test_refinement_stops_when_the_width_cannot_shrink():
    enclosure = LeakageEnclosure(PAPER, 1, (3,))
    assert enclosure.refine(F(0), max_cells=600) is False
    assert 0 < enclosure.width < F(1, 10**9) and enclosure.cells < 600
