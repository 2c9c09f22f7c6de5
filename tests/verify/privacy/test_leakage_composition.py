"""Zero leakage (``000_65109fe28ca61d17.txt`` §2.2, Definition 4) and composition (§1, §2.1, §4).

Definition 4: leakage is 0 when ``Pr(s|θ) = Pr(s|M(D) = ω, θ)`` for all secrets and priors.
Pufferfish privacy does not compose (§2.2 end, §4): the joint release can exceed the sum of the
individual levels, even when each mechanism alone leaks nothing.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import (FunctionMechanism, PostProcessed, Query, QueryMechanism,
                               RandomizedResponse, TableMechanism)
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY
from pufferfish.models.priors import (IndependentPrior, IntervalBlock, IntervalFamily, MarkovPrior,
                           TablePrior, UniformPrior)
from pufferfish.models.secrets import Secret, SecretPair, entry_pairs, entry_secrets
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.composition import composition_audit, product_of_ratios, repeat_audit
from pufferfish.verify.privacy.leakage import leakage

F = Fraction
FAIR = Distribution({0: "1/2", 1: "1/2"})


def bits(n: int) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


def x1_model(u: Universe, priors: dict) -> PufferfishModel:
    s0, s1 = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x1=1", u, {"x1": 1})
    return PufferfishModel(u, priors, {"x1=0": s0, "x1=1": s1}, [SecretPair(s0, s1)])


def entry_model(u: Universe, priors: dict) -> PufferfishModel:
    secrets = entry_secrets(u)
    return PufferfishModel(u, priors, secrets, entry_pairs(u, secrets))


def example_42_mechanism(n: int = 3) -> FunctionMechanism:
    """§4 Example 4.2 (n odd): w.p. 1/2 type A (x2⊕x1, …, xn⊕x1), else type B (parity)."""
    def run(d):
        type_a = ("A", tuple(x ^ d[0] for x in d[1:]))
        type_b = ("B", sum(d) % 2)
        return Distribution({type_a: "1/2", type_b: "1/2"})
    assert n % 2 == 1
    return FunctionMechanism("M*", run)


# --------------------------------------------------------------------------------------------
# Leakage (Definition 4)


def test_definition4_data_independent_mechanism_has_zero_leakage():
    u = bits(3)
    sticky = {0: Distribution({0: "9/10", 1: "1/10"}), 1: Distribution({0: "1/10", 1: "9/10"})}
    priors = {"fair": IndependentPrior("fair", u.attributes, (FAIR,) * 3),
              "chain": MarkovPrior("chain", u.attributes, FAIR, (sticky, sticky))}
    constant = TableMechanism("c", {d: Distribution({"a": "1/3", "b": "2/3"})
                                    for d in u.datasets()})
    result = leakage(entry_model(u, priors), constant)
    assert result.zero_leakage and result.holds
    assert result.worst_shift == 0 and result.secret is None
    assert "zero leakage" in result.explain()


def test_definition4_rr_leaks_fair_prior():
    """Fair prior, RR keep 3/4: Pr[x1=0 | ω=0] = 3/4 vs Pr[x1=0] = 1/2: shift 1/4."""
    u = bits(1)
    result = leakage(x1_model(u, {"fair": IndependentPrior("fair", u.attributes, (FAIR,))}),
                     RandomizedResponse("rr", u, F(3, 4)))
    assert not result.zero_leakage
    assert result.worst_shift == F(1, 4)
    assert abs(result.posterior_probability - result.prior_probability) == F(1, 4)


def test_definition4_rr_leaks_skewed_prior_hand_computed():
    """Pr[x1=0] = 1/3, RR keep 3/4.  Pr[ω=0] = 1/4 + 1/6 = 5/12, Pr[x1=0|ω=0] = (1/4)/(5/12) =
    3/5: shift 4/15.  Pr[x1=0|ω=1] = (1/12)/(7/12) = 1/7: shift 4/21 < 4/15."""
    u = bits(1)
    prior = IndependentPrior("p", u.attributes, (Distribution({0: "1/3", 1: "2/3"}),))
    result = leakage(x1_model(u, {"p": prior}), RandomizedResponse("rr", u, F(3, 4)))
    assert result.worst_shift == F(4, 15)
    assert result.output == (0,) and result.prior == "p"
    pair = (result.prior_probability, result.posterior_probability)
    assert pair in {(F(1, 3), F(3, 5)), (F(2, 3), F(2, 5))}
    data = result.to_dict()
    assert data["worst_shift"] == "4/15" and data["zero_leakage"] is False


def test_theorem2_example42_has_zero_leakage():
    """§4 Theorem 2: Example 4.2's M* (n = 3, fair coins) has zero leakage for every s_j^(i)."""
    u = bits(3)
    model = entry_model(u, {"coins": IndependentPrior("coins", u.attributes, (FAIR,) * 3)})
    result = leakage(model, example_42_mechanism())
    assert result.zero_leakage


def test_theorem1_example41_has_zero_leakage():
    """§4 Theorem 1: Example 4.1's M* outputs (D, D') with D' ~ θ*(·|s2) when s1(D), and
    (D', D) with D' ~ θ*(·|s1) when s2(D).  Posteriors of s1, s2 equal the priors."""
    u = bits(2)
    theta = Distribution({(0, 0): "1/8", (0, 1): "3/8", (1, 0): "1/6", (1, 1): "1/3"})
    s1 = Secret.where("s1", u, {"x1": 0})
    s2 = Secret.where("s2", u, {"x1": 1})
    given_s1, given_s2 = theta.condition(s1.holds), theta.condition(s2.holds)

    def run(d):
        if s1.holds(d):
            return given_s2.push_forward(lambda other: (d, other))
        return given_s1.push_forward(lambda other: (other, d))

    model = PufferfishModel(u, {"theta": TablePrior("theta", theta)}, {"s1": s1, "s2": s2},
                            [SecretPair(s1, s2)])
    result = leakage(model, FunctionMechanism("M*", run))
    assert result.zero_leakage


def test_leakage_lists_interval_families_as_not_evaluated():
    u = bits(1)
    s0, s1 = Secret.where("x1=0", u, {"x1": 0}), Secret.where("x1=1", u, {"x1": 1})
    family = IntervalFamily("band", {"x1=0": (IntervalBlock(((0,),), F(1), F(1)),),
                                     "x1=1": (IntervalBlock(((1,),), F(1), F(1)),)})
    model = PufferfishModel(u, {"band": family, "fair": UniformPrior("fair", u)},
                            {"x1=0": s0, "x1=1": s1}, [SecretPair(s0, s1)])
    result = leakage(model, RandomizedResponse("rr", u, F(3, 4)))
    assert result.not_evaluated == ("band",)
    assert result.worst_shift == F(1, 4)


# --------------------------------------------------------------------------------------------
# Composition


def fair_one_bit() -> tuple[Universe, PufferfishModel]:
    u = bits(1)
    return u, x1_model(u, {"fair": IndependentPrior("fair", u.attributes, (FAIR,))})


def test_composition_rr_twice_is_log9():
    """Two independent RR keep 3/4 reports of one bit: (3/4)^2/(1/4)^2 = 9 = 3·3 (linear)."""
    u, model = fair_one_bit()
    rr = RandomizedResponse("rr", u, F(3, 4))
    result = composition_audit(model, [rr, rr])
    assert result.joint.max_ratio == 9 and result.joint.epsilon == "log(9)"
    assert result.linear_bound == 9
    assert not result.super_linear and result.holds
    assert [r.level_ratio for r in result.individual] == [3, 3]


def _parity_and_x2_model():
    u = bits(2)
    return u, x1_model(u, {"uniform": UniformPrior("uniform", u)})


def test_composition_super_linear_each_alone_uninformative():
    """Uniform θ on (x1, x2), pair on x1.  A = RR(keep 3/4) of x1⊕x2, B = x2.  Alone, x1⊕x2 and x2
    are independent of x1 (ratio 1 each); together they give a noisy x1:
    Pr[(a,b)|x1=0] = 1/2·(3/4 if a=b else 1/4), Pr[(a,b)|x1=1] = 1/2·(1/4 if a=b else 3/4): 3 > 1·1."""
    u, model = _parity_and_x2_model()
    parity = QueryMechanism("parity", u, Query("parity", u))
    flip = {v: Distribution({v: "3/4", 1 - v: "1/4"}) for v in (0, 1)}
    noisy_parity = PostProcessed("noisy_parity", parity, flip)
    x2 = QueryMechanism("x2", u, Query("attribute", u, ["x2"]))
    result = composition_audit(model, [noisy_parity, x2], budget=parse_budget("log(3)"))
    assert [r.epsilon for r in result.individual] == ["0", "0"]
    assert result.linear_bound == 1
    assert result.joint.max_ratio == 3
    assert result.super_linear and not result.holds
    assert result.budget.relation == "tight"
    data = result.to_dict()
    assert data["super_linear"] is True and data["sum_of_levels"] == "0"
    assert "SUPER-LINEAR" in result.explain()


def test_composition_collapse_exact_parity_and_x2():
    """A = x1⊕x2 and B = x2 exactly: each alone ε = 0, together they reveal x1 (ε = inf)."""
    u, model = _parity_and_x2_model()
    parity = QueryMechanism("parity", u, Query("parity", u))
    x2 = QueryMechanism("x2", u, Query("attribute", u, ["x2"]))
    result = composition_audit(model, [parity, x2])
    assert result.joint.max_ratio == INFINITY and result.super_linear


def test_repeat_audit_rr_is_linear():
    u, model = fair_one_bit()
    result = repeat_audit(model, RandomizedResponse("rr", u, F(3, 4)), 3)
    assert [r.level_ratio for r in result.levels] == [3, 9, 27]
    assert [result.linear_bound(j) for j in (1, 2, 3)] == [3, 9, 27]
    assert not result.super_linear and result.holds
    assert [run["epsilon"] for run in result.to_dict()["runs"]] == ["log(3)", "log(9)",
                                                                    "log(27)"]


def test_repeat_audit_example42_collapses_after_two_runs():
    """§4 Example 4.2: ε = 0 for one run; two runs can reveal the dataset: ε = inf."""
    u = bits(3)
    model = entry_model(u, {"coins": IndependentPrior("coins", u.attributes, (FAIR,) * 3)})
    result = repeat_audit(model, example_42_mechanism(), 2)
    assert [r.epsilon for r in result.levels] == ["0", "inf"]
    assert result.super_linear and not result.holds
    assert [run["exceeds"] for run in result.to_dict()["runs"]] == [False, True]


def test_product_of_ratios():
    assert product_of_ratios([F(3), F(3, 2)]) == F(9, 2)
    assert product_of_ratios([]) == 1
    assert product_of_ratios([F(2), INFINITY, F(0)]) == INFINITY


@pytest.mark.parametrize("keep", [F(2, 3), F(3, 4), F(9, 10)])
def test_composition_of_rr_under_skewed_prior_is_exactly_linear(keep):
    """Independent θ, RR on x1: each run is a likelihood ratio keep/(1−keep); two runs square it."""
    u = bits(2)
    prior = IndependentPrior("p", u.attributes, (Distribution({0: "1/5", 1: "4/5"}), FAIR))
    model = x1_model(u, {"p": prior})
    rr = RandomizedResponse("rr", u, keep, attributes=["x1"])
    result = composition_audit(model, [rr, rr])
    single = keep / (1 - keep)
    assert result.joint.max_ratio == single ** 2 == result.linear_bound
