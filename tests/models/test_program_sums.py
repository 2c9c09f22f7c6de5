"""Sums of noisy values in programs: ``x + y``, running sums (Smart Sum, Partial Sum), ``x − y + z``,
integer multiples, and a draw used again after it was summed.

Every law is checked against an independent computation that shares no code with the engine: a
brute force over a window of integer noise values in exact rationals with the mass outside the
window as a rigorous bound (``brute ≤ engine ≤ brute + missing``), and closed forms or numerical
integration at 40 digits (mpmath) for continuous noise.  Identities are asserted exactly.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import pytest

import pufferfish
from pufferfish.examples import example_path
from pufferfish.models.programs import (ExpNumber, ProgramError, discrete_laplace,
                                        exponential, geometric, laplace, program_distribution)

HALF, THIRD = Fraction(1, 2), Fraction(1, 3)


def two_sided(alpha: Fraction, z: int) -> Fraction:
    return (1 - alpha) / (1 + alpha) * alpha ** abs(z)


def window_law(program_of_noise, alphas, window: int):
    """The output law of ``program_of_noise(z₁, …, z_k)`` over the window ``|z_i| ≤ window`` of
    independent two-sided geometric draws, and the mass outside the window (an upper bound on
    what the window misses for every output)."""
    law: dict = {}
    for zs in product(range(-window, window + 1), repeat=len(alphas)):
        weight = Fraction(1)
        for alpha, z in zip(alphas, zs):
            weight *= two_sided(alpha, z)
        output = pufferfish.models.values.canonical_value(program_of_noise(*zs))
        law[output] = law.get(output, Fraction(0)) + weight
    missing = 1 - sum(law.values())
    return law, missing


def assert_within_window(law, brute, missing):
    assert 0 <= missing < Fraction(1, 10**4)
    assert sum(law.values()) == 1
    for output, p in law.items():
        lower = brute.get(output, Fraction(0))
        assert lower <= p <= lower + missing, (output, p, lower)


# --- x + y --------------------------------------------------------------------------------------

@pytest.mark.parametrize("threshold", [-3, 0, 1, 4])
def test_the_sum_of_two_geometric_draws_matches_the_window(threshold):
    law = program_distribution(lambda data: geometric("1/2") + geometric("1/3") >= data[0],
                               (threshold,))
    brute, missing = window_law(lambda x, y: x + y >= threshold, (HALF, THIRD), 40)
    assert_within_window(law, brute, missing)


def test_a_clamped_sum_released_matches_the_window():
    def released(data):
        total = data[0] + geometric("1/2") + geometric("1/3")
        return int(max(-2, min(total, 3)))

    law = program_distribution(released, (1,))
    brute, missing = window_law(lambda x, y: max(-2, min(1 + x + y, 3)), (HALF, THIRD), 40)
    assert_within_window(law, brute, missing)


def test_a_sum_and_a_difference_of_symmetric_draws_have_one_law_exactly():
    # x + y and x − y have the same law when y is symmetric: an identity, detected exactly
    for threshold in (-1, 0, 2):
        plus = program_distribution(
            lambda data: discrete_laplace("1/2") + discrete_laplace("1/3") >= data[0],
            (threshold,)).prob(True)
        minus = program_distribution(
            lambda data: discrete_laplace("1/2") - discrete_laplace("1/3") >= data[0],
            (threshold,)).prob(True)
        assert plus == minus
    symmetric = program_distribution(lambda data: laplace(2) + laplace(5) >= 0, (0,))
    assert symmetric.prob(True) == Fraction(1, 2)


def test_the_sum_of_two_laplace_draws_has_its_closed_form():
    # Pr[L₁ + L₂ ≥ t] = e^(−t/b)·(2 + t/b)/4 for t ≥ 0 (two Laplace draws of scale b)
    for t, b in [(0, 2), (1, 2), (3, 1), (Fraction(5, 2), 3)]:
        p = program_distribution(lambda data: laplace(b) + laplace(b) >= t, (0,)).prob(True)
        assert p == ExpNumber.exp(-Fraction(t) / b) * (2 + Fraction(t) / b) / 4


def test_laplace_plus_exponential_matches_numerical_integration():
    # Pr[L + E ≥ t] for L of scale 2 and E of scale 1, by quadrature over L
    for t in (-1, 0, Fraction(3, 2)):
        p = program_distribution(lambda data: laplace(2) + exponential(1) >= t, (0,)).prob(True)
        with mpmath.workdps(40):
            tt = mpmath.mpf(Fraction(t).numerator) / Fraction(t).denominator

            def tail(x):  # Pr[E ≥ t − x]
                return mpmath.e ** (-(tt - x)) if tt - x > 0 else mpmath.mpf(1)

            reference = mpmath.quad(lambda x: mpmath.e ** (-abs(x) / 2) / 4 * tail(x),
                                    [-mpmath.inf, min(0, tt), max(0, tt), mpmath.inf])
            low, high = ExpNumber.of(p).bounds(200) if isinstance(p, Fraction) else p.bounds(200)
            assert (mpmath.mpf(low.numerator) / low.denominator - mpmath.mpf("1e-30")
                    <= reference <= mpmath.mpf(high.numerator) / high.denominator
                    + mpmath.mpf("1e-30"))


# --- running sums --------------------------------------------------------------------------------

def smart_sum_clamped(queries, low, high):
    """Running sums of noisy answers, each released clamped: Σ_{j ≤ i} (q_j + Z_j)."""
    out, total = [], 0
    for q in queries:
        total = total + q + geometric("1/2")
        out.append(int(max(low, min(total, high))))
    return out


def test_released_running_sums_match_the_window():
    law = program_distribution(smart_sum_clamped, (1, 0, 1), {"low": -1, "high": 2})

    def brute_program(*zs):
        out, total = [], 0
        for q, z in zip((1, 0, 1), zs):
            total += q + z
            out.append(max(-1, min(total, 2)))
        return out

    brute, missing = window_law(brute_program, (HALF, HALF, HALF), 16)
    assert_within_window(law, brute, missing)


def test_a_running_sum_compared_with_thresholds_matches_the_window():
    def crossing(data):
        total = 0
        for step, q in enumerate(data):
            total = total + q + geometric("1/3")
            if total >= 2:
                return step
        return None

    law = program_distribution(crossing, (1, 0, 1))

    def brute_program(*zs):
        total = 0
        for step, (q, z) in enumerate(zip((1, 0, 1), zs)):
            total += q + z
            if total >= 2:
                return step
        return None

    brute, missing = window_law(brute_program, (THIRD,) * 3, 16)
    assert_within_window(law, brute, missing)


# --- three terms, multiples, a summand used again -----------------------------------------------

def test_a_difference_plus_a_draw_matches_the_window():
    def three(data):
        x, y, z = geometric("1/2"), geometric("1/3"), geometric("1/2")
        return [x - y + z >= data[0], x >= 1]

    law = program_distribution(three, (1,))
    brute, missing = window_law(lambda x, y, z: [x - y + z >= 1, x >= 1], (HALF, THIRD, HALF), 22)
    assert_within_window(law, brute, missing)


def test_a_summand_compared_after_the_sum_matches_the_window():
    def reused(data):
        x, y = geometric("1/2"), geometric("1/3")
        above = x + y >= 2
        return [above, y >= 1, x >= 0]

    law = program_distribution(reused, (0,))
    brute, missing = window_law(lambda x, y: [x + y >= 2, y >= 1, x >= 0], (HALF, THIRD), 40)
    assert_within_window(law, brute, missing)


def test_integer_multiples_are_exact():
    doubled = program_distribution(lambda data: 2 * geometric("1/2") >= 3, (0,)).prob(True)
    assert doubled == program_distribution(lambda data: geometric("1/2") >= 2, (0,)).prob(True)
    tripled = program_distribution(lambda data: int(max(-3, min(-3 * geometric("1/2"), 3))),
                                   (0,))
    assert set(tripled.support) == {-3, 0, 3}
    assert tripled.prob(0) == two_sided(HALF, 0)
    halved = program_distribution(lambda data: laplace(2) * Fraction(1, 2) >= 1, (0,))
    assert halved.prob(True) == ExpNumber.exp(-1) / 2
    twice_sum = program_distribution(lambda data: 2 * (geometric("1/2") + geometric("1/3")) >= 3,
                                     (0,)).prob(True)
    assert twice_sum == program_distribution(
        lambda data: geometric("1/2") + geometric("1/3") >= 2, (0,)).prob(True)


def test_sums_that_are_not_a_forest_are_refused_with_the_reason():
    def mixed_multiples(data):
        return geometric("1/2") + 2 * geometric("1/2") >= 0

    with pytest.raises(ProgramError, match="different multiples"):
        program_distribution(mixed_multiples, (0,))

    def both_linked(data):
        x, y, z = laplace(1), laplace(1), laplace(1)
        return [x >= z, y >= z, x + y >= 0]

    with pytest.raises(ProgramError, match="each linked"):
        program_distribution(both_linked, (0,))


def test_a_product_of_noisy_values_is_refused():
    with pytest.raises(ProgramError, match="product of two noisy values"):
        program_distribution(lambda data: geometric("1/2") * geometric("1/2") >= 0, (0,))


# --- the running-sums benchmark ------------------------------------------------------------------

def test_smart_sum_matches_the_window_of_discrete_laplace_noise():
    from pufferfish.examples.dp_benchmarks import sums_suite

    queries, block, low, high = (1, 0, 1), 2, -1, 3
    law = program_distribution(sums_suite.smart_sum, queries,
                               {"epsilon": "1/2", "block": block, "low": low, "high": high})
    # Brute force: weights c³·α^(Σ|z|) grouped by the exponent (integers), evaluated at the end
    window = 24
    by_exponent: dict = {}
    for zs in product(range(-window, window + 1), repeat=3):
        total = running = block_sum = 0
        out = []
        for i, (q, z) in enumerate(zip(queries, zs)):
            if (i + 1) % block == 0:
                total += block_sum + q + z
                running, block_sum = total, 0
            else:
                running += q + z
                block_sum += q
            out.append(max(low, min(running, high)))
        counts = by_exponent.setdefault(tuple(out), {})
        exponent = sum(abs(z) for z in zs)
        counts[exponent] = counts.get(exponent, 0) + 1
    with mpmath.workdps(40):
        alpha = mpmath.e ** (-mpmath.mpf(1) / 2)
        c = (1 - alpha) / (1 + alpha)
        brute = {pufferfish.models.values.canonical_value(list(out)):
                 c ** 3 * sum(n * alpha ** k for k, n in counts.items())
                 for out, counts in by_exponent.items()}
        missing = 3 * 2 * alpha ** (window + 1) / (1 + alpha)  # Pr[some |z_i| > window]
        assert missing < mpmath.mpf("1e-4")
        assert set(law.support) <= set(brute)
        for output, p in law.items():
            low_end, high_end = (ExpNumber.of(p) if isinstance(p, Fraction) else p).bounds(200)
            # the engine's enclosure meets [brute, brute + missing] (both contain the value),
            # up to the rounding of the brute force's 40 digits
            rounding = mpmath.mpf("1e-35")
            assert mpmath.mpf(high_end.numerator) / high_end.denominator >= brute[output] - rounding
            assert (mpmath.mpf(low_end.numerator) / low_end.denominator
                    <= brute[output] + missing), output


def test_the_running_sums_meet_their_published_budgets_tightly():
    suite = pufferfish.load(example_path("dp_benchmarks/sums_suite.json"))
    claims = {"partial_sum": Fraction(1, 2), "running_sum": Fraction(1, 2),
              "smart_sum": Fraction(1)}
    for name, claim in claims.items():
        level = pufferfish.dp_level(suite, name, "l1:1", epsilon=str(claim))
        assert level.holds, name
        assert level.budget.relation == "tight", name
    # Smart Sum is not ε-DP: a budget below its claim fails with a witness
    assert not pufferfish.dp_level(suite, "smart_sum", "l1:1", epsilon="1/2").holds


def test_running_sums_with_epsilon_as_a_symbol_read_back_the_law_at_each_epsilon():
    from pufferfish.examples.dp_benchmarks import sums_suite
    from pufferfish.models.programs import EPSILON
    from pufferfish.verify.privacy.epsilon_range import value_at

    arguments = {"block": 2, "low": -1, "high": 2}
    symbolic = program_distribution(sums_suite.smart_sum, (1, 0, 1),
                                    {"epsilon": EPSILON, **arguments})
    for epsilon in [Fraction(1, 3), Fraction(2)]:
        direct = program_distribution(sums_suite.smart_sum, (1, 0, 1),
                                      {"epsilon": epsilon, **arguments})
        assert set(direct.support) == set(symbolic.support)
        for output, p in direct.items():
            ball = value_at(ExpNumber.of(symbolic.prob(output)), epsilon, 128)
            assert ball.overlaps(ExpNumber.of(p).enclosure(128)), output


def test_smart_sum_is_two_epsilon_dp_for_every_epsilon_and_not_better():
    suite = example_path("dp_benchmarks/sums_suite.json")
    holds = pufferfish.dp_for_every_epsilon(suite, "smart_sum", "l1:1", factor=2, low="1/10",
                                            high=4)
    assert holds.holds
    fails = pufferfish.dp_for_every_epsilon(suite, "smart_sum", "l1:1", factor="3/2",
                                            low="1/10", high=4)
    assert not fails.holds
    # the counterexample checks out at its ε, exactly: the ratio on its output exceeds e^(3ε/2)
    from pufferfish.examples.dp_benchmarks import sums_suite

    found = fails.to_dict()["counterexample"]
    epsilon = Fraction(found["epsilon"])
    arguments = {"epsilon": epsilon, "block": 2, "low": -1, "high": 3}
    first = program_distribution(sums_suite.smart_sum, tuple(found["dataset"]), arguments)
    second = program_distribution(sums_suite.smart_sum, tuple(found["neighbour"]), arguments)
    p, q = (ExpNumber.of(law.prob(found["output"])) for law in (first, second))
    bound = ExpNumber.exp(Fraction(3, 2) * epsilon)
    assert p > bound * q or q > bound * p


def _crossing_start(queries):
    return (0, None)  # the running noisy total, the first step at which it reached 2


def _crossing_step(state, i, q):
    total, first = state
    if first is not None:
        return state
    total = total + q + geometric("1/2")
    return (0, i) if total >= 2 else (total, None)


def _crossing_finish(state):
    return state[1]


def _crossing(queries):
    state = _crossing_start(queries)
    for i, q in enumerate(queries):
        state = _crossing_step(state, i, q)
    return _crossing_finish(state)


def test_a_running_sum_in_a_stepwise_program_has_the_plain_law():
    from pufferfish.models.programs.steps import stepwise

    merged = stepwise(_crossing_start, _crossing_step, _crossing_finish)(
        lambda queries: _crossing(queries))
    for data in [(1, 0, 1), (1, 0, 1, 0, 1, 0, 1)]:
        assert dict(program_distribution(merged, data).items()) == \
            dict(program_distribution(_crossing, data).items())
