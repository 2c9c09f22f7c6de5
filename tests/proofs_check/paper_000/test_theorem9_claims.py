"""Theorem 9's claims (``000_65109fe28ca61d17.txt`` §6.3) decided with certified enclosures:
every instance is decided; the centre claim fails on exactly the four instances the numerical
grid found (n = 5, 6 with ℓ = 2, 5 and b = 3), now with certified intervals that the grid
values lie in; the farthest-set claim holds everywhere; b = 0 and b = n are decided exactly."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from pufferfish.proofs_check.registry import Instance, claims_for
from pufferfish.verify.influence.gaussian import GaussianSetting, direct_search
from pufferfish.verify.influence.gaussian_bound import LeakageCache
from pufferfish.verify.influence.gaussian_compare import compare_minima

CENTRE_VIOLATIONS = {(5, Fraction(2), 3), (5, Fraction(5), 3), (6, Fraction(2), 3),
                     (6, Fraction(5), 3)}


def _outcomes(claim_id: str):
    claim = claims_for(claim_id=claim_id)[0]
    return [(instance, claim.check(instance)) for instance in claim.generate()]


def test_centre_claim_is_decided_on_every_instance():
    outcomes = _outcomes("000.thm9.centre")
    assert {i.params["b"] for i, _ in outcomes} == set(range(0, 7))
    assert not any(o.undecided for _, o in outcomes)
    violated = {(i.params["n"], i.params["ell"], i.params["b"]) for i, o in outcomes if o.violated}
    assert violated == CENTRE_VIOLATIONS
    assert all("certified" in o.detail for i, o in outcomes if i.params["b"] > 0)


def test_the_grid_values_of_a_violation_lie_in_the_certified_intervals():
    claim = claims_for(claim_id="000.thm9.centre")[0]
    outcome = claim.check(Instance("n=5, ell=2, b=3", {"n": 5, "ell": Fraction(2), "b": 3}))
    assert outcome.violated
    setting = GaussianSetting(5, Fraction(2))
    search = direct_search(setting, 3, grid=41)
    grid = {i: search.per_coordinate[i].value for i in (1, 2)}
    sets = {i: [(i, low) for low in combinations([j for j in range(5) if j != i], 2)]
            for i in (1, 2)}
    result = compare_minima(LeakageCache(setting), sets[2], sets[1])
    assert result.verdict == "violated"
    for i, bounds in ((2, result.left), (1, result.right)):
        assert float(bounds[0]) - 1e-9 <= grid[i] <= float(bounds[1]) + 1e-9


def test_farthest_claim_holds_on_every_instance_including_the_boundary():
    outcomes = _outcomes("000.thm9.farthest_low")
    assert all(o.holds for _, o in outcomes), [o.detail for _, o in outcomes if not o.holds]
    assert any(i.params["b"] == i.params["n"] for i, _ in outcomes)
