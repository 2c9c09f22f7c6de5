"""The multi-user Laplace level over a family of user distributions (001 §4; the interval family
of 000 Example 4.3, one block per value): the vertex answer against dense sampling of the family
on a grid holding every vertex, zero masses, and a family of one member."""

from __future__ import annotations

from fractions import Fraction as Q
from itertools import product

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.multiuser import MultiUserModel, User
from pufferfish.verify.multiuser.levels import interval_family_level, level_at
from pufferfish.verify.multiuser.pairs import pair_conditionals
from pufferfish.verify.numerics.certified import parse_budget

BUDGET = parse_budget("1")
TARGET = User("i", distribution=Distribution({Q(0): Q(1, 2), Q(2): Q(1, 2)}),
              alternative=Distribution({Q(0): Q(1, 4), Q(2): Q(3, 4)}))
BOX = {Q(0): (Q(0), Q(1, 2)), Q(1): (Q(1, 4), Q(3, 4)), Q(3): (Q(0), Q(1, 4))}


def model_with(other: Distribution) -> MultiUserModel:
    return MultiUserModel((User("o", distribution=other), TARGET), ("i",))


def grid_members():
    values = list(BOX)
    for weights in product(range(5), repeat=len(values)):
        masses = [Q(w, 4) for w in weights]
        if sum(weights) == 4 and all(lo <= m <= hi for m, (lo, hi) in
                                     zip(masses, (BOX[v] for v in values))):
            yield Distribution({v: m for v, m in zip(values, masses) if m})


@pytest.mark.parametrize("pair_set", ["ab", "PQ"])
def test_family_level_equals_dense_sampling(pair_set):
    start = model_with(Distribution({Q(1): Q(1)}))
    exact = interval_family_level(start, {"o": BOX}, pair_set, Q(1), BUDGET)
    dense = [level_at(pair_conditionals(model_with(d), pair_set)[0], Q(1), BUDGET)
             for d in grid_members()]
    worst = max(dense, key=lambda lv: (lv.ratio_upper, lv.ratio_lower))
    assert (exact.ratio_lower, exact.ratio_upper) == (max(lv.ratio_lower for lv in dense),
                                                      worst.ratio_upper)


def test_family_of_one_member_gives_the_single_model_level():
    member = Distribution({Q(0): Q(1, 4), Q(1): Q(3, 4)})
    one = {"o": {Q(0): (Q(1, 4), Q(1, 4)), Q(1): (Q(3, 4), Q(3, 4))}}
    a = interval_family_level(model_with(member), one, "PQ", Q(1), BUDGET)
    b = level_at(pair_conditionals(model_with(member), "PQ")[0], Q(1), BUDGET)
    assert (a.ratio_lower, a.ratio_upper, a.relation) == (b.ratio_lower, b.ratio_upper, b.relation)


def test_infeasible_intervals_are_refused_with_their_path():
    with pytest.raises(ModelError, match="no distribution meets") as info:
        interval_family_level(model_with(Distribution({Q(1): Q(1)})),
                              {"o": {Q(0): (Q(0), Q(1, 4)), Q(1): (Q(0), Q(1, 4))}}, "ab", Q(1),
                              BUDGET)
    assert info.value.path == "intervals.o"
