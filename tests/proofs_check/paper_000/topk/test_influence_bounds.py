"""Certified float bounds on the a(b) curve of stationary chains
(:func:`pufferfish.verify.influence.chains.stationary_chain_curve_bounds`) against the exact structured curve
(``000_65109fe28ca61d17.txt`` §6.2, Definition 7) on small chains."""

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.models.bayesnet import MarkovChain, solve_stationary
from pufferfish.models.errors import UnsupportedError
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.models.numbers import INFINITY
from pufferfish.verify.influence.chains import chain_influence_curve, stationary_chain_curve_bounds
from pufferfish.verify.influence.translation import LogValue


def _model(chains, n):
    priors = {}
    for c in chains:
        priors[c.name] = {"markov": {
            "initial": {str(s): str(p) for s, p in zip(c.states, c.initial)},
            "transition": {str(x): {str(y): str(c.matrix[i][j]) for j, y in enumerate(c.states)}
                           for i, x in enumerate(c.states)}}}
    return parse_model({"pufferfish_model": 1, "attributes": [f"x{i}" for i in range(n)],
                        "domain": list(chains[0].states), "datasets": "all", "priors": priors,
                        "entry_pairs": True})


def _chain(matrix, n, name="c"):
    return MarkovChain(tuple(range(len(matrix))), matrix, n, solve_stationary(matrix), name)


def _assert_encloses(chains, n):
    exact = chain_influence_curve(_model(chains, n))
    bounds = stationary_chain_curve_bounds(chains)
    assert [p.b for p in bounds.points] == list(range(n + 1))
    for p in bounds.points:
        r = exact.at(p.b).max_ratio
        if r == INFINITY:
            assert p.lower == p.upper == float("inf")
            continue
        value = LogValue.log(r)
        assert LogValue.rational(F(p.lower)) <= value <= LogValue.rational(F(p.upper)), p
        assert p.upper - p.lower < 1e-9


M3 = ((F(1, 2), F(1, 3), F(1, 6)), (F(1, 5), F(3, 5), F(1, 5)), (F(0), F(1, 4), F(3, 4)))


@pytest.mark.parametrize("n", [1, 2, 5, 6, 7])
def test_bounds_enclose_exact_curve_three_states(n):
    _assert_encloses([_chain(M3, n)], n)


def test_bounds_enclose_exact_curve_family_of_two():
    other = ((F(3, 4), F(1, 8), F(1, 8)), (F(1, 10), F(4, 5), F(1, 10)), (F(1, 3), F(1, 3), F(1, 3)))
    _assert_encloses([_chain(M3, 6, "a"), _chain(other, 6, "b")], 6)


def test_zero_transition_gives_infinite_or_exact_leakage():
    """A deterministic step makes a(1) infinite; the bound reports +inf, like the exact curve."""
    m = ((F(0), F(1)), (F(1, 2), F(1, 2)))
    _assert_encloses([_chain(m, 5)], 5)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9), st.integers(2, 6))
def test_bounds_enclose_random_chains(weights, n):
    rows = []
    for r in range(3):
        w = [x + (1 if j == (r + 1) % 3 else 0) for j, x in enumerate(weights[3 * r:3 * r + 3])]
        rows.append(tuple(F(x, sum(w)) for x in w))
    _assert_encloses([_chain(tuple(rows), n)], n)


def test_refuses_non_stationary_start():
    c = MarkovChain((0, 1, 2), M3, 4, (F(1), F(0), F(0)))
    with pytest.raises(UnsupportedError):
        stationary_chain_curve_bounds([c])


def test_curve_points_are_upper_bounds_usable_by_translation():
    bounds = stationary_chain_curve_bounds([_chain(M3, 7)])
    pts = bounds.curve_points()
    assert pts[0].a.infinite and pts[-1].b == 7 and pts[-1].a.sign() == 0
    assert bounds.points[1].upper == float("inf")        # M3 has a zero entry
    assert all(np.isfinite(p.upper) for p in bounds.points[2:])
