"""The exact Pufferfish level (``000_65109fe28ca61d17.txt`` §2.2, Definition 5).

``M`` is ε-Pufferfish private for (Θ, 𝕊) when for every pair ``(s_i, s_j) ∈ 𝕊``, every θ ∈ Θ with
``Pr[s_i|θ] > 0`` and ``Pr[s_j|θ] > 0``, and every ω:
``Pr[M(Data) = ω | s_i, θ] <= e^ε Pr[M(Data) = ω | s_j, θ]``.
Every expected value below is computed by hand in the docstring.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import RandomizedResponse, TableMechanism, repeat
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY
from pufferfish.models.priors import (IndependentPrior, IntervalBlock, IntervalFamily, MarkovPrior,
                           TablePrior, UniformPrior)
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.pufferfish import pufferfish_level

F = Fraction
FAIR = Distribution({0: "1/2", 1: "1/2"})


def bits(n: int) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


def x1_model(universe: Universe, priors: dict, directed: bool = False) -> PufferfishModel:
    s0 = Secret.where("x1=0", universe, {"x1": 0})
    s1 = Secret.where("x1=1", universe, {"x1": 1})
    return PufferfishModel(universe, priors, {"x1=0": s0, "x1=1": s1},
                           [SecretPair(s0, s1, directed=directed)])


def independent(universe: Universe, name: str, *marginals: Distribution) -> IndependentPrior:
    return IndependentPrior(name, universe.attributes, tuple(marginals))


# --------------------------------------------------------------------------------------------
# Randomized response


def test_definition5_rr_fair_prior_one_bit_is_log3():
    """Def. 5, RR keep 3/4 on one bit, θ fair, pair (x1=0, x1=1):
    Pr[ω=0|x1=0] = 3/4, Pr[ω=0|x1=1] = 1/4, ratio 3 in both directions: ε = log 3."""
    u = bits(1)
    model = x1_model(u, {"fair": independent(u, "fair", FAIR)})
    result = pufferfish_level(model, RandomizedResponse("rr", u, F(3, 4)))
    assert result.max_ratio == 3 and result.level_ratio == 3
    assert result.epsilon == "log(3)"
    assert len(result.levels) == 2                    # both directions of the pair
    assert all(level.max_ratio == 3 for level in result.levels)
    w = result.witness
    assert (w.p_first, w.p_second) == (F(3, 4), F(1, 4))
    assert w.prior == "fair" and w.pair == "x1=0 <-> x1=1"
    assert result.skipped == ()
    assert result.holds is None


def test_definition5_rr_skewed_independent_prior_is_still_log3():
    """Def. 5 with independent attributes: the other entries' reports are independent of x1 and
    cancel, so RR keep 3/4 on 3 bits under a skewed product prior still has level log 3."""
    u = bits(3)
    prior = independent(u, "skew", Distribution({0: "1/5", 1: "4/5"}),
                        Distribution({0: "2/3", 1: "1/3"}), Distribution({0: "1/10", 1: "9/10"}))
    model = x1_model(u, {"skew": prior})
    result = pufferfish_level(model, RandomizedResponse("rr", u, F(3, 4)))
    assert result.max_ratio == 3 and result.epsilon == "log(3)"


def test_definition5_markov_prior_rr_on_x2_only_sticky_chain():
    """Markov θ over (x1, x2): x1 fair, stay with probability 9/10.  RR keep 3/4 on x2 only.
    Pr[ω=0|x1=0] = 9/10·3/4 + 1/10·1/4 = 7/10; Pr[ω=0|x1=1] = 1/10·3/4 + 9/10·1/4 = 3/10.
    Ratio 7/3 (both outputs, both directions): ε = log(7/3) although x1 is never released."""
    u = bits(2)
    sticky = {0: Distribution({0: "9/10", 1: "1/10"}), 1: Distribution({0: "1/10", 1: "9/10"})}
    model = x1_model(u, {"chain": MarkovPrior("chain", u.attributes, FAIR, (sticky,))})
    result = pufferfish_level(model, RandomizedResponse("rr2", u, F(3, 4), attributes=["x2"]))
    assert result.max_ratio == F(7, 3) and result.epsilon == "log(7/3)"
    assert {level.max_ratio for level in result.levels} == {F(7, 3)}
    # under an independent prior the same mechanism leaks nothing about x1
    flat = x1_model(u, {"fair": independent(u, "fair", FAIR, FAIR)})
    assert pufferfish_level(flat, RandomizedResponse("rr2", u, F(3, 4), attributes=["x2"])
                            ).epsilon == "0"


def test_definition5_markov_prior_asymmetric_chain_hand_computed():
    """Markov θ: Pr[x1=0] = 1/3, T(0→0) = 4/5, T(1→0) = 1/2; RR keep 3/4 on x2.
    Pr[ω=0|x1=0] = 4/5·3/4 + 1/5·1/4 = 13/20, Pr[ω=0|x1=1] = 1/2;
    Pr[ω=1|x1=0] = 7/20,                     Pr[ω=1|x1=1] = 1/2.
    Ratios: 13/10 (ω=0, 0→1), 10/13, 10/7 (ω=1, 1→0), 7/10.  Level log(10/7)."""
    u = bits(2)
    kernel = {0: Distribution({0: "4/5", 1: "1/5"}), 1: Distribution({0: "1/2", 1: "1/2"})}
    prior = MarkovPrior("chain", u.attributes, Distribution({0: "1/3", 1: "2/3"}), (kernel,))
    model = x1_model(u, {"chain": prior})
    result = pufferfish_level(model, RandomizedResponse("rr2", u, F(3, 4), attributes=["x2"]))
    assert result.max_ratio == F(10, 7)
    w = result.witness
    assert (w.first, w.second, w.output) == ("x1=1", "x1=0", (1,))
    assert (w.p_first, w.p_second) == (F(1, 2), F(7, 20))
    by_direction = {(lv.first, lv.second): lv for lv in result.levels}
    assert by_direction[("x1=0", "x1=1")].max_ratio == F(13, 10)
    assert by_direction[("x1=0", "x1=1")].output == (0,)


def test_definition5_posterior_odds_interpretation():
    """§2.2 after Def. 5: posterior odds / prior odds equals the likelihood ratio.  With
    Pr[x1=0] = 1/3 and RR keep 3/4: prior odds 1/2, posterior odds after ω=0 are 3/2 — a factor 3."""
    u = bits(1)
    prior = independent(u, "p", Distribution({0: "1/3", 1: "2/3"}))
    result = pufferfish_level(x1_model(u, {"p": prior}), RandomizedResponse("rr", u, F(3, 4)))
    prior_odds = F(1, 3) / F(2, 3)
    posterior_odds = (F(1, 3) * F(3, 4)) / (F(2, 3) * F(1, 4))
    assert posterior_odds / prior_odds == result.max_ratio == 3


# --------------------------------------------------------------------------------------------
# Zero probabilities: skipped priors, impossible outputs, directed pairs


def test_definition5_prior_with_zero_secret_probability_is_skipped_and_listed():
    """Def. 5 only constrains θ with Pr[s_i|θ] > 0 and Pr[s_j|θ] > 0."""
    u = bits(2)
    certain = independent(u, "certain", Distribution({0: "1"}), FAIR)
    fair = independent(u, "fair", FAIR, FAIR)
    model = x1_model(u, {"certain": certain, "fair": fair})
    result = pufferfish_level(model, RandomizedResponse("rr", u, F(3, 4)))
    assert result.max_ratio == 3
    assert {lv.prior for lv in result.levels} == {"fair"}
    assert sorted(result.skipped) == [("x1=0 -> x1=1", "certain", "Pr[x1=1 | certain] = 0"),
                                      ("x1=1 -> x1=0", "certain", "Pr[x1=1 | certain] = 0")]
    assert {s["prior"] for s in result.to_dict()["skipped"]} == {"certain"}


def test_definition5_every_prior_skipped_means_no_constraint():
    u = bits(1)
    model = x1_model(u, {"certain": independent(u, "certain", Distribution({1: "1"}))})
    result = pufferfish_level(model, RandomizedResponse("rr", u, F(3, 4)))
    assert result.levels == () and result.witness is None
    assert result.level_ratio == 1 and result.epsilon == "0"
    assert len(result.skipped) == 2


def _one_bit_table() -> TableMechanism:
    return TableMechanism("t", {(0,): Distribution({"a": "1/2", "b": "1/2"}),
                                (1,): Distribution({"a": "1"})})


def test_definition5_output_impossible_under_the_second_secret_is_infinite():
    """ω = b has Pr[b|x1=0] = 1/2 > 0 = Pr[b|x1=1]: no finite ε satisfies Def. 5."""
    u = bits(1)
    model = x1_model(u, {"fair": independent(u, "fair", FAIR)})
    result = pufferfish_level(model, _one_bit_table())
    assert result.max_ratio == INFINITY and result.epsilon == "inf"
    w = result.witness
    assert (w.first, w.second, w.output, w.p_first, w.p_second) == ("x1=0", "x1=1", "b",
                                                                      F(1, 2), F(0))
    assert result.to_dict()["max_ratio"] == "inf"
    assert result.to_dict()["witness"]["p_output_given_second"] == "0"


def test_definition5_directed_pair_checks_one_direction_only():
    """Directed (x1=1 → x1=0): only Pr[ω|x1=1] <= e^ε Pr[ω|x1=0]; worst ω = a: 1 / (1/2) = 2."""
    u = bits(1)
    s0, s1 = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x1=1", u, {"x1": 1})
    model = PufferfishModel(u, {"fair": independent(u, "fair", FAIR)}, {"x1=0": s0, "x1=1": s1},
                            [SecretPair(s1, s0, directed=True)])
    result = pufferfish_level(model, _one_bit_table())
    assert result.max_ratio == 2 and len(result.levels) == 1
    assert result.witness.output == "a"


def test_definition5_output_impossible_under_first_secret_imposes_nothing():
    """Pr[ω|s_i] = 0 imposes nothing (0 <= e^ε x); a secret never producing any output of the
    other side's support gives ratio 0 for that direction."""
    u = bits(1)
    split = TableMechanism("split", {(0,): Distribution.point("a"), (1,): Distribution.point("b")})
    model = x1_model(u, {"fair": independent(u, "fair", FAIR)})
    result = pufferfish_level(model, split)
    assert result.max_ratio == INFINITY          # a under x1=0 vs 0 under x1=1
    constant = TableMechanism("c", {(0,): Distribution.point("a"), (1,): Distribution.point("a")})
    assert pufferfish_level(model, constant).epsilon == "0"


def test_definition5_overlapping_secrets():
    """Secrets need not be exclusive: (x1=0, x2=0) under a uniform θ with the identity release:
    Pr[(0,1)|x1=0] = 1/2 while Pr[(0,1)|x2=0] = 0."""
    u = bits(2)
    a, b = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x2=0", u, {"x2": 0})
    identity = TableMechanism("id", {d: Distribution.point(d) for d in u.datasets()})
    model = PufferfishModel(u, {"uniform": UniformPrior("uniform", u)}, {"x1=0": a, "x2=0": b},
                            [SecretPair(a, b)])
    result = pufferfish_level(model, identity)
    assert result.max_ratio == INFINITY
    assert result.witness.output in {(0, 1), (1, 0)}


# --------------------------------------------------------------------------------------------
# Interval families (§4 Example 4.3): exact supremum over an infinite Θ


def _compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def _members(family: IntervalFamily, secret: str, step: int = 12, split: int = 2):
    """Member conditionals θ(·|secret) on a grid (block masses k/step, splits j/split)."""
    blocks = family.blocks[secret]
    choices = [[F(k, step) for k in range(step + 1) if b.lower <= F(k, step) <= b.upper]
               for b in blocks]
    for masses in product(*choices):
        if sum(masses) != 1:
            continue
        for splits in product(*(list(_compositions(split, len(b.datasets))) for b in blocks)):
            q: dict = {}
            for block, mass, parts in zip(blocks, masses, splits):
                for dataset, part in zip(block.datasets, parts):
                    if mass * part:
                        q[dataset] = q.get(dataset, F(0)) + mass * F(part, split)
            yield q


def _is_member(family: IntervalFamily, secret: str, q) -> bool:
    allowed = {d for b in family.blocks[secret] for d in b.datasets}
    return (sum(q.values()) == 1 and all(d in allowed for d in q)
            and all(b.lower <= sum(q.get(d, 0) for d in b.datasets) <= b.upper
                    for b in family.blocks[secret]))


def _interval_model(mechanism_seed: int, allow_zeros: bool):
    u = bits(3)
    ds = list(u.datasets())
    s0, s1 = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x1=1", u, {"x1": 1})
    family = IntervalFamily("band", {
        "x1=0": (IntervalBlock((ds[0], ds[1]), F(1, 4), F(1, 2)),
                 IntervalBlock((ds[2], ds[3]), F(1, 2), F(3, 4))),
        "x1=1": (IntervalBlock((ds[4],), F(1, 6), F(1, 2)),
                 IntervalBlock((ds[5], ds[6], ds[7]), F(1, 2), F(5, 6)))})
    rng = random.Random(mechanism_seed)
    rows = {}
    for d in ds:
        while True:
            weights = [rng.randint(0 if allow_zeros else 1, 5) for _ in range(3)]
            if sum(weights):
                break
        rows[d] = Distribution({o: F(w, sum(weights)) for o, w in zip("abc", weights)})
    model = PufferfishModel(u, {"band": family}, {"x1=0": s0, "x1=1": s1}, [SecretPair(s0, s1)])
    return model, family, TableMechanism("m", rows)


def _cond(q, mechanism, output) -> Fraction:
    return sum((p * mechanism.prob(d, output) for d, p in q.items()), F(0))


@pytest.mark.parametrize("seed, allow_zeros", [(1, False), (2, False), (3, False), (4, True),
                                               (5, True)])
def test_example43_interval_family_exact_vs_dense_sampling(seed, allow_zeros):
    """§4 Example 4.3 family: Θ = all θ with Pr[block|s,θ] in the intervals.  Sampled member
    priors never exceed the reported max_ratio; the witness's extreme prior attains it."""
    model, family, mechanism = _interval_model(seed, allow_zeros)
    result = pufferfish_level(model, mechanism)
    members = {s: list(_members(family, s)) for s in ("x1=0", "x1=1")}
    assert len(members["x1=0"]) > 20 and len(members["x1=1"]) > 20
    sampled_max: Fraction | float = F(0)
    for first, second in (("x1=0", "x1=1"), ("x1=1", "x1=0")):
        for output in "abc":
            tops = [_cond(q, mechanism, output) for q in members[first]]
            bottoms = [_cond(q, mechanism, output) for q in members[second]]
            top, bottom = max(tops), min(bottoms)
            if top == 0:
                continue
            ratio = INFINITY if bottom == 0 else top / bottom
            sampled_max = max(sampled_max, ratio)
    # every sampled member ratio is at most the exact supremum, and the grid holds the vertex
    assert sampled_max <= result.max_ratio
    assert sampled_max == result.max_ratio
    w = result.witness
    assert w.prior == "band"
    q_first, q_second = w.conditional_first, w.conditional_second
    assert _is_member(family, w.first, q_first) and _is_member(family, w.second, q_second)
    assert _cond(q_first, mechanism, w.output) == w.p_first
    assert _cond(q_second, mechanism, w.output) == w.p_second
    if result.max_ratio != INFINITY:
        assert w.p_first / w.p_second == result.max_ratio
    else:
        assert w.p_second == 0 and w.p_first > 0
    assert "extreme_prior" in w.to_dict()


def _example43(LT, UT, LF, UF):
    """§4 Example 4.3 on two bits: s1 is x1=1, U_T = {(1,0)}, U_F = {(0,0)}."""
    u = bits(2)
    s1, s2 = Secret.where("s1", u, {"x1": 1}), Secret.where("not s1", u, {"x1": 0})
    family = IntervalFamily("theta", {
        "s1": (IntervalBlock(((1, 0),), LT, UT), IntervalBlock(((1, 1),), 1 - UT, 1 - LT)),
        "not s1": (IntervalBlock(((0, 0),), LF, UF), IntervalBlock(((0, 1),), 1 - UF, 1 - LF))})
    half = F(1, 2)
    rows = {(1, 0): Distribution({("1a", "2a"): half, ("1a", "2b"): half}),   # case 1a
            (1, 1): Distribution({("1b", "2a"): half, ("1b", "2b"): half}),   # case 1b
            (0, 0): Distribution({("1a", "2a"): half, ("1b", "2a"): half}),   # case 2a
            (0, 1): Distribution({("1a", "2b"): half, ("1b", "2b"): half})}   # case 2b
    model = PufferfishModel(u, {"theta": family}, {"s1": s1, "not s1": s2}, [SecretPair(s1, s2)])
    return model, TableMechanism("M*", rows)


def test_example43_theorem3_level():
    """§4 Theorem 3: ε = max |log| of U_T/L_F, L_T/U_F, (1−U_T)/U_F, (1−L_T)/L_F, L_T/(1−L_F),
    U_T/(1−U_F), (1−U_T)/(1−L_F), (1−L_T)/(1−U_F).  With L_T=1/3, U_T=1/2, L_F=1/4, U_F=3/5 the
    largest is (1−L_T)/L_F = 8/3, and the exact audit finds exactly that."""
    LT, UT, LF, UF = F(1, 3), F(1, 2), F(1, 4), F(3, 5)
    terms = [UT / LF, LT / UF, (1 - UT) / UF, (1 - LT) / LF, LT / (1 - LF), UT / (1 - UF),
             (1 - UT) / (1 - LF), (1 - LT) / (1 - UF)]
    theorem = max(max(t, 1 / t) for t in terms)
    assert theorem == F(8, 3)
    model, mechanism = _example43(LT, UT, LF, UF)
    result = pufferfish_level(model, mechanism)
    assert result.max_ratio == theorem
    assert result.witness.output == ("1b", "2a")


def test_example43_two_runs_collapse():
    """§4 Example 4.3: two different outputs reveal the secret, so two runs have level inf."""
    model, mechanism = _example43(F(1, 3), F(1, 2), F(1, 4), F(3, 5))
    assert pufferfish_level(model, repeat(mechanism, 2)).max_ratio == INFINITY


def test_interval_family_missing_secret_is_an_error():
    u = bits(1)
    s0, s1 = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x1=1", u, {"x1": 1})
    family = IntervalFamily("f", {"x1=0": (IntervalBlock(((0,),), F(1), F(1)),)})
    model = PufferfishModel(u, {"f": family}, {"x1=0": s0, "x1=1": s1}, [SecretPair(s0, s1)])
    with pytest.raises(ModelError, match="gives no blocks"):
        pufferfish_level(model, RandomizedResponse("rr", u, F(3, 4)))


def test_model_rejects_interval_family_with_unknown_secret():
    u = bits(1)
    s0, s1 = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x1=1", u, {"x1": 1})
    family = IntervalFamily("f", {"nope": (IntervalBlock(((0,),), F(1), F(1)),)})
    with pytest.raises(ModelError, match="unknown secret"):
        PufferfishModel(u, {"f": family}, {"x1=0": s0, "x1=1": s1}, [SecretPair(s0, s1)])


# --------------------------------------------------------------------------------------------
# Budgets


@pytest.mark.parametrize("budget, relation", [("log(3)", "tight"), ("log(4)", "below"),
                                              ("1", "above"), ("1.1", "below"),
                                              ("1.0986", "above"), ("1.0987", "below"),
                                              ("log(5/2)", "above"), ("inf", "below")])
def test_definition5_budget_checks(budget, relation):
    """RR keep 3/4 has ε = log 3 ≈ 1.098612: e^1 < 3 < e^1.1."""
    u = bits(1)
    model = x1_model(u, {"fair": independent(u, "fair", FAIR)})
    result = pufferfish_level(model, RandomizedResponse("rr", u, F(3, 4)),
                              budget=parse_budget(budget))
    assert result.budget.relation == relation
    assert result.holds is (relation != "above")
    data = result.to_dict()
    assert data["holds"] is result.holds and data["budget"]["relation"] == relation
    assert ("VIOLATED" in result.explain()) is (relation == "above")


def test_result_to_dict_and_explain():
    u = bits(1)
    model = x1_model(u, {"fair": independent(u, "fair", FAIR)})
    result = pufferfish_level(model, RandomizedResponse("rr", u, F(3, 4)))
    data = result.to_dict()
    assert data["check"] == "pufferfish" and data["max_ratio"] == "3"
    assert data["epsilon"] == "log(3)"
    assert data["witness"]["output"] == [0] or data["witness"]["output"] == [1]
    assert data["witness"]["p_output_given_first"] == "3/4"
    assert "log(3)" in result.explain()


def test_table_prior_and_uniform_prior_agree():
    """The same θ given as a table and as the uniform prior gives the same level."""
    u = bits(2)
    uniform = UniformPrior("uniform", u)
    table = TablePrior("table", Distribution({d: "1/4" for d in u.datasets()}))
    rr = RandomizedResponse("rr", u, F(2, 3))
    a = pufferfish_level(x1_model(u, {"uniform": uniform}), rr)
    b = pufferfish_level(x1_model(u, {"table": table}), rr)
    assert a.max_ratio == b.max_ratio == 2


# --------------------------------------------------------------------------------------------
# The model object


def test_model_validation_and_lookup():
    u = bits(2)
    s0, s1 = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x1=1", u, {"x1": 1})
    fair = {"fair": UniformPrior("fair", u)}
    with pytest.raises(ModelError, match="at least one prior"):
        PufferfishModel(u, {}, {"x1=0": s0}, [SecretPair(s0, s1)])
    with pytest.raises(ModelError, match="at least one secret pair"):
        PufferfishModel(u, fair, {"x1=0": s0}, [])
    rr = RandomizedResponse("rr", u, F(3, 4))
    model = PufferfishModel(u, fair, {"x1=0": s0, "x1=1": s1}, [SecretPair(s0, s1)], {"rr": rr})
    assert model.mechanism("rr") is rr
    with pytest.raises(ModelError, match=r"unknown mechanism 'sum'.*\['rr'\]"):
        model.mechanism("sum")
    assert set(model.finite_priors) == {"fair"} and model.interval_families == {}
    model.check_secrets_match()
    never = Secret.of_datasets("never", [])
    bad = PufferfishModel(u, fair, {"x1=0": s0, "never": never}, [SecretPair(s0, never)])
    with pytest.raises(ModelError, match="'never' matches no dataset"):
        bad.check_secrets_match()


def test_priors_added_after_an_audit_are_audited():
    u = bits(1)
    model = x1_model(u, {"fair": independent(u, "fair", FAIR)})
    rr = RandomizedResponse("rr", u, F(3, 4))
    assert pufferfish_level(model, rr).max_ratio == 3
    model.priors["skew"] = independent(u, "skew", Distribution({0: "1/3", 1: "2/3"}))
    assert {lv.prior for lv in pufferfish_level(model, rr).levels} == {"fair", "skew"}
