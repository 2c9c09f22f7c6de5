"""Certified comparison of minima of a† (000 §6.3, Theorem 9): exact ties by offset class, a
certified violation with its witness, refinement until decided, and an undecided answer when the
cell budget is spent — each checked against dense numerical grids, which the certified bounds
must contain."""

from __future__ import annotations

from fractions import Fraction as F

from pufferfish.verify.influence.gaussian import GaussianSetting, leakage_through
from pufferfish.verify.influence.gaussian_bound import LeakageCache
from pufferfish.verify.influence.gaussian_compare import compare_minima

SIX = GaussianSetting(6, F(2))


def test_mirror_coordinates_tie_exactly():
    cache = LeakageCache(SIX)
    sets = {i: [(i, low) for low in ((0, 5), (1, 4), (0, 1))] for i in (2, 3)}
    mirrored = [(3, tuple(sorted(5 - j for j in low))) for _, low in sets[2]]
    assert compare_minima(cache, sets[2], mirrored).verdict == "holds"
    assert compare_minima(cache, mirrored, sets[2]).verdict == "holds"


def test_a_violation_names_its_witness_and_matches_the_grid():
    cache = LeakageCache(SIX)
    left, right = [(2, (0, 1, 4, 5))], [(2, (0, 1, 3, 5))]
    result = compare_minima(cache, left, right)
    assert result.verdict == "violated" and result.witness == (2, (0, 1, 4, 5))
    assert result.left[1] < result.right[0]
    for (lo, hi), (i, low) in ((result.left, left[0]), (result.right, right[0])):
        grid = leakage_through(SIX, i, low, grid=201).value
        assert grid <= float(hi) + 1e-9
    assert result.to_dict()["certified"] is True


def test_refinement_decides_close_values_and_a_budget_leaves_them_open():
    weak = GaussianSetting(6, F(1, 2))
    pairs = ([(2, (0, 5))], [(2, (0, 4))])
    assert compare_minima(LeakageCache(weak), *pairs, max_cells=1).verdict == "undecided"
    decided = compare_minima(LeakageCache(weak), *pairs)
    assert decided.verdict == "violated"
    grids = [leakage_through(weak, 2, low, grid=401).value for low in ((0, 5), (0, 4))]
    assert grids[0] < grids[1]
