"""The symbolic claims of paper 000 (Examples 4.1–4.2 as functions of a prior parameter)."""

from __future__ import annotations

from pufferfish.proofs_check.paper_000.symbolic_claims import example41_file, parity_file
from pufferfish.proofs_check.registry import Instance, claims_for
from pufferfish.models.parametric import parse_parametric_model
from pufferfish.verify.symbolic.levels import symbolic_audit


def test_claims_hold_and_their_mutant_is_killed():
    for claim_id in ("000.ex41.symbolic", "000.ex42.prior"):
        (claim,) = claims_for(claim_id=claim_id)
        assert all(claim.check(i).holds for i in claim.generate())
        assert all(m.killed() for m in claim.mutants)


def test_example41_mutant_differs_everywhere_but_one_half():
    audit = symbolic_audit(parse_parametric_model(example41_file("1/10", "9/10", swapped=True)))
    pieces = audit.mechanisms[0].pufferfish.pieces
    assert [str(p.low) for p in pieces] == ["1/10", "1/2"]
    assert all(p.ratio != 1 for p in pieces)


def test_parity_zero_set_is_the_uniform_prior():
    (claim,) = claims_for(claim_id="000.ex42.prior")
    outcome = claim.check(Instance("t", {"low": "1/4", "high": "3/4"}))
    assert outcome.holds and "leakage zero exactly at ['1/2']" in outcome.detail
    model = parse_parametric_model(parity_file("1/10", "2/5"))
    assert symbolic_audit(model).mechanisms[0].leakage.points == ()


def test_theorem8_difference_region_agrees_with_the_point_computation():
    from fractions import Fraction

    from pufferfish.models.polynomials import below
    from pufferfish.proofs_check.paper_000.figures import binary_chain_model
    from pufferfish.proofs_check.paper_000.influence import theorem8_ratio
    from pufferfish.proofs_check.paper_000.symbolic_claims import theorem8_differences
    from pufferfish.verify.influence.chains import chain_influence_curve

    q, length, b = Fraction(1, 2), 5, 2
    differ = theorem8_differences(q, length, b)
    assert [(str(low), str(high)) for low, high, *_ in differ] == [("1/100", "1/2")]
    for p in (Fraction(1, 50), Fraction(1, 4), Fraction(49, 100), Fraction(51, 100),
              Fraction(3, 4), Fraction(98, 100)):
        inside = any(below(low, p) and not below(high, p) for low, high, *_ in differ)
        curve = chain_influence_curve(binary_chain_model(p, q, length), max_b=b)
        assert (curve.at(b).max_ratio != theorem8_ratio(p, q, b)) == inside, p
