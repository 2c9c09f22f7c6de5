"""Tests of pufferfish.verify.transport.kantorovich (001_3a97785a86d61e37.txt §2 equation (6), Proposition 1; Appendix A,
Lemma 3, Example 1, Tables 4–6)."""

from __future__ import annotations

from fractions import Fraction as Q

import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.verify.transport.kantorovich import (cdf_table, delta_star, delta_star_brute_force, transport_plan,
                              w1_by_cdf)
from pufferfish.verify.transport.w_infinity import w_infinity

TABLE4_I = {1: Q("0.2"), 2: Q("0.225"), 3: Q("0.5"), 4: Q("0.075"), 5: Q(0)}
TABLE4_J = {1: Q(0), 2: Q("0.075"), 3: Q("0.5"), 4: Q("0.225"), 5: Q("0.2")}


def test_example1_table5_cdfs():
    """Example 1, Table 5.  The paper prints F(2|s_i) = 0.42 and F(4|s_j) = 0.925; the exact
    cumulative sums of Table 4 are 0.425 and 0.8 (0.075 + 0.5 + 0.225)."""
    rows = cdf_table(TABLE4_I, TABLE4_J)
    assert [r[1] for r in rows] == [Q("0.2"), Q("0.425"), Q("0.925"), Q(1), Q(1)]
    assert [r[2] for r in rows] == [Q(0), Q("0.075"), Q("0.575"), Q("0.8"), Q(1)]


def test_example1_table6_transport_plan():
    """Example 1, Table 6: the comonotone plan π*, matching the printed table cell by cell."""
    plan = transport_plan(TABLE4_I, TABLE4_J)
    rows, cols, masses = plan.matrix()
    assert rows == tuple(Q(k) for k in range(1, 6))
    expected = [["0", "0.075", "0.125", "0", "0"], ["0", "0", "0.225", "0", "0"],
                ["0", "0", "0.15", "0.225", "0.125"], ["0", "0", "0", "0", "0.075"],
                ["0", "0", "0", "0", "0"]]
    assert [[Q(c) for c in row] for row in expected] == [list(r) for r in masses]
    assert plan.largest_distance == 2 and plan.verify()
    assert plan.w1 == w1_by_cdf(TABLE4_I, TABLE4_J) == Q(11, 10)


def test_example1_delta_star():
    """Example 1: Δ*(1) = 2; the text's "Δ*(2) = Δ*(3) = Δ*(4)" is incomplete — exactly they are
    1, 2, 1 — and Δ*(5) = 0; sup = 2 = largest transported distance (Lemma 3)."""
    result = delta_star(TABLE4_I, TABLE4_J)
    assert [d for _, d in result.values] == [2, 1, 2, 1, 0]
    assert result.supremum == 2 and result.step == 1


def test_lattice_needs_points_outside_the_support():
    """μ = δ_5, ν = (δ_0 + δ_1)/2: support points alone give 2; the lattice point 4 gives 5."""
    mu, nu = {5: 1}, {0: Q(1, 2), 1: Q(1, 2)}
    result = delta_star(mu, nu)
    assert result.supremum == 5 and result.argmax == 4
    assert transport_plan(mu, nu).largest_distance == 5


def test_reals_reading_is_ill_posed_downward_move():
    """μ = δ_1, ν = δ_0: over the reals {Δ > 0 : F_ν(0 − Δ) <= F_μ(0)} = (0, ∞) has no minimum;
    on the lattice Δ*(0) = 1 = the transported distance."""
    assert delta_star({1: 1}, {0: 1}).supremum == 1


def test_errors():
    with pytest.raises(ModelError):
        transport_plan({0: Q(1, 2)}, {0: 1})
    with pytest.raises(TooLargeError):
        delta_star({0: 1}, {Q(1, 10 ** 6): Q(1, 2), Q(10): Q(1, 2)}, max_points=10)


measures = st.dictionaries(st.integers(-4, 5), st.integers(1, 6), min_size=1, max_size=4).map(
    lambda d: {Q(v, 2): Q(w, sum(d.values())) for v, w in d.items()})


@settings(max_examples=60, deadline=None)
@given(measures, measures)
def test_lemma3_on_the_lattice(mu, nu):
    """Lemma 3 on the lattice: sup Δ* = largest transported distance = W∞; the fast Δ* agrees
    with the literal definition; W1 by the coupling equals ∫|F_μ − F_ν|."""
    plan = transport_plan(mu, nu)
    assert plan.verify()
    assert delta_star(mu, nu).supremum == plan.largest_distance == w_infinity(mu, nu).value
    assert delta_star_brute_force(mu, nu) == plan.largest_distance
    assert plan.w1 == w1_by_cdf(mu, nu)
