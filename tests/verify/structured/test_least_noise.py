"""The level of a sum or count with geometric or Laplace noise from the prior's structure, and the
least noise: checked against the enumerating audit and the enumerating Laplace level."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pufferfish
from pufferfish.models import IndependentPrior, MarkovPrior, Universe, entry_pairs
from pufferfish.models.bayesnet import BayesNetPrior
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.mechanisms import GeometricNoise, Query, QueryMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.structured.least_noise import (geometric_scale, least_geometric_noise,
                                                      least_laplace_scale, simplest_between)
from pufferfish.verify.structured.noise_level import NoiseLevels
from pufferfish.verify.structured.noise_tools import likelihood_order, w_infinity_of
from pufferfish.verify.transport.laplace_level import laplace_pufferfish_level
from pufferfish.verify.transport.w_infinity import w_infinity

Q = Fraction


def chain_model(T: int, p0, p1, initial=None, domain=(0, 1), extra=()) -> PufferfishModel:
    """A binary chain (stay probabilities ``p0``, ``p1``; stationary start unless given) with
    entry pairs."""
    u = Universe.product([f"x{i}" for i in range(1, T + 1)], [list(domain)] * T)
    p0, p1 = Q(p0), Q(p1)
    start = Q(initial) if initial is not None else (1 - p1) / (2 - p0 - p1)
    chain = MarkovPrior.homogeneous("chain", u, {0: start, 1: 1 - start},
                                    {0: {0: p0, 1: 1 - p0}, 1: {0: 1 - p1, 1: p1}})
    return PufferfishModel.build(u, [chain, *extra], entry_pairs(u))


def with_noise(model: PufferfishModel, query: Query, alpha: Fraction, low: int, high: int):
    mechanism = QueryMechanism("noisy", model.universe, query, GeometricNoise(alpha, low, high))
    return PufferfishModel.build(model.universe, list(model.priors.values()), model.pairs,
                                 [mechanism])


def enumerated_ratio(model, query, alpha, low, high):
    """The exact level (ratio, floored at 1) by the enumerating audit."""
    result = pufferfish.audit(with_noise(model, query, alpha, low, high), method="enumeration")
    return max(Q(1), result.mechanisms[0].pufferfish.max_ratio)


def enumerated_holds(model, query, alpha, low, high, epsilon) -> bool:
    result = pufferfish.audit(with_noise(model, query, alpha, low, high), epsilon,
                              method="enumeration")
    return result.mechanisms[0].pufferfish.holds


# -- the level at one noise ---------------------------------------------------------------------

def _law(draw, k: int) -> list[Fraction]:
    weights = draw(st.lists(st.integers(0, 4), min_size=k, max_size=k).filter(any))
    return [Q(w, sum(weights)) for w in weights]


@st.composite
def noisy_queries(draw):
    """Chains (possibly with zero transitions) and product priors over 1–5 attributes with
    domains {0,1} or {0,1,2}; a sum or a count over some attributes; a clamp that may cut the
    range; α in {0, 1/3, 1/2, 9/10}."""
    width = draw(st.integers(1, 5))
    domain = draw(st.sampled_from([[0, 1], [0, 1, 2]]))
    u = Universe.product([f"x{i}" for i in range(1, width + 1)], [domain] * width)
    priors = [MarkovPrior.homogeneous("chain", u, dict(zip(domain, _law(draw, len(domain)))),
                                      {v: dict(zip(domain, _law(draw, len(domain))))
                                       for v in domain})]
    if draw(st.booleans()):
        priors.append(IndependentPrior.iid("iid", u, dict(zip(domain, _law(draw, len(domain))))))
    kind = draw(st.sampled_from(["sum", "count"]))
    read = sorted(draw(st.sets(st.sampled_from(list(u.attributes)), min_size=1)))
    query = Query(kind, u, read, draw(st.sampled_from(domain)) if kind == "count" else 1)
    top = len(read) * (max(domain) if kind == "sum" else 1)
    low = draw(st.integers(-1, top))
    high = draw(st.integers(low, top + 1))
    alpha = draw(st.sampled_from([Q(0), Q(1, 3), Q(1, 2), Q(9, 10)]))
    return PufferfishModel.build(u, priors, entry_pairs(u)), query, low, high, alpha


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noisy_queries())
def test_the_geometric_level_equals_the_enumerating_audit(case):
    model, query, low, high, alpha = case
    level = NoiseLevels(model, query, low=low, high=high).geometric(alpha)
    assert level.exact
    expected = enumerated_ratio(model, query, alpha, low, high)
    if level.vacuous:
        assert expected == 1
    else:
        assert max(Q(1), level.ratio_upper) == expected == max(Q(1), level.ratio_lower)


@pytest.mark.parametrize("p0, p1, initial", [("9/10", "4/5", None), ("1/10", "1/10", None),
                                             ("1", "1/2", "1/2"), ("0", "1/3", "1/2")])
@pytest.mark.parametrize("scale", [Q(1, 2), Q(3)])
def test_the_laplace_level_agrees_with_the_enumerating_laplace_level(p0, p1, initial, scale):
    model = chain_model(5, p0, p1, initial)
    query = Query("sum", model.universe)
    mine = NoiseLevels(model, query).laplace(scale)
    reference = laplace_pufferfish_level(model, query, scale)
    assert not mine.exact
    assert mine.ratio_lower <= mine.ratio_upper
    assert max(Q(1), mine.ratio_lower) <= reference.ratio_upper
    assert reference.ratio_lower <= max(Q(1), mine.ratio_upper)
    assert float(mine.ratio_upper - mine.ratio_lower) < 1e-20


def test_an_anti_correlated_chain_has_pairs_out_of_likelihood_ratio_order():
    # such pairs are read at every output (the other path); the level still equals enumeration
    model = chain_model(7, "1/10", "1/10")
    levels = NoiseLevels(model, "sum")
    assert any(pair.order is None for pair in levels.pairs)
    query = Query("sum", model.universe)
    for alpha in (Q(1, 3), Q(4, 5)):
        assert levels.geometric(alpha).ratio_upper == enumerated_ratio(model, query, alpha, 0, 7)
    scale = Q(2)
    reference = laplace_pufferfish_level(model, query, scale)
    mine = levels.laplace(scale)
    assert mine.ratio_lower <= reference.ratio_upper and reference.ratio_lower <= mine.ratio_upper


def test_ends_only_levels_are_lower_bounds():
    for p in ("9/10", "1/10"):
        model = chain_model(6, p, p)
        full = NoiseLevels(model, "sum").geometric(Q(1, 2))
        ends = NoiseLevels(model, "sum", ends_only=True).geometric(Q(1, 2))
        assert ends.ratio_upper is None and not ends.exact
        assert ends.ratio_lower <= full.ratio_upper
        if p == "9/10":    # every pair is ordered: the ends are the level
            assert ends.ratio_lower == full.ratio_upper


def test_a_network_prior_equals_the_enumerating_audit(four_node_network):
    net = four_node_network
    u = Universe.product(list("abcd"), [[0, 1]] * 4)
    model = PufferfishModel.build(u, [BayesNetPrior("net", tuple("abcd"), net)], entry_pairs(u))
    levels = NoiseLevels(model, "sum")
    query = Query("sum", u)
    for alpha in (Q(1, 4), Q(2, 3)):
        assert levels.geometric(alpha).ratio_upper == enumerated_ratio(model, query, alpha, 0, 4)
    result = least_geometric_noise(levels, "1/2")
    assert enumerated_holds(model, query, result.ok.parameter, 0, 4, "1/2") is True
    assert enumerated_holds(model, query, result.fail.parameter, 0, 4, "1/2") is False


# -- the least noise --------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon", ["1/10", "1", "5"])
@pytest.mark.parametrize("p0, p1, initial", [("9/10", "4/5", None), ("1", "1/2", "1/2"),
                                             ("1/10", "1/10", None)])
def test_the_geometric_bracket_is_verified_by_enumeration(epsilon, p0, p1, initial):
    T = 7
    model = chain_model(T, p0, p1, initial)
    query = Query("sum", model.universe)
    result = least_geometric_noise(NoiseLevels(model, query), epsilon)
    assert result.least and not result.lower_bound_only
    ok, fail = result.ok.parameter, result.fail.parameter
    assert fail < ok < 1
    assert enumerated_holds(model, query, ok, 0, T, epsilon) is True
    assert enumerated_holds(model, query, fail, 0, T, epsilon) is False
    low, high = result.scale
    assert geometric_scale(fail)[0] == low and high == geometric_scale(ok)[1]
    assert high / low - 1 <= Q(1, 1000) * 1.01


@pytest.mark.parametrize("epsilon", ["1/10", "2"])
def test_the_two_noises_have_the_same_threshold(epsilon):
    levels = NoiseLevels(chain_model(8, "9/10", "4/5"), "sum")
    geometric = least_geometric_noise(levels, epsilon)
    laplace = least_laplace_scale(levels, epsilon)
    assert laplace.least and laplace.fail.parameter < laplace.ok.parameter
    assert laplace.ok.relation(parse_budget(epsilon)) in ("below", "tight")
    assert laplace.fail.relation(parse_budget(epsilon)) == "above"
    # b* = −1/log α*: the brackets overlap
    assert geometric.scale[0] <= laplace.ok.parameter and laplace.fail.parameter <= geometric.scale[1]


@pytest.mark.parametrize("epsilon", ["1/2", "log(3)"])
def test_a_product_prior_needs_the_dp_scale(epsilon):
    # X_i independent: the level of the noisy sum is Δ·log(1/α), its per-entry DP level
    u = Universe.product(["a", "b", "c", "d"], [[0, 1, 2]] * 4)
    prior = IndependentPrior.iid("iid", u, {0: "1/4", 1: "1/4", 2: "1/2"})
    levels = NoiseLevels(PufferfishModel.build(u, [prior], entry_pairs(u)), "sum")
    eps = math.log(3) if epsilon.startswith("log") else 0.5
    laplace = least_laplace_scale(levels, epsilon)
    assert laplace.fail.parameter < 2 / eps <= laplace.ok.parameter        # Δ = 2
    geometric = least_geometric_noise(levels, epsilon)
    assert geometric.fail.parameter < math.exp(-eps / 2) <= geometric.ok.parameter
    if epsilon == "log(3)":   # α = 1/√3 is irrational; the level at α_ok is log(1/α_ok²) exactly
        assert geometric.ok.ratio_upper == 1 / geometric.ok.parameter ** 2


def test_one_attribute():
    model = chain_model(1, "1/2", "1/2", "1/3")
    result = least_geometric_noise(NoiseLevels(model, "sum"), "1")
    assert result.least
    query = Query("sum", model.universe)
    assert enumerated_holds(model, query, result.ok.parameter, 0, 1, "1") is True
    assert enumerated_holds(model, query, result.fail.parameter, 0, 1, "1") is False
    assert result.fail.parameter < math.exp(-1) <= result.ok.parameter   # the DP threshold


def test_a_count_over_some_attributes_and_a_narrow_clamp():
    model = chain_model(6, "4/5", "3/5")
    query = Query("count", model.universe, ["x1", "x2", "x3"], 1)
    levels = NoiseLevels(model, query, low=1, high=2)
    assert not levels.monotone
    result = least_geometric_noise(levels, "1/2")
    assert not result.least          # a bracket, not a least noise: no monotonicity argument
    assert "ok is private, fail is not" in result.explain()
    assert enumerated_holds(model, query, result.ok.parameter, 1, 2, "1/2") is True
    assert enumerated_holds(model, query, result.fail.parameter, 1, 2, "1/2") is False


def test_no_noise_needed_and_no_noise_suffices():
    # the count of x1 says nothing about x3 under a product prior: no noise needed
    u = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
    prior = IndependentPrior.iid("iid", u, {0: "1/2", 1: "1/2"})
    model = PufferfishModel.build(u, [prior], entry_pairs(u)[2:])
    result = least_geometric_noise(NoiseLevels(model, "count", attributes=["x1"]), "1/10")
    assert result.ok.parameter == 0 and result.fail is None and result.least
    # ε = 0 with a query that depends on the secret: no noise suffices
    result = least_laplace_scale(NoiseLevels(chain_model(3, "1/2", "1/2"), "sum"), "0")
    assert result.ok is None and result.fail.parameter == 0 and not result.least


def test_an_ends_only_search_certifies_a_lower_bound():
    model = chain_model(7, "9/10", "4/5")
    full = least_laplace_scale(NoiseLevels(model, "sum"), "1")
    ends = least_laplace_scale(NoiseLevels(model, "sum", ends_only=True), "1")
    assert ends.lower_bound_only and not ends.least and ends.scale[1] is None
    assert ends.fail.relation(parse_budget("1")) == "above"
    assert ends.fail.parameter < full.ok.parameter


def test_refusals():
    model = chain_model(3, "1/2", "1/2")
    with pytest.raises(UnsupportedError):
        NoiseLevels(model, "parity")
    with pytest.raises(ModelError):
        NoiseLevels(model, "sum", low=3, high=1)
    with pytest.raises(ModelError):
        NoiseLevels(model, "sum").geometric(Q(1))
    with pytest.raises(ModelError):
        least_laplace_scale(NoiseLevels(model, "sum"), "1", tolerance="2")


# -- the pieces ---------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=6).filter(any),
       st.lists(st.integers(0, 5), min_size=1, max_size=6).filter(any))
def test_w_infinity_and_order_agree_with_their_definitions(first, second):
    exact = w_infinity({k: Q(x, sum(first)) for k, x in enumerate(first) if x},
                       {k: Q(x, sum(second)) for k, x in enumerate(second) if x}).value
    assert w_infinity_of(first, second, sum(first), sum(second)) == exact
    n = max(len(first), len(second))
    a, b = first + [0] * (n - len(first)), second + [0] * (n - len(second))
    up = all(a[j] * b[k] >= a[k] * b[j] for k in range(n) for j in range(k + 1, n))
    down = all(a[j] * b[k] <= a[k] * b[j] for k in range(n) for j in range(k + 1, n))
    order = likelihood_order(first, second)
    assert (order in (0, 1)) == up and (order in (0, -1)) == down


def test_simplest_between_and_the_scale_of_alpha():
    assert simplest_between(Q(1, 3), Q(1, 3)) == Q(1, 3)
    assert simplest_between(Q(0), Q(1, 2)) == 0
    assert simplest_between(Q(2, 7), Q(3, 7)) == Q(1, 3)
    low, high = geometric_scale(Q(9, 10))
    assert low <= -1 / math.log(0.9) <= high and high - low < 1e-12
    assert geometric_scale(Q(0)) == (0.0, 0.0)
    assert INFINITY == math.inf


def test_the_laplace_scale_ignores_the_geometric_clamp():
    model = chain_model(6, "4/5", "3/5")
    narrow = NoiseLevels(model, "sum", low=1, high=4)
    assert not narrow.monotone
    cut = least_laplace_scale(narrow, "1", tolerance="1/100")
    whole = least_laplace_scale(NoiseLevels(model, "sum"), "1", tolerance="1/100")
    assert cut.least and whole.least
    assert (cut.fail.parameter, cut.ok.parameter) == (whole.fail.parameter, whole.ok.parameter)
    assert narrow.noiseless().ratio_upper == NoiseLevels(model, "sum").geometric(0).ratio_upper
