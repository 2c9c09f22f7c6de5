"""Privacy collapse: Examples 4.1–4.3 and Theorems 1–3 of ``000_65109fe28ca61d17.txt`` §4.

Known answers: Example 4.2 (n = 3, 4, 5) has zero leakage, single-run level 0, infinite two-run
level and exactly 3 expected runs; Example 4.3 with L_T=1/5, U_T=2/5, L_F=3/10, U_F=1/2 has exact
level log(7/2) = Theorem 3's ε; Example 4.1's expected runs equal the closed form of the proof of
Theorem 1 and stay below its bound.  A Monte Carlo simulation cross-checks the exact expected
runs (the exact mean must lie within 5 standard errors of the sample mean, seeded rng).
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction

import pytest

from pufferfish.proofs_check.paper_000.collapse_examples import (interval_example, interval_member_prior, interval_parameters,
                             parity_example, resample_bits_example, resample_example)
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import repeat
from pufferfish.models.numbers import INFINITY
from pufferfish.models.priors import TablePrior, UniformPrior
from pufferfish.models.secrets import Secret
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.paper_000.collapse_report import (collapse_report, theorem1_bound, theorem1_expected_runs,
                             theorem3_literal_ratio, theorem3_ratio, theorem3_ratios)
from pufferfish.verify.privacy.expected_runs import (dataset_classes, expected_runs_to_reveal,
                                  monte_carlo_runs_to_reveal, pair_classes)
from pufferfish.verify.privacy.leakage import leakage
from pufferfish.verify.privacy.pufferfish import pufferfish_level

F = Fraction


# --- Example 4.2 / Theorem 2 ------------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 4, 5])
def test_example_42_theorem_2_known_answers(n):
    """§4 Theorem 2: zero leakage, level 0 once, infinite twice, exactly 3 expected runs."""
    report = collapse_report("parity", n=n)
    assert report.leakage.zero_leakage
    assert report.single_run.level_ratio == 1 and report.single_run.epsilon == "0"
    assert report.two_runs.level_ratio == INFINITY and report.two_runs.epsilon == "inf"
    assert report.expected_runs == 3
    data = report.to_dict()
    assert data["expected_runs"] == "3"
    assert data["holds"] is True and report.holds
    json.dumps(data)


def test_example_42_mechanism_outputs_and_tags():
    """§4 Example 4.2: type A is (x2⊕x1, …, xn⊕x1); type B the parity (n odd) or x2⊕…⊕xn (n even)."""
    odd = parity_example(3).mechanism("collapse")
    assert odd.distribution((1, 0, 1)) == Distribution({("A", (1, 0)): F(1, 2), ("B", 0): F(1, 2)})
    even = parity_example(4).mechanism("collapse")
    assert even.distribution((1, 0, 1, 1)) == Distribution(
        {("A", (1, 0, 0)): F(1, 2), ("B", 0): F(1, 2)})
    assert even.distribution((0, 0, 1, 1)) == Distribution(
        {("A", (0, 1, 1)): F(1, 2), ("B", 0): F(1, 2)})


def test_example_42_secrets_are_every_bit():
    model = parity_example(4)
    assert len(model.secrets) == 8 and len(model.pairs) == 4
    assert {p.label for p in model.pairs} == {f"x{i}=0 <-> x{i}=1" for i in range(1, 5)}


@pytest.mark.parametrize("n", [2, 1, 0, "3"])
def test_example_42_needs_three_bits(n):
    with pytest.raises(ModelError, match="n >= 3"):
        parity_example(n)


# --- Example 4.3 / Theorem 3 ------------------------------------------------------------------

def test_example_43_level_equals_theorem_3_epsilon():
    """§4 Theorem 3 on L_T=1/5, U_T=2/5, L_F=3/10, U_F=1/2: exact level log(7/2) = ε."""
    report = collapse_report("interval", lt=F(1, 5), ut=F(2, 5), lf=F(3, 10), uf=F(1, 2))
    assert theorem3_ratio(F(1, 5), F(2, 5), F(3, 10), F(1, 2)) == F(7, 2)
    assert report.single_run.level_ratio == F(7, 2)
    assert report.single_run.epsilon == "log(7/2)"
    witness = report.single_run.witness
    assert witness.output == ("1a", "2b") and witness.first == "not_s1"
    assert report.two_runs.level_ratio == INFINITY
    assert report.expected_runs == 3
    assert report.to_dict()["expected_runs"] == "3"
    assert report.holds
    assert dict(report.paper_values)["theorem3_epsilon"] == "log(7/2)"


def test_theorem_3_literal_reading_is_below_the_exact_level():
    """The paper writes log|x|; read literally (max log x) it gives log(8/3) < log(7/2)."""
    ratios = dict(theorem3_ratios(F(1, 5), F(2, 5), F(3, 10), F(1, 2)))
    assert ratios == {"U_T/L_F": F(4, 3), "L_T/U_F": F(2, 5), "(1-U_T)/U_F": F(6, 5),
                      "(1-L_T)/L_F": F(8, 3), "L_T/(1-L_F)": F(2, 7), "U_T/(1-U_F)": F(4, 5),
                      "(1-U_T)/(1-L_F)": F(6, 7), "(1-L_T)/(1-U_F)": F(8, 5)}
    assert theorem3_literal_ratio(F(1, 5), F(2, 5), F(3, 10), F(1, 2)) == F(8, 3)
    report = collapse_report("interval")
    assert any("literal reading is false" in note for note in report.notes)


@pytest.mark.parametrize("bounds,sizes", [
    ((F(1, 2), F(1, 2), F(1, 2), F(1, 2)), (1, 1, 1, 1)),
    ((F(1, 100), F(1, 100), F(99, 100), F(99, 100)), (2, 1, 1, 3)),
    ((F(1, 1000), F(999, 1000), F(1, 3), F(2, 3)), (1, 3, 2, 1)),
])
def test_example_43_level_matches_theorem_3_on_more_instances(bounds, sizes):
    model = interval_example(*bounds, *sizes)
    assert interval_parameters(model) == bounds
    level = pufferfish_level(model, model.mechanism("collapse")).level_ratio
    assert level == theorem3_ratio(*bounds)


def test_example_43_mechanism_is_the_four_cases():
    mech = interval_example().mechanism("collapse")
    half = F(1, 2)
    assert mech.distribution((1, "in", 0)) == Distribution({("1a", "2a"): half, ("1a", "2b"): half})
    assert mech.distribution((1, "out", 0)) == Distribution({("1b", "2a"): half, ("1b", "2b"): half})
    assert mech.distribution((0, "in", 0)) == Distribution({("1a", "2a"): half, ("1b", "2a"): half})
    assert mech.distribution((0, "out", 0)) == Distribution({("1a", "2b"): half, ("1b", "2b"): half})


@pytest.mark.parametrize("args,match", [
    ((0, F(2, 5), F(3, 10), F(1, 2)), "L_T"),
    ((F(1, 5), 1, F(3, 10), F(1, 2)), "L_T"),
    ((F(2, 5), F(1, 5), F(3, 10), F(1, 2)), "L_T"),
    ((F(1, 5), F(2, 5), F(1, 2), F(3, 10)), "L_F"),
    ((F(1, 5), F(2, 5), F(3, 10), 1), "L_F"),
    ((F(1, 5), F(2, 5), 0, F(1, 2)), "L_F"),
])
def test_example_43_validates_the_intervals(args, match):
    with pytest.raises(ModelError, match=match):
        interval_example(*args)


def test_example_43_validates_sizes_and_refuses_floats():
    with pytest.raises(ModelError, match="in_true"):
        interval_example(in_true=0)
    with pytest.raises(ModelError, match="not exact"):
        interval_example(0.2, F(2, 5), F(3, 10), F(1, 2))


def test_interval_member_prior_is_in_the_family():
    model = interval_example("1/5", "2/5", "3/10", "1/2", 2, 1, 1, 3)
    prior = interval_member_prior(model, pr_true=F(1, 3), mass_true=F(1, 5), spread="skewed")
    dist = prior.distribution()
    s1 = model.secrets["s1"]
    in_t = dist.mass(lambda d: d[0] == 1 and d[1] == "in") / dist.mass(s1.holds)
    in_f = dist.mass(lambda d: d[0] == 0 and d[1] == "in") / dist.mass(lambda d: d[0] == 0)
    assert dist.mass(s1.holds) == F(1, 3) and in_t == F(1, 5) and in_f == F(2, 5)
    with pytest.raises(ModelError, match="outside"):
        interval_member_prior(model, mass_true=F(1, 2))
    with pytest.raises(ModelError, match="Pr\\(s1\\)"):
        interval_member_prior(model, pr_true=1)


# --- Example 4.1 / Theorem 1 ------------------------------------------------------------------

def four_values():
    universe = Universe.product(["x"], [[0, 1, 2, 3]])
    return (universe, Secret.where("low", universe, {"x": [0, 1]}),
            Secret.where("high", universe, {"x": [2, 3]}))


def test_example_41_uniform_known_answer():
    """Uniform prior, 2+2 datasets: E = 1 + Σ_D' (1/2)/(1/2) = 3 = Theorem 1's bound."""
    universe, low, high = four_values()
    model = resample_example(universe, UniformPrior("uniform", universe), low, high)
    report = collapse_report("resample", model=model)
    assert report.expected_runs == 3
    assert theorem1_bound(model) == 3 and theorem1_expected_runs(model) == 3
    assert report.holds and report.to_dict()["expected_runs"] == "3"


@pytest.mark.parametrize("bits,prior", [(2, "uniform"), (2, "skewed"), (3, "skewed"),
                                        (3, "sparse"), (2, "peaked")])
def test_example_41_expected_runs_equal_formula_and_below_bound(bits, prior):
    """§4 Theorem 1 and its proof (Appendix C)."""
    report = collapse_report("resample", bits=bits, prior=prior)
    model = report.model
    assert report.leakage.zero_leakage and report.single_run.level_ratio == 1
    assert report.two_runs.level_ratio == INFINITY
    assert report.expected_runs == theorem1_expected_runs(model)
    assert report.expected_runs <= theorem1_bound(model)
    assert report.holds


def test_example_41_skewed_two_bits_exact_value():
    """x1 ~ (2/3, 1/3), x2 ~ (3/4, 1/4): Pr(·|x1) = (3/4, 1/4), so E = 1 + 3 + 1/3 = 13/3, bound 5."""
    report = collapse_report("resample", bits=2, prior="skewed")
    assert report.expected_runs == F(13, 3)
    assert dict(report.paper_values) == {"theorem1_bound": "5", "theorem1_exact_formula": "13/3"}


def test_example_41_output_distribution_is_the_same_under_both_secrets():
    """Proof of Theorem 1: Pr[(D1, D2) | s_i] = Pr(D1|s1) Pr(D2|s2) for both secrets."""
    model = resample_bits_example(2, "skewed")
    mech = model.mechanism("collapse")
    prior = next(iter(model.finite_priors.values())).distribution()
    s1, s2 = model.pairs[0].first, model.pairs[0].second
    given = {s.name: prior.condition(s.holds) for s in (s1, s2)}
    for s in (s1, s2):
        out = Distribution.mixture((p, mech.distribution(d)) for d, p in given[s.name].items())
        for (d1, d2), p in out.items():
            assert p == given[s1.name].prob(d1) * given[s2.name].prob(d2)


def test_example_41_restricts_to_the_secrets():
    """Datasets in neither secret: the prior is conditioned on s1 ∨ s2 and the universe listed."""
    universe = Universe.product(["x"], [[0, 1, 2, 3, 4]])
    low, high = Secret.where("low", universe, {"x": [0, 1]}), Secret.where("high", universe,
                                                                            {"x": [2, 3]})
    prior = TablePrior("t", Distribution({(0,): "1/8", (1,): "1/8", (2,): "1/4", (3,): "1/4",
                                          (4,): "1/4"}))
    model = resample_example(universe, prior, low, high)
    assert (4,) not in model.universe and model.universe.size == 4
    (restricted,) = model.finite_priors.values()
    assert restricted.probability((0,)) == F(1, 6) and restricted.probability((2,)) == F(1, 3)
    assert collapse_report("resample", model=model).holds


def test_example_41_validation():
    universe, low, high = four_values()
    uniform = UniformPrior("uniform", universe)
    with pytest.raises(ModelError, match="mutually exclusive"):
        resample_example(universe, uniform, low, Secret.where("mid", universe, {"x": [1, 2]}))
    lopsided = TablePrior("t", Distribution({(0,): "1/2", (2,): "1/4", (3,): "1/4"}))
    with pytest.raises(ModelError, match="at least 2 datasets .* 'low'"):
        resample_example(universe, lopsided, low, high)
    with pytest.raises(ModelError, match="at least 2 bits"):
        resample_bits_example(1)
    with pytest.raises(ModelError, match="unknown prior kind"):
        resample_bits_example(2, "gaussian")
    with pytest.raises(ModelError, match="3 bits"):
        resample_bits_example(2, "sparse")


def test_collapse_report_rejects_unknown_kind_and_parameters():
    with pytest.raises(ModelError, match="unknown collapse example"):
        collapse_report("laplace")
    with pytest.raises(ModelError, match="unknown parameter"):
        collapse_report("parity", bits=3)


# --- exact vs Monte Carlo -------------------------------------------------------------------

def _within_five_sigma(exact_mean: Fraction, samples: list[int]) -> bool:
    mean = sum(samples) / len(samples)
    var = sum((s - mean) ** 2 for s in samples) / (len(samples) - 1)
    return abs(float(exact_mean) - mean) <= 5 * math.sqrt(var / len(samples)) + 1e-9


@pytest.mark.parametrize("kind,params,target", [
    ("resample", {"bits": 2, "prior": "skewed"}, "dataset"),
    ("parity", {"n": 4}, "dataset"),
    ("interval", {"in_true": 2, "out_false": 2}, "secret"),
])
def test_expected_runs_agree_with_monte_carlo(kind, params, target):
    report = collapse_report(kind, **params)
    model = report.model
    mechanism = model.mechanism("collapse")
    if kind == "interval":
        prior = interval_member_prior(model).distribution()
        classes = pair_classes(model.pairs[0])
    else:
        prior = next(iter(model.finite_priors.values())).distribution()
        classes = dataset_classes()
    exact_runs = expected_runs_to_reveal(mechanism, prior, classes, target).expected_runs
    assert exact_runs == report.expected_runs
    samples = monte_carlo_runs_to_reveal(mechanism, prior, classes, 400, random.Random(20240531))
    assert _within_five_sigma(exact_runs, samples)


# --- counterexample models round-trip through the model file ---------------------------------

@pytest.mark.parametrize("model_factory", [
    lambda: parity_example(3), lambda: interval_example(), lambda: resample_bits_example(2),
])
def test_collapse_models_write_and_read_back(model_factory):
    modelfile = pytest.importorskip("pufferfish.models.files.pufferfish_file")
    model = model_factory()
    again = modelfile.parse_model(json.loads(json.dumps(modelfile.model_to_dict(model))))
    for m in (model, again):
        assert pufferfish_level(m, m.mechanism("collapse")).level_ratio == \
            pufferfish_level(model, model.mechanism("collapse")).level_ratio
        assert pufferfish_level(m, repeat(m.mechanism("collapse"), 2)).level_ratio == INFINITY
    if model.finite_priors:
        assert leakage(again, again.mechanism("collapse")).zero_leakage
