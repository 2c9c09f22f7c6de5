"""Vacuity meta-test (issue 17): every mutant of every registered claim is killed by the claim's
check, and every claim carries at least one mutant."""

from __future__ import annotations

import pytest

from pufferfish.proofs_check.registry import ClaimOutcome, Mutant, all_claims
from pufferfish.proofs_check.runner import run_mutants, run_vacuity

CLAIMS_WITH_MUTANTS = [c for c in all_claims() if c.mutants]


@pytest.mark.parametrize("claim", CLAIMS_WITH_MUTANTS, ids=lambda c: c.id)
def test_every_mutant_is_killed(claim):
    result = run_mutants(claim)
    assert result.status == "killed", result.explain()


def test_every_claim_has_a_mutant():
    claims = all_claims()
    assert len({c.paper for c in claims}) == 4
    assert [c.id for c in claims if not c.mutants] == []


def test_a_surviving_or_crashing_mutant_is_reported():
    claim = next(c for c in all_claims() if c.id == "001.table5.printed")
    survivor = Mutant("holds anyway", lambda: [ClaimOutcome(True, "fine")])
    undecided = Mutant("only undecided", lambda: [ClaimOutcome.undecided_at("open")])

    def crash():
        raise RuntimeError("boom")

    crashing = Mutant("crashes", crash)
    from dataclasses import replace
    report = run_vacuity([replace(claim, mutants=(survivor, undecided, crashing)),
                          replace(claim, mutants=())])
    first, empty = report.results
    assert first.status == "survived" and first.killed == ()
    assert any("RuntimeError" in label for label in first.survived)
    assert empty.status == "no mutants" and not report.holds
    data = report.to_dict()
    assert data["survived"] == ["001.table5.printed"] and data["mutants"] == 3
    assert "SURVIVED" in report.explain() and "NO MUTANT" in report.explain()
