"""``theorems --coverage`` (issue 17): the statements modules name only registered claims, every
registered claim of a paper with a statements module appears in one of its statements, and the
command prints the share of checked statements per paper."""

from __future__ import annotations

import json

import pytest

from pufferfish.cli.main import main
from pufferfish.proofs_check import PAPER_PACKAGES
from pufferfish.proofs_check.coverage import Statement, coverage_report, paper_statements
from pufferfish.proofs_check.registry import all_claims
from pufferfish.models.errors import ModelError

PACKAGES_WITH_STATEMENTS = [p for p in PAPER_PACKAGES if paper_statements(p) is not None]


def test_every_paper_has_a_statements_module():
    assert PACKAGES_WITH_STATEMENTS == list(PAPER_PACKAGES)


@pytest.mark.parametrize("package", PACKAGES_WITH_STATEMENTS)
def test_named_claims_are_registered_and_registered_claims_are_named(package):
    registered = {c.id for c in all_claims()}
    statements = paper_statements(package)
    named = {cid for s in statements for cid in s.claims}
    assert named <= registered, sorted(named - registered)
    number = package.removeprefix("paper_")
    own = {c.id for c in all_claims() if c.paper.startswith(number + "_")}
    assert own <= named, sorted(own - named)
    assert len({s.name for s in statements}) == len(statements)
    assert all(s.covered or s.reason for s in statements)


def test_a_package_without_statements_is_reported(monkeypatch):
    from pufferfish.proofs_check import coverage

    real = coverage.paper_statements
    monkeypatch.setattr(coverage, "paper_statements",
                        lambda package: None if package == "paper_002" else real(package))
    report = coverage_report()
    missing = [p for p in report.papers if p.statements is None]
    assert [p.package for p in missing] == ["paper_002"]
    assert "no statements module" in missing[0].explain() and missing[0].percent is None


def test_the_command_prints_the_share_per_paper(capsys):
    assert main(["theorems", "--coverage"]) == 0
    text = capsys.readouterr().out
    for paper in coverage_report().papers:
        if paper.statements is not None:
            assert f"({float(paper.percent):.0f}%)" in text
    assert main(["theorems", "--coverage", "--paper", "001", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (paper,) = data["papers"]
    assert paper["paper"].startswith("001_") and paper["percent"] == "2100/23"
    assert paper["covered"] == 21 and paper["checkable"] == 23
    assert paper["unknown_claims"] == [] and paper["unlisted_claims"] == []


def test_statement_needs_claims_or_a_reason_and_unknown_paper_is_refused():
    with pytest.raises(ValueError):
        Statement("Lemma 9", "§1")
    assert not Statement("Table 1", "§1", reason="notation", checkable=False).checkable
    with pytest.raises(ModelError):
        coverage_report("999")
