"""The CheckDP benchmark (``examples/dp_benchmarks/checkdp_suite.json``): every program's exact
level against its claim, under its precondition, agrees with CheckDP's published verdict — a proof
where CheckDP proves the claim, a violation where it reports a counterexample.

Where the level has a closed form derived by hand (independently of the engine), it is asserted
exactly: a noisy sum with half the noise costs 2ε; the Sparse Vector that releases its noisy
answers pays ε/(4c) for each of the five answers, 5ε/4; a release without noise is not private
at any ε.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import pufferfish
from pufferfish.examples import example_path
from pufferfish.examples.dp_benchmarks.checkdp_suite import BENCHMARK
from pufferfish.models.neighbours import parse_neighbours

SUITE = example_path("dp_benchmarks/checkdp_suite.json")
EPSILON = Fraction(1, 2)


def test_the_benchmark_names_every_mechanism_of_the_model_once():
    mechanisms = json.loads(SUITE.read_text())["mechanisms"]
    named = [mechanism for _, mechanism, *_ in BENCHMARK]
    assert sorted(named) == sorted(mechanisms) and len(set(named)) == len(named)
    assert {verdict for *_, verdict in BENCHMARK} == {"proof", "counterexample"}


@pytest.mark.parametrize("example, mechanism, relation, factor, verdict", BENCHMARK,
                         ids=[row[0] for row in BENCHMARK])
def test_each_exact_level_agrees_with_the_verdict_of_checkdp(example, mechanism, relation,
                                                             factor, verdict):
    level = pufferfish.dp_level(SUITE, mechanism, relation, epsilon=factor * EPSILON)
    assert level.holds is (verdict == "proof"), (example, level.epsilon)
    if verdict == "counterexample":     # the witness is a pair of the precondition
        universe = pufferfish.load(SUITE).universe
        assert parse_neighbours(relation, universe).adjacent(level.dataset, level.neighbour)


@pytest.mark.parametrize("mechanism, relation, expected", [
    ("partial_sum", "l1:1", EPSILON),                   # one answer moves: the noise's ε
    ("bad_partial_sum", "l1:1", 2 * EPSILON),           # scale 1/(2ε): twice the level
    ("bad_gap_sparse_vector", "linf:1", 5 * EPSILON / 4),   # five answers, ε/4 each
])
def test_closed_form_levels(mechanism, relation, expected):
    level = pufferfish.dp_level(SUITE, mechanism, relation)
    assert level.to_dict()["epsilon"] == str(expected)


@pytest.mark.parametrize("mechanism, relation", [("bad_smart_sum", "l1:1"),
                                                 ("bad_sparse_vector_1", "linf:1")])
def test_releases_without_noise_are_not_private_at_any_epsilon(mechanism, relation):
    level = pufferfish.dp_level(SUITE, mechanism, relation)
    assert level.to_dict()["epsilon"] == "inf"


def test_the_monotone_sparse_vector_needs_its_precondition():
    """Half the answers' noise is enough only when the answers move the same way: the level under
    monotone:1 is within ε and under linf:1 above it, with a witness pair that moves both ways."""
    monotone = pufferfish.dp_level(SUITE, "svt_monotone", "monotone:1", epsilon=EPSILON)
    general = pufferfish.dp_level(SUITE, "svt_monotone", "linf:1", epsilon=EPSILON)
    assert monotone.holds and not general.holds
    moves = {(b > a) - (b < a) for a, b in zip(general.dataset, general.neighbour)} - {0}
    assert moves == {-1, 1}


@pytest.mark.parametrize("program, queries, epsilon, scales", [
    ("gap_sparse_vector", (0, 1), 4, (2, 4, 4)),          # ρ, then ν per answer (c = 1)
    ("bad_noisy_max", (1, 0), 2, (2, 2)),
    ("smart_sum", (1, 0, 1), 4, (1, 1, 1)),
])
def test_laws_of_discrete_programs_match_a_windowed_brute_force(monkeypatch, program, queries,
                                                                epsilon, scales):
    """The exact law of a program against the program run on every noise vector of a window
    (the discrete Laplace of scale b at ε: Pr[z] = (1−α)/(1+α)·α^|z|, α = e^(−ε/b), in 40-digit
    arithmetic), with the mass outside the window as the bound of what it misses."""
    import mpmath
    from itertools import product

    from pufferfish.examples.dp_benchmarks import checkdp_suite
    from pufferfish.models.programs import program_distribution
    from pufferfish.models.values import canonical_value

    arguments = {"gap_sparse_vector": {"T": 1, "c": 1, "epsilon": epsilon, "cap": 3},
                 "bad_noisy_max": {"epsilon": epsilon, "low": -1, "high": 2},
                 "smart_sum": {"epsilon": epsilon, "T": 2, "M": 2, "low": -1, "high": 3}}[program]
    law = program_distribution(getattr(checkdp_suite, program), queries, arguments)
    mpmath.mp.dps = 40
    alphas = [mpmath.exp(-mpmath.mpf(epsilon) / b) for b in scales]
    window = 14
    brute: dict = {}
    for zs in product(range(-window, window + 1), repeat=len(scales)):
        weight = mpmath.mpf(1)
        for alpha, z in zip(alphas, zs):
            weight *= (1 - alpha) / (1 + alpha) * alpha ** abs(z)
        draws = iter(zs)
        monkeypatch.setattr(checkdp_suite, "discrete_laplace", lambda *_a, **_k: next(draws))
        output = canonical_value(getattr(checkdp_suite, program)(queries, **arguments))
        brute[output] = brute.get(output, 0) + weight
    monkeypatch.undo()
    missing = 1 - sum(brute.values())
    assert 0 <= missing < mpmath.mpf(10) ** -5
    assert set(brute) <= set(law)
    for output, p in law.items():
        low, high = (mpmath.mpf(x.numerator) / x.denominator for x in p.bounds(128))
        lower = brute.get(output, 0)      # the law lies in [lower, lower + missing]
        assert high - low < mpmath.mpf(10) ** -30
        assert low <= lower + missing and lower <= high, output
