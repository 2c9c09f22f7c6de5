"""Exact finite distributions (priors θ and mechanism outputs of ``000_65109fe28ca61d17.txt`` §2).

Probabilities are Fractions that sum to exactly 1; zero-probability outcomes are not stored.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from pufferfish.models.distribution import Distribution, product_distribution
from pufferfish.models.errors import ModelError

F = Fraction


def test_construction_from_mapping_and_pairs():
    d = Distribution({0: "1/4", 1: "3/4"})
    assert d.prob(0) == F(1, 4) and d.prob(1) == F(3, 4)
    assert d.support == (0, 1)
    e = Distribution([("a", F(1, 2)), ("b", "0.5")])
    assert e.prob("a") == e.prob("b") == F(1, 2)


def test_repeated_outcomes_in_pairs_are_summed():
    d = Distribution([("a", "1/4"), ("a", "1/4"), ("b", "1/2")])
    assert d.prob("a") == F(1, 2)
    assert len(d) == 2


def test_zero_probabilities_are_dropped():
    d = Distribution({0: 0, 1: "1"})
    assert d.support == (1,)
    assert d.prob(0) == 0
    assert 0 not in d
    assert d.prob("never seen") == 0


def test_negative_probability_rejected_with_path():
    with pytest.raises(ModelError, match="negative") as info:
        Distribution({0: "-1/4", 1: "5/4"}, path="priors.p")
    assert info.value.path == "priors.p.0"


@pytest.mark.parametrize("probs, total", [({0: "1/2", 1: "3/5"}, "11/10"),
                                          ({0: "1/3"}, "1/3"),
                                          ({}, "0")])
def test_sum_not_one_rejected(probs, total):
    with pytest.raises(ModelError, match="sum to") as info:
        Distribution(probs)
    assert total in str(info.value)


def test_floats_rejected():
    with pytest.raises(ModelError, match="float"):
        Distribution({0: 0.5, 1: 0.5})


def test_point_and_uniform():
    p = Distribution.point((1, 0))
    assert p.prob((1, 0)) == 1 and len(p) == 1
    u = Distribution.uniform(["a", "b", "c", "a"])
    assert u.support == ("a", "b", "c")
    assert all(u.prob(x) == F(1, 3) for x in "abc")
    with pytest.raises(ModelError):
        Distribution.uniform([])


def test_mass_condition():
    d = Distribution({1: "1/6", 2: "1/3", 3: "1/2"})
    assert d.mass(lambda x: x >= 2) == F(5, 6)
    c = d.condition(lambda x: x >= 2)
    assert c.prob(2) == F(2, 5) and c.prob(3) == F(3, 5) and c.prob(1) == 0
    with pytest.raises(ModelError, match="probability 0"):
        d.condition(lambda x: x > 3)


def test_push_forward_merges_outcomes():
    d = Distribution({(0, 0): "1/4", (0, 1): "1/4", (1, 0): "1/8", (1, 1): "3/8"})
    s = d.push_forward(sum)
    assert s == Distribution({0: "1/4", 1: "3/8", 2: "3/8"})


def test_marginal_index_and_tuple():
    d = Distribution({(0, 0, 1): "1/4", (0, 1, 1): "1/4", (1, 1, 0): "1/2"})
    assert d.marginal(0) == Distribution({0: "1/2", 1: "1/2"})
    assert d.marginal((1, 2)) == Distribution({(0, 1): "1/4", (1, 1): "1/4", (1, 0): "1/2"})


def test_product_is_independent():
    a = Distribution({0: "1/3", 1: "2/3"})
    b = Distribution({"x": "1/4", "y": "3/4"})
    p = a.product(b)
    assert p.prob((1, "y")) == F(1, 2)
    assert p.prob((0, "x")) == F(1, 12)
    assert len(p) == 4
    assert product_distribution([a, b, a]).prob((1, "x", 0)) == F(2, 3) * F(1, 4) * F(1, 3)
    assert p.marginal(0) == a and p.marginal(1) == b


def test_mixture():
    a = Distribution({0: "1"})
    b = Distribution({0: "1/2", 1: "1/2"})
    m = Distribution.mixture([(F(1, 2), a), (F(1, 2), b)])
    assert m == Distribution({0: "3/4", 1: "1/4"})
    # zero weights are allowed and ignored
    assert Distribution.mixture([(F(1), b), (F(0), a)]) == b
    with pytest.raises(ModelError, match="sum to"):
        Distribution.mixture([(F(1, 2), a)])


def test_expectation():
    d = Distribution({0: "1/4", 1: "1/4", 2: "1/2"})
    assert d.expectation(lambda x: F(x)) == F(5, 4)


def test_equality_and_hash_by_value():
    a = Distribution({0: "1/2", 1: "1/2"})
    b = Distribution([(1, "0.5"), (0, "2/4")])
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    assert a != Distribution({0: "1/4", 1: "3/4"})


def test_to_pairs_is_exact_text():
    assert Distribution({0: "1/4", 1: "3/4"}).to_pairs() == [[0, "1/4"], [1, "3/4"]]
