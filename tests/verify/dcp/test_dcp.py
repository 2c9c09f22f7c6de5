"""Differential confounding privacy (004_acc5641f8e5f8c79.txt): exact indistinguishability,
composition, inverse composition, model files and claims (the command line: tests/cli)."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import combinations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.examples import example_path
from pufferfish.models.dcp import DCPModel
from pufferfish.models.files.dcp_file import dcp_model_to_dict, dump_dcp_model, load_dcp_model, parse_dcp_model
from pufferfish.models.distribution import Distribution, product_distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY
from pufferfish.verify.dcp.levels import (dcp_check, dcp_delta, dcp_level, effective_mechanism, hockey_stick,
                        hockey_stick_ratio, least_ratio, privacy_loss_distribution,
                        same_privacy_profile, tradeoff_compare, tradeoff_curve)
from pufferfish.verify.dcp.composition import (composition_audit, cross_entropy_gap, dependence_term,
                                    extremal_pair, invertibility, optimal_composition_delta,
                                    optimal_composition_ratio, product_of_effective, reduction,
                                    true_joint)
from pufferfish.verify.dcp.inverse import (epsilon_of_tau, in_pi, lemma7_check, least_tau,
                                        pi_nonempty, posterior, task1, task2)

EXAMPLES = example_path("quickstart.json").parent


def two_secrets() -> DCPModel:
    return load_dcp_model(EXAMPLES / "dcp_two_secrets.json")


def three_secrets() -> DCPModel:
    return load_dcp_model(EXAMPLES / "dcp_three_secrets.json")


def brute_hockey(p: Distribution, q: Distribution, ratio: F) -> F:
    outputs = list(dict.fromkeys([*p.support, *q.support]))
    return max(sum((p.prob(y) - ratio * q.prob(y) for y in w), F(0))
               for k in range(len(outputs) + 1) for w in combinations(outputs, k))


# ---- known answers computed by hand ----------------------------------------------------------

def test_two_secret_model_known_answers_section_II_and_III():
    """004 §II eq. (2): ψ(0|low) = 3/4·3/4 + 1/4·1/2 = 11/16, ψ(0|high) = 5/16, so each
    randomized response is log(11/5)-DCP; the true joint (eq. 10) has D((0,0)|low) = 31/64 and
    D((0,0)|high) = 7/64 (level log(31/7)); the product of effective mechanisms (11/5)^2."""
    model = two_secrets()
    rows = effective_mechanism(model, model.mechanism("rr1"))
    assert rows["low"].prob("0") == F(11, 16) and rows["high"].prob("0") == F(5, 16)
    assert dcp_level(rows, model.directions(), F(0)).ratio == F(11, 5)
    truth = true_joint(model, list(model.mechanisms.values()))
    assert truth["low"].prob(("0", "0")) == F(31, 64)
    assert truth["high"].prob(("0", "0")) == F(7, 64)
    assert dcp_level(truth, model.directions(), F(0)).ratio == F(31, 7)
    product_rows = product_of_effective(model, list(model.mechanisms.values()))
    assert dcp_level(product_rows, model.directions(), F(0)).ratio == F(121, 25)
    # δ at ε = log 2 for the single mechanism: (11/16 − 2·5/16)^+ = 1/16
    assert dcp_delta(rows, model.directions(), "log(2)").value == F(1, 16)


def test_three_secret_model_known_answers_path_adjacency():
    """count2: ψ(0|low) = 7/12, ψ(0|mid) = 1/2, ψ(0|high) = 5/12; worst ratio (1/2)/(5/12) = 6/5;
    at δ = 1/10 the divergence (7/12 − 1/2) = 1/12 is already below δ, so ε = 0."""
    model = three_secrets()
    rows = effective_mechanism(model, model.mechanism("count2"))
    assert [rows[s].prob("0") for s in ("low", "mid", "high")] == [F(7, 12), F(1, 2), F(5, 12)]
    assert dcp_level(rows, model.directions(), F(0)).ratio == F(6, 5)
    assert dcp_level(rows, model.directions(), F(1, 10)).ratio == 1
    assert ("low", "high") not in model.directions()


def test_xor_composition_breaks_basic_and_optimal_dp_composition():
    model = load_dcp_model(EXAMPLES / "dcp_xor.json")
    audit = composition_audit(model, delta=F(1, 10), epsilon="1")
    assert [lv.ratio for lv in audit.individual] == [1, 1]
    assert audit.true_level.ratio == INFINITY and audit.basic_holds is False
    assert audit.rows[1].ratio == 1            # product of effective mechanisms: ε = 0
    assert all(d.nonzero for d in audit.dependence)
    assert reduction(model).kind == "pufferfish"


# ---- hockey-stick, least ε, PLD: cross-checked by enumeration ------------------------------

distributions = st.lists(st.integers(0, 6), min_size=1, max_size=5).filter(any).map(
    lambda ws: Distribution({i: F(w, sum(ws)) for i, w in enumerate(ws)}))


@settings(max_examples=60, deadline=None)
@given(distributions, distributions, st.integers(1, 40), st.integers(1, 8), st.integers(0, 20))
def test_hockey_stick_equals_enumeration_of_sets_and_pld(p, q, num, den, delta20):
    ratio = max(F(num, den), F(1))
    value = hockey_stick_ratio(p, q, ratio).value
    assert value == brute_hockey(p, q, ratio)
    assert privacy_loss_distribution(p, q).delta(ratio) == value
    delta = F(delta20, 20)
    least = least_ratio(p, q, delta)
    if least.ratio == INFINITY:
        assert brute_hockey(p, q, F(10 ** 9)) > delta
    else:
        assert hockey_stick_ratio(p, q, least.ratio).value <= delta
        if least.ratio > 1:
            assert hockey_stick_ratio(p, q, least.ratio * F(9999, 10000)).value > delta
            assert least.a - least.ratio * least.b == delta      # the inverse of A − tB


def test_rational_epsilon_gives_exact_form_and_certified_interval():
    p, q = Distribution({0: "3/4", 1: "1/4"}), Distribution({0: "1/4", 1: "3/4"})
    h = hockey_stick(p, q, "1/2")
    assert h.value is None and (h.a, h.b) == (F(3, 4), F(1, 4))
    import math
    exact_float = 0.75 - math.exp(0.5) * 0.25
    assert float(h.lower) <= exact_float + 1e-15 and exact_float - 1e-15 <= float(h.upper)
    assert h.upper - h.lower < F(1, 10 ** 20)
    # e^ε above every ratio: δ = 0 exactly even for a rational ε
    assert hockey_stick(p, q, "2").value == 0


def test_dcp_check_decides_exactly_with_witness():
    model = two_secrets()
    rows = effective_mechanism(model, model.mechanism("rr1"))
    assert dcp_check(rows, model.directions(), "log(11/5)", F(0)).holds
    bad = dcp_check(rows, model.directions(), "log(2)", F(0))
    assert not bad.holds and bad.at_budget.value == F(1, 16) and bad.at_budget.witness_set == ("0",)
    assert dcp_check(rows, model.directions(), "log(2)", F(1, 16)).holds


def test_tradeoff_curve_of_randomized_response():
    p, q = Distribution({0: "3/4", 1: "1/4"}), Distribution({0: "1/4", 1: "3/4"})
    assert tradeoff_curve(p, q) == ((0, 1), (F(1, 4), F(1, 4)), (1, 0))
    below, equal, _ = tradeoff_compare(tradeoff_curve(p, q), tradeoff_curve(p, p))
    assert below and not equal


# ---- composition -----------------------------------------------------------------------------

@pytest.mark.parametrize("levels", [[(F(3), F(0))] * 3, [(F(3), F(1, 10)), (F(2), F(0))],
                                    [(F(3, 2), F(1, 20)), (F(2), F(1, 10)), (F(3, 2), F(0))]])
def test_optimal_composition_matches_extremal_mechanisms(levels):
    """Murtagh–Vadhan Thm 1.5 = exact composition of Kairouz et al.'s extremal mechanisms."""
    p = product_distribution(extremal_pair(*lv)[0] for lv in levels)
    q = product_distribution(extremal_pair(*lv)[1] for lv in levels)
    for t in (F(1), F(3, 2), F(2), F(5), F(30)):
        assert optimal_composition_delta(levels, f"log({t})")[0] == hockey_stick_ratio(p, q, t).value
    for delta in (F(1, 5), F(1, 2)):
        ratio = optimal_composition_ratio(levels, delta)
        assert ratio == least_ratio(p, q, delta).ratio


def test_optimal_composition_homogeneous_known_answer():
    # k = 2, e^ε = 3, δ_g = 0: the optimal ε is 2 log 3 (no cancellation at δ = 0)
    assert optimal_composition_ratio([(3, 0), (3, 0)], F(0)) == 9
    # δ_g = 1/16 = P((1,1)) − t Q((1,1)) ... the exact inverse of the piecewise form
    ratio = optimal_composition_ratio([(3, 0), (3, 0)], F(1, 16))
    p = product_distribution([Distribution({1: "3/4", 0: "1/4"})] * 2)
    q = product_distribution([Distribution({1: "1/4", 0: "3/4"})] * 2)
    assert hockey_stick_ratio(p, q, ratio).value == F(1, 16)


def test_invertible_g_reduces_to_dp_and_has_zero_dependence_term():
    rr = {"0": "3/4", "1": "1/4"}, {"0": "1/4", "1": "3/4"}
    model = DCPModel.build({"s0": {"a": "1/2"}, "s1": {"b": "1/2"}}, nx.Graph([("s0", "s1")]),
                           {"m1": {"a": rr[0], "b": rr[1]}, "m2": {"a": rr[1], "b": rr[0]}})
    assert invertibility(model).holds and reduction(model).kind == "dp"
    kernels = list(model.mechanisms.values())
    assert not dependence_term(model, kernels, "s0", "s1").nonzero
    assert true_joint(model, kernels) == product_of_effective(model, kernels)
    assert effective_mechanism(model, kernels[0])["s0"] == kernels[0].row("a")
    audit = composition_audit(model, delta=F(0))
    assert audit.basic_holds and audit.true_level.ratio == 9 == audit.rows[2].ratio
    gap = cross_entropy_gap(model, kernels)
    assert gap.equal


def test_repeated_release_is_better_than_dp_composition_predicts():
    """The same noisy dataset released twice: the true joint is log 3, the product log 9."""
    model = DCPModel.build({"s0": {"a": "3/8", "b": "1/8"}, "s1": {"a": "1/8", "b": "3/8"}},
                           "all", {"m1": {"a": {"a": 1}, "b": {"b": 1}},
                                   "m2": {"a": {"a": 1}, "b": {"b": 1}}})
    kernels = list(model.mechanisms.values())
    assert dcp_level(true_joint(model, kernels), model.directions(), F(0)).ratio == 3
    assert dcp_level(product_of_effective(model, kernels), model.directions(), F(0)).ratio == 9
    gap = cross_entropy_gap(model, kernels)
    assert not gap.equal and gap.lower > 0
    equal, where = same_privacy_profile(true_joint(model, kernels),
                                        product_of_effective(model, kernels), model.directions())
    assert not equal and where is not None


# ---- inverse composition ---------------------------------------------------------------------

def test_pi_sets_and_epsilon_of_tau_section_IV():
    model = two_secrets()
    prior = model.secret_prior()
    assert epsilon_of_tau(model, F(3, 2)) == 2          # 1 + (1/2)/(1/2)
    assert pi_nonempty(F(1), F(0)) and not pi_nonempty(F(3, 2), F(1, 2))
    assert pi_nonempty(F(2), F(1, 2))
    assert in_pi({(): prior}, prior, F(2), F(1, 2)).holds
    assert not in_pi({(): prior}, prior, F(3, 2), F(1, 2)).holds


@pytest.mark.parametrize("delta", [F(0), F(1, 4), F(1, 2)])
def test_task2_closed_form_is_the_least_tau(delta):
    model = two_secrets()
    prior = model.secret_prior()
    rows = true_joint(model, list(model.mechanisms.values()))
    mu = posterior(prior, rows)
    tau = least_tau(mu, prior, delta)
    assert in_pi(mu, prior, tau, delta).holds
    assert not in_pi(mu, prior, tau * F(999, 1000), delta).holds
    result = task2(model, None, delta)
    assert result.tau == tau and result.ratio == epsilon_of_tau(model, tau)
    assert result.holds                     # the exact audit verifies Theorem 2 (ii) here


def test_task2_delta_zero_two_secret_model_known_answer():
    # μ(low | (0,0)) = (1/2·31/64)/(1/2·38/64) = 31/38; P(low)/μ(high|(0,0)) = (1/2)/(7/38) = 19/7
    result = task2(two_secrets(), None, F(0))
    assert result.tau == F(19, 7) and result.ratio == F(31, 7)


def test_lemma7_bound_is_tight_for_binary_uniform_secrets():
    model = two_secrets()
    check = lemma7_check(model, effective_mechanism(model, model.mechanism("rr1")))
    assert check.holds and check.level == check.bound == F(11, 5)


def test_task1_design_is_verified_by_exact_audit():
    model = DCPModel.build({"s0": {"a": "3/8", "b": "1/8"}, "s1": {"b": "1/8", "c": "3/8"}}, "all",
                           {"rr": {"a": {"0": "3/4", "1": "1/4"}, "b": {"0": "1/2", "1": "1/2"},
                                   "c": {"0": "1/4", "1": "3/4"}}})
    result = task1(model, None, "log(4)", F(0), iterations=4, bisection_steps=4)
    assert result.design is not None and result.holds
    assert result.design.audit.holds                      # the audit, not the optimiser, decides
    infeasible = task1(model, None, "log(2)", F(0))
    assert not infeasible.holds and "post-processing" in infeasible.reason


# ---- model files -----------------------------------------------------------------------------

def test_model_file_round_trip(tmp_path):
    model = three_secrets()
    target = tmp_path / "m.json"
    dump_dcp_model(model, target)
    again = load_dcp_model(target)
    assert dcp_model_to_dict(again) == dcp_model_to_dict(model)


@pytest.mark.parametrize("patch, path", [
    ({"joint": {"s0": {"a": 0.5}, "s1": {"b": "1/2"}}}, "joint.s0.a"),
    ({"joint": {"s0": {"a": "1/2"}, "s1": {"b": "1/4"}}}, "joint"),
    ({"adjacency": [["s0", "s9"]]}, "adjacency.0.1"),
    ({"adjacency": [["s0", "s0"]]}, "adjacency.0"),
    ({"mechanisms": {"m": {"a": {"0": "1/2"}, "b": {"0": 1}}}}, "mechanisms.m.a"),
    ({"mechanisms": {"m": {"a": {"0": 1}}}}, "mechanisms.m"),
    ({"dcp_model": 2}, "dcp_model"),
    ({"extra": 1}, ""),
])
def test_model_file_errors_carry_json_paths(patch, path):
    data = {"dcp_model": 1, "joint": {"s0": {"a": "1/2"}, "s1": {"b": "1/2"}},
            "adjacency": "all", "mechanisms": {}}
    data.update(patch)
    with pytest.raises(ModelError) as error:
        parse_dcp_model(data)
    assert error.value.path == path


# ---- claims -----------------------------------------------------------------------------------


def test_claims_of_paper_004_run_and_report_honestly(claim_results):
    from pufferfish.proofs_check.registry import claims_for
    report = {r.claim.id: r for r in claim_results(claims_for(paper="004")).results}
    assert all(r.errors == 0 and r.instances > 0 for r in report.values())
    for holds in ("004.thm1.i", "004.thm1.ii", "004.thm3.i", "004.prop1.invertible",
                  "004.lemma4", "004.lemma7"):
        assert report[holds].holds, holds
    for fails in ("004.thm1.iii", "004.thm3.ii", "004.prop4", "004.thm5.i", "004.thm5.ii",
                  "004.prop1.noninvertible"):
        assert report[fails].violated and report[fails].first_counterexample["dcp_model"] == 1
    counter = parse_dcp_model(report["004.prop4"].first_counterexample)
    assert len(counter.mechanisms) == 2


def test_pufferfish_reduction_matches_the_pufferfish_audit():
    """App. C.3: S = G(X) makes (ε, 0)-DCP the Pufferfish level of the reduced model."""
    from pufferfish.models.dcp import DCPModel
    from pufferfish.models.errors import ModelError
    from pufferfish.verify.dcp.composition import as_pufferfish_model, pufferfish_cross_check

    model = DCPModel.build({"s0": {"a": "1/4", "b": "1/4"}, "s1": {"c": "1/2"}}, "all",
                           {"m": {"a": {"y": "1/2", "n": "1/2"}, "b": {"y": "1/4", "n": "3/4"},
                                  "c": {"y": "1/8", "n": "7/8"}}})
    dcp, puffer = pufferfish_cross_check(model, "m")
    # Pr[y | s0] = 3/8 vs Pr[y | s1] = 1/8: ratio 3 (and 5/8 / 7/8 the other way)
    assert dcp == puffer == 3
    assert set(as_pufferfish_model(model, "m").secrets) == {"s0", "s1"}
    confounded = DCPModel.build({"s0": {"a": "1/4", "b": "1/4"}, "s1": {"a": "1/2"}}, "all",
                                {"m": {"a": {"y": "1"}, "b": {"y": "1"}}})
    with pytest.raises(ModelError, match="function of the dataset"):
        as_pufferfish_model(confounded, "m")
