"""Claims of ``002_e1f2e9a9937b8cda.txt`` added for Lemma A.6 and Lemma B.12, and B.10's γ by brute
force: they hold (or fail) as recorded, and the brute force agrees with the Markov-blanket formula."""

from __future__ import annotations

from fractions import Fraction

from pufferfish.proofs_check.paper_002.appendix_lemmas import chain_properties, stationary
from pufferfish.proofs_check.paper_002.quilt_chain_bounds import gamma_ratio_by_definition
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.quilts.gk16 import gk16_gamma_ratio


def test_lemma_claims_hold(claim_results):
    report = claim_results([c for c in claims_for(paper="002")
                            if c.id in ("002.lemA6.mixture", "002.lemB12.binary_chain",
                                        "002.thmA5.group_dp", "002.A3.optimality",
                                        "002.B10.spectral_norm")])
    assert report.holds, report.explain()


def test_gamma_brute_force_matches_the_blanket_formula():
    for p0, p1 in ((Fraction(1, 10), Fraction(1, 10)), (Fraction(9, 10), Fraction(1, 2)),
                   (Fraction(2, 5), Fraction(2, 5))):
        assert gamma_ratio_by_definition(p0, p1) == gk16_gamma_ratio(p0, p1)


def test_a_three_state_chain_can_be_irreversible():
    cyclic = ((Fraction(1, 10), Fraction(8, 10), Fraction(1, 10)),
              (Fraction(1, 10), Fraction(1, 10), Fraction(8, 10)),
              (Fraction(8, 10), Fraction(1, 10), Fraction(1, 10)))
    assert chain_properties(cyclic) == (True, True, False)
    assert stationary(cyclic) == [Fraction(1, 3)] * 3


def test_gamma_structure_fails_only_at_the_chain_ends():
    from pufferfish.proofs_check.registry import Instance

    claim = next(c for c in claims_for(paper="002") if c.id == "002.B10.gamma_structure")
    iid = claim.check(Instance("iid", {"p0": Fraction(1, 2), "p1": Fraction(1, 2)}))
    assert iid.holds
    sticky = claim.check(Instance("sticky", {"p0": Fraction(3, 5), "p1": Fraction(3, 5)}))
    assert not sticky.holds and "(1,2): 3/2" in sticky.detail and "(2,3): 13/8" in sticky.detail
    assert sticky.counterexample is not None
