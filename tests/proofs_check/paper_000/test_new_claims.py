"""Claims of ``000_65109fe28ca61d17.txt`` added for Definition 3 and Algorithm 1, and the
strengthened checks of Theorems 4 and 5: they hold on their instances, and their independent
computations agree with the toolkit where both exist."""

from __future__ import annotations

from fractions import Fraction

from pufferfish.models.mechanisms import RandomizedResponse
from pufferfish.models.numbers import INFINITY
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.paper_000.group_dp import group_ratios
from pufferfish.proofs_check.paper_000.nfc import entry_dp_ratio
from pufferfish.proofs_check.registry import claims_for

IDS = ("000.def3.group_dp", "000.alg1.printed_private", "000.alg1.best_point_private",
       "000.thm4.dp_one_hot", "000.thm4.strong_duality", "000.thm5.one_hot_invariant")


def test_new_and_strengthened_claims_hold(claim_results):
    report = claim_results([c for c in claims_for(paper="000") if c.id in IDS])
    assert report.holds, report.explain()
    assert all(r.instances >= 11 for r in report.results)


def test_randomized_response_group_ratios_are_powers_of_the_entry_ratio():
    universe = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
    rr = RandomizedResponse("rr", universe, Fraction(3, 4))
    assert entry_dp_ratio(universe, rr) == 3
    assert group_ratios(universe, rr) == {1: 3, 2: 9, 3: 27}
    assert entry_dp_ratio(universe, RandomizedResponse("rr", universe, Fraction(1))) == INFINITY
