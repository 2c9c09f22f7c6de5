"""Expected number of runs until repeated outputs reveal the dataset or the secret
(``000_65109fe28ca61d17.txt`` §4: Theorems 1–3 for Examples 4.1–4.3).

The exact value is cross-checked against an independent Monte Carlo simulation
(:func:`monte_carlo_runs_to_reveal`): the exact mean must lie within a generous (z = 4)
confidence interval of the sample mean.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.mechanisms import FunctionMechanism, Query, QueryMechanism, TableMechanism
from pufferfish.models.numbers import INFINITY
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe
from pufferfish.verify.privacy.expected_runs import (dataset_classes, expected_runs_to_reveal,
                                  monte_carlo_runs_to_reveal, pair_classes)

F = Fraction


def bits(n: int) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


def uniform(n: int) -> Distribution:
    return Distribution.uniform(bits(n).datasets())


def example_42(n: int = 3) -> FunctionMechanism:
    """§4 Example 4.2 (n odd): w.p. 1/2 (x2⊕x1, …, xn⊕x1) (type A), else the parity (type B)."""
    def run(d):
        return Distribution({("A", tuple(x ^ d[0] for x in d[1:])): "1/2",
                             ("B", sum(d) % 2): "1/2"})
    return FunctionMechanism("M*", run)


def example_43() -> tuple[SecretPair, TableMechanism]:
    """§4 Example 4.3 on two bits: s1 is x1=1, U_T = {(1,0)}, U_F = {(0,0)}."""
    u = bits(2)
    pair = SecretPair(Secret.where("s1", u, {"x1": 1}), Secret.where("not s1", u, {"x1": 0}))
    half = F(1, 2)
    rows = {(1, 0): Distribution({("1a", "2a"): half, ("1a", "2b"): half}),
            (1, 1): Distribution({("1b", "2a"): half, ("1b", "2b"): half}),
            (0, 0): Distribution({("1a", "2a"): half, ("1b", "2a"): half}),
            (0, 1): Distribution({("1a", "2b"): half, ("1b", "2b"): half})}
    return pair, TableMechanism("M*", rows)


def _within_ci(exact: Fraction, samples: list[int], z: float = 4.0) -> bool:
    n = len(samples)
    mean = sum(samples) / n
    var = sum((s - mean) ** 2 for s in samples) / (n - 1)
    half_width = z * math.sqrt(var / n) + 1e-12
    return abs(float(exact) - mean) <= half_width


# --------------------------------------------------------------------------------------------
# Known answers


def test_identity_reveals_in_exactly_one_run():
    u = bits(2)
    identity = QueryMechanism("id", u, Query("identity", u))
    result = expected_runs_to_reveal(identity, uniform(2), dataset_classes())
    assert result.expected_runs == 1
    assert all(e == 1 for _, _, e in result.per_dataset)
    assert result.to_dict()["expected_runs"] == "1"


def test_constant_mechanism_never_reveals():
    u = bits(2)
    constant = TableMechanism("c", {d: Distribution({"a": "1/2", "b": "1/2"})
                                    for d in u.datasets()})
    result = expected_runs_to_reveal(constant, uniform(2), dataset_classes())
    assert result.expected_runs == INFINITY
    assert result.to_dict()["expected_runs"] == "inf"


def test_reveal_or_nothing_is_geometric():
    """W.p. 1/2 output the dataset, else "nothing": T is geometric(1/2), E[T] = 2."""
    mechanism = FunctionMechanism("coin", lambda d: Distribution({d: "1/2", "nothing": "1/2"}))
    result = expected_runs_to_reveal(mechanism, uniform(2), dataset_classes())
    assert result.expected_runs == 2


def test_two_labels_half_each_hand_computed():
    """On (x, y): w.p. 1/2 ("a", y), else ("b", x⊕y).  Both labels are needed: the first run gives
    one, then a geometric(1/2) wait for the other: E[T] = 1 + 2 = 3."""
    mechanism = FunctionMechanism("ab", lambda d: Distribution({("a", d[1]): "1/2",
                                                                ("b", d[0] ^ d[1]): "1/2"}))
    result = expected_runs_to_reveal(mechanism, uniform(2), dataset_classes())
    assert result.expected_runs == 3


def test_unequal_label_probabilities_hand_computed():
    """Labels with probabilities 1/3 and 2/3, both needed: E[T] = 1 + (1/3)·(3/2) + (2/3)·3 = 7/2."""
    mechanism = FunctionMechanism("ab", lambda d: Distribution({("a", d[1]): "1/3",
                                                                ("b", d[0] ^ d[1]): "2/3"}))
    result = expected_runs_to_reveal(mechanism, uniform(2), dataset_classes())
    assert result.expected_runs == F(7, 2)


def test_theorem2_example42_reveals_in_three_runs():
    """§4 Theorem 2: the expected number of runs before the dataset is revealed is 3."""
    result = expected_runs_to_reveal(example_42(3), uniform(3), dataset_classes())
    assert result.expected_runs == 3
    result5 = expected_runs_to_reveal(example_42(5), uniform(5), dataset_classes())
    assert result5.expected_runs == 3


def test_theorem3_example43_reveals_the_secret_in_three_runs():
    """§4 Theorem 3: the expected number of runs of M* to reveal the true secret is 3."""
    pair, mechanism = example_43()
    prior = Distribution({(1, 0): "1/5", (1, 1): "3/10", (0, 0): "1/8", (0, 1): "3/8"})
    result = expected_runs_to_reveal(mechanism, prior, pair_classes(pair), target="secret")
    assert result.expected_runs == 3
    assert result.target == "secret"


def test_theorem1_example41_bound_and_exact_value():
    """§4 Theorem 1: E[T] <= 1 + 1/(1 − max_D max_s Pr(D|s)).  Exactly, the input's tuple
    component is fixed and the other varies, so the dataset is revealed at the second distinct
    output: E[T | D] = 1 + Σ_E p_E/(1 − p_E) over the other side's conditional p."""
    u = bits(2)
    theta = Distribution({(0, 0): "1/8", (0, 1): "3/8", (1, 0): "1/6", (1, 1): "1/3"})
    s1, s2 = Secret.where("s1", u, {"x1": 0}), Secret.where("s2", u, {"x1": 1})
    given = {"s1": theta.condition(s1.holds), "s2": theta.condition(s2.holds)}

    def run(d):
        if s1.holds(d):
            return given["s2"].push_forward(lambda other: (d, other))
        return given["s1"].push_forward(lambda other: (other, d))

    result = expected_runs_to_reveal(FunctionMechanism("M*", run), theta, dataset_classes())
    expected = F(0)
    for d, weight in theta.items():
        other = given["s2"] if s1.holds(d) else given["s1"]
        expected += weight * (1 + sum((p / (1 - p) for p in other.values()), F(0)))
    assert result.expected_runs == expected
    worst = max(p for g in given.values() for p in g.values())
    assert result.expected_runs <= 1 + 1 / (1 - worst)


def test_single_class_support_is_revealed_at_once():
    pair, mechanism = example_43()
    prior = Distribution({(1, 0): "1/2", (1, 1): "1/2"})
    result = expected_runs_to_reveal(mechanism, prior, pair_classes(pair))
    assert result.expected_runs == 0


def test_pair_classes_rejects_datasets_outside_the_pair():
    u = bits(2)
    pair = SecretPair(Secret.where("a", u, {"x1": 1}), Secret.where("b", u, {"x2": 1}))
    side = pair_classes(pair)
    assert side((1, 0)) == "a" and side((0, 1)) == "b"
    with pytest.raises(ModelError, match="both"):
        side((1, 1))
    with pytest.raises(ModelError, match="neither"):
        side((0, 0))


def test_state_limit():
    with pytest.raises(TooLargeError, match="max-states"):
        expected_runs_to_reveal(example_42(3), uniform(3), dataset_classes(), max_states=1)


# --------------------------------------------------------------------------------------------
# Monte Carlo cross-check (independent simulation)


@pytest.mark.parametrize("case", ["example42", "example43", "unequal", "geometric"])
def test_exact_value_within_monte_carlo_confidence_interval(case):
    if case == "example42":
        mechanism, prior, classes = example_42(3), uniform(3), dataset_classes()
    elif case == "example43":
        pair, mechanism = example_43()
        prior = Distribution({(1, 0): "1/5", (1, 1): "3/10", (0, 0): "1/8", (0, 1): "3/8"})
        classes = pair_classes(pair)
    elif case == "unequal":
        mechanism = FunctionMechanism("ab", lambda d: Distribution({("a", d[1]): "1/3",
                                                                    ("b", d[0] ^ d[1]): "2/3"}))
        prior, classes = uniform(2), dataset_classes()
    else:
        mechanism = FunctionMechanism("coin", lambda d: Distribution({d: "1/4", "-": "3/4"}))
        prior, classes = uniform(2), dataset_classes()
    exact = expected_runs_to_reveal(mechanism, prior, classes).expected_runs
    samples = monte_carlo_runs_to_reveal(mechanism, prior, classes, 400, random.Random(20240))
    assert len(samples) == 400 and min(samples) >= 1
    assert _within_ci(exact, samples), (exact, sum(samples) / len(samples))


def test_monte_carlo_never_reveals_constant_hits_cap():
    u = bits(1)
    constant = TableMechanism("c", {d: Distribution.point("a") for d in u.datasets()})
    samples = monte_carlo_runs_to_reveal(constant, uniform(1), dataset_classes(), 5,
                                         random.Random(1), cap=50)
    assert samples == [50] * 5
