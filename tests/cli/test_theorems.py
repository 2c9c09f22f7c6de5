"""``pufferfish theorems``: --vacuity, --coverage and their exit statuses (issue 17)."""

from __future__ import annotations

import json


def test_vacuity_runs_the_mutants_and_lists_claims_without_one(cli):
    code, out, _ = cli("theorems", "--vacuity", "--paper", "004", "--json")
    data = json.loads(out)
    assert code == 0 and data["check"] == "vacuity" and data["holds"] is True
    assert data["without_mutants"] == [] and data["mutants"] >= data["claims"]
    code, out, _ = cli("theorems", "--vacuity", "--claim", "001.lemma2.condition20")
    assert code == 0 and "001.lemma2.condition20: 1/1 mutants killed" in out


def test_coverage_lists_statements_and_refuses_a_claim(cli):
    code, out, _ = cli("theorems", "--coverage", "--paper", "004")
    assert code == 0 and "Theorem 2 (iii)" in out and "NOT CHECKED" in out
    code, _, err = cli("theorems", "--coverage", "--claim", "004.lemma6")
    assert code == 2 and "--paper" in err
    code, _, err = cli("theorems", "--coverage", "--list")
    assert code == 2


def test_a_run_reports_status_and_undecided_claims(cli):
    code, out, _ = cli("theorems", "--claim", "001.lemma2.condition20", "--json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "violated"
    assert data["undecided_claims"] == [] and data["results"][0]["undecided"] == 0
