"""A claim split into parts (instances dealt round-robin, :func:`run_claim_part`) merges into
exactly the result of the whole run: counts, first violation and its counterexample, the listed
violations, first error and first undecided instance — on every claim of paper 004 (violated and
holding ones) and on a claim whose generator and checks fail."""

from __future__ import annotations

import pytest

from pufferfish.proofs_check.registry import Claim, ClaimOutcome, claims_for
from pufferfish.proofs_check.runner import (merge_parts, run_claim, run_claim_part,
                                           run_first_instances)


def test_parts_of_every_004_claim_merge_into_the_whole_run(claim_results):
    """Split into 2 and 7 parts (more parts than some claims have instances); the whole run of
    each claim is computed once."""
    claims = claims_for(paper="004")
    for claim, result in zip(claims, claim_results(claims).results):
        whole = result.to_dict()
        for parts in (2, 7):
            pieces = [run_claim_part(claim, part, parts) for part in reversed(range(parts))]
            assert merge_parts(claim, pieces).to_dict() == whole, (claim.id, parts)


def flaky_claim() -> Claim:
    """Instances 0..9: odd ones violate, 4 raises, 6 is undecided, the generator fails after 9."""
    def generate():
        yield from range(10)
        raise RuntimeError("generator broke")

    def check(k):
        if k == 4:
            raise ValueError("check broke")
        if k == 6:
            return ClaimOutcome.undecided_at(f"{k} undecided")
        return ClaimOutcome(k % 2 == 0, f"instance {k}", {"k": k} if k % 2 else None)

    return Claim("test.flaky", "test.txt", "§0", "odd numbers are even", generate, check)


@pytest.mark.parametrize("parts", [1, 2, 4, 11])
def test_errors_and_undecided_instances_merge_in_generator_order(parts):
    claim = flaky_claim()
    whole = run_claim(claim)
    merged = merge_parts(claim, [run_claim_part(claim, p, parts) for p in range(parts)])
    assert merged == whole
    assert (whole.instances, whole.violated, whole.errors, whole.undecided) == (10, 5, 2, 1)
    assert whole.first_violation.endswith("instance 1") and whole.first_counterexample == {"k": 1}
    assert whole.first_error.endswith("check broke") and "6 undecided" in whole.first_undecided


def test_first_instances_run_only_those_instances():
    """:func:`run_first_instances` checks the first ``count`` instances and generates no more: the
    generator of :func:`flaky_claim` fails after its tenth instance, unseen with ``count`` ≤ 10."""
    claim = flaky_claim()
    (first,) = run_first_instances([claim]).results
    assert (first.instances, first.violated, first.errors, first.status) == (1, 0, 0, "holds")
    (two,) = run_first_instances([claim], count=2).results
    assert (two.instances, two.violated, two.first_counterexample) == (2, 1, {"k": 1})
    steps = []
    (ten,) = run_first_instances([claim], count=10, progress=steps.append).results
    assert steps == ["test.flaky"]
    assert (ten.instances, ten.violated, ten.errors, ten.undecided) == (10, 5, 1, 1)
    (more,) = run_first_instances([claim], count=11).results
    assert more == run_claim(claim) and more.errors == 2
    with pytest.raises(ValueError):
        run_first_instances([claim], count=0)
