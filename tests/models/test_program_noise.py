"""Programs with the noise people deploy: discrete Laplace at α = e^(−ε), continuous Laplace and
exponential noise, differences and negations of noisy values, vector releases.

Every exact law is checked against an independent computation that shares no code with the
engine: numerical integration at 40 digits (mpmath) for continuous noise, and a brute force over
a window of noise values with a rigorous bound on the mass outside for integer noise.  Identities
that must be detected exactly (ties, rational masses of transcendental noise, a level equal to
its budget) are asserted as exact equalities.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pufferfish
from pufferfish.models.programs import (ExpNumber, coin, discrete_laplace, exponential,
                                        geometric, laplace, program_distribution, uniform)
from pufferfish.models.programs.exp_numbers import product_exceeds

DIGITS = 40


def close(exact, reference, tolerance=mpmath.mpf("1e-25")) -> bool:
    """The exact number's certified enclosure (200 bits) lies within ``tolerance`` of
    ``reference`` (an mpmath number computed at 40 digits)."""
    low, high = (ExpNumber.of(exact) if isinstance(exact, Fraction) else exact).bounds(200)
    with mpmath.workdps(DIGITS):
        return (mpmath.mpf(low.numerator) / low.denominator - tolerance <= reference
                <= mpmath.mpf(high.numerator) / high.denominator + tolerance)


# --- the field Q(e^(1/n)) ----------------------------------------------------------------------

def _element(spec):
    """An element ``c·e^(r/d) + c2/7`` as an ExpNumber and, independently, in mpmath."""
    (numerator, denominator), r, d = spec
    exact = ExpNumber.exp(Fraction(r, d)) * Fraction(numerator, denominator) + \
        Fraction(denominator, 7)
    with mpmath.workdps(DIGITS):
        reference = (mpmath.mpf(numerator) / denominator * mpmath.e ** (mpmath.mpf(r) / d)
                     + mpmath.mpf(denominator) / 7)
    return exact, reference


elements = st.builds(_element, st.tuples(st.tuples(st.integers(-5, 5), st.integers(1, 4)),
                                         st.integers(-3, 3), st.integers(1, 4)))


@settings(max_examples=80, deadline=None)
@given(elements, elements, elements)
def test_field_operations_are_exact_and_agree_with_high_precision_evaluation(x, y, z):
    (a, ma), (b, mb), (c, mc) = x, y, z
    assert (a + b) - b == a
    assert a * (b + c) == a * b + a * c
    if b:
        assert (a * b) / b == a
    with mpmath.workdps(DIGITS):
        assert close(a + b, ma + mb)
        assert close(a * c, ma * mc)
        assert close(a - b * c, ma - mb * mc)
    difference = a - b
    if difference:
        assert difference.sign() == (1 if ma > mb else -1)
    else:
        assert a == b and hash(a) == hash(b) and abs(ma - mb) < mpmath.mpf("1e-30")


@settings(max_examples=80, deadline=None)
@given(elements, elements, elements, st.sampled_from(["random", "tie", "near tie"]))
def test_product_exceeds_is_the_exact_comparison(x, y, z, kind):
    """``a·d > n·b`` decided on balls first gives the exact comparison's answer, on ties (which
    balls cannot separate) and on numbers apart by 2^-80 (closer than the 64-bit balls) too."""
    (a, _), (b, _), (n, _) = x, y, z
    if not b or not n:
        return
    d = n * b / a if a else ExpNumber.of(1)
    if kind == "near tie":
        d = d + Fraction(1, 2 ** 80)
    elif kind == "random":
        d = ExpNumber.exp(Fraction(1, 3)) * 2
    for first, second, third, fourth in ((a, d, n, b), (n, b, a, d), (a, 1, n, Fraction(1, 2))):
        assert product_exceeds(first, second, third, fourth) is \
            ((first * second - third * fourth).sign() > 0)


def test_identities_are_exact_equalities():
    half = ExpNumber.exp(Fraction(1, 2))
    assert half * half == ExpNumber.exp(1)
    assert (1 - 1 / half) / (1 + 1 / half) == (half - 1) / (half + 1)
    assert ((half + 1) * (half - 1)).is_rational() is False
    assert ((half + 1) / (half + 1)).is_rational() and hash(ExpNumber.of(Fraction(1, 3))) == \
        hash(Fraction(1, 3))
    assert ExpNumber.exp(0) == 1 and ExpNumber.exp(Fraction(2, 4)) == half


# --- continuous Laplace and exponential noise against numerical integration --------------------

def _laplace_cdf(x, b):
    return mpmath.mpf(1) / 2 * mpmath.e ** (x / b) if x < 0 else 1 - mpmath.e ** (-x / b) / 2


def test_a_laplace_threshold_has_its_closed_form():
    def above(data, t):
        return data[0] + laplace(2) >= t

    for q, t in [(0, 1), (3, 1), (1, 1), (0, Fraction(-5, 3))]:
        law = program_distribution(above, (q,), {"t": t})
        d = Fraction(t) - q
        expected = (ExpNumber.exp(-d / 2) / 2 if d >= 0 else 1 - ExpNumber.exp(d / 2) / 2)
        assert law.prob(True) == expected
    assert program_distribution(above, (1,), {"t": 1}).prob(True) == Fraction(1, 2)  # exactly


def svt_laplace(queries, T, epsilon):
    """Sparse Vector with c = 1 (Lyu, Su and Li, Algorithm 1) with Laplace noise."""
    eps1 = Fraction(epsilon) / 2
    rho = laplace(1 / eps1)
    out = []
    for q in queries:
        if q + laplace(2 / eps1) >= T + rho:
            out.append(True)
            break
        out.append(False)
    return out


def _svt_reference(queries, T, epsilon, k):
    """Pr[the first k answers below, the (k+1)-th above] (k = len(queries): all below), by
    integrating over the threshold's noise ρ: ∫ f_ρ(y) Π_i F_ν(T + y − q_i) (1 − F_ν(...)) dy."""
    eps1 = mpmath.mpf(Fraction(epsilon).numerator) / Fraction(epsilon).denominator / 2
    b_rho, b_nu = 1 / eps1, 2 / eps1

    def integrand(y):
        value = mpmath.e ** (-abs(y) / b_rho) / (2 * b_rho)
        for i, q in enumerate(queries[:k + 1]):
            below = _laplace_cdf(T + y - q, b_nu)
            value *= below if i < k else 1 - below
        return value

    with mpmath.workdps(DIGITS):
        return mpmath.quad(integrand, [-mpmath.inf, *sorted({0, *(q - T for q in queries)}),
                                       mpmath.inf])


@pytest.mark.parametrize("queries,epsilon", [((0, 1, 2), "1/2"), ((2, 2, 0), "1"),
                                             ((1, 0), "1/10")])
def test_laplace_sparse_vector_matches_numerical_integration(queries, epsilon):
    law = program_distribution(svt_laplace, queries, {"T": 1, "epsilon": Fraction(epsilon)})
    assert sum(law.values()) == 1
    for k in range(len(queries)):
        output = (False,) * k + (True,)
        assert close(law.prob(list(output)), _svt_reference(queries, 1, epsilon, k))
    everything_below = law.prob([False] * len(queries))
    with mpmath.workdps(DIGITS):
        reference = 1 - sum(_svt_reference(queries, 1, epsilon, k) for k in range(len(queries)))
    assert close(everything_below, reference)


def noisy_max_exponential(scores, scale):
    """Report noisy max with exponential noise (ties have probability 0)."""
    best, index = None, None
    for i, s in enumerate(scores):
        value = s + exponential(scale)
        if best is None or value > best:
            best, index = value, i
    return index


def test_exponential_noisy_max_matches_numerical_integration():
    scores = (0, 1, 3)
    b = Fraction(2)
    law = program_distribution(noisy_max_exponential, scores, {"scale": b})

    def density(x):
        return mpmath.e ** (-x / 2) / 2 if x >= 0 else mpmath.mpf(0)

    def cdf(x):
        return 1 - mpmath.e ** (-x / 2) if x >= 0 else mpmath.mpf(0)

    for i, s in enumerate(scores):
        def integrand(x, i=i, s=s):
            value = density(x - s)
            for j, other in enumerate(scores):
                if j != i:
                    value *= cdf(x - other)
            return value
        with mpmath.workdps(DIGITS):
            reference = mpmath.quad(integrand, [s, *[o for o in scores if o > s], mpmath.inf])
        assert close(law.prob(i), reference)


# --- discrete Laplace at e^(−ε) against a windowed brute force ---------------------------------

def clamped_count(data, epsilon, low, high):
    return max(low, min(high, sum(data) + discrete_laplace(epsilon)))


def test_discrete_laplace_matches_the_window_and_its_missing_mass():
    epsilon = Fraction(1, 2)
    law = program_distribution(clamped_count, (1, 1, 0), {"epsilon": epsilon, "low": 0,
                                                          "high": 4})
    window = 120
    with mpmath.workdps(DIGITS):
        alpha = mpmath.e ** (-mpmath.mpf(1) / 2)
        weight = (1 - alpha) / (1 + alpha)
        brute = {}
        for z in range(-window, window + 1):
            output = max(0, min(4, 2 + z))
            brute[output] = brute.get(output, 0) + weight * alpha ** abs(z)
        missing = 2 * alpha ** (window + 1) / (1 + alpha)  # Pr[|Z| > window]
        assert missing < mpmath.mpf("1e-25")
        for output, p in law.items():
            assert close(p, brute[output] + missing / 2, tolerance=missing)
    assert law.prob(2) == (1 - ExpNumber.exp(-epsilon)) / (1 + ExpNumber.exp(-epsilon))


# --- arithmetic on noise ------------------------------------------------------------------------

def svt_gap_subtraction(queries, T, draw):
    rho = draw()
    out = []
    for q in queries:
        if q + draw() - rho >= T:       # as published: the noisy answer minus the noisy threshold
            out.append(True)
            break
        out.append(False)
    return out


def svt_gap_comparison(queries, T, draw):
    rho = draw()
    out = []
    for q in queries:
        if q + draw() >= T + rho:
            out.append(True)
            break
        out.append(False)
    return out


@pytest.mark.parametrize("draw", [lambda: geometric("1/2"), lambda: discrete_laplace("1/3"),
                                  lambda: laplace(3)], ids=["geometric", "discrete", "laplace"])
def test_a_difference_of_noisy_values_is_the_comparison_it_rewrites(draw):
    for queries in [(0, 1, 2), (2, 0, 1)]:
        assert program_distribution(svt_gap_subtraction, queries, {"T": 1, "draw": draw}) == \
            program_distribution(svt_gap_comparison, queries, {"T": 1, "draw": draw})


def test_negation_and_a_number_minus_noise():
    def negated(data):
        x = geometric("1/3")
        return [-x >= 1, 2 - x > 0, max(-2, min(2, -x))]

    def direct(data):
        x = geometric("1/3")
        return [x <= -1, x < 2, -max(-2, min(2, x))]

    assert program_distribution(negated, ()) == program_distribution(direct, ())


def test_unsupported_arithmetic_and_outputs_are_refused():
    cases = [(lambda data: laplace(1) + 2 * laplace(1) >= 0, "different multiples"),
             (lambda data: laplace(1), "continuous noisy value"),
             (lambda data: laplace(1) >= geometric("1/2"), "continuous"),
             (lambda data: geometric("1/2") - geometric("1/2"), "unbounded difference")]
    for program, message in cases:
        with pytest.raises(pufferfish.models.programs.ProgramError, match=message):
            program_distribution(program, ())


# --- vector releases ----------------------------------------------------------------------------

def noisy_histogram(data, epsilon):
    return [max(0, min(3, count + discrete_laplace(epsilon))) for count in data]


def test_a_vector_of_noisy_values_is_the_product_of_its_entries():
    law = program_distribution(noisy_histogram, (1, 2), {"epsilon": 1})
    assert sum(law.values()) == 1
    first = program_distribution(noisy_histogram, (1,), {"epsilon": 1})
    second = program_distribution(noisy_histogram, (2,), {"epsilon": 1})
    for a, b in product(first.support, second.support):
        assert law.prob([a[0], b[0]]) == first.prob(a) * second.prob(b)


def svt_numeric(queries, T, c):
    """Sparse Vector releasing the clamped noisy answers above the threshold (c of them)."""
    rho = geometric("1/2")
    out, count = [], 0
    for q in queries:
        noisy = q + geometric("1/2")
        if noisy >= T + rho:
            out.append(max(-1, min(noisy, 3)))
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def test_two_released_noisy_values_match_the_window_brute_force():
    law = program_distribution(svt_numeric, (0, 1, 2), {"T": 1, "c": 2})
    assert sum(law.values()) == 1
    # ρ and the three ν on [−10, 10]: Pr[ρ, ν] = 3^(−4)·2^(−(|ρ| + Σ|ν|)), kept as integers
    # scaled by 3^4·2^40 (the unused draws of a run that stops early are summed out)
    window = range(-10, 11)
    brute: dict = {}
    for rho in window:
        for nus in product(window, repeat=3):
            w = 1 << (40 - abs(rho) - sum(abs(nu) for nu in nus))
            out, count = [], 0
            for q, nu in zip((0, 1, 2), nus):
                noisy = q + nu
                if noisy >= 1 + rho:
                    out.append(max(-1, min(noisy, 3)))
                    count += 1
                    if count >= 2:
                        break
                else:
                    out.append(False)
            key = pufferfish.models.values.canonical_value(out)
            brute[key] = brute.get(key, 0) + w
    brute = {key: Fraction(w, 81 << 40) for key, w in brute.items()}
    missing = 1 - sum(brute.values())
    assert 0 < missing < Fraction(1, 200)
    for output, p in law.items():
        lower = brute.get(output, Fraction(0))
        assert lower <= p <= lower + missing, output


# --- levels and budgets of programs with transcendental noise ------------------------------------

def _threshold_model(program, arguments):
    from pufferfish.models import PufferfishModel, Universe, entry_pairs
    from pufferfish.models.priors import UniformPrior
    from pufferfish.models.programs import ProgramMechanism

    universe = Universe.product(["q"], [[0, 1, 2, 3]])
    mechanism = ProgramMechanism("m", program, arguments)
    model = PufferfishModel.build(universe, [UniformPrior("uniform", universe)],
                                  entry_pairs(universe), [mechanism])
    return model, mechanism


def laplace_threshold(data, t, scale):
    return data[0] + laplace(scale) >= t


def test_the_laplace_threshold_is_exactly_its_epsilon_and_the_budget_is_tight():
    model, mechanism = _threshold_model(laplace_threshold, {"t": 1, "scale": 2})
    level = pufferfish.dp_level(model, mechanism, "linf:1", epsilon="1/2")
    assert level.max_ratio == ExpNumber.exp(Fraction(1, 2))
    assert level.epsilon == "1/2" and level.budget.relation == "tight" and level.holds
    assert not pufferfish.dp_level(model, mechanism, "linf:1", epsilon="0.4999").holds
    assert pufferfish.dp_level(model, mechanism, "linf:1", epsilon="log(2)").holds  # e^(1/2) < 2
    assert not pufferfish.dp_level(model, mechanism, "linf:1", epsilon="log(8/5)").holds


def test_sparse_vector_with_laplace_noise_meets_its_budget_exactly():
    from pufferfish.models import PufferfishModel, Universe, entry_pairs
    from pufferfish.models.priors import UniformPrior
    from pufferfish.models.programs import ProgramMechanism

    universe = Universe.product(["q1", "q2"], [[0, 1, 2]] * 2)
    svt = ProgramMechanism("svt", svt_laplace, {"T": 1, "epsilon": Fraction(1, 2)})
    model = PufferfishModel.build(universe, [UniformPrior("uniform", universe)],
                                  entry_pairs(universe), [svt])
    level = pufferfish.dp_level(model, svt, "linf:1", epsilon="1/2")
    assert level.holds and level.budget.relation == "below"
    low, high = level.max_ratio.bounds(128)
    assert 1 < low and high < ExpNumber.exp(Fraction(1, 2)).bounds(128)[0]
    audit = pufferfish.audit(model, epsilon="1/2")
    assert audit.mechanisms[0].pufferfish.epsilon.startswith("log(")


# --- the published benchmark with Laplace noise ---------------------------------------------------

SUITE = {  # mechanism: (does the published claim "ε-DP" hold?, the exact level as a multiple of ε)
    "svt1": (True, None), "svt1_subtraction": (True, None), "svt3": (False, Fraction(3, 2)),
    "svt4": (False, None), "svt5": (False, "inf"), "svt6": (False, None),
    "noisy_max_laplace": (True, None), "noisy_max_exponential": (True, Fraction(1)),
    "noisy_histogram": (False, Fraction(3)), "noisy_top_k": (True, None),
    "noisy_max_gap": (True, None), "svt2": (True, None), "numerical_svt": (True, None),
}


@pytest.mark.parametrize("epsilon", ["1/10", "1/2", "1"])
def test_the_laplace_suite_reproduces_the_published_status(epsilon):
    import json

    from pufferfish.examples import example_path

    model = json.loads(example_path("dp_benchmarks/laplace_suite.json").read_text())
    for body in model["mechanisms"].values():
        body["program"]["arguments"]["epsilon"] = epsilon
    model["mechanisms"] = {name: body for name, body in model["mechanisms"].items()
                           if name in {"svt1", "svt2", "svt3", "svt5", "noisy_max_exponential",
                                       "noisy_histogram", "noisy_top_k", "noisy_max_gap",
                                       "numerical_svt"}
                           or epsilon == "1/2"}
    from pufferfish.models.files.pufferfish_file import parse_model

    loaded = parse_model(model, base=example_path("dp_benchmarks/laplace_suite.json").parent)
    for mechanism in loaded.mechanisms.values():
        holds, multiple = SUITE[mechanism.name]
        level = pufferfish.dp_level(loaded, mechanism, "linf:1", epsilon=epsilon)
        assert level.holds == holds, (mechanism.name, epsilon, level.epsilon)
        if multiple == "inf":
            assert level.epsilon == "inf"
        elif multiple is not None:
            assert level.max_ratio == ExpNumber.exp(multiple * Fraction(epsilon))


# --- sorting and noisy top-k: cycles whose comparisons are implied by the others -----------------

def _top_two(data, draw):
    """The largest and second largest ``(noisy value, index)``."""
    first = second = None
    for i, q in enumerate(data):
        value = q + draw()
        if first is None or value > first[0]:
            first, second = (value, i), first
        elif second is None or value > second[0]:
            second = (value, i)
    return first, second


def noisy_top_two(data, draw):
    first, second = _top_two(data, draw)
    return [first[1], second[1]]


def noisy_sort(data, draw):
    ranked = []  # insertion sort, largest first
    for i, q in enumerate(data):
        value = q + draw()
        k = 0
        while k < len(ranked) and ranked[k][0] >= value:
            k += 1
        ranked.insert(k, (value, i))
    return [i for _, i in ranked]


def _geometric_window_law(program, data, window=18):
    """Every noise vector of [−window, window]^m at α = 1/2: weights 3^(−m)·2^(−Σ|z|) as integers,
    and the mass left outside."""
    m = len(data)
    values = iter([])
    law: dict = {}

    def draw():
        return next(values)

    for noise in product(range(-window, window + 1), repeat=m):
        values = iter(noise)
        key = pufferfish.models.values.canonical_value(program(data, draw))
        law[key] = law.get(key, 0) + (1 << (3 * window - sum(abs(z) for z in noise)))
    scale = 3 ** m << (3 * window)
    law = {key: Fraction(w, scale) for key, w in law.items()}
    return law, 1 - sum(law.values())


@pytest.mark.parametrize("program", [noisy_top_two, noisy_sort])
def test_sorting_and_top_k_with_geometric_noise_match_the_window(program):
    exact = program_distribution(program, (0, 1, 2), {"draw": lambda: geometric("1/2")})
    brute, missing = _geometric_window_law(program, (0, 1, 2))
    assert 0 < missing < Fraction(1, 10 ** 4) and sum(exact.values()) == 1
    for output, p in exact.items():
        assert brute.get(output, 0) <= p <= brute.get(output, 0) + missing, output


def test_sorting_continuous_noise_of_equal_answers_is_uniform_exactly():
    law = program_distribution(noisy_sort, (0, 0, 0), {"draw": lambda: laplace(1)})
    assert len(law) == 6 and set(law.values()) == {Fraction(1, 6)}  # an identity, exactly


def test_the_top_of_top_two_is_report_noisy_max():
    draw = lambda: laplace(Fraction(3, 2))  # noqa: E731
    top = program_distribution(noisy_top_two, (0, 2, 1), {"draw": draw})
    best = program_distribution(noisy_max_laplace_index, (0, 2, 1), {"draw": draw})
    for i in range(3):
        assert sum((p for out, p in top.items() if out[0] == i), Fraction(0)) == best.prob(i)


def noisy_max_laplace_index(data, draw):
    best, index = None, None
    for i, q in enumerate(data):
        value = q + draw()
        if best is None or value > best:
            best, index = value, i
    return index


def test_a_genuine_cycle_is_still_refused():
    def triangle(data):  # x ≥ y ≥ z and x ≤ z + 1: no comparison is implied by the others
        x, y, z = laplace(1), laplace(1), laplace(1)
        return [x >= y, y >= z, z + 1 >= x]

    def ordered(data):  # x ≥ y ≥ z makes z ≥ x a tie (probability 0) or implies x ≥ y
        x, y, z = laplace(1), laplace(1), laplace(1)
        return [x >= y, y >= z, z >= x]

    law = program_distribution(ordered, ())  # the six orders of three iid values, exactly
    assert len(law) == 6 and set(law.values()) == {Fraction(1, 6)}
    assert law.prob([True, True, True]) == 0 and law.prob([False, False, False]) == 0
    with pytest.raises(pufferfish.models.programs.ProgramError, match="cyclic"):
        program_distribution(triangle, ())

    with pytest.raises(pufferfish.models.programs.ProgramError, match="cyclic"):
        program_distribution(triangle, ())


def noisy_max_with_gap(data, draw):
    """Report noisy max with the gap to the runner-up (capped at 3): a difference released."""
    first, second = _top_two(data, draw)
    return [first[1], min(first[0] - second[0], 3)]


def test_a_released_gap_matches_the_window():
    exact = program_distribution(noisy_max_with_gap, (0, 1, 2),
                                 {"draw": lambda: geometric("1/2")})
    brute, missing = _geometric_window_law(noisy_max_with_gap, (0, 1, 2))
    assert sum(exact.values()) == 1 and set(brute) <= set(exact.support)
    for output, p in exact.items():
        assert brute.get(output, 0) <= p <= brute.get(output, 0) + missing, output
    with pytest.raises(pufferfish.models.programs.ProgramError, match="unbounded difference"):
        program_distribution(lambda data: geometric("1/2") - geometric("1/2") + 0 * 0, ())


def test_exponents_with_unrelated_denominators_are_refused_before_memory_is_spent():
    def unrelated(data):
        return [data[0] + laplace(1000003) >= Fraction(1, 3), laplace(3) >= 1]

    with pytest.raises(pufferfish.models.programs.ProgramError, match="degree 1,000,003"):
        program_distribution(unrelated, (0,))
    tiny = program_distribution(lambda data: discrete_laplace(Fraction(1, 10 ** 9)) >= 2, ())
    assert sum(tiny.values()) == 1  # one tiny ε alone is cheap: a single power of e


# --- ε as a symbol ----------------------------------------------------------------------------------

def diluted_count(data, epsilon):
    """With probability 1/10 a uniform answer, else the count with discrete Laplace noise at ε,
    clamped to [0, 2]: (c·ε)-DP for c < 1 only when ε is large enough."""
    if coin("1/10"):
        return uniform([0, 1, 2])
    return max(0, min(2, data[0] + discrete_laplace(epsilon)))


def test_the_symbolic_law_read_at_an_epsilon_is_the_law_at_that_epsilon():
    from pufferfish.models.programs import EPSILON
    from pufferfish.verify.privacy.epsilon_range import value_at

    symbolic = program_distribution(diluted_count, (1,), {"epsilon": EPSILON})
    for epsilon in [Fraction(1, 3), Fraction(2), Fraction(7, 5)]:
        direct = program_distribution(diluted_count, (1,), {"epsilon": epsilon})
        for output, p in direct.items():
            ball = value_at(ExpNumber.of(symbolic.prob(output)), epsilon, 128)
            low, high = ExpNumber.of(p).bounds(128)
            assert ball.lower() <= float(high) + 1e-30 and float(low) - 1e-30 <= ball.upper()
            assert ball.overlaps(ExpNumber.of(p).enclosure(128))


def test_a_claim_for_every_epsilon_is_decided_and_its_counterexample_checks_out():
    from pufferfish.models import Universe
    from pufferfish.models.programs import EPSILON, ProgramMechanism
    from pufferfish.verify.privacy.epsilon_range import dp_for_every_epsilon

    answers = Universe.product(["q"], [[0, 1, 2]])
    symbolic = ProgramMechanism("diluted", diluted_count, {"epsilon": EPSILON})
    assert dp_for_every_epsilon(answers, symbolic, "linf:1", factor=1, low="1/10",
                                high=10).holds
    # the level stays below log(28) ≈ 3.33 at every ε, so ε/2 bounds it only from ε ≈ 6.7 on
    assert dp_for_every_epsilon(answers, symbolic, "linf:1", factor="1/2", low=7,
                                high=10).holds
    broken = dp_for_every_epsilon(answers, symbolic, "linf:1", factor="1/2", low="1/10",
                                  high=10)
    assert not broken.holds
    epsilon = broken.counterexample.epsilon
    assert Fraction(1, 10) <= epsilon < 7
    concrete = ProgramMechanism("diluted", diluted_count, {"epsilon": epsilon})
    level = pufferfish.verify.privacy.dp.dp_level(answers, concrete, "linf:1",
                                                 pufferfish.budget(epsilon / 2))
    assert level.holds is False  # the counterexample is a real violation at that ε
    # where the claim holds, the exact level at a point agrees
    assert pufferfish.verify.privacy.dp.dp_level(answers, ProgramMechanism(
        "diluted", diluted_count, {"epsilon": Fraction(8)}), "linf:1",
        pufferfish.budget(Fraction(4))).holds


def test_the_symbol_only_scales_discrete_laplace_noise():
    from pufferfish.models.programs import EPSILON

    with pytest.raises(pufferfish.models.programs.ProgramError, match="only scale"):
        program_distribution(lambda data, epsilon: laplace(2 / epsilon) >= 0, (),
                             {"epsilon": EPSILON})
    with pytest.raises(pufferfish.models.programs.ProgramError, match="only discrete_laplace"):
        program_distribution(lambda data, epsilon: discrete_laplace(epsilon) >= geometric("1/2"),
                             (), {"epsilon": EPSILON})
