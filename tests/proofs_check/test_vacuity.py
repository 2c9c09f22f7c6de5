"""Vacuity meta-test (issue 17): every mutant of every registered claim is killed by the claim's
check, and the claims that carry no mutant yet are exactly a pinned set that can only shrink."""

from __future__ import annotations

import pytest

from pufferfish.proofs_check.registry import ClaimOutcome, Mutant, all_claims
from pufferfish.proofs_check.runner import run_mutants, run_vacuity

WITHOUT_MUTANTS = {
    "000.thm1.zero_leakage", "000.thm1.expected_runs_bound", "000.thm1.expected_runs_formula",
    "000.ex41.two_runs", "000.thm2.zero_leakage", "000.thm2.expected_runs", "000.ex42.two_runs",
    "000.thm3.epsilon", "000.thm3.expected_runs", "000.ex43.two_runs", "000.thm3.epsilon_tight",
    "000.thm4.dp_one_hot", "000.thm4.collapse_fails", "000.thm4.limit",
    "000.thm4.strong_duality", "000.thm5.one_hot_invariant", "000.thm5.mixed_not_invariant",
    "000.thm5.pufferfish_dp_invariance", "000.thm5.every_constraint_invariant",
    "000.thm8.closed_form", "000.thm8.boundary", "000.thm6.translation", "000.thm7.composition",
    "000.thm9.centre", "000.thm9.farthest_low",
    "002.thm3.2.private", "002.thm3.3.group_sensitivity", "002.thm3.3.mutual", "002.flu.numbers",
    "002.flu.realizable", "002.thmA8.epsilon_delta", "002.winf.comonotone",
    "002.def42.dsep_independence", "002.lemB2.chain_quilts", "002.lemB3.minimal_suffice",
    "002.lemB4.bound", "002.lemB5.mixing", "002.lemB6", "002.lemB7",
    "002.claimB10.fast_le_basic", "002.claimB11.fast_private", "002.claimB11.exact_influence",
    "002.alg4.literal_finite", "002.thm4.4.utility", "002.B10.gamma_formula",
    "002.thm4.3.private", "002.thmB9.consistency", "002.thmB9.proof_constant",
}
"""Claims with no mutant yet (papers 000 and 002).  The set may only shrink: a new claim comes
with its mutants."""

CLAIMS_WITH_MUTANTS = [c for c in all_claims() if c.mutants]


@pytest.mark.parametrize("claim", CLAIMS_WITH_MUTANTS, ids=lambda c: c.id)
def test_every_mutant_is_killed(claim):
    result = run_mutants(claim)
    assert result.status == "killed", result.explain()


def test_every_claim_of_papers_001_and_004_has_a_mutant():
    claims = [c for c in all_claims() if c.paper.startswith(("001_", "004_"))]
    assert claims and all(c.mutants for c in claims)


def test_claims_without_mutants_are_a_shrinking_pinned_set():
    without = {c.id for c in all_claims() if not c.mutants}
    assert without <= WITHOUT_MUTANTS, sorted(without - WITHOUT_MUTANTS)


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
