"""Paper 001's symbolic claim: the exact failing set of a calibration agrees with the toolkit's
certified Laplace level at rational points inside, outside and next to its endpoint; the
certified map's verdicts; the mutant."""

from __future__ import annotations

from fractions import Fraction

import sympy

from pufferfish.models.multiuser import others_sum
from pufferfish.proofs_check.paper_001 import symbolic_claims as claims
from pufferfish.proofs_check.paper_001.instances import paper_bernoulli_model
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.numerics.intervals import endpoints, interval_context, rational_interval
from pufferfish.verify.transport.laplace_mixture import laplace_mixture_sup_ratio


def _tilted(p, c):
    """A calibration that is too small below p = 1/2 and larger above."""
    return p / (c - 1 + p) * (1 + (p - sympy.Rational(1, 2)) / 5)


def _level_above(p: Fraction, r: Fraction):
    """Whether X + Lap(θ) exceeds log r (True), stays below (False), θ = −1/log u(p) enclosed."""
    ctx = interval_context(120)
    u = Fraction(str(_tilted(p, r)))
    theta_low, theta_high = endpoints(-1 / ctx.log(rational_interval(ctx, u)))
    others = {s: w for s, w in others_sum(paper_bernoulli_model(), "u4").items()}
    present: dict = {}
    for s, w in others.items():
        present[s] = present.get(s, Fraction(0)) + w * (1 - p)
        present[s + 1] = present.get(s + 1, Fraction(0)) + w * p
    ratios = [laplace_mixture_sup_ratio(a, b, theta_high, 100) for a, b in
              ((present, others), (others, present))]
    if any(x.lower > r for x in ratios):
        return True
    ratios = [laplace_mixture_sup_ratio(a, b, theta_low, 100) for a, b in
              ((present, others), (others, present))]
    assert all(x.upper <= r for x in ratios), p
    return False


def test_failing_set_agrees_with_the_certified_level(monkeypatch):
    monkeypatch.setattr(claims, "_laplace_decay", _tilted)
    failing = claims.eq15_failing_set(Fraction(2), Fraction(1, 100), Fraction(99, 100))
    assert failing.text() == "[1/100, 1/2)"
    tiny = Fraction(1, 10**6)
    for p in (Fraction(1, 100), Fraction(1, 4), Fraction(1, 2) - tiny, Fraction(1, 2) + tiny,
              Fraction(3, 4), Fraction(99, 100)):
        assert _level_above(p, Fraction(2)) == failing.contains(p), p


def test_claim_holds_with_the_level_exactly_epsilon_and_the_mutant_is_killed():
    (claim,) = claims_for(claim_id="001.eq15.symbolic")
    outcome = claim.check(next(iter(claim.generate())))
    assert outcome.holds and "equals ε exactly" in outcome.detail
    assert all(m.killed() for m in claim.mutants)


def test_certified_map_finds_the_tilted_calibration_violated(monkeypatch):
    monkeypatch.setattr(claims, "_laplace_decay", _tilted)
    found = claims.eq15_map((Fraction(1, 20), Fraction(19, 20)), (Fraction(1, 2), Fraction(1)),
                            Fraction(1, 16))
    assert found.boxes["violated"] and found.counterexample is not None
    p, epsilon = found.counterexample
    assert p < Fraction(1, 2)
