"""Tests of pufferfish.verify.transport.laplace_level: exact privacy of Laplace-noise mechanisms.

Known answers: two point masses (sup = e^{Δ/σ}); Appendix A.3 of 002_e1f2e9a9937b8cda.txt
(ratio (1−δ) + δ e^{Δ/α} at w = Δ).  Cross-checks against dense numerical evaluation of the ratio
on a grid and against numerical integration (numerical, for testing only).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction as Q

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import integrate

from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.mechanisms import Query
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.transport.laplace_level import (laplace_mixture_hockey_stick, laplace_mixture_sup_ratio,
                                    laplace_pufferfish_level)
from pufferfish.proofs_check.paper_002.instances import flu_conditionals, flu_model


def density(measure, scale, w):
    """Numerical Laplace-mixture density (tests only)."""
    s = float(scale)
    return sum(float(p) * np.exp(-np.abs(w - float(v)) / s) / (2 * s) for v, p in measure.items())


def grid_max_ratio(first, second, scale):
    points = [float(v) for v in set(first) | set(second)]
    low, high = min(points) - 5 * float(scale), max(points) + 5 * float(scale)
    grid = np.concatenate([np.linspace(low, high, 20001), np.array(points)])
    return float(np.max(density(first, scale, grid) / density(second, scale, grid)))


def test_point_masses_closed_form():
    """Two point masses at 0 and Δ: sup = e^{Δ/σ} exactly (tight at ε = Δ/σ)."""
    for delta, sigma in ((Q(1), Q(1, 2)), (Q(3), Q(2)), (Q(1, 3), Q(5))):
        bound = laplace_mixture_sup_ratio({Q(0): Q(1)}, {delta: Q(1)}, sigma)
        exact = math.exp(delta / sigma)
        assert float(bound.lower) <= exact * (1 + 1e-15) and float(bound.upper) >= exact * (1 - 1e-15)
        assert bound.epsilon_lower <= float(delta / sigma) <= bound.epsilon_upper
        assert bound.compare(parse_budget(str(delta / sigma))) == "tight"
        assert bound.compare(parse_budget(str(delta / sigma + Q(1, 10**9)))) == "below"
        assert bound.compare(parse_budget(str(delta / sigma - Q(1, 10**9)))) == "above"
        assert bound.witness == Q(0)


def test_appendix_a3_closed_form():
    """002 Appendix A.3: P(F|s_i) = δ_0, P(F|s_j) = (1−δ)δ_0 + δ δ_Δ; at w = Δ the ratio
    P(·|s_j)/P(·|s_i) is (1−δ) + δ e^{Δ/α}, which is the supremum."""
    for delta, big, alpha in ((Q(1, 10), Q(5), Q(1)), (Q(1, 2), Q(2), Q(3))):
        bound = laplace_mixture_sup_ratio({Q(0): 1 - delta, big: delta}, {Q(0): Q(1)}, alpha)
        expected = float(1 - delta) + float(delta) * math.exp(big / alpha)
        assert math.isclose(float(bound.lower), expected, rel_tol=1e-14)
        assert math.isclose(float(bound.upper), expected, rel_tol=1e-14)
        assert bound.witness == big


def test_flu_directions_against_grid():
    first, second = flu_conditionals()
    for scale in (Q(1, 2), Q(2), Q(7)):
        for a, b in ((first, second), (second, first)):
            bound = laplace_mixture_sup_ratio(a, b, scale)
            numeric = grid_max_ratio(a, b, scale)
            assert float(bound.lower) * (1 - 1e-12) <= numeric <= float(bound.upper) * (1 + 1e-12)


measures = st.dictionaries(st.integers(-6, 6), st.integers(1, 9), min_size=1, max_size=5).map(
    lambda d: {Q(v): Q(w, sum(d.values())) for v, w in d.items()})


@settings(max_examples=30, deadline=None)
@given(measures, measures, st.sampled_from([Q(1, 2), Q(1), Q(3, 2), Q(4)]))
def test_sup_matches_dense_grid(first, second, scale):
    bound = laplace_mixture_sup_ratio(first, second, scale)
    assert bound.lower <= bound.upper
    numeric = grid_max_ratio(first, second, scale)
    # the grid contains the support points, where the supremum is attained
    assert float(bound.lower) * (1 - 1e-12) <= numeric <= float(bound.upper) * (1 + 1e-12)


@settings(max_examples=20, deadline=None)
@given(measures, measures, st.sampled_from([Q(1, 2), Q(2)]))
def test_ratio_monotone_between_support_points(first, second, scale):
    """The Möbius argument: between consecutive support points the ratio is monotone."""
    points = sorted(float(v) for v in set(first) | set(second))
    for left, right in zip(points, points[1:]):
        grid = np.linspace(left, right, 400)
        ratio = density(first, scale, grid) / density(second, scale, grid)
        steps = np.diff(ratio)
        tolerance = 1e-12 * float(np.max(np.abs(ratio)))
        assert np.all(steps >= -tolerance) or np.all(steps <= tolerance)


def test_tails_are_constant():
    first, second = flu_conditionals()
    scale = Q(2)
    far = np.array([-50.0, -10.0, 0.0])
    ratios = density(first, scale, far) / density(second, scale, far)
    assert np.allclose(ratios, ratios[0], rtol=1e-12)


def test_budget_decisions_rigorous():
    first, second = flu_conditionals()
    bound = laplace_mixture_sup_ratio(first, second, Q(2))
    assert bound.compare(parse_budget("1")) == "below"
    assert bound.compare(parse_budget("0.7")) == "above"
    assert bound.compare(parse_budget("log(3)")) == "below"
    assert bound.compare(parse_budget("log(2)")) == "above"
    assert bound.compare(parse_budget("inf")) == "below"


def test_identical_distributions_are_tight_at_zero():
    bound = laplace_mixture_sup_ratio({0: Q(1, 2), 1: Q(1, 2)}, {0: Q(1, 2), 1: Q(1, 2)}, Q(1))
    assert bound.compare(parse_budget("0")) == "tight"
    assert bound.compare(parse_budget("1/100")) == "below"


def test_no_noise_is_exact():
    bound = laplace_mixture_sup_ratio({0: Q(1, 2), 1: Q(1, 2)}, {0: Q(1, 4), 1: Q(3, 4)}, 0)
    assert bound.lower == bound.upper == 2 and bound.witness == 0 and bound.exact
    assert bound.compare(parse_budget("log(2)")) == "tight"
    infinite = laplace_mixture_sup_ratio({0: 1}, {1: 1}, 0)
    assert infinite.upper == math.inf and infinite.compare(parse_budget("5")) == "above"


def test_bad_input():
    with pytest.raises(ModelError):
        laplace_mixture_sup_ratio({0: Q(-1)}, {0: 1}, 1)
    with pytest.raises(ModelError):
        laplace_mixture_sup_ratio({}, {0: 1}, 1)
    with pytest.raises(ModelError):
        laplace_mixture_sup_ratio({0: 1}, {0: 1}, Q(-1))
    with pytest.raises(ModelError):
        laplace_mixture_sup_ratio({0: 0.5}, {0: 1}, 1)


def test_to_dict_is_json():
    bound = laplace_mixture_sup_ratio({0: 1}, {1: 1}, Q(1))
    text = json.dumps(bound.to_dict())
    assert '"witness": "0"' in text and "tail" in bound.explain()


def numeric_hockey(first, second, scale, eps):
    c = math.exp(eps)
    points = sorted(float(v) for v in set(first) | set(second))
    breaks = [points[0] - 60 * float(scale)] + points + [points[-1] + 60 * float(scale)]
    total = 0.0
    for a, b in zip(breaks, breaks[1:]):
        value, _ = integrate.quad(lambda w: max(0.0, density(first, scale, w) - c * density(second, scale, w)),
                                  a, b, epsabs=1e-13, epsrel=1e-12, limit=200)
        total += value
    return total


@pytest.mark.parametrize("eps", ["0", "1/2", "2"])
def test_hockey_stick_against_quadrature(eps):
    first, second = flu_conditionals()
    for a, b in ((first, second), (second, first)):
        bound = laplace_mixture_hockey_stick(a, b, Q(3, 2), parse_budget(eps))
        numeric = numeric_hockey(a, b, Q(3, 2), float(Q(eps)))
        assert float(bound.lower) - 1e-9 <= numeric <= float(bound.upper) + 1e-9
        assert bound.upper - bound.lower < Q(1, 10**15)


def test_hockey_stick_total_variation_point_masses():
    """ε = 0: the divergence is the total variation, 1 − e^{−Δ/2σ} for point masses Δ apart."""
    bound = laplace_mixture_hockey_stick({0: 1}, {2: 1}, Q(1), parse_budget("0"))
    expected = 1 - math.exp(-1)
    assert float(bound.lower) <= expected + 1e-15 and float(bound.upper) >= expected - 1e-15
    assert bound.compare(Q(63, 100)) == "above" and bound.compare(Q(64, 100)) == "below"


def test_hockey_stick_discrete_exact():
    budget = parse_budget("1")
    bound = laplace_mixture_hockey_stick({0: Q(9, 10), 5: Q(1, 10)}, {0: Q(1)}, 0, budget)
    assert bound.compare(Q(1, 10)) == "tight" and bound.compare(Q(1, 11)) == "above"
    with pytest.raises(UnsupportedError):
        laplace_mixture_hockey_stick({0: 1}, {0: 1}, 1, parse_budget("inf"))


def test_pufferfish_level_on_flu_model():
    """002 §3 flu model: σ = W/ε = 2 for ε = 1; the actual level is below ε; a smaller scale
    violates ε (the check can fail)."""
    model = flu_model()
    query = Query("sum", model.universe)
    result = laplace_pufferfish_level(model, query, Q(2), parse_budget("1"))
    direct = laplace_mixture_sup_ratio(*flu_conditionals(), Q(2))
    assert result.ratio_upper == max(direct.upper, result.witness.bound.upper)
    assert result.holds is True and result.relation == "below"
    assert 0.74 < result.epsilon_lower <= result.epsilon_upper < 0.742
    assert result.holds_at(parse_budget("0.7")) is False
    small = laplace_pufferfish_level(model, query, Q(1), parse_budget("1"))
    assert small.holds is False
    json.dumps(result.to_dict())
    assert "worst case" in result.explain()
