"""Mechanisms as exact kernels ``D ↦ Pr[M(D) = ·]`` (``000_65109fe28ca61d17.txt`` §2, "A mechanism
M is a deterministic or randomized algorithm whose input is a confidential dataset D").

Known answers: randomized response, two-sided geometric noise with clamped ends, deterministic
queries, composition (independent runs), post-processing, explicit tables.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.kernel import KernelTable, integer_weights
from pufferfish.models.mechanisms import (FunctionMechanism, GeometricNoise, PostProcessed, Query,
                               QueryMechanism, RandomizedResponse, TableMechanism, compose,
                               repeat, tabulate)
from pufferfish.models.universe import Universe

F = Fraction


def bits(n: int) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


# --------------------------------------------------------------------------------------------
# Randomized response


def test_randomized_response_keep_three_quarters_on_one_bit():
    u = bits(1)
    rr = RandomizedResponse("rr", u, F(3, 4))
    assert rr.distribution((0,)) == Distribution({(0,): "3/4", (1,): "1/4"})
    assert rr.distribution((1,)) == Distribution({(1,): "3/4", (0,): "1/4"})
    assert rr.prob((1,), (0,)) == F(1, 4)


def test_randomized_response_on_three_bits_is_a_product():
    u = bits(3)
    rr = RandomizedResponse("rr", u, F(3, 4))
    d = rr.distribution((0, 1, 1))
    assert len(d) == 8
    assert d.prob((0, 1, 1)) == F(27, 64)
    assert d.prob((1, 0, 0)) == F(1, 64)
    assert d.prob((0, 0, 1)) == F(9, 64)


def test_randomized_response_larger_domain_and_subset_of_attributes():
    u = Universe.product(["a", "b"], [[0, 1, 2], [0, 1]])
    rr = RandomizedResponse("rr", u, F(1, 2), attributes=["a"])
    assert rr.distribution((2, 1)) == Distribution({(2,): "1/2", (0,): "1/4", (1,): "1/4"})
    assert rr.to_dict() == {"per_entry": {"randomized_response": {"keep": "1/2",
                                                                   "attributes": ["a"]}}}
    single = Universe.product(["a"], [[7]])
    assert RandomizedResponse("r", single, F(1, 3)).distribution((7,)) == Distribution.point((7,))
    with pytest.raises(ModelError, match="keep must be a probability"):
        RandomizedResponse("bad", u, F(3, 2))


# --------------------------------------------------------------------------------------------
# Geometric noise: Pr[Z = z] = (1−α)/(1+α)·α^|z|, clamped to [min, max]


def test_geometric_noise_centre_zero_alpha_half_hand_computed():
    """α = 1/2, range [0,3], centre 0: P(0)=Pr[Z<=0]=2/3, P(1)=1/6, P(2)=1/12, P(3)=Pr[Z>=3]=1/12."""
    g = GeometricNoise(F(1, 2), 0, 3)
    assert g.around(0) == Distribution({0: "2/3", 1: "1/6", 2: "1/12", 3: "1/12"})


def test_geometric_noise_centre_one_hand_computed():
    """centre 1: P(0)=Pr[Z<=-1]=1/3, P(1)=1/3, P(2)=1/6, P(3)=Pr[Z>=2]=1/6."""
    g = GeometricNoise(F(1, 2), 0, 3)
    assert g.around(1) == Distribution({0: "1/3", 1: "1/3", 2: "1/6", 3: "1/6"})


def test_geometric_noise_centre_outside_range_hand_computed():
    """centre 5 > max 3: P(0)=Pr[Z<=-5]=1/48, P(1)=1/48, P(2)=1/24, P(3)=Pr[Z>=-2]=11/12."""
    g = GeometricNoise(F(1, 2), 0, 3)
    assert g.around(5) == Distribution({0: "1/48", 1: "1/48", 2: "1/24", 3: "11/12"})
    # and by symmetry centre -2 < min 0
    assert g.around(-2) == Distribution({3: "1/48", 2: "1/48", 1: "1/24", 0: "11/12"})


def test_geometric_noise_interior_point_masses_follow_the_formula():
    alpha = F(1, 3)
    g = GeometricNoise(alpha, -10, 10)
    d = g.around(2)
    scale = (1 - alpha) / (1 + alpha)
    for y in range(-9, 10):
        assert d.prob(y) == scale * alpha ** abs(y - 2)
    # tails: Pr[Z >= t] = α^t / (1+α)
    assert d.prob(10) == alpha ** 8 / (1 + alpha)
    assert d.prob(-10) == alpha ** 12 / (1 + alpha)


@pytest.mark.parametrize("alpha", [F(0), F(1, 5), F(1, 2), F(9, 10)])
@pytest.mark.parametrize("centre", [-7, -1, 0, 1, 2, 4, 5, 12])
def test_geometric_noise_sums_to_one_inside_and_outside(alpha, centre):
    g = GeometricNoise(alpha, 0, 4)
    d = g.around(centre)           # Distribution() validates the exact sum 1
    assert sum(d.values()) == 1
    assert set(d.support) <= set(range(0, 5))


def test_geometric_noise_alpha_zero_is_exact():
    g = GeometricNoise(F(0), 0, 3)
    assert g.around(2) == Distribution.point(2)
    assert g.around(7) == Distribution.point(3)


def test_geometric_noise_degenerate_range_and_validation():
    assert GeometricNoise(F(1, 2), 4, 4).around(0) == Distribution.point(4)
    with pytest.raises(ModelError, match="alpha"):
        GeometricNoise(F(1), 0, 3)
    with pytest.raises(ModelError, match="alpha"):
        GeometricNoise(F(-1, 2), 0, 3)
    with pytest.raises(ModelError, match="larger than max"):
        GeometricNoise(F(1, 2), 3, 0)


def test_noisy_sum_mechanism():
    u = bits(3)
    m = QueryMechanism("sum", u, Query("sum", u), GeometricNoise(F(1, 2), 0, 3))
    assert m.distribution((1, 0, 0)) == Distribution({0: "1/3", 1: "1/3", 2: "1/6", 3: "1/6"})
    assert m.to_dict() == {"query": "sum",
                           "noise": {"geometric": {"alpha": "1/2", "min": 0, "max": 3}}}


def test_noise_on_non_integer_answer_is_an_error():
    u = bits(2)
    m = QueryMechanism("bad", u, Query("identity", u), GeometricNoise(F(1, 2), 0, 3))
    with pytest.raises(ModelError, match="integer query answer"):
        m.distribution((0, 1))


# --------------------------------------------------------------------------------------------
# Deterministic queries


def test_queries_sum_count_parity_identity_attribute():
    u = Universe.product(["a", "b", "c"], [[0, 1, 2]] * 3)
    d = (2, 0, 1)
    assert Query("sum", u)(d) == 3
    assert Query("sum", u, ["a", "c"])(d) == 3
    assert Query("sum", u, ["b"])(d) == 0
    assert Query("count", u)(d) == 1
    assert Query("count", u, value=0)(d) == 1
    assert Query("count", u, value=2)(d) == 1
    assert Query("parity", u)(d) == 1
    assert Query("parity", u, ["a"])(d) == 0
    assert Query("identity", u)(d) == (2, 0, 1)
    assert Query("identity", u, ["c", "a"])(d) == (1, 2)
    assert Query("attribute", u, ["b"])(d) == 0


def test_query_mechanism_is_a_point_mass():
    u = bits(3)
    m = QueryMechanism("par", u, Query("parity", u))
    assert m.distribution((1, 1, 1)) == Distribution.point(1)
    assert m.distribution((1, 1, 0)) == Distribution.point(0)


def test_query_validation():
    u = Universe.product(["a", "b"], [["x", "y"], [0, 1]])
    with pytest.raises(ModelError, match="unknown query"):
        Query("median", u)
    with pytest.raises(ModelError, match="exactly one attribute"):
        Query("attribute", u, ["a", "b"])
    with pytest.raises(ModelError, match="numeric values"):
        Query("sum", u)
    with pytest.raises(ModelError, match="no attribute"):
        Query("sum", u, [])
    with pytest.raises(ModelError, match="unknown attribute"):
        Query("sum", u, ["z"])
    halves = Universe.product(["a"], [[F(1, 2), 1]])
    with pytest.raises(ModelError, match="integer values"):
        Query("parity", halves)
    assert Query("sum", halves)((F(1, 2),)) == F(1, 2)


# --------------------------------------------------------------------------------------------
# Composition, repetition, post-processing


def test_compose_is_the_independent_product():
    u = bits(2)
    rr = RandomizedResponse("rr", u, F(3, 4), attributes=["x1"])
    par = QueryMechanism("par", u, Query("parity", u))
    both = compose([rr, par])
    assert both.name == "rr+par"
    assert both.distribution((1, 0)) == Distribution({((1,), 1): "3/4", ((0,), 1): "1/4"})
    assert both.to_dict() == {"compose": ["rr", "par"]}
    assert both.parts() == (rr, par)
    with pytest.raises(ModelError):
        compose([])


def test_repeat_runs_independently():
    u = bits(1)
    rr = RandomizedResponse("rr", u, F(3, 4))
    twice = repeat(rr, 2)
    assert twice.name == "rr^2" and twice.times == 2
    d = twice.distribution((0,))
    assert d.prob(((0,), (0,))) == F(9, 16)
    assert d.prob(((0,), (1,))) == F(3, 16)
    assert d.prob(((1,), (1,))) == F(1, 16)
    assert twice.to_dict() == {"repeat": {"mechanism": "rr", "times": 2}}
    with pytest.raises(ModelError, match="at least 1"):
        repeat(rr, 0)


def test_postprocess_with_mapping_and_function():
    u = bits(1)
    rr = RandomizedResponse("rr", u, F(3, 4))
    flip = PostProcessed("flip", rr, {(0,): Distribution.point("one"),
                                      (1,): Distribution.point("zero")})
    assert flip.distribution((0,)) == Distribution({"one": "3/4", "zero": "1/4"})
    noisy = PostProcessed("blur", rr, lambda o: Distribution({o: "1/2", "?": "1/2"}))
    assert noisy.distribution((1,)) == Distribution({(1,): "3/8", (0,): "1/8", "?": "1/2"})
    assert flip.parts() == (rr,)
    with pytest.raises(ModelError, match="Python function"):
        noisy.to_dict()


def test_postprocess_missing_entry_is_an_error():
    u = bits(1)
    rr = RandomizedResponse("rr", u, F(3, 4))
    partial = PostProcessed("p", rr, {(0,): Distribution.point(0)})
    with pytest.raises(ModelError, match="no entry for output"):
        partial.distribution((0,))


# --------------------------------------------------------------------------------------------
# Tables, function mechanisms, kernel tables


def test_table_mechanism_and_missing_row():
    rows = {(0,): Distribution({"a": "1/2", "b": "1/2"}), (1,): Distribution({"a": "1"})}
    m = TableMechanism("t", rows)
    assert m.prob((0,), "b") == F(1, 2) and m.prob((1,), "b") == 0
    with pytest.raises(ModelError, match="no row for dataset") as info:
        m.distribution((2,))
    assert info.value.path == "mechanisms.t.table"


def test_tabulate_and_function_mechanism():
    u = bits(2)
    fm = FunctionMechanism("f", lambda d: Distribution.point(d[0] ^ d[1]))
    table = tabulate(fm, list(u.datasets()))
    assert isinstance(table, TableMechanism)
    assert table.distribution((1, 0)) == Distribution.point(1)
    assert table.to_dict()["table"][0] == [[0, 0], [[0, "1"]]]
    with pytest.raises(ModelError, match="Python function"):
        fm.to_dict()


def test_distribution_is_cached():
    calls = []

    def f(d):
        calls.append(d)
        return Distribution.point(0)

    m = FunctionMechanism("f", f)
    m.distribution((0,))
    m.distribution((0,))
    assert calls == [(0,)]


def test_kernel_table_integer_rows():
    rows = {(0,): Distribution({"a": "1/2", "b": "1/3", "c": "1/6"}),
            (1,): Distribution({"a": "1/4", "c": "3/4"})}
    table = KernelTable.build(TableMechanism("t", rows), [(0,), (1,)])
    assert table.denominator == 12
    assert table.outputs == ("a", "b", "c")
    assert table.rows == ((6, 4, 2), (3, 0, 9))
    assert table.prob((1,), "c") == F(3, 4)
    assert table.prob((1,), "zzz") == 0


def test_integer_weights():
    assert integer_weights([F(1, 2), F(1, 3), F(1, 6)]) == ([3, 2, 1], 6)
    assert integer_weights([]) == ([], 1)


def test_kernel_table_refuses_too_many_outputs():
    from pufferfish.models.errors import TooLargeError
    u = bits(3)
    identity = QueryMechanism("id", u, Query("identity", u))
    with pytest.raises(TooLargeError, match="more than 4 outputs"):
        KernelTable.build(identity, list(u.datasets()), max_outputs=4)
    assert len(KernelTable.build(identity, list(u.datasets()), max_outputs=8).outputs) == 8
