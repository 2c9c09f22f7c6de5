"""Tests of the Wasserstein modules of pufferfish.verify.transport (w_infinity, trimmed, parameter,
wasserstein, epsilon_delta, groups, queries; 002_e1f2e9a9937b8cda.txt §3, Algorithm 1, Theorems 3.2–3.3,
the flu example, Appendix A.4); the ``wasserstein`` subcommand is tested in tests/cli."""

from __future__ import annotations

from fractions import Fraction as Q
from math import lcm

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import linprog

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError
from pufferfish.models.files.pufferfish_file import load_model
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.proofs_check.paper_002.instances import (flu_all_individuals_system,
                                                        flu_conditionals, flu_model)
from pufferfish.verify.transport.epsilon_delta import verify_epsilon_delta_mechanism
from pufferfish.verify.transport.groups import (dependence_groups, group_sensitivity,
                                                groups_mutually_independent)
from pufferfish.verify.transport.parameter import wasserstein_parameter
from pufferfish.verify.transport.queries import parse_query
from pufferfish.verify.transport.trimmed import trimmed_w_infinity
from pufferfish.verify.transport.w_infinity import (HalfLine, WInfinityResult, w_infinity,
                                                    w_infinity_by_max_flow)
from pufferfish.verify.transport.wasserstein import (verify_wasserstein_mechanism,
                                                     wasserstein_mechanism)

EXAMPLES = example_path("quickstart.json").parent

measures = st.dictionaries(st.integers(-5, 5), st.integers(1, 7), min_size=1, max_size=5).map(
    lambda d: {Q(v, 2): Q(w, sum(d.values())) for v, w in d.items()})


def test_flu_example_section3():
    """§3 flu example: W = 2 (Lap(2/ε)); group DP over the 4 people adds Lap(4/ε)."""
    first, second = flu_conditionals()
    result = w_infinity(first, second)
    assert result.value == 2 and result.verify()
    model = flu_model()
    query = parse_query("sum", model.universe)
    assert wasserstein_parameter(model, query).value == 2
    groups = dependence_groups(model)
    assert groups == ((0, 1, 2, 3),)
    assert group_sensitivity(model.universe, query, groups)[0] == 4
    verification = verify_wasserstein_mechanism(model, query, Q(1))
    assert verification.scale == 2 and verification.holds is True


def test_flu_conditionals_not_realizable_for_everyone():
    """The §3 numbers cannot hold for every individual at once (exact linear solve is empty)."""
    assert not flu_all_individuals_system()


def test_flu_example_file_matches_builder():
    model = load_model(EXAMPLES / "flu.json")
    query = parse_query("sum", model.universe)
    assert wasserstein_parameter(model, query).value == 2


@settings(max_examples=40, deadline=None)
@given(measures, measures)
def test_comonotone_equals_max_flow(first, second):
    result = w_infinity(first, second)
    assert result.verify()
    assert result.value == w_infinity_by_max_flow(first, second)


def lp_w_infinity(first, second):
    """Bisection over candidate distances with LP feasibility (floats; tests only)."""
    a, b = sorted(first), sorted(second)
    candidates = sorted({abs(x - y) for x in a for y in b})
    for d in candidates:
        allowed = [(i, j) for i, x in enumerate(a) for j, y in enumerate(b) if abs(x - y) <= d]
        rows, rhs = [], []
        for i in range(len(a)):
            rows.append([1.0 if k[0] == i else 0.0 for k in allowed]); rhs.append(float(first[a[i]]))
        for j in range(len(b)):
            rows.append([1.0 if k[1] == j else 0.0 for k in allowed]); rhs.append(float(second[b[j]]))
        res = linprog(np.zeros(len(allowed)), A_eq=np.array(rows), b_eq=np.array(rhs),
                      bounds=[(0, None)] * len(allowed), method="highs")
        if res.status == 0:
            return d
    raise AssertionError


@settings(max_examples=20, deadline=None)
@given(measures, measures)
def test_comonotone_equals_lp(first, second):
    assert w_infinity(first, second).value == lp_w_infinity(first, second)


def test_certificates_detect_tampering():
    result = w_infinity({0: Q(1, 2), 3: Q(1, 2)}, {1: Q(1, 2), 2: Q(1, 2)})
    assert result.value == 1 and result.verify()
    bad_value = WInfinityResult(Q(1, 2), result.coupling, result.lower_certificate, result.first,
                                result.second)
    assert not bad_value.verify()
    bad_half = WInfinityResult(result.value, result.coupling, HalfLine(Q(5), "left"),
                               result.first, result.second)
    assert not bad_half.verify()
    with pytest.raises(ModelError):
        w_infinity({0: Q(1, 2)}, {0: 1})


def partial_flow_brute_force(first, second, distance):
    """Exact integer max-flow of the partial coupling within ``distance`` (tests only)."""
    scale = lcm(*(p.denominator for p in list(first.values()) + list(second.values())))
    graph = nx.DiGraph()
    for a, p in first.items():
        graph.add_edge("s", ("L", a), capacity=int(p * scale))
        for b in second:
            if abs(a - b) <= distance:
                graph.add_edge(("L", a), ("R", b), capacity=scale)
    for b, q in second.items():
        graph.add_edge(("R", b), "t", capacity=int(q * scale))
    return Q(nx.maximum_flow_value(graph, "s", "t"), scale)


@settings(max_examples=40, deadline=None)
@given(measures, measures, st.sampled_from([Q(0), Q(1, 20), Q(1, 5), Q(1, 2), Q(9, 10)]))
def test_trimmed_against_brute_force(first, second, delta):
    result = trimmed_w_infinity(first, second, delta)
    assert result.verify()
    assert partial_flow_brute_force(first, second, result.value) >= 1 - delta
    smaller = [d for d in {abs(a - b) for a in first for b in second} if d < result.value]
    if smaller:
        assert partial_flow_brute_force(first, second, max(smaller)) < 1 - delta
    if delta == 0:
        assert result.value == w_infinity(first, second).value


def test_appendix_a4_tail_example_discretized():
    """A.4: distributions that differ only in a δ tail have W∞ = 98 but trimmed W∞ = 0."""
    delta = Q(1, 100)
    first = {Q(0): 1 - delta, Q(100): delta}
    second = {Q(0): 1 - delta, Q(2): delta}
    assert w_infinity(first, second).value == 98
    trimmed = trimmed_w_infinity(first, second, delta)
    assert trimmed.value == 0 and trimmed.verify()
    assert dict(trimmed.trimmed_first) == {Q(100): delta}


def test_trimmed_bad_delta():
    with pytest.raises(ModelError):
        trimmed_w_infinity({0: 1}, {0: 1}, Q(1))


def test_epsilon_delta_guarantee_flu():
    """Theorem A.8 on the flu model: hockey-stick divergence <= δ for every direction."""
    model = flu_model()
    query = parse_query("sum", model.universe)
    for delta in (Q(1, 6), Q(1, 2)):
        result = verify_epsilon_delta_mechanism(model, query, Q(1), delta)
        assert result.holds is True
        assert result.parameter.value <= 2
    # δ = 1/2: the common mass 1/6 at each of 1, 2, 3 is kept, so no noise at all
    half = verify_epsilon_delta_mechanism(model, query, Q(1), Q(1, 2))
    assert half.parameter.value == 0 and half.scale == 0 and half.holds is True


def test_mechanism_sampler_seeded():
    model = flu_model()
    query = parse_query("sum", model.universe)
    mechanism = wasserstein_mechanism(model, query, Q(1, 2))
    assert mechanism.scale == 4
    one = mechanism.sample((1, 0, 0, 0), 5, np.random.default_rng(7))
    two = mechanism.sample((1, 0, 0, 0), 5, np.random.default_rng(7))
    assert np.array_equal(one, two)
    assert isinstance(mechanism.release((1, 1, 0, 0), np.random.default_rng(1)), float)
    with pytest.raises(ModelError):
        wasserstein_mechanism(model, query, Q(0))
    with pytest.raises(ModelError):
        wasserstein_mechanism(model, query, parse_budget("log(2)"))


def test_zero_w_means_no_noise():
    model = load_model(EXAMPLES / "wasserstein_chain.json")
    # the pairs on t1 do not move x-independent queries; under the independent prior alone W = 0
    model.priors = {"independent": model.priors["independent"]}
    query = parse_query("attribute:t4", model.universe)
    model.pairs = [p for p in model.pairs if p.first.name.startswith("t1")]
    result = verify_wasserstein_mechanism(model, query, Q(1))
    assert result.parameter.value == 0 and result.scale == 0
    assert result.holds is True and result.level.ratio_upper == 1


def test_theorem_3_3_pairwise_groups_counterexample():
    """x3 = x1 XOR x2: pairwise independent, so A.2.2's groups are singletons and Δ_𝒢(sum) = 1,
    but W = 2 for x1=0 vs x1=1 (the proof of A.2.2 needs mutual independence)."""
    model = load_model(EXAMPLES / "wasserstein_xor.json")
    query = parse_query("sum", model.universe)
    groups = dependence_groups(model)
    assert groups == ((0,), (1,), (2,))
    assert not groups_mutually_independent(model, groups)
    assert group_sensitivity(model.universe, query, groups)[0] == 1
    assert wasserstein_parameter(model, query).value == 2
    assert groups_mutually_independent(model, [(0, 1, 2)])


def test_parse_query_errors():
    model = flu_model()
    with pytest.raises(ModelError):
        parse_query("median", model.universe)
    with pytest.raises(ModelError):
        parse_query("attribute:nobody", model.universe)


def test_claims_of_paper_002_wasserstein(claim_results):
    from pufferfish.proofs_check.registry import claims_for

    expected = {"002.thm3.2.private": "holds", "002.thm3.3.group_sensitivity": "violated",
                "002.thm3.3.mutual": "holds", "002.flu.numbers": "holds",
                "002.flu.realizable": "violated", "002.thmA8.epsilon_delta": "holds",
                "002.winf.comonotone": "holds"}
    for claim_id, status in expected.items():
        report = claim_results(claims_for(claim_id=claim_id))
        results = report.results if hasattr(report, "results") else report
        assert [r.status for r in results] == [status], claim_id


def test_model_whose_pairs_are_all_vacuous_is_refused():
    """Every secret pair has a secret of probability 0 under every prior: W = 0 would be reported
    as a successful check of nothing, so the model is refused, the skipped pairs named."""
    from pufferfish.models.distribution import Distribution
    from pufferfish.models.model import PufferfishModel
    from pufferfish.models.priors import TablePrior
    from pufferfish.models.secrets import entry_pairs, entry_secrets
    from pufferfish.models.universe import Universe
    universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    prior = TablePrior("zero", Distribution({(0, 0): "1/2", (0, 1): "1/2"}))
    pairs = [p for p in entry_pairs(universe) if p.first.name.startswith("x1")]
    model = PufferfishModel(universe, {"zero": prior}, entry_secrets(universe), pairs)
    query = parse_query("sum", universe)
    for run in (lambda: wasserstein_parameter(model, query),
                lambda: verify_wasserstein_mechanism(model, query, 1),
                lambda: verify_epsilon_delta_mechanism(model, query, 1, Q(1, 4))):
        with pytest.raises(ModelError, match="nothing to check") as error:
            run()
        assert error.value.path == "pairs" and "x1=1" in str(error.value)



@pytest.mark.parametrize("delta", [Q(1), Q(-1, 4), "x"])
def test_delta_outside_zero_one_is_refused_before_any_work(delta):
    model = flu_model()
    with pytest.raises(ModelError) as error:
        wasserstein_parameter(model, parse_query("sum", model.universe), delta)
    assert error.value.path == "--delta"
