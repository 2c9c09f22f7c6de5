"""Comparisons between integer noise values that form a genuine cycle: certified masses by
conditioning on a cut set.

The enclosures are checked against an independent brute force over a window of noise values
(exact rationals, or powers of α grouped by exponent and evaluated at 40 digits) with the mass
outside the window as a rigorous bound: both contain the true value, so they must meet.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import pytest

import pufferfish
from pufferfish.models import PufferfishModel, Universe, entry_pairs
from pufferfish.models.enclosures import Enclosure
from pufferfish.models.priors import UniformPrior
from pufferfish.models.programs import (ProgramError, ProgramMechanism, discrete_laplace,
                                        geometric, laplace, program_distribution)
from pufferfish.models.values import canonical_value


def cyclic(data):
    x, y, z = geometric("1/2"), geometric("1/2"), geometric("1/2")
    return [x >= y + data[0], y >= z, z + 1 >= x]


def two_sided(alpha, z):
    return (1 - alpha) / (1 + alpha) * alpha ** abs(z)


@pytest.mark.parametrize("shift", [0, 2, -1])
def test_a_genuine_cycle_has_certified_masses_that_meet_the_window(shift):
    law = program_distribution(cyclic, (shift,))
    window = 24
    brute: dict = {}
    for x, y, z in product(range(-window, window + 1), repeat=3):
        key = canonical_value([x >= y + shift, y >= z, z + 1 >= x])
        weight = two_sided(Fraction(1, 2), x) * two_sided(Fraction(1, 2), y) * \
            two_sided(Fraction(1, 2), z)
        brute[key] = brute.get(key, Fraction(0)) + weight
    missing = 1 - sum(brute.values())
    assert 0 < missing < Fraction(1, 10**6)
    total = Enclosure.of(0)
    cyclic_paths = 0
    for output, p in law.items():
        enclosure = Enclosure.of(p)
        total = total + enclosure
        if isinstance(p, Enclosure):
            cyclic_paths += 1
            assert p.width < Fraction(1, 2**50)
        lower = brute.get(output, Fraction(0))
        assert enclosure.upper >= lower and enclosure.lower <= lower + missing, output
    assert cyclic_paths >= (1 if shift < 2 else 0)  # at shift 2 the last test is implied
    assert total.contains(1)


def test_a_discrete_laplace_cycle_meets_the_window():
    def close_together(data):
        x = [q + discrete_laplace("1/2") for q in data]
        return [x[0] - x[1] <= 1, x[1] - x[2] <= 1, x[0] - x[2] <= 1]

    data = (0, 1, 0)
    law = program_distribution(close_together, data)
    window = 40
    by_exponent: dict = {}
    for zs in product(range(-window, window + 1), repeat=3):
        x = [q + z for q, z in zip(data, zs)]
        key = canonical_value([x[0] - x[1] <= 1, x[1] - x[2] <= 1, x[0] - x[2] <= 1])
        counts = by_exponent.setdefault(key, {})
        exponent = sum(abs(z) for z in zs)
        counts[exponent] = counts.get(exponent, 0) + 1
    with mpmath.workdps(40):
        alpha = mpmath.e ** (-mpmath.mpf(1) / 2)
        c = (1 - alpha) / (1 + alpha)
        missing = 3 * 2 * alpha ** (window + 1) / (1 + alpha)
        assert missing < mpmath.mpf("1e-7")
        for output, p in law.items():
            brute = c ** 3 * sum(n * alpha ** k for k, n in by_exponent[output].items())
            enclosure = Enclosure.of(p)
            low = mpmath.mpf(enclosure.lower.numerator) / enclosure.lower.denominator
            high = mpmath.mpf(enclosure.upper.numerator) / enclosure.upper.denominator
            assert high >= brute - mpmath.mpf("1e-30") and low <= brute + missing, output


def test_the_certified_dp_level_of_a_cyclic_mechanism_is_decided():
    def close_together(data):
        x = [q + geometric("1/2") for q in data]
        return [x[0] - x[1] <= 1, x[1] - x[2] <= 1, x[0] - x[2] <= 1]

    universe = Universe.product(["a", "b", "c"], [[0, 1]] * 3)
    model = PufferfishModel.build(universe, [UniformPrior("uniform", universe)],
                                  entry_pairs(universe),
                                  [ProgramMechanism("m", close_together, {})])
    # one answer moves by one: one noisy value shifts, so log 2 (α = 1/2) is the most it costs
    holds = pufferfish.approximate_dp(model, "m", epsilon="7/10")  # 0.7 > log 2 ≈ 0.693
    assert holds.certified and not holds.undecided and holds.to_dict()["delta_upper"] == "0"
    # δ(1/2) of the witness pair, independently: a window brute force with its missing mass
    moved = pufferfish.approximate_dp(model, "m", epsilon="1/2")
    witness = moved.to_dict()["witness"]
    assert sorted([witness["dataset"], witness["neighbour"]]) == [[0, 0, 0], [1, 0, 0]]
    window = 20
    laws = []
    for data in (witness["dataset"], witness["neighbour"]):
        law: dict = {}
        for zs in product(range(-window, window + 1), repeat=3):
            x = [q + z for q, z in zip(data, zs)]
            key = (x[0] - x[1] <= 1, x[1] - x[2] <= 1, x[0] - x[2] <= 1)
            law[key] = law.get(key, 0) + (1 << (3 * window - sum(abs(z) for z in zs)))
        laws.append({k: Fraction(w, 27 << (3 * window)) for k, w in law.items()})
    missing = 1 - sum(laws[0].values())
    with mpmath.workdps(40):
        e_half = mpmath.e ** mpmath.mpf(0.5)
        outputs = set(laws[0]) | set(laws[1])
        p = {k: mpmath.mpf(laws[0].get(k, 0).numerator) / laws[0].get(k, 1).denominator
             for k in outputs}
        q = {k: mpmath.mpf(laws[1].get(k, 0).numerator) / laws[1].get(k, 1).denominator
             for k in outputs}
        m = mpmath.mpf(missing.numerator) / missing.denominator
        low = sum(max(0, p[k] - e_half * (q[k] + m)) for k in outputs)
        high = sum(max(0, p[k] + m - e_half * q[k]) for k in outputs)
        lower, upper = (mpmath.mpf(Fraction(moved.to_dict()[f"delta_{side}"]).numerator)
                        / Fraction(moved.to_dict()[f"delta_{side}"]).denominator
                        for side in ("lower", "upper"))
        assert low > 0
        assert upper >= low - mpmath.mpf("1e-12") and lower <= high + mpmath.mpf("1e-12")


def test_cycles_outside_the_conditioning_are_still_refused():
    def continuous_cycle(data):
        x, y, z = laplace(1), laplace(1), laplace(1)
        return [x >= y, y >= z, z + 1 >= x]

    with pytest.raises(ProgramError, match="cyclic"):
        program_distribution(continuous_cycle, (0,))

    def sum_on_a_cycle(data):
        x, y, z = geometric("1/2"), geometric("1/2"), geometric("1/2")
        s = x + y
        return [s >= z, z >= x, x + 1 >= s]

    with pytest.raises(ProgramError, match="cycl"):
        program_distribution(sum_on_a_cycle, (0,))


@pytest.mark.parametrize("kind", ["cycle", "gaussian"])
def test_certified_probabilities_on_some_datasets_only_reroute_the_audit(kind):
    from pufferfish.models.programs import gaussian

    def sometimes(data):
        if data[0] == 0:  # the first dataset's law is exact
            return geometric("1/2") >= data[1]
        if kind == "gaussian":
            return gaussian(2) >= data[1]
        x = [q + geometric("1/2") for q in data]
        return x[0] - x[1] <= 1 and x[1] - x[2] <= 1 and x[0] - x[2] <= 1

    universe = Universe.product(["a", "b", "c"], [[0, 1]] * 3)
    model = PufferfishModel.build(universe, [UniformPrior("uniform", universe)],
                                  entry_pairs(universe),
                                  [ProgramMechanism("m", sometimes, {})])
    result = pufferfish.audit(model, "1")
    data = result.to_dict()
    assert data["certified"] is True
    assert data["mechanisms"][0]["pufferfish"]["check"] == "pufferfish_certified"


def test_a_cycle_with_epsilon_as_a_symbol_is_refused():
    from pufferfish.models.programs import EPSILON

    def symbolic_cycle(data, epsilon):
        x, y, z = (discrete_laplace(epsilon) for _ in range(3))
        return [x >= y, y >= z, z + 1 >= x]

    with pytest.raises(ProgramError, match="cyclic"):
        program_distribution(symbolic_cycle, (0,), {"epsilon": EPSILON})
    assert program_distribution(symbolic_cycle, (0,), {"epsilon": 1})  # certified at a fixed ε
