"""Universes 𝒰, potential secrets s, secret pairs 𝕊 and priors θ / families Θ.

``000_65109fe28ca61d17.txt`` §2 ("Background and notation", Table 1): 𝒰 is the set of possible
datasets, θ a prior over 𝒰, s a potential secret with ``s(D) = true`` when it holds in ``D``, 𝕊 the
set of secret pairs.  Example 4.3 (§4) motivates the interval prior families.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.priors import (IndependentPrior, IntervalBlock, IntervalFamily, MarkovPrior,
                           TablePrior, UniformPrior, check_prior_in_universe, markov_kernel)
from pufferfish.models.secrets import Secret, SecretPair, entry_pairs, entry_secrets
from pufferfish.models.universe import Universe, hamming

F = Fraction
BIT = Distribution({0: "1/2", 1: "1/2"})


def bits(n: int) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


# --------------------------------------------------------------------------------------------
# Universe (§2: 𝒰, the set of all possible datasets; records and attributes)


def test_product_universe_size_and_enumeration():
    u = bits(3)
    assert u.size == 8 and u.width == 3
    assert list(u.datasets()) == list(product([0, 1], repeat=3))


def test_size_of_1000_binary_attributes_without_enumeration():
    """§2: 𝒰 for a table of 1000 binary entries has 2^1000 datasets; its size is arithmetic."""
    u = bits(1000)
    assert u.size == 2 ** 1000
    assert (0,) * 1000 in u
    assert (2,) + (0,) * 999 not in u
    assert (0,) * 999 not in u


def test_datasets_refuses_a_too_large_universe_with_its_size():
    u = bits(1000)
    with pytest.raises(TooLargeError) as info:
        u.datasets()
    message = str(info.value)
    assert "10^301" in message            # 2^1000 ≈ 1.07e301
    assert "1,000,000" in message         # the default limit
    small = bits(4)
    with pytest.raises(TooLargeError, match="16 datasets"):
        small.datasets(limit=10)
    assert len(list(small.datasets(limit=16))) == 16


def test_mixed_domains_size():
    u = Universe.product(["a", "b", "c"], [[0, 1, 2], ["x", "y"], [5]])
    assert u.size == 6
    assert (2, "y", 5) in u and (2, "z", 5) not in u


def test_explicit_universe_membership_and_size():
    u = Universe.listed(["x1", "x2"], [[0, 1], [0, 1]], [[0, 0], [1, 1]])
    assert u.size == 2
    assert (0, 0) in u and (1, 1) in u
    assert (0, 1) not in u
    assert [0, 0] not in u                   # datasets are tuples
    assert list(u.datasets()) == [(0, 0), (1, 1)]


def test_explicit_universe_validation():
    with pytest.raises(ModelError, match="listed twice"):
        Universe.listed(["x"], [[0, 1]], [[0], [0]])
    with pytest.raises(ModelError, match="not in its domain"):
        Universe.listed(["x"], [[0, 1]], [[2]])
    with pytest.raises(ModelError, match="must list 2 values"):
        Universe.listed(["x", "y"], [[0, 1], [0, 1]], [[0]])
    with pytest.raises(ModelError, match="empty"):
        Universe.listed(["x"], [[0, 1]], [])


def test_universe_validation():
    with pytest.raises(ModelError, match="at least one attribute"):
        Universe.product([], [])
    with pytest.raises(ModelError, match="distinct"):
        Universe.product(["x", "x"], [[0], [0]])
    with pytest.raises(ModelError, match="domains for"):
        Universe.product(["x", "y"], [[0, 1]])
    with pytest.raises(ModelError, match="empty domain"):
        Universe.product(["x"], [[]])
    with pytest.raises(ModelError, match="repeated"):
        Universe.product(["x"], [[0, 0]])


def test_records_default_and_custom():
    """§2 Definition 1 vs 2: a record (one person) may hold several attributes."""
    u = bits(3)
    assert u.records == ((0,), (1,), (2,))
    r = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3, records=[[0, 1], [2]])
    assert r.records == ((0, 1), (2,))
    assert r.record_of(1) == (0, 1) and r.record_of(2) == (2,)
    with pytest.raises(ModelError, match="partition"):
        Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3, records=[[0, 1]])
    with pytest.raises(ModelError, match="partition"):
        Universe.product(["x1", "x2"], [[0, 1]] * 2, records=[[0, 1], [1]])


def test_index_and_hamming():
    u = bits(3)
    assert u.index("x2") == 1
    with pytest.raises(ModelError, match="unknown attribute 'y'"):
        u.index("y")
    assert hamming((0, 1, 1), (1, 1, 0)) == 2


# --------------------------------------------------------------------------------------------
# Secrets and pairs (§2: potential secrets, s(D) = true, pairs (s_i, s_j) ∈ 𝕊)


def test_where_secret_single_value_and_list():
    u = Universe.product(["x1", "x2"], [[0, 1, 2], [0, 1]])
    s = Secret.where("x1=2", u, {"x1": 2})
    assert s.holds((2, 0)) and s((2, 1)) and not s.holds((1, 0))
    t = Secret.where("x1 in 0,1 and x2=1", u, {"x1": [0, 1], "x2": 1})
    assert t.holds((0, 1)) and t.holds((1, 1))
    assert not t.holds((2, 1)) and not t.holds((0, 0))
    assert t.to_dict(u) == {"where": {"x1": [0, 1], "x2": 1}}


def test_where_secret_validation():
    u = bits(2)
    with pytest.raises(ModelError, match="unknown attribute"):
        Secret.where("s", u, {"y": 0})
    with pytest.raises(ModelError, match="not in the domain"):
        Secret.where("s", u, {"x1": 3})
    with pytest.raises(ModelError, match="at least one condition"):
        Secret.where("s", u, {})
    with pytest.raises(ModelError, match="exactly one"):
        Secret("s")


def test_dataset_and_predicate_secrets():
    s = Secret.of_datasets("s", [[0, 0], (1, 1)])
    assert s.holds((0, 0)) and s.holds((1, 1)) and not s.holds((0, 1))
    p = Secret.from_predicate("sum>=1", lambda d: sum(d) >= 1)
    assert p.holds((0, 1)) and not p.holds((0, 0))


def test_pair_directions():
    u = bits(1)
    a, b = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x1=1", u, {"x1": 1})
    both = SecretPair(a, b)
    assert [(x.name, y.name) for x, y in both.directions()] == [("x1=0", "x1=1"), ("x1=1", "x1=0")]
    one = SecretPair(a, b, directed=True)
    assert [(x.name, y.name) for x, y in one.directions()] == [("x1=0", "x1=1")]
    assert both.label == "x1=0 <-> x1=1" and one.label == "x1=0 -> x1=1"


def test_entry_secrets_and_pairs():
    u = Universe.product(["x", "y"], [[0, 1, 2], ["a", "b"]])
    secrets = entry_secrets(u)
    assert sorted(secrets) == ["x=0", "x=1", "x=2", "y=a", "y=b"]
    assert secrets["y=b"].holds((0, "b"))
    pairs = entry_pairs(u)
    assert [p.label for p in pairs] == ["x=0 <-> x=1", "x=0 <-> x=2", "x=1 <-> x=2",
                                         "y=a <-> y=b"]


# --------------------------------------------------------------------------------------------
# Priors θ (§2: Pr[Data = D | θ])


def test_independent_prior_probability_and_support():
    u = bits(3)
    prior = IndependentPrior("p", u.attributes, (Distribution({0: "1/3", 1: "2/3"}), BIT,
                                                 Distribution({1: "1"})))
    assert prior.probability((1, 0, 1)) == F(2, 3) * F(1, 2)
    assert prior.probability((1, 0, 0)) == 0
    support = dict(prior.support())
    assert len(support) == 4 == prior.support_bound()
    assert sum(support.values()) == 1
    assert support[(0, 1, 1)] == F(1, 6)
    assert prior.distribution().prob((0, 0, 1)) == F(1, 6)


def test_markov_prior_with_zero_transitions():
    """A chain over x1..x3: from 0 always to 0, from 1 to 0 or 1 with probability 1/2."""
    kernel = {0: Distribution({0: "1", 1: "0"}), 1: Distribution({0: "1/2", 1: "1/2"})}
    prior = MarkovPrior("chain", ("x1", "x2", "x3"), BIT, (kernel, kernel))
    assert prior.probability((0, 0, 0)) == F(1, 2)
    assert prior.probability((1, 0, 0)) == F(1, 4)
    assert prior.probability((1, 1, 0)) == F(1, 8)
    assert prior.probability((1, 1, 1)) == F(1, 8)
    assert prior.probability((0, 1, 0)) == 0
    assert prior.probability((1, 0, 1)) == 0
    support = dict(prior.support())
    assert support == {(0, 0, 0): F(1, 2), (1, 0, 0): F(1, 4), (1, 1, 0): F(1, 8),
                       (1, 1, 1): F(1, 8)}
    assert prior.support_bound() == 8       # a bound, not the support size
    for dataset in product([0, 1], repeat=3):
        assert prior.probability(dataset) == support.get(dataset, 0)


def test_markov_prior_nonhomogeneous_and_validation():
    k1 = {0: Distribution({0: "1/2", 1: "1/2"}), 1: Distribution({1: "1"})}
    k2 = {0: Distribution({0: "1/3", 1: "2/3"}), 1: Distribution({0: "1/4", 1: "3/4"})}
    prior = MarkovPrior("ch", ("a", "b", "c"), Distribution({0: "1/5", 1: "4/5"}), (k1, k2),
                        homogeneous=False)
    assert prior.probability((0, 1, 0)) == F(1, 5) * F(1, 2) * F(1, 4)
    assert prior.probability((1, 0, 0)) == 0
    assert sum(p for _, p in prior.support()) == 1
    assert "transitions" in prior.to_dict()["markov"]
    with pytest.raises(ModelError, match="needs 2 transition kernels"):
        MarkovPrior("bad", ("a", "b", "c"), BIT, (k1,))
    with pytest.raises(ModelError, match="no transition row"):
        markov_kernel({0: BIT}, [0, 1], "priors.p.transition")
    with pytest.raises(ModelError, match="not in the domain"):
        markov_kernel({0: Distribution({2: "1"}), 1: BIT}, [0, 1], "priors.p.transition")


def test_markov_prior_over_1000_attributes_without_enumeration():
    """A sticky chain over 1000 bits: Pr[all zeros] = 1/2 · (9/10)^999, computed directly."""
    sticky = {0: Distribution({0: "9/10", 1: "1/10"}), 1: Distribution({0: "1/10", 1: "9/10"})}
    names = tuple(f"x{i}" for i in range(1000))
    prior = MarkovPrior("sticky", names, BIT, (sticky,) * 999)
    assert prior.probability((0,) * 1000) == F(1, 2) * F(9, 10) ** 999
    alternating = tuple(i % 2 for i in range(1000))
    assert prior.probability(alternating) == F(1, 2) * F(1, 10) ** 999
    one_switch = (0,) * 500 + (1,) * 500
    assert prior.probability(one_switch) == F(1, 2) * F(9, 10) ** 998 * F(1, 10)
    with pytest.raises(TooLargeError):
        prior.support()


def test_uniform_and_table_priors():
    u = Universe.listed(["x1", "x2"], [[0, 1], [0, 1]], [[0, 0], [0, 1], [1, 1]])
    uniform = UniformPrior("u", u)
    assert uniform.probability((0, 1)) == F(1, 3)
    assert uniform.probability((1, 0)) == 0
    assert dict(uniform.support()) == {(0, 0): F(1, 3), (0, 1): F(1, 3), (1, 1): F(1, 3)}
    table = TablePrior("t", Distribution({(0, 0): "1/4", (1, 1): "3/4"}))
    assert table.probability((1, 1)) == F(3, 4) and table.probability((0, 1)) == 0
    assert table.support_bound() == 2
    check_prior_in_universe(table, u, 100, "priors.t")
    outside = TablePrior("o", Distribution({(1, 0): "1"}))
    with pytest.raises(ModelError, match="not in the universe"):
        check_prior_in_universe(outside, u, 100, "priors.o")


def test_prior_support_refuses_beyond_limit():
    prior = UniformPrior("u", bits(10))
    with pytest.raises(TooLargeError, match="1,024"):
        prior.support(limit=1000)
    assert len(list(prior.support(limit=1024))) == 1024


# --------------------------------------------------------------------------------------------
# Interval families (§4 Example 4.3): exact extremes over an infinite family


def _family_3_blocks() -> tuple[IntervalFamily, list[tuple]]:
    u = bits(3)
    datasets = [d for d in u.datasets() if d[0] == 0]     # secret x1=0: 4 datasets
    extra = [d for d in u.datasets() if d[0] == 1][:2]
    blocks = (IntervalBlock((datasets[0], datasets[1]), F(1, 4), F(1, 2)),
              IntervalBlock((datasets[2], datasets[3], extra[0]), F(1, 3), F(3, 4)),
              IntervalBlock((extra[1],), F(0), F(1, 6)))
    return IntervalFamily("fam", {"s": blocks}), [b.datasets for b in blocks]


def _compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def _dense_conditionals(family: IntervalFamily, secret: str, step: int = 24, split: int = 4):
    """Every member conditional on a grid: block masses in multiples of 1/step within the
    intervals summing to 1, each block's mass split over its datasets in multiples of 1/split."""
    blocks = family.blocks[secret]
    mass_choices = []
    for block in blocks:
        low, high = block.lower * step, block.upper * step
        mass_choices.append([F(k, step) for k in range(step + 1) if low <= k <= high])
    for masses in product(*mass_choices):
        if sum(masses) != 1:
            continue
        per_block = [list(_compositions(split, len(b.datasets))) for b in blocks]
        for splits in product(*per_block):
            q = {}
            for block, mass, parts in zip(blocks, masses, splits):
                for dataset, part in zip(block.datasets, parts):
                    if mass * part:
                        q[dataset] = q.get(dataset, 0) + mass * F(part, split)
            yield q


def _is_member(family: IntervalFamily, secret: str, q: Distribution) -> bool:
    if sum(q.values()) != 1:
        return False
    allowed = {d for b in family.blocks[secret] for d in b.datasets}
    if any(d not in allowed for d in q):
        return False
    return all(b.lower <= sum(q.prob(d) for d in b.datasets) <= b.upper
               for b in family.blocks[secret])


@pytest.mark.parametrize("seed", range(4))
def test_interval_family_extremes_against_dense_sampling(seed):
    """§4 Example 4.3 generalised: the exact max/min of Σ_D q(D) v(D) over the family bounds
    every sampled member and is attained by the returned (member) conditional."""
    family, block_datasets = _family_3_blocks()
    rng = random.Random(seed)
    values = {d: F(rng.randint(0, 12), rng.randint(1, 6)) for ds in block_datasets for d in ds}
    top, q_top = family.extreme_conditional("s", values, maximize=True)
    bottom, q_bottom = family.extreme_conditional("s", values, maximize=False)
    samples = [sum((p * values[d] for d, p in q.items()), F(0))
               for q in _dense_conditionals(family, "s")]
    assert len(samples) > 100
    assert all(bottom <= v <= top for v in samples)
    # the grid contains the extreme vertices (masses are multiples of 1/24, point splits)
    assert max(samples) == top and min(samples) == bottom
    for value, q in ((top, q_top), (bottom, q_bottom)):
        assert _is_member(family, "s", q)
        assert sum((p * values[d] for d, p in q.items()), F(0)) == value


def test_interval_family_hand_computed():
    """Two blocks A=[1/4,1/2] on value 1 and B=[1/2,3/4] on value 0: max 1/2, min 1/4."""
    a, b = (0, 0), (0, 1)
    family = IntervalFamily("f", {"s": (IntervalBlock((a,), F(1, 4), F(1, 2)),
                                        IntervalBlock((b,), F(1, 2), F(3, 4)))})
    values = {a: F(1), b: F(0)}
    top, q = family.extreme_conditional("s", values, maximize=True)
    assert top == F(1, 2) and q.prob(a) == F(1, 2) and q.prob(b) == F(1, 2)
    bottom, q = family.extreme_conditional("s", values, maximize=False)
    assert bottom == F(1, 4) and q.prob(a) == F(1, 4) and q.prob(b) == F(3, 4)


def test_interval_family_validation():
    d = ((0,),)
    with pytest.raises(ModelError, match="lower bounds sum"):
        IntervalFamily("f", {"s": (IntervalBlock(d, F(2, 3), F(1)),
                                   IntervalBlock(((1,),), F(1, 2), F(1)))})
    with pytest.raises(ModelError, match="lower bounds sum"):
        IntervalFamily("f", {"s": (IntervalBlock(d, F(0), F(1, 2)),)})
    with pytest.raises(ModelError, match="lower <= upper"):
        IntervalFamily("f", {"s": (IntervalBlock(d, F(1, 2), F(1, 4)),
                                   IntervalBlock(((1,),), F(0), F(1)))})
    with pytest.raises(ModelError, match="no datasets"):
        IntervalFamily("f", {"s": (IntervalBlock((), F(0), F(1)),)})
    with pytest.raises(ModelError, match="at least one block"):
        IntervalFamily("f", {"s": ()})


def test_interval_family_built_in_code_is_checked_against_its_secrets():
    """Example 4.3 families: blocks must hold only their secret's datasets and cover them all."""
    from pufferfish.models import (IntervalBlock, IntervalFamily, PufferfishModel, Secret, SecretPair,
                        Universe)
    from pufferfish.models.errors import ModelError
    import pytest as _pytest

    u = Universe.product(["x"], [[0, 1, 2, 3]])
    low = Secret.where("low", u, {"x": [0, 1]})
    high = Secret.where("high", u, {"x": [2, 3]})
    half = Fraction(1, 2)

    def model(blocks_low):
        family = IntervalFamily("fam", {
            "low": blocks_low,
            "high": (IntervalBlock(((2,), (3,)), Fraction(1), Fraction(1)),)})
        return PufferfishModel(u, {"fam": family}, {"low": low, "high": high},
                               [SecretPair(low, high)])

    model((IntervalBlock(((0,),), half, half), IntervalBlock(((1,),), half, half)))
    with _pytest.raises(ModelError, match="does not satisfy"):
        model((IntervalBlock(((0,), (2,)), Fraction(1), Fraction(1)),))
    with _pytest.raises(ModelError, match="do not cover"):
        model((IntervalBlock(((0,),), Fraction(1), Fraction(1)),))
