"""The joint release one mechanism at a time (:mod:`pufferfish.verify.structured.composed`)
against the mixture over the joint codes it replaces (``factored=False``: a product distribution
per code) and against the enumerating audit: the same outputs in the same order, the same exact
masses, levels and witnesses; and its float bounds contain the exact masses."""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import fmpq

from pufferfish.api import audit, load
from pufferfish.models.mechanisms import (GeometricNoise, Query, QueryMechanism,
                                          RandomizedResponse, compose, repeat)
from pufferfish.verify.structured.audit import structured_pufferfish
from pufferfish.verify.structured.composed import ComposedMixture
from pufferfish.verify.structured.laws import output_laws


def chain(width: int, states: int = 2, count: int = 3, low: int = 1, high: int = 3,
          alpha: str = "1/2") -> dict:
    names = [f"x{t}" for t in range(1, width + 1)]
    values = [str(v) for v in range(states)]
    stay = {"2": ("9/10", "1/10"), "3": ("4/5", "1/10")}[str(states)]
    transition = {v: {w: stay[0] if v == w else stay[1] for w in values} for v in values}
    return {
        "pufferfish_model": 1, "attributes": names, "domain": list(range(states)),
        "datasets": "all",
        "priors": {"chain": {"markov": {"initial": {v: f"1/{states}" for v in values},
                                        "transition": transition}},
                   "start": {"markov": {"initial": {v: ("1" if v == "0" else "0")
                                                    for v in values},
                                        "transition": transition}}},
        "entry_pairs": True,
        "mechanisms": {
            "sum": {"query": "sum", "noise": {"geometric": {"alpha": alpha, "min": 0,
                                                            "max": (states - 1) * width}}},
            "count": {"query": {"count": {"attributes": names[:count]}},
                      "noise": {"geometric": {"alpha": alpha, "min": low, "max": high}}}}}


def joints(model):
    """Compositions of several shapes: two noisy queries (and in the other order), a noisy query
    with randomized response on one attribute, a repetition, a nested composition, a query
    without noise, and two runs of one query (a component read twice)."""
    u = model.universe
    total, count = model.mechanisms["sum"], model.mechanisms["count"]
    rr = RandomizedResponse("rr", u, Fraction(3, 4), ["x2"])
    exact_sum = QueryMechanism("exact", u, Query("sum", u))
    parity = QueryMechanism("parity", u, Query("parity", u, ["x1", "x3"]),
                            GeometricNoise(Fraction(1, 3), 0, 1))
    return [compose([total, count]), compose([count, total]), compose([total, rr]),
            repeat(count, 2), compose([compose([count, rr]), total]),
            compose([exact_sum, count]), compose([total, count, total]),
            compose([parity, rr, count])]


def level(result):
    witness = result.witness
    return (result.max_ratio, witness and (witness.first, witness.second, witness.prior,
                                           witness.output, witness.p_first, witness.p_second))


@pytest.mark.parametrize("width, states", [(5, 2), (4, 3)])
def test_the_factored_laws_equal_the_mixture_over_joint_codes(width, states):
    model = load(chain(width, states))
    for mechanism in joints(model):
        factored = output_laws(model, mechanism)
        reference = output_laws(model, mechanism, factored=False)
        for name, laws in factored.items():
            assert isinstance(laws._keys, ComposedMixture), mechanism.name
            assert laws.outputs == reference[name].outputs, mechanism.name
            for secret in [None, *model.secrets.values()]:
                assert laws.exact(secret) == reference[name].exact(secret), mechanism.name
        for screen_above in (0, 10**9):
            screened = output_laws(model, mechanism, screen_above=screen_above)
            assert (level(structured_pufferfish(model, mechanism, screened))
                    == level(structured_pufferfish(model, mechanism, reference))), mechanism.name


def test_a_longer_chain_gives_the_same_level_and_witness_as_the_joint_codes():
    model = load(chain(24, count=7, low=2, high=6))
    mechanism = compose(list(model.mechanisms.values()))
    assert (level(structured_pufferfish(model, mechanism, output_laws(model, mechanism)))
            == level(structured_pufferfish(model, mechanism,
                                           output_laws(model, mechanism, factored=False))))


@pytest.mark.parametrize("width, states, alpha", [(6, 2, "1/2"), (4, 3, "2/3"), (5, 2, "0")])
def test_the_joint_release_equals_the_enumerating_audit(width, states, alpha):
    data = chain(width, states, alpha=alpha)
    enumerated = audit(data, method="enumeration").composition.joint
    structured = audit(data, method="structured").composition.joint
    assert level(structured) == level(enumerated)


def test_a_composed_mechanism_of_the_model_is_audited_as_by_enumeration():
    data = chain(5)
    data["mechanisms"]["both"] = {"compose": ["sum", "count"]}
    enumerated = audit(data, method="enumeration").mechanisms[2]
    structured = audit(data, method="structured").mechanisms[2]
    assert level(structured.pufferfish) == level(enumerated.pufferfish)
    assert structured.leakage.worst_shift == enumerated.leakage.worst_shift


def test_the_float_bounds_contain_every_exact_mass():
    model = load(chain(30, count=9, low=2, high=7))
    for mechanism in joints(model)[:5]:
        laws = output_laws(model, mechanism)["chain"]
        mixture = laws._keys
        for secret in [None, *list(model.secrets.values())[::7]]:
            law = laws._total_law if secret is None else laws.law(secret)
            lower, upper, shift = mixture.bounds(law)
            unit = Fraction(2 ** shift, int(law.denom()))
            for o, mass in enumerate(laws.exact(secret)):
                exact = Fraction(int(mass.p), int(mass.q)) / unit
                assert Fraction(lower[o]) <= exact <= Fraction(upper[o]), (mechanism.name, o)
            assert laws.exact_at(secret, [0, len(laws.outputs) - 1]) == {
                0: laws.exact(secret)[0], len(laws.outputs) - 1: laws.exact(secret)[-1]}


def test_candidates_keep_every_output_that_may_attain_the_maximum():
    import numpy as np

    first = (np.array([1.0, 2.0, 0.5, 0.0]), np.array([1.5, 2.5, 0.6, 1.0]), 0)
    second = (np.array([1.0, 1.0, 1.0, 0.0]), np.array([1.2, 1.2, 1.2, 1.0]), 0)
    # ratios: [0.83, 1.25]... best lower 2/1.2 = 1.67; output 0's upper 1.5 < 1.67 is dropped,
    # output 2's too; output 3's second bound reaches 0: its ratio may be infinite
    assert ComposedMixture.ratio_candidates(first, second) == [1, 3]


def test_the_mass_of_every_output_sums_to_the_prior():
    model = load(chain(8))
    laws = output_laws(model, compose(list(model.mechanisms.values())))["chain"]
    assert sum(laws.exact(None), fmpq(0)) == 1
