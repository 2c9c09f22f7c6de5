"""a†(L) and the a(b)-influence curve over an interval prior family (000 §4 Example 4.3; §6.2
Definition 7): exact extremes against dense sampling of the family on a grid holding every extreme
member, zero masses and degenerate intervals, and a family of one member against its prior."""

from __future__ import annotations

from fractions import Fraction as Q
from itertools import product

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import UnsupportedError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import IntervalBlock, IntervalFamily, TablePrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe
from pufferfish.verify.influence.curves import influence_curve, leakage_through, max_influence

UNIVERSE = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
SECRETS = {"a": Secret.of_datasets("a", [d for d in UNIVERSE.datasets() if d[0] == 0]),
           "b": Secret.of_datasets("b", [d for d in UNIVERSE.datasets() if d[0] == 1])}
PAIRS = [SecretPair(SECRETS["a"], SECRETS["b"])]
BLOCKS = {"a": [([(0, 0, 0), (0, 0, 1)], Q(1, 2), Q(1)), ([(0, 1, 0)], Q(0), Q(1, 2)),
                ([(0, 1, 1)], Q(0), Q(0))],
          "b": [([(1, 0, 0)], Q(1, 4), Q(1, 2)), ([(1, 1, 1), (1, 0, 1)], Q(1, 4), Q(3, 4)),
                ([(1, 1, 0)], Q(0), Q(1, 4))]}
GRID = 4


def family_model(blocks=BLOCKS) -> PufferfishModel:
    family = IntervalFamily("fam", {s: tuple(IntervalBlock(tuple(d), lo, hi) for d, lo, hi in bs)
                                    for s, bs in blocks.items()})
    return PufferfishModel(UNIVERSE, {"fam": family}, dict(SECRETS), list(PAIRS))


def grid_conditionals(blocks):
    datasets = [d for ds, _, _ in blocks for d in ds]
    for weights in product(range(GRID + 1), repeat=len(datasets)):
        if sum(weights) == GRID:
            q = {d: Q(w, GRID) for d, w in zip(datasets, weights)}
            if all(lo <= sum(q[d] for d in ds) <= hi for ds, lo, hi in blocks):
                yield {d: p for d, p in q.items() if p}


def grid_model(blocks=BLOCKS) -> PufferfishModel:
    priors = {}
    for i, qa in enumerate(grid_conditionals(blocks["a"])):
        for j, qb in enumerate(grid_conditionals(blocks["b"])):
            table = {d: p / 2 for d, p in qa.items()} | {d: p / 2 for d, p in qb.items()}
            priors[f"g{i}_{j}"] = TablePrior(f"g{i}_{j}", Distribution(table))
    return PufferfishModel(UNIVERSE, priors, dict(SECRETS), list(PAIRS))


@pytest.mark.parametrize("low", [(), (1,), (2,), (1, 2)])
def test_leakage_through_equals_dense_sampling(low):
    exact = leakage_through(family_model(), SECRETS["a"], SECRETS["b"], low)
    dense = leakage_through(grid_model(), SECRETS["a"], SECRETS["b"], low)
    assert exact.max_ratio == dense.max_ratio
    assert exact.prior == "fam"


def test_curve_equals_dense_sampling_in_both_directions():
    exact = influence_curve(family_model())
    dense = influence_curve(grid_model())
    assert [p.max_ratio for p in exact.points] == [p.max_ratio for p in dense.points]
    for label in exact.per_pair:
        assert ([p.max_ratio for p in exact.per_pair[label]]
                == [p.max_ratio for p in dense.per_pair[label]])


def test_family_of_one_member_gives_the_single_prior_curve():
    one = {"a": [([(0, 0, 0)], Q(1, 3), Q(1, 3)), ([(0, 1, 1)], Q(2, 3), Q(2, 3)),
                 ([(0, 0, 1), (0, 1, 0)], Q(0), Q(0))],
           "b": [([(1, 0, 1)], Q(1), Q(1)), ([(1, 0, 0), (1, 1, 0), (1, 1, 1)], Q(0), Q(0))]}
    table = {(0, 0, 0): Q(1, 6), (0, 1, 1): Q(1, 3), (1, 0, 1): Q(1, 2)}
    single = PufferfishModel(UNIVERSE, {"one": TablePrior("one", Distribution(table))},
                             dict(SECRETS), list(PAIRS))
    exact, reference = influence_curve(family_model(one)), influence_curve(single)
    assert [p.max_ratio for p in exact.points] == [p.max_ratio for p in reference.points]
    assert [(p.p_first, p.p_second) for p in exact.points] == \
        [(p.p_first, p.p_second) for p in reference.points]


def test_max_influence_refuses_families_with_a_reason():
    with pytest.raises(UnsupportedError, match="fixes only the conditionals of its own secrets"):
        max_influence(family_model(), [1], 0)
