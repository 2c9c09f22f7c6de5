"""Tests of pufferfish.verify.influence.curves, pufferfish.verify.influence.chains and the influence CLI
(000_65109fe28ca61d17.txt §6.1 Definition 6, §6.2 Definition 7, §6.3 Example 6.1)."""

import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.files.pufferfish_file import load_model, parse_model
from pufferfish.models.numbers import INFINITY
from pufferfish.proofs_check.paper_000.influence import theorem8_ratio
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.influence.curves import influence_curve, leakage_through, max_influence
from pufferfish.verify.influence.curve_file import parse_curve
from pufferfish.proofs_check.paper_000.figures import binary_chain_model


def chain_model(n, initial, transition, k=2, extra=None):
    priors = {"c": {"markov": {"initial": initial, "transition": transition}}}
    priors.update(extra or {})
    return parse_model({"pufferfish_model": 1, "attributes": [f"x{i}" for i in range(1, n + 1)],
                        "domain": list(range(k)), "datasets": "all", "priors": priors,
                        "entry_pairs": True})


def table_model():
    return load_model("examples/influence_table.json")


def test_definition7_hand_computed_three_entry_table():
    """§6.2 Definition 7 on examples/influence_table.json, by hand:
    Pr[x1,x3 | x2=0] = (4,1,1,2)/8 and Pr[x1,x3 | x2=1] = (2,1,1,4)/8 -> a†({x1,x3}) = log 2;
    Pr[x3 | x2=0] = (5,3)/8 vs (3,5)/8 -> a†({x3}) = log(5/3)."""
    m = table_model()
    s0, s1 = m.secrets["x2=0"], m.secrets["x2=1"]
    both = leakage_through(m, s0, s1, ["x1", "x3"])
    assert both.max_ratio == 2 and both.values == (0, 0)
    assert both.p_first == F(1, 2) and both.p_second == F(1, 4)
    assert leakage_through(m, s0, s1, ["x3"]).max_ratio == F(5, 3)
    assert leakage_through(m, s0, s1, []).max_ratio == 1
    assert leakage_through(m, s0, s1, ["x2"]).max_ratio == INFINITY
    curve = influence_curve(m)
    assert [p.max_ratio for p in curve.points] == [INFINITY, 2, F(5, 3), 1]
    assert curve.points[2].high in ((0, 1), (1, 2))


def test_definition6_max_influence_two_step_chain():
    """§6.1 Definition 6: x1 -> x2 with P = [[3/4,1/4],[1/4,3/4]], uniform start:
    e(X2 | X1) = log 3, e(X1 | X1) = inf."""
    m = chain_model(2, {"0": "1/2", "1": "1/2"},
                    {"0": {"0": "3/4", "1": "1/4"}, "1": {"0": "1/4", "1": "3/4"}})
    result = max_influence(m, ["x2"], "x1")
    assert result.max_ratio == 3 and result.epsilon == "log(3)"
    assert max_influence(m, [0], 0).max_ratio == INFINITY
    with pytest.raises(ModelError):
        max_influence(m, ["nope"], 0)


def test_zero_prior_skips_and_infinite_leakage():
    """A prior with Pr[s_j] = 0 imposes nothing; an impossible D_L under s_j gives inf."""
    m = chain_model(2, {"0": "1", "1": "0"},
                    {"0": {"0": "1/2", "1": "1/2"}, "1": {"0": "1", "1": "0"}})
    s = {n: sec for n, sec in m.secrets.items()}
    assert leakage_through(m, s["x1=0"], s["x1=1"], ["x2"]).max_ratio == 1
    # uniform start; row 1 always goes to 0, so x1 = 1 is impossible given x2 = 1
    m = chain_model(2, {"0": "1/2", "1": "1/2"},
                    {"0": {"0": "1/2", "1": "1/2"}, "1": {"0": "1", "1": "0"}})
    s = m.secrets
    assert leakage_through(m, s["x2=0"], s["x2=1"], ["x1"]).max_ratio == INFINITY
    assert leakage_through(m, s["x2=1"], s["x2=0"], ["x1"]).max_ratio == 3


def _random_dist(rng, k, zeros=True):
    w = [rng.randint(0 if zeros else 1, 4) for _ in range(k)]
    if not sum(w):
        w[0] = 1
    return {str(v): str(F(x, sum(w))) for v, x in enumerate(w)}


@pytest.mark.parametrize("seed", range(12))
def test_chain_structured_equals_brute_force(seed):
    """Cross-check: structured chain a*(b) == brute force over splits (random chains with zeros,
    2-3 states, 2-prior families, inhomogeneous start)."""
    rng = random.Random(seed)
    k, n = rng.choice([2, 3]), rng.randint(2, 6 if seed % 2 else 5)
    extra = {}
    if seed % 3 == 0:
        extra = {"other": {"markov": {"initial": _random_dist(rng, k),
                                      "transition": {str(v): _random_dist(rng, k, False)
                                                     for v in range(k)}}}}
    m = chain_model(n, _random_dist(rng, k), {str(v): _random_dist(rng, k) for v in range(k)},
                    k, extra)
    brute, chain = influence_curve(m), chain_influence_curve(m)
    for label, points in brute.per_pair.items():
        assert [p.max_ratio for p in points] == [p.max_ratio for p in chain.per_pair[label]], label


def test_chain_structured_equals_brute_force_longest():
    """Brute force on the longest chain used in the tests (T = 10, one middle pair, stationary)."""
    m = binary_chain_model(F(4, 5), F(9, 10), 10)
    pair = [p for p in m.pairs if p.first.name == "x5=0"]
    brute = influence_curve(m, pair)
    chain = chain_influence_curve(m, pair)
    assert [p.max_ratio for p in brute.points] == [p.max_ratio for p in chain.points]


def test_theorem8_anticorrelated_instance_recomputed_by_brute_force():
    """§6.3 Theorem 8, p=1/100, q=1/10, T=5, b=2: the exact a*(2) (brute force) is
    log(90100/121) while the closed form gives log(8911/11) (reported by 000.thm8.closed_form)."""
    m = binary_chain_model(F(1, 100), F(1, 10), 5)
    assert influence_curve(m, max_b=2).at(2).max_ratio == F(90100, 121)
    assert theorem8_ratio(F(1, 100), F(1, 10), 2) == F(8911, 11)


def test_theorem8_positive_correlation_matches():
    """§6.3 Theorem 8 for λ > 0: p=4/5, q=9/10 on a long chain, b = 1..8."""
    curve = chain_influence_curve(binary_chain_model(F(4, 5), F(9, 10), 40), max_b=8)
    for b in range(9):
        assert curve.at(b).max_ratio == theorem8_ratio(F(4, 5), F(9, 10), b)


def test_long_chain_interior_shortcut():
    """A stationary chain of length 2000: the interior positions share one computation."""
    curve = chain_influence_curve(binary_chain_model(F(4, 5), F(9, 10), 2000), max_b=6)
    assert curve.at(6).max_ratio == theorem8_ratio(F(4, 5), F(9, 10), 6)


def test_chain_rejects_non_entry_secrets_and_other_priors():
    m = table_model()
    with pytest.raises(UnsupportedError):
        chain_influence_curve(m)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(2, 5))
def test_curve_is_non_increasing_and_ends_at_zero(p, q, n):
    """Definition 7: the curve is non-increasing in b, a*(0) = inf, a*(n) = 0."""
    m = binary_chain_model(F(p, 10), F(q, 10), n)
    values = [pt.max_ratio for pt in influence_curve(m).points]
    assert values[0] == INFINITY and values[-1] == 1
    assert all(x >= y for x, y in zip(values, values[1:]))


def test_curve_file_validation():
    ok = {"influence_curve": 1, "points": [{"b": 0, "a": "inf"}, {"b": 1, "a": "log(3)"}]}
    points, entries, numerical = parse_curve(ok)
    assert points[1].a.text == "log(3)" and entries is None and not numerical
    bad = [({**ok, "influence_curve": 2}, "influence_curve"),
           ({**ok, "points": [{"b": 0, "a": 0.5}]}, "points.0.a"),
           ({**ok, "points": [{"b": -1, "a": "1"}]}, "points.0.b"),
           ({**ok, "points": [{"b": 1, "a": "1"}, {"b": 1, "a": "2"}]}, "points.1.b"),
           ({**ok, "points": [{"b": 1, "a": "log(1/2)"}]}, "points.0.a"),
           ({**ok, "extra": 1}, "extra")]
    for doc, path in bad:
        with pytest.raises(ModelError) as info:
            parse_curve(doc)
        assert path in str(info.value) or getattr(info.value, "path", "") == path


def test_single_node_chain():
    """T = 1: a*(0) = inf, a*(1) = 0 (structured and brute force agree)."""
    m = binary_chain_model(F(1, 3), F(1, 2), 1)
    assert [p.max_ratio for p in chain_influence_curve(m).points] == [INFINITY, 1]
    assert [p.max_ratio for p in influence_curve(m).points] == [INFINITY, 1]
