"""(ε, δ)-DP (verify/privacy/approximate.py) against an independent brute force: the
hockey-stick divergence as the largest ``P(S) − e^ε Q(S)`` over every set ``S`` of outputs, on
random mechanisms given as tables; the least ε checked on both sides of its exact value."""

from __future__ import annotations

from fractions import Fraction
from itertools import chain, combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pufferfish
from pufferfish.examples import example_path
from pufferfish.models import TableMechanism, Universe
from pufferfish.models.distribution import Distribution
from pufferfish.models.programs import ExpNumber
from pufferfish.verify.privacy.approximate import approximate_dp


SUITE = example_path("dp_benchmarks/laplace_suite.json")


def _subsets(items):
    items = list(items)
    return chain.from_iterable(combinations(items, k) for k in range(len(items) + 1))


def _brute_delta(rows, pairs, factor):
    """max over ordered pairs and subsets S of P(S) − factor·Q(S) (and 0)."""
    best = Fraction(0)
    for first, second in pairs:
        p, q = rows[first], rows[second]
        for subset in _subsets(p.keys() | q.keys()):
            value = sum((p.get(o, 0) for o in subset), Fraction(0)) - factor * sum(
                (q.get(o, 0) for o in subset), Fraction(0))
            best = max(best, value)
    return best


laws = st.lists(st.integers(0, 6), min_size=3, max_size=3).filter(any).map(
    lambda counts: {o: Fraction(c, sum(counts)) for o, c in enumerate(counts) if c})


@settings(max_examples=40, deadline=None)
@given(st.lists(laws, min_size=3, max_size=3), st.sampled_from(["0", "log(2)", "log(3/2)"]),
       st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1, 3)]))
def test_delta_and_least_epsilon_match_the_brute_force(rows, epsilon, delta):
    universe = Universe.product(["x"], [[0, 1, 2]])
    mechanism = TableMechanism("m", {(v,): Distribution(rows[v]) for v in range(3)})
    pairs = [(a, b) for a in range(3) for b in range(3) if a != b]  # entry neighbours
    budget = pufferfish.budget(epsilon)
    found = approximate_dp(universe, mechanism, "entry", epsilon=budget)
    factor = budget.ratio if budget.ratio is not None else Fraction(1)  # ε = 0: e^ε = 1
    assert found.delta == _brute_delta(rows, pairs, factor)
    least = approximate_dp(universe, mechanism, "entry", delta=delta).least_ratio
    if least == float("inf"):
        assert _brute_delta(rows, pairs, Fraction(10 ** 9)) > delta
        return
    assert _brute_delta(rows, pairs, least) <= delta
    if least > 1:
        assert _brute_delta(rows, pairs, least * Fraction(999, 1000)) > delta


def test_laplace_programs_have_exact_delta_and_least_epsilon():
    found = pufferfish.approximate_dp(SUITE, "svt6",
                                      epsilon="1/2", delta="1/100")
    assert isinstance(found.delta, ExpNumber) and found.holds
    assert found.delta == Fraction(1, 12) - Fraction(5, 48) * ExpNumber.exp(Fraction(-1, 4)) \
        + Fraction(1, 192) * ExpNumber.exp(Fraction(-3, 4))
    least = pufferfish.approximate_dp(SUITE, "svt6", delta="1/100")
    assert least.least_epsilon.startswith("log(") and isinstance(least.least_ratio, ExpNumber)
    # δ at the least ε is exactly the δ asked for: the bound is attained, not just met
    model = pufferfish.load(SUITE)
    from pufferfish.verify.privacy.approximate import delta_at
    from pufferfish.models.kernel import KernelTable
    from pufferfish.verify.privacy.approximate import neighbour_pairs
    from pufferfish.models.neighbours import parse_neighbours
    pairs = list(neighbour_pairs(model.universe, parse_neighbours("linf:1", model.universe), 10 ** 6,
                        10 ** 6))
    table = KernelTable.build(model.mechanisms["svt6"], list(model.universe.datasets(10 ** 6)))
    assert delta_at(table, pairs, _RatioBudget(least.least_ratio)).delta == Fraction(1, 100)
    # ε-DP programs need no δ: the least ε at δ = 0 is the pure level
    pure = pufferfish.dp_level(SUITE, "noisy_max_exponential")
    assert pufferfish.approximate_dp(SUITE, "noisy_max_exponential",
                                     delta=0).least_ratio == pure.max_ratio


class _RatioBudget:
    """A budget whose e^ε is an exact number of Q(e^(1/n)) (what delta_at reads of a budget)."""

    infinite = False
    epsilon = None

    def __init__(self, ratio):
        self.ratio = ratio
