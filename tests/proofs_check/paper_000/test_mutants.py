"""Every claim of ``000_65109fe28ca61d17.txt`` carries a mutant, and its check kills every mutant
(a deliberately wrong formula, constant or inequality, or an instance outside the hypotheses)."""

from __future__ import annotations

import pytest

from pufferfish.proofs_check.registry import claims_for

CLAIMS = claims_for(paper="000")


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_every_claim_has_a_mutant(claim):
    assert claim.mutants, f"{claim.id} has no mutant"


@pytest.mark.parametrize("mutant", [(c.id, m) for c in CLAIMS for m in c.mutants],
                         ids=lambda pair: f"{pair[0]}: {pair[1].label}")
def test_every_mutant_is_killed(mutant):
    claim_id, m = mutant
    assert m.killed(), f"{claim_id}: mutant {m.label!r} survives"
