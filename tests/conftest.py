"""Fixtures shared by every test folder."""

from __future__ import annotations

import dataclasses

import pytest


@pytest.fixture(scope="session")
def claim_results():
    """``run(claims) -> ClaimsReport``: the report ``run_claims(claims)`` gives in this process,
    with each registered claim run at most once per test process and its ``ClaimResult`` shared
    (it is immutable; the counterexample dict is copied for each caller).  A claim that is not
    the registered object with its id — a test's own claim, or a registered one with parts
    replaced — is run afresh."""
    from pufferfish.proofs_check.registry import all_claims
    from pufferfish.proofs_check.runner import ClaimsReport, run_claim

    done: dict = {}

    def result_of(claim):
        registered = {c.id: c for c in all_claims()}
        if registered.get(claim.id) is not claim:
            return run_claim(claim)
        if claim.id not in done:
            done[claim.id] = run_claim(claim)
        result = done[claim.id]
        return dataclasses.replace(result, first_counterexample=_copy(result.first_counterexample))

    def run(claims) -> ClaimsReport:
        return ClaimsReport(tuple(result_of(claim) for claim in claims))

    return run


def _copy(value):
    import copy
    return copy.deepcopy(value)
