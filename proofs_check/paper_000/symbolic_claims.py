"""Claims of ``000_65109fe28ca61d17.txt`` §4 checked as functions of a prior parameter.

The collapse examples are stated for one prior; here the prior carries a parameter ``t`` and the
toolkit's closed-form level (:func:`pufferfish.verify.symbolic.levels.symbolic_audit`) is compared
with the paper's value *as functions of t*: the check reports the exact set of ``t`` (a union of
intervals with algebraic endpoints) where the two differ, and holds when that set is empty.

``000.ex41.symbolic``   Example 4.1 (Theorem 1): for the prior family θ_t on x ∈ {0,1,2,3} with
                        θ_t = (t/2, (1−t)/2, t/2, (1−t)/2), s1 = "x ∈ {0,1}", s2 = "x ∈ {2,3}",
                        and the mechanism that keeps the input's own half and resamples the other
                        half from θ_t(·|s), one run has Pufferfish level 0 for every t in the range,
                        and two runs have an infinite level for every t.
``000.ex42.prior``      Example 4.2 (observation beyond the paper): the parity mechanism on 3 bits
                        is 0-Pufferfish under i.i.d. bits with Pr[1] = t exactly at t = 1/2 (the
                        paper's uniform prior); the level as a function of t and the exact zero
                        set are reported.

Cost: one symbolic audit per instance (a few seconds at most).

>>> outcome = _check_example41(Instance("t in [1/10, 9/10]", {"low": "1/10", "high": "9/10"}))
>>> outcome.holds, outcome.detail[:45]
(True, 'one run: level 0 on the whole range [1/10, 9/')
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from pufferfish.models.files.pufferfish_file import model_to_dict
from pufferfish.models.parametric import parse_parametric_model
from pufferfish.proofs_check.paper_000.collapse_examples import parity_example
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register
from pufferfish.verify.symbolic.levels import symbolic_audit

PAPER = "000_65109fe28ca61d17.txt"


def example41_file(low: str, high: str, swapped: bool = False) -> dict:
    """The parametric model of Example 4.1 described in the module docstring (``swapped``: the
    mutant that resamples the other half with the weights exchanged, not from θ_t(·|s))."""
    keep, other = ("1-t", "t") if swapped else ("t", "1-t")
    return {
        "pufferfish_model": 1, "parameters": {"t": [low, high]},
        "description": f"{PAPER} §4, Example 4.1 with the prior family θ_t",
        "attributes": ["x"], "domain": [0, 1, 2, 3], "datasets": "all",
        "priors": {"theta": {"table": [[[0], "t/2"], [[1], "(1-t)/2"], [[2], "t/2"],
                                       [[3], "(1-t)/2"]]}},
        "secrets": {"s1": {"where": {"x": [0, 1]}}, "s2": {"where": {"x": [2, 3]}}},
        "pairs": [["s1", "s2"]],
        "mechanisms": {
            "collapse": {"table": [
                [[0], [[[0, 2], keep], [[0, 3], other]]], [[1], [[[1, 2], keep], [[1, 3], other]]],
                [[2], [[[0, 2], "t"], [[1, 2], "1-t"]]], [[3], [[[0, 3], "t"], [[1, 3], "1-t"]]]]},
            "twice": {"repeat": {"mechanism": "collapse", "times": 2}}}}


def _differences(level, expected) -> list[str]:
    """The pieces of a one-parameter level whose ratio is not ``expected`` (None: infinite)."""
    return [f"({piece.low}, {piece.high}): {piece.ratio}" for piece in level.pieces
            if piece.ratio != expected]


def _check_example41(instance: Instance, swapped: bool = False) -> ClaimOutcome:
    low, high = instance.params["low"], instance.params["high"]
    model = parse_parametric_model(example41_file(low, high, swapped))
    audit = symbolic_audit(model)
    once, twice = audit.mechanisms[0].pufferfish, audit.mechanisms[1].pufferfish
    differ_once = _differences(once, 1)
    differ_twice = _differences(twice, None)
    if differ_once or differ_twice:
        return ClaimOutcome(False, f"the level differs from the paper's on: one run "
                                   f"{differ_once or 'nowhere'}; two runs "
                                   f"{differ_twice or 'nowhere'}")
    return ClaimOutcome(True, f"one run: level 0 on the whole range [{low}, {high}] (exact, "
                              f"as a function of t); two runs: infinite on the whole range")


def _example41_instances() -> Iterator[Instance]:
    for low, high in (("1/10", "9/10"), ("1/3", "2/3"), ("1/100", "1/2")):
        yield Instance(f"t in [{low}, {high}]", {"low": low, "high": high})


def parity_file(low: str, high: str) -> dict:
    """Example 4.2's parity mechanism on 3 bits, tabulated, under i.i.d. bits with Pr[1] = t."""
    data = model_to_dict(parity_example(3))
    data["parameters"] = {"t": [low, high]}
    data["priors"] = {"iid": {"independent": {a: {"0": "1-t", "1": "t"}
                                              for a in data["attributes"]}}}
    return data


def _check_parity(instance: Instance) -> ClaimOutcome:
    low, high = instance.params["low"], instance.params["high"]
    audit = symbolic_audit(parse_parametric_model(parity_file(low, high)))
    result = audit.mechanisms[0]
    zero = result.leakage.points if result.leakage.points is not None else ()
    zero_level = [f"[{p.low}, {p.high}]" for p in result.pufferfish.pieces if p.ratio == 1]
    expected = Fraction(1, 2)
    inside = Fraction(low) <= expected <= Fraction(high)
    ok = not zero_level and [str(p) for p in zero] == (["1/2"] if inside else [])
    pieces = "; ".join(p.text("t") for p in result.pufferfish.pieces)
    detail = (f"level {pieces}; leakage zero exactly at {[str(p) for p in zero] or 'no t'}")
    return ClaimOutcome(ok, detail)


def _parity_instances() -> Iterator[Instance]:
    for low, high in (("1/4", "3/4"), ("1/10", "2/5")):
        yield Instance(f"t in [{low}, {high}]", {"low": low, "high": high})


register(Claim(
    "000.ex41.symbolic", PAPER, "§4, Example 4.1 and Theorem 1 (as functions of a prior parameter)",
    "For the prior family θ_t = (t/2, (1−t)/2, t/2, (1−t)/2) on x ∈ {0,1,2,3} and Example 4.1's "
    "resampling mechanism, one run is 0-Pufferfish and two runs have an infinite level, for "
    "every t of the range (exact closed forms; the set of t where they differ must be empty).",
    _example41_instances, _check_example41,
    mutants=(Mutant("resampling with the weights exchanged (not from θ_t(·|s))",
                    lambda: [_check_example41(i, swapped=True) for i in _example41_instances()]),)))

register(Claim(
    "000.ex42.prior", PAPER, "§4, Example 4.2 (observation beyond the paper)",
    "Observation: on 3 bits i.i.d. with Pr[1] = t, the parity mechanism's single-run Pufferfish "
    "level is positive except at t = 1/2 (the paper's uniform prior), where the leakage is zero; "
    "the closed form in t and the exact zero set are reported.",
    _parity_instances, _check_parity, observation=True))
