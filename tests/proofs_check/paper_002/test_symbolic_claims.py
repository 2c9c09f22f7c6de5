"""Paper 002's symbolic claim: the certified map of Lemma B.4 against the exact max-influence of
a two-state chain agrees with the point computation at rational points of every kind of box,
including the rational neighbours of the runs' endpoints."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.proofs_check.paper_002 import symbolic_claims as claims
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.numerics.intervals import interval_context, log_interval
from pufferfish.verify.quilts.chain_influence import family_influence_exact
from pufferfish.verify.quilts.markov_quilts import chain_quilts
from pufferfish.verify.symbolic.certified_map import box_interval


def _point(p0: Fraction, p1: Fraction, a, b):
    """(exact max-influence ratio by the point algorithm, bound interval, hypothesis interval)."""
    length = (a or 0) + (b or 0) + 1
    chain = MarkovChain.binary(p0, p1, length)
    chain = MarkovChain.binary(p0, p1, length, list(chain.stationary()))
    i = (a or 0) + 1
    quilt = next(q for q in chain_quilts(length, i)
                 if q.a == (a or i) and q.b == (b or length + 1 - i))
    ratio, _ = family_influence_exact(ChainFamily((chain,), "given"), quilt)
    ctx = interval_context(96)
    sides = {"p0": ((p0, p0), box_interval(ctx, (p0, p0))),
             "p1": ((p1, p1), box_interval(ctx, (p1, p1)))}
    pi, gap = claims.stationary_and_gap(ctx, sides)
    return (ratio, log_interval(ctx, ratio), claims.lemma_b4_interval(ctx, pi, gap, a, b),
            claims.lemma_b4_hypothesis(ctx, pi, gap, a, b))


def _probes(runs):
    tiny = Fraction(1, 10**6)
    for low, high in runs:
        for x in (low, high, low + tiny, high - tiny, (low + high) / 2):
            if low <= x <= high:
                yield x


@pytest.mark.parametrize("a, b, mutant_violated", [(None, 2, True), (1, 1, False)])
def test_map_agrees_with_point_evaluation(a, b, mutant_violated, monkeypatch):
    bounds = {"p0": ("1/10", "9/10"), "p1": "1/2"}
    _, found = claims.lemma_b4_map(bounds, a, b)
    assert found.boxes["holds"] and not found.boxes["violated"]
    for x in _probes(found.intervals("holds")):
        ratio, log_ratio, bound, hypothesis = _point(x, Fraction(1, 2), a, b)
        assert hypothesis.a >= 0 and log_ratio.b <= bound.a, x
    for x in _probes(found.intervals("outside")):
        *_, hypothesis = _point(x, Fraction(1, 2), a, b)
        assert hypothesis.b < 0, x
    monkeypatch.setattr(claims, "LEMMA_B4_WEIGHTS", (Fraction(1, 8), Fraction(1, 8)))
    _, mutant = claims.lemma_b4_map(bounds, a, b)
    assert bool(mutant.boxes["violated"]) == mutant_violated
    for x in _probes(mutant.intervals("violated")):
        ratio, log_ratio, bound, hypothesis = _point(x, Fraction(1, 2), a, b)
        assert hypothesis.a >= 0 and log_ratio.a > bound.b, x
    for x in _probes(mutant.intervals("holds")):
        ratio, log_ratio, bound, hypothesis = _point(x, Fraction(1, 2), a, b)
        assert log_ratio.b <= bound.a, x


def test_claim_holds_and_mutant_is_killed():
    (claim,) = claims_for(claim_id="002.lemB4.symbolic")
    outcomes = [claim.check(i) for i in list(claim.generate())[:3]]
    assert all(o.holds for o in outcomes)
    assert all(m.killed() for m in claim.mutants)
