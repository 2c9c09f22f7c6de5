"""The claim registry and runner, and the claims of ``000_65109fe28ca61d17.txt`` §4 (Theorems 1–3).

Every registered claim must hold on all its generated instances; a deliberately false claim must
be reported violated with a counterexample model that is itself a valid model file.
"""

from __future__ import annotations

import json

import pytest

from pufferfish.proofs_check.paper_000.collapse_examples import parity_example
from pufferfish.models.errors import ModelError
from pufferfish.proofs_check.paper_000.collapse import theorem1_instances, theorem2_instances, theorem3_instances
from pufferfish.proofs_check.registry import (Claim, ClaimOutcome, Instance, all_claims, claims_for,
                                   counterexample_dict, register)
from pufferfish.proofs_check.runner import run_claims
from pufferfish.verify.privacy.expected_runs import dataset_classes, expected_runs_to_reveal

PAPER = "000_65109fe28ca61d17.txt"
EXPECTED_IDS = {
    "000.thm1.zero_leakage", "000.thm1.expected_runs_bound", "000.thm1.expected_runs_formula",
    "000.ex41.two_runs", "000.thm2.zero_leakage", "000.thm2.expected_runs", "000.ex42.two_runs",
    "000.thm3.epsilon", "000.thm3.expected_runs", "000.ex43.two_runs", "000.thm3.epsilon_tight",
}


@pytest.fixture(scope="module")
def report(claim_results):
    """The §4 claims (Theorems 1–3), which hold; other sections have their own tests."""
    return claim_results([c for c in claims_for(paper=PAPER) if c.id in EXPECTED_IDS])


def test_paper_000_claims_are_registered():
    ids = {c.id for c in all_claims()}
    assert EXPECTED_IDS <= ids
    claims = {c.id: c for c in claims_for(paper=PAPER)}
    assert set(claims) >= EXPECTED_IDS
    assert claims["000.thm3.epsilon_tight"].observation
    assert not claims["000.thm3.epsilon"].observation
    assert all(c.paper == PAPER for c in claims.values())


def test_every_section_4_claim_holds_on_its_instances(report):
    assert report.holds, report.explain()
    for result in report.results:
        assert result.instances > 0 and result.violated == 0 and result.errors == 0
    data = report.to_dict()
    assert data["holds"] is True and data["violated_claims"] == []
    json.dumps(data)


def test_instance_generators_cover_the_parameter_ranges(report):
    thm2 = [i.params["n"] for i in theorem2_instances()]
    assert thm2 == [3, 4, 5, 6]
    thm1 = [i.label for i in theorem1_instances()]
    assert len(thm1) >= 40
    for needle in ("x in {0..3}", "2 bits", "3 bits", "neither", "uniform", "skewed",
                   "with zeros", "peaked 1-10^-6", "s1=x1=1, s2=x1=0"):
        assert any(needle in label for label in thm1), needle
    thm3 = list(theorem3_instances())
    assert any(i.params["lt"] == i.params["ut"] for i in thm3)           # degenerate interval
    assert any(i.params["lt"] <= 1 / 100 for i in thm3)                  # near 0
    assert any(i.params["uf"] >= 99 / 100 for i in thm3)                 # near 1
    assert len({i.params["sizes"] for i in thm3}) >= 3                   # block sizes
    assert report.result("000.thm3.epsilon").instances == len(thm3)


def test_claims_for_filters_and_rejects_unknown_names():
    assert [c.id for c in claims_for(claim_id="000.thm2.expected_runs")] == ["000.thm2.expected_runs"]
    assert claims_for(paper="000") == claims_for(paper="000_65109fe28ca61d17")
    with pytest.raises(ModelError, match="unknown claim id"):
        claims_for(claim_id="000.thm9.nothing")
    with pytest.raises(ModelError, match="no claims registered for paper"):
        claims_for(paper="999_nope.txt")


def test_register_refuses_a_second_claim_with_the_same_id():
    existing = claims_for(claim_id="000.thm2.expected_runs")[0]
    register(existing)                                  # the same object again: a no-op
    clone = Claim(existing.id, existing.paper, existing.section, existing.statement,
                  existing.generate, existing.check)
    with pytest.raises(ModelError, match="already registered"):
        register(clone)


def _false_parity_check(instance: Instance) -> ClaimOutcome:
    """A deliberately false statement: 'Example 4.2 reveals the dataset in 2 expected runs'."""
    model = parity_example(instance.params["n"])
    prior = model.finite_priors["uniform"].distribution()
    runs = expected_runs_to_reveal(model.mechanism("collapse"), prior, dataset_classes()).expected_runs
    if runs == 2:
        return ClaimOutcome(True, "2 runs")
    return ClaimOutcome(False, f"expected runs {runs}, not 2",
                        counterexample_dict(model, f"expected runs {runs}, not 2"))


def test_a_false_claim_is_reported_violated_with_a_counterexample():
    claim = Claim("test.false.parity_two_runs", PAPER, "test", "Example 4.2 needs 2 expected runs",
                  theorem2_instances, _false_parity_check)
    steps = []
    report = run_claims([claim], progress=steps.append)
    assert steps == ["test.false.parity_two_runs"]
    assert not report.holds
    (result,) = report.results
    assert result.instances == 4 and result.violated == 4 and result.status == "violated"
    assert result.first_violation.startswith("n=3: expected runs 3, not 2")
    counterexample = result.first_counterexample
    assert counterexample["pufferfish_model"] == 1
    modelfile = pytest.importorskip("pufferfish.models.files.pufferfish_file")
    model = modelfile.parse_model(json.loads(json.dumps(counterexample)))
    assert model.universe.size == 8
    assert "VIOLATED" in report.explain()
    assert report.to_dict()["violated_claims"] == ["test.false.parity_two_runs"]


def test_a_crashing_check_is_an_error_not_a_pass():
    def boom(instance):
        raise RuntimeError("bug in the check")

    def nothing():
        return iter(())

    report = run_claims([Claim("test.crash", PAPER, "test", "crashes", theorem2_instances, boom),
                         Claim("test.empty", PAPER, "test", "no instances", nothing, boom)])
    crash, empty = report.results
    assert crash.errors == 4 and not crash.holds and "RuntimeError" in crash.first_error
    assert empty.instances == 0 and not empty.holds and empty.status == "no instances"
    assert not report.holds


def test_an_undecided_instance_is_neither_a_pass_nor_a_violation(monkeypatch, capsys):
    """A check that cannot decide at certified precision says so; the runner counts it apart and
    ``theorems`` exits 3 when nothing is violated but something is undecided."""
    outcomes = iter([ClaimOutcome(True, "decided"), ClaimOutcome.undecided_at("sign open at 8192 bits")])

    def check(instance):
        return next(outcomes)

    claim = Claim("test.undecided", PAPER, "test", "sometimes open",
                  lambda: [Instance("a"), Instance("b")], check)
    report = run_claims([claim])
    (result,) = report.results
    assert (result.instances, result.violated, result.undecided) == (2, 0, 1)
    assert result.status == "undecided" and not result.holds and report.status == "undecided"
    assert result.first_undecided == "b: sign open at 8192 bits"
    data = report.to_dict()
    assert data["undecided_claims"] == ["test.undecided"] and data["violated_claims"] == []
    assert "UNDECIDED on 1/2" in report.explain()
    with pytest.raises(ValueError):
        ClaimOutcome(True, "x", undecided=True)

    from pufferfish.cli.main import main
    from pufferfish.proofs_check import registry

    def fresh_claim():
        state = iter([ClaimOutcome.undecided_at("open")])
        return Claim("test.undecided", PAPER, "test", "open", lambda: [Instance("a")],
                     lambda instance: next(state))

    monkeypatch.setattr(registry, "claims_for", lambda paper=None, claim_id=None: [fresh_claim()])
    assert main(["theorems"]) == 3
    assert "UNDECIDED" in capsys.readouterr().out
    violated = Claim("test.violated", PAPER, "test", "false", lambda: [Instance("a")],
                     lambda instance: ClaimOutcome(False, "no"))
    monkeypatch.setattr(registry, "claims_for",
                        lambda paper=None, claim_id=None: [fresh_claim(), violated])
    assert main(["theorems"]) == 1
