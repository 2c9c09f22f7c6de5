"""Interval prior families (000 §4, Example 4.3) in W∞, the Wasserstein mechanism and the
Laplace-mixture level: the extreme-member answer against dense sampling of the family on a grid
that contains every extreme member, and a family of one member against the single prior."""

from __future__ import annotations

from fractions import Fraction as Q
from itertools import product

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import IntervalBlock, IntervalFamily, TablePrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe
from pufferfish.verify.transport.family_vertices import block_mass_vertices, extreme_pushforwards
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.transport.laplace_level import (conditional_query_distributions,
                                                       laplace_mixture_hockey_stick,
                                                       laplace_pufferfish_level)
from pufferfish.verify.transport.parameter import wasserstein_parameter
from pufferfish.verify.transport.wasserstein import verify_epsilon_delta_mechanism

UNIVERSE = Universe.product(["s", "x"], [[0, 1], [0, 1, 2]])
SECRETS = {"s=0": Secret.of_datasets("s=0", [(0, x) for x in range(3)]),
           "s=1": Secret.of_datasets("s=1", [(1, x) for x in range(3)])}
PAIRS = [SecretPair(SECRETS["s=1"], SECRETS["s=0"])]
# blocks per secret: (datasets, lower, upper); zero lower bounds and a block of two datasets
BLOCKS = {"s=1": [([(1, 0), (1, 1)], Q(1, 4), Q(3, 4)), ([(1, 2)], Q(1, 4), Q(3, 4))],
          "s=0": [([(0, 0)], Q(0), Q(1, 2)), ([(0, 1), (0, 2)], Q(1, 2), Q(1))]}
GRID = 4          # every interval end is a multiple of 1/GRID, so the grid holds every vertex


def query(dataset):
    return dataset[1]


def family_model(blocks=BLOCKS) -> PufferfishModel:
    family = IntervalFamily("fam", {s: tuple(IntervalBlock(tuple(d), lo, hi) for d, lo, hi in bs)
                                    for s, bs in blocks.items()})
    return PufferfishModel(UNIVERSE, {"fam": family}, dict(SECRETS), list(PAIRS))


def grid_conditionals(blocks):
    """Every conditional on the 1/GRID grid meeting the block intervals."""
    datasets = [d for ds, _, _ in blocks for d in ds]
    out = []
    for weights in product(range(GRID + 1), repeat=len(datasets)):
        if sum(weights) != GRID:
            continue
        q = {d: Q(w, GRID) for d, w in zip(datasets, weights)}
        if all(lo <= sum(q[d] for d in ds) <= hi for ds, lo, hi in blocks):
            out.append({d: p for d, p in q.items() if p})
    return out


def grid_model(blocks=BLOCKS) -> PufferfishModel:
    """One table prior per pair of grid conditionals (Pr[s=1] = 1/2)."""
    priors = {}
    for i, q1 in enumerate(grid_conditionals(blocks["s=1"])):
        for j, q0 in enumerate(grid_conditionals(blocks["s=0"])):
            table = {d: p / 2 for d, p in q1.items()} | {d: p / 2 for d, p in q0.items()}
            priors[f"g{i}_{j}"] = TablePrior(f"g{i}_{j}", Distribution(table))
    return PufferfishModel(UNIVERSE, priors, dict(SECRETS), list(PAIRS))


def test_block_mass_vertices_of_a_box_cut_by_the_simplex():
    b = [IntervalBlock(((0,),), Q(0), Q(1, 2)) for _ in range(3)]
    assert sorted(block_mass_vertices(tuple(b))) == sorted(
        {tuple(Q(1, 2) if k != z else Q(0) for k in range(3)) for z in range(3)})


def test_extreme_pushforwards_are_grid_members():
    family = family_model().priors["fam"]
    grid = [{query(d): p for d, p in q.items()} for q in grid_conditionals(BLOCKS["s=1"])]
    for vertex in extreme_pushforwards(family, "s=1", query):
        pushed = {v: p for v, p in vertex.items()}
        assert any({v: sum(p for w, p in g.items() if w == v) for v in g} == pushed for g in grid)


def test_w_infinity_over_the_family_equals_dense_sampling():
    exact = wasserstein_parameter(family_model(), query)
    dense = wasserstein_parameter(grid_model(), query)
    assert exact.value == dense.value == 2
    assert exact.witness.prior.startswith("fam [")


def test_laplace_level_over_the_family_equals_dense_sampling():
    exact = laplace_pufferfish_level(family_model(), query, Q(2))
    dense = laplace_pufferfish_level(grid_model(), query, Q(2))
    assert (exact.ratio_lower, exact.ratio_upper) == (dense.ratio_lower, dense.ratio_upper)
    assert exact.ratio_upper > 1


def test_family_of_one_member_gives_the_single_prior_answer():
    one = {"s=1": [([(1, 0)], Q(1, 3), Q(1, 3)), ([(1, 2)], Q(2, 3), Q(2, 3)),
                   ([(1, 1)], Q(0), Q(0))],
           "s=0": [([(0, 1)], Q(1), Q(1)), ([(0, 0), (0, 2)], Q(0), Q(0))]}
    single = TablePrior("one", Distribution({(1, 0): Q(1, 6), (1, 2): Q(1, 3), (0, 1): Q(1, 2)}))
    single_model = PufferfishModel(UNIVERSE, {"one": single}, dict(SECRETS), list(PAIRS))
    assert wasserstein_parameter(family_model(one), query).value == \
        wasserstein_parameter(single_model, query).value == 1
    a = laplace_pufferfish_level(family_model(one), query, Q(1))
    b = laplace_pufferfish_level(single_model, query, Q(1))
    assert (a.ratio_lower, a.ratio_upper) == (b.ratio_lower, b.ratio_upper)


def test_a_pair_secret_without_blocks_is_refused_with_its_path():
    blocks = {"s=1": BLOCKS["s=1"]}
    model = family_model(blocks)
    with pytest.raises(ModelError, match="gives no blocks for secret 's=0'") as info:
        wasserstein_parameter(model, query)
    assert info.value.path == "priors.fam.interval"


def test_trimmed_variant_uses_the_untrimmed_outer_bound_and_checks_every_extreme_member():
    result = verify_epsilon_delta_mechanism(family_model(), query, 1, Q(1, 10))
    assert result.parameter.value == wasserstein_parameter(family_model(), query).value
    assert "outer bound" in result.parameter.witness.prior
    dense = [laplace_mixture_hockey_stick(dict(d1.items()), dict(d2.items()), result.scale,
                                          parse_budget("1"))
             for *_, d1, d2 in conditional_query_distributions(grid_model(), query)]
    assert max(h.upper for h in dense) == max(row[3].upper for row in result.divergences)
