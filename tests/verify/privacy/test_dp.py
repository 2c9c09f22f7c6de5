"""Exact differential-privacy levels (``000_65109fe28ca61d17.txt`` §2.1, Definitions 1–3).

Def. 1 (record DP), Def. 2 (per-entry DP) and Def. 3 (group DP for k entries) bound
``Pr[M(D) = ω] <= e^ε Pr[M(D') = ω]`` for neighbouring ``D, D'``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.mechanisms import (GeometricNoise, Query, QueryMechanism, RandomizedResponse,
                               TableMechanism)
from pufferfish.models.numbers import INFINITY
from pufferfish.models.universe import Universe, hamming
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.dp import dp_level, neighbours, parse_relation

F = Fraction


def bits(n: int, records=()) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n, records)


def noisy_sum(u: Universe, alpha=F(1, 2), low=0, high=3) -> QueryMechanism:
    return QueryMechanism("sum", u, Query("sum", u), GeometricNoise(alpha, low, high))


def test_definition2_rr_per_entry_is_log3():
    """Def. 2: RR keep 3/4; datasets differing in one entry: (3/4)/(1/4) = 3."""
    u = bits(1)
    result = dp_level(u, RandomizedResponse("rr", u, F(3, 4)))
    assert result.max_ratio == 3 and result.epsilon == "log(3)"
    assert (result.p_dataset, result.p_neighbour) == (F(3, 4), F(1, 4))
    assert result.relation == "entry"
    assert result.pairs_checked == 2


def test_definition2_rr_on_three_bits_per_entry_is_log3():
    u = bits(3)
    result = dp_level(u, RandomizedResponse("rr", u, F(3, 4)))
    assert result.max_ratio == 3
    assert hamming(result.dataset, result.neighbour) == 1
    assert result.pairs_checked == 8 * 3


def test_definition3_group2_rr_on_three_bits_is_log9():
    """Def. 3: two entries changed, each report ratio 3: 3·3 = 9 = e^{2 log 3}."""
    u = bits(3)
    rr = RandomizedResponse("rr", u, F(3, 4))
    result = dp_level(u, rr, "group:2")
    assert result.max_ratio == 9 and result.epsilon == "log(9)"
    assert result.relation == "group 2"
    assert hamming(result.dataset, result.neighbour) == 2
    assert dp_level(u, rr, "group 3").max_ratio == 27
    assert dp_level(u, rr, "group:5").max_ratio == 27        # k beyond width: all datasets


def test_definition1_record_dp_with_two_attribute_record():
    """Def. 1: records [[x1, x2], [x3]]; changing one person's record may change x1 and x2: 9."""
    u = bits(3, records=[[0, 1], [2]])
    result = dp_level(u, RandomizedResponse("rr", u, F(3, 4)), "record")
    assert result.max_ratio == 9
    assert {i for i in range(3) if result.dataset[i] != result.neighbour[i]} == {0, 1}
    # per-entry DP of the same mechanism is still log 3
    assert dp_level(u, RandomizedResponse("rr", u, F(3, 4)), "entry").max_ratio == 3


def test_record_equals_entry_by_default():
    u = bits(3)
    m = noisy_sum(u)
    assert dp_level(u, m, "record").max_ratio == dp_level(u, m, "entry").max_ratio


def test_definition2_geometric_noise_on_sum_is_log_one_over_alpha():
    """α = 1/2 on the sum of 3 bits clamped to [0,3].  Interior outputs: α^{|y−c|}/α^{|y−c'|} <= 2.
    Clamped ends: Pr[0|c=0] = 2/3 vs Pr[0|c=1] = 1/3 (ratio 2); Pr[0|c=1] = 1/3 vs
    Pr[0|c=2] = 1/6 (ratio 2); symmetric at 3.  So ε = log 2 = log(1/α)."""
    u = bits(3)
    result = dp_level(u, noisy_sum(u))
    assert result.max_ratio == 2 and result.epsilon == "log(2)"
    assert result.p_dataset / result.p_neighbour == 2
    assert hamming(result.dataset, result.neighbour) == 1
    # group 2: sums differ by up to 2: (1/α)^2
    assert dp_level(u, noisy_sum(u), "group:2").max_ratio == 4


@pytest.mark.parametrize("alpha", [F(1, 3), F(2, 5), F(9, 10)])
def test_geometric_noise_level_for_several_alphas(alpha):
    u = bits(3)
    assert dp_level(u, noisy_sum(u, alpha)).max_ratio == 1 / alpha


def test_definition3_exact_group_level_never_exceeds_k_times_entry_level():
    """Def. 3 states kε for k entries; the exact group ratio is at most (entry ratio)^k."""
    u = Universe.product(["a", "b", "c"], [[0, 1, 2]] * 3)
    mechanisms = [RandomizedResponse("rr", u, F(1, 2)),
                  QueryMechanism("sum", u, Query("sum", u), GeometricNoise(F(1, 3), 0, 6))]
    for m in mechanisms:
        entry = dp_level(u, m).max_ratio
        for k in (2, 3):
            assert dp_level(u, m, f"group:{k}").max_ratio <= entry ** k


def test_deterministic_query_is_infinite_with_witness():
    """A deterministic parity: Pr[M(D)=p(D)] = 1 while Pr[M(D')=p(D)] = 0 for a neighbour."""
    u = bits(3)
    result = dp_level(u, QueryMechanism("parity", u, Query("parity", u)))
    assert result.max_ratio == INFINITY and result.epsilon == "inf"
    assert (result.p_dataset, result.p_neighbour) == (1, 0)
    assert result.output == sum(result.dataset) % 2
    assert hamming(result.dataset, result.neighbour) == 1
    data = result.to_dict()
    assert data["max_ratio"] == "inf"
    assert data["witness"]["p_neighbour"] == "0"


def test_constant_mechanism_is_zero():
    u = bits(2)
    constant = TableMechanism("c", {d: Distribution({"a": "1/3", "b": "2/3"})
                                    for d in u.datasets()})
    result = dp_level(u, constant)
    assert result.max_ratio == 1 and result.epsilon == "0"


def test_explicit_universe_neighbours_stay_inside():
    """Only datasets of 𝒰 are neighbours: {00, 11} has no pair differing in one entry."""
    u = Universe.listed(["x1", "x2"], [[0, 1], [0, 1]], [[0, 0], [1, 1]])
    identity = QueryMechanism("id", u, Query("identity", u))
    entry = dp_level(u, identity)
    assert entry.max_ratio == 1 and entry.pairs_checked == 0 and entry.dataset is None
    assert dp_level(u, identity, "group:2").max_ratio == INFINITY


def test_neighbour_generation_counts():
    u = bits(3, records=[[0, 1], [2]])
    d = (0, 0, 0)
    assert sorted(neighbours(u, d, "entry")) == [(0, 0, 1), (0, 1, 0), (1, 0, 0)]
    assert len(list(neighbours(u, d, "group", 2))) == 6
    assert len(list(neighbours(u, d, "group", 3))) == 7
    assert sorted(neighbours(u, d, "record")) == [(0, 0, 1), (0, 1, 0), (1, 0, 0), (1, 1, 0)]


def test_parse_relation():
    assert parse_relation("entry") == ("entry", 1)
    assert parse_relation(" Record ") == ("record", 1)
    assert parse_relation("group:3") == ("group", 3)
    assert parse_relation("group 2") == ("group", 2)
    for bad in ("group:0", "group", "neighbour", "group:x"):
        with pytest.raises(ModelError, match="neighbour relation"):
            parse_relation(bad)


def test_dp_budget_checks():
    u = bits(1)
    rr = RandomizedResponse("rr", u, F(3, 4))
    assert dp_level(u, rr, budget=parse_budget("log(3)")).budget.relation == "tight"
    assert dp_level(u, rr, budget=parse_budget("1")).holds is False
    assert dp_level(u, rr, budget=parse_budget("1.1")).holds is True
    assert dp_level(u, rr).holds is None
    assert dp_level(u, rr, budget=parse_budget("1")).to_dict()["holds"] is False


def test_dp_refuses_a_too_large_universe():
    u = bits(30)
    with pytest.raises(TooLargeError):
        dp_level(u, RandomizedResponse("rr", u, F(3, 4)))
