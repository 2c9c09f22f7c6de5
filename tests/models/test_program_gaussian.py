"""Gaussian and discrete Gaussian noise in programs (models/programs/gaussian.py) against
independent computations: mpmath's numerical integration at 30 digits for the continuous
Gaussian (one-dimensional integrals of products of normal CDFs), direct summation of the
discrete Gaussian's normalised weights at 40 digits, and the hockey-stick divergence of a
clamped discrete Gaussian computed from those weights.  Every certified enclosure must contain
the independent value, and be narrow enough to be useful."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

import pufferfish
from pufferfish.examples import example_path
from pufferfish.models import Universe
from pufferfish.models.enclosures import Enclosure, UncertainComparison
from pufferfish.models.programs import (ProgramMechanism, discrete_gaussian, gaussian, laplace,
                                        program_distribution)
from pufferfish.verify.privacy.approximate import approximate_dp

mpmath.mp.dps = 30


def _contains(enclosure: Enclosure, value, width: float) -> None:
    assert isinstance(enclosure, Enclosure)
    value = mpmath.mpf(value)
    lower = mpmath.mpf(enclosure.lower.numerator) / enclosure.lower.denominator
    upper = mpmath.mpf(enclosure.upper.numerator) / enclosure.upper.denominator
    assert lower <= value <= upper, (enclosure, value)
    assert upper - lower <= width, (enclosure, float(upper - lower))


def _tail(x, sigma):
    """Pr[N(0, σ²) ≥ x] at 30 digits."""
    return mpmath.ncdf(-mpmath.mpf(x), 0, sigma)


@pytest.mark.parametrize("threshold", [Fraction(1), Fraction(-7, 3), Fraction(1, 7), Fraction(40)])
@pytest.mark.parametrize("sigma", [Fraction(1), Fraction(5, 2)])
def test_a_comparison_with_a_number_is_enclosed_to_about_1e_minus_25(threshold, sigma):
    def above(data):
        return gaussian(sigma) + data[0] >= threshold

    law = program_distribution(above, (0,))
    expected = _tail(mpmath.mpf(threshold.numerator) / threshold.denominator, float(sigma))
    _contains(law.prob(True), expected, 1e-25)
    _contains(law.prob(False), 1 - expected, 1e-25)


def _svt(data, T=1):
    rho = gaussian(2)
    out = []
    for q in data:
        if q + gaussian(Fraction(3, 2)) >= T + rho:
            return out + [True]
        out.append(False)
    return out


@pytest.mark.parametrize("data", [(0, 1, 2), (2, 0, 0), (1, 1, 1)])
def test_sparse_vector_with_gaussian_noise_against_numerical_integration(data):
    law = program_distribution(_svt, data)

    def first_above(i):
        def integrand(y):
            below = mpmath.fprod(1 - _tail(1 + y - data[j], 1.5) for j in range(i))
            return mpmath.npdf(y, 0, 2) * below * _tail(1 + y - data[i], 1.5)
        return mpmath.quad(integrand, [-mpmath.inf, -2, 0, 2, mpmath.inf])

    for i in range(3):
        _contains(law.prob([False] * i + [True]), first_above(i), 5e-4)
    never = 1 - sum(first_above(i) for i in range(3))
    _contains(law.prob([False] * 3), never, 5e-4)


def _noisy_max(data):
    best, index = None, None
    for i, q in enumerate(data):
        noisy = q + gaussian(1)
        if best is None or noisy > best:
            best, index = noisy, i
    return index


@pytest.mark.parametrize("data", [(0, 1, 2, 1), (3, 0, 0)])
def test_noisy_max_whose_paths_are_chains_against_numerical_integration(data):
    law = program_distribution(_noisy_max, data)
    for k in range(len(data)):
        def integrand(y):
            others = mpmath.fprod(mpmath.ncdf(y - data[j]) for j in range(len(data)) if j != k)
            return mpmath.npdf(y - data[k]) * others
        _contains(law.prob(k), mpmath.quad(integrand, [-mpmath.inf, 0, 3, mpmath.inf]), 1e-3)


def test_a_gap_written_with_a_subtraction_has_the_law_of_the_comparison():
    def gap(data):
        rho = gaussian(2)
        return data[0] + gaussian(3) - rho >= 1

    def compared(data):
        rho = gaussian(2)
        return data[0] + gaussian(3) >= 1 + rho

    assert program_distribution(gap, (1,)) == program_distribution(compared, (1,))
    # ν − ρ is N(0, 13): Pr[ν − ρ ≥ 0] = 1/2 exactly, enclosed
    _contains(program_distribution(gap, (1,)).prob(True), 0.5, 1e-3)


def _weights(sigma, low, high):
    """The discrete Gaussian's probabilities on [low, high] and its normaliser, at 40 digits."""
    with mpmath.workdps(40):
        two_var = 2 * mpmath.mpf(sigma) ** 2
        reach = int(40 * sigma) + 40
        normaliser = mpmath.fsum(mpmath.exp(-z * z / two_var) for z in range(-reach, reach + 1))
        return {z: mpmath.exp(-z * z / two_var) / normaliser for z in range(low, high + 1)}


@pytest.mark.parametrize("sigma", [Fraction(1, 2), Fraction(1), Fraction(7, 3)])
def test_discrete_gaussian_releases_clamped_values_with_their_exact_point_masses(sigma):
    def release(data):
        return max(-3, min(data[0] + discrete_gaussian(sigma), 3))

    law = program_distribution(release, (1,))
    weights = _weights(float(sigma), -60, 60)
    for value in range(-3, 4):
        if value == 3:
            expected = mpmath.fsum(w for z, w in weights.items() if z + 1 >= 3)
        elif value == -3:
            expected = mpmath.fsum(w for z, w in weights.items() if z + 1 <= -3)
        else:
            expected = weights[value - 1]
        _contains(law.prob(value), expected, 1e-12)


def test_a_vector_of_noisy_counts_sums_to_one_and_matches_the_product_law():
    def histogram(data):
        return [max(0, min(q + discrete_gaussian(1), 2)) for q in data]

    law = program_distribution(histogram, (0, 2))
    weights = _weights(1.0, -60, 60)

    def marginal(q, value):
        if value == 0:
            return mpmath.fsum(w for z, w in weights.items() if q + z <= 0)
        if value == 2:
            return mpmath.fsum(w for z, w in weights.items() if q + z >= 2)
        return weights[value - q]

    assert len(law.support) == 9
    for first in range(3):
        for second in range(3):
            _contains(law.prob([first, second]), marginal(0, first) * marginal(2, second), 1e-12)


def test_delta_of_a_clamped_discrete_gaussian_mechanism_against_the_hockey_stick_by_hand():
    def count(data):
        return max(-6, min(data[0] + discrete_gaussian(2), 7))

    universe = Universe.product(["x"], [[0, 1]])
    mechanism = ProgramMechanism("count", count)
    weights = _weights(2.0, -80, 80)

    def law(shift):
        out = {}
        for z, w in weights.items():
            value = max(-6, min(z + shift, 7))
            out[value] = out.get(value, 0) + w
        return out

    for epsilon in ("1/4", "1"):
        factor = mpmath.exp(mpmath.mpf(Fraction(epsilon).numerator) / Fraction(epsilon).denominator)
        expected = max(
            mpmath.fsum(max(p.get(o, 0) - factor * q.get(o, 0), 0) for o in range(-6, 8))
            for p, q in ((law(0), law(1)), (law(1), law(0))))
        result = approximate_dp(universe, mechanism, "entry", epsilon=epsilon)
        assert result.certified
        _contains(result.delta, expected, 1e-12)


def test_pure_epsilon_interval_contains_the_level_and_decides_budgets_on_both_sides():
    universe = Universe.product(["q1", "q2"], [[0, 1]] * 2)
    mechanism = ProgramMechanism("svt", _svt, {"T": 1})
    result = approximate_dp(universe, mechanism, "linf:1", delta="0")
    low, high = result.least_ratio, result.least_ratio_upper
    assert 1 < Enclosure.of(low).upper and Enclosure.of(low).lower <= Enclosure.of(high).upper
    # the level by integration: max over pairs and outputs of P/Q
    datasets = [(a, b) for a in (0, 1) for b in (0, 1)]
    laws = {d: program_distribution(_svt, d, {"T": 1}) for d in datasets}

    def exact(d, output):
        i = len(output) - 1
        above = output[-1]

        def integrand(y):
            below = mpmath.fprod(1 - _tail(1 + y - d[j], 1.5) for j in range(i))
            last = _tail(1 + y - d[i], 1.5)
            return mpmath.npdf(y, 0, 2) * below * (last if above else 1 - last)
        return mpmath.quad(integrand, [-mpmath.inf, -2, 0, 2, mpmath.inf])

    level = max(exact(d, o) / exact(e, o) for d in datasets for e in datasets
                for o in laws[d].support if d != e)
    _contains(Enclosure(Enclosure.of(low).lower, Enclosure.of(high).upper), level, 1e-2)
    decided_low = approximate_dp(universe, mechanism, "linf:1", epsilon="0", delta="0")
    assert decided_low.holds is False
    generous = approximate_dp(universe, mechanism, "linf:1", epsilon="6/5", delta="0")
    assert generous.holds is True and not generous.undecided


def test_a_budget_inside_the_interval_is_undecided_never_a_guess():
    universe = Universe.product(["q1", "q2"], [[0, 1]] * 2)
    mechanism = ProgramMechanism("svt", _svt, {"T": 1})
    delta = approximate_dp(universe, mechanism, "linf:1", epsilon="1/10").delta
    middle = (delta.lower + delta.upper) / 2
    result = approximate_dp(universe, mechanism, "linf:1", epsilon="1/10", delta=middle)
    assert result.holds is None and result.undecided
    assert "UNDECIDED" in result.explain()
    assert result.to_dict()["undecided"] is True


def test_gaussian_and_laplace_noise_are_not_compared_on_one_path():
    def mixed(data):
        return gaussian(1) >= laplace(1)

    with pytest.raises(pufferfish.models.programs.ProgramError, match="Gaussian noisy value"):
        program_distribution(mixed, (0,))


def test_a_continuous_gaussian_value_is_not_an_output():
    def leaks(data):
        return data[0] + gaussian(1)

    with pytest.raises(pufferfish.models.programs.ProgramError, match="density"):
        program_distribution(leaks, (0,))


def test_comparing_enclosures_outside_the_certified_code_is_refused():
    enclosure = Enclosure(Fraction(1, 3), Fraction(1, 2))
    with pytest.raises(UncertainComparison):
        enclosure < Fraction(1, 2)


def test_the_shipped_gaussian_suite_from_the_command_line(tmp_path):
    import json
    import subprocess
    import sys

    suite = example_path("dp_benchmarks/gaussian_suite.json")
    done = subprocess.run([sys.executable, "-m", "pufferfish", "approximate-dp", str(suite),
                           "--mechanism", "gaussian_svt", "--mechanism", "gaussian_svt_gap",
                           "--epsilon", "1/2", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert results[0]["certified"] and results[0]["delta"] == results[1]["delta"]

    def audit(*options):
        return subprocess.run([sys.executable, "-m", "pufferfish", "audit", str(suite),
                               "--mechanism", "gaussian_svt", *options],
                              capture_output=True, text=True)

    report = audit("--json")
    assert report.returncode == 0, report.stderr
    found = json.loads(report.stdout)
    assert found["certified"] and found["mechanisms"][0]["dp"][0]["certified"]
    low, high = (float(x) for x in found["mechanisms"][0]["pufferfish"]["epsilon"][1:-1]
                 .split(", "))
    assert audit("--epsilon", str(high + 0.01)).returncode == 0          # holds
    assert audit("--epsilon", str(low - 0.01)).returncode == 1           # violated
    middle = audit("--epsilon", f"{(low + high) / 2:.6f}")               # undecided
    assert middle.returncode == 3 and "UNDECIDED" in middle.stdout
    refused = audit("--certificate", str(tmp_path / "c.json"))
    assert refused.returncode == 2 and "certified intervals" in refused.stderr
    assert not (tmp_path / "c.json").exists()


def test_the_certified_audit_in_python_agrees_with_its_parts():
    suite = example_path("dp_benchmarks/gaussian_suite.json")
    result = pufferfish.audit(suite, mechanisms=["gaussian_noisy_max"], epsilon_dp="1")
    name, puffer, dps = result.mechanisms[0]
    assert name == "gaussian_noisy_max" and result.certified
    alone = pufferfish.pufferfish_level(suite, "gaussian_noisy_max")
    assert (puffer.lower_ratio, puffer.upper_ratio) == (alone.lower_ratio, alone.upper_ratio)
    dp = pufferfish.approximate_dp(suite, "gaussian_noisy_max", delta="0")
    assert dps[0].epsilon == dp.least_epsilon
    assert result.dp_holds is False   # its pure-ε level is above 1.07


def test_certified_pufferfish_level_under_a_markov_chain_contains_the_integrated_level():
    stay = {"0": "4/5", "1": "1/10", "2": "1/10"}
    chain = {"initial": {"0": "1/3", "1": "1/3", "2": "1/3"},
             "transition": {"0": stay, "1": {"0": "1/10", "1": "4/5", "2": "1/10"},
                            "2": {"0": "1/10", "1": "1/10", "2": "4/5"}}}
    model = pufferfish.load({
        "pufferfish_model": 1, "attributes": ["q1", "q2", "q3"], "domain": [0, 1, 2],
        "datasets": "all", "priors": {"sticky": {"markov": chain}}, "secrets": {},
        "entry_pairs": True, "mechanisms": {}})
    mechanism = ProgramMechanism("noisy max", _noisy_max)
    result = pufferfish.pufferfish_level(model, mechanism)
    # independently: each dataset's law by integration, mixed by the chain's exact weights
    transition = {a: {b: Fraction(chain["transition"][str(a)][str(b)]) for b in range(3)}
                  for a in range(3)}
    datasets = [(a, b, c) for a in range(3) for b in range(3) for c in range(3)]
    weight = {d: Fraction(1, 3) * transition[d[0]][d[1]] * transition[d[1]][d[2]]
              for d in datasets}

    def law(d, k):
        def integrand(y):
            others = mpmath.fprod(mpmath.ncdf(y - d[j]) for j in range(3) if j != k)
            return mpmath.npdf(y - d[k]) * others
        return mpmath.quad(integrand, [-mpmath.inf, 0, 3, mpmath.inf])

    laws = {d: [law(d, k) for k in range(3)] for d in datasets}

    def conditional(position, value, k):
        chosen = [d for d in datasets if d[position] == value]
        mass = sum(weight[d] for d in chosen)
        return mpmath.fsum(mpmath.mpf(weight[d].numerator) / weight[d].denominator * laws[d][k]
                           for d in chosen) / (mpmath.mpf(mass.numerator) / mass.denominator)

    level = max(conditional(i, a, k) / conditional(i, b, k)
                for i in range(3) for a in range(3) for b in range(3) if a != b
                for k in range(3))
    _contains(Enclosure(result.lower_ratio, result.upper_ratio), level, 2e-3)
    assert result.to_dict()["certified"] is True
