"""``pufferfish demo``: the audit of the quickstart example, the three collapse examples and a
one-screen summary of the claims on their first instance, whose verdicts are those of this run."""

from __future__ import annotations

import json

import jsonschema

from pufferfish.cli.demo import NOT_RUN_IN_DEMO, SCOPE
from pufferfish.proofs_check.registry import all_claims


def test_the_demo_prints_the_audit_the_collapses_and_a_claims_summary(cli, tmp_path):
    target = tmp_path / "demo.json"
    code, out, _ = cli("demo", "--output", target)
    assert code == 0
    assert out.startswith("Audit of examples/quickstart.json\n")
    for example in ("Example 4.1 (resample)", "Example 4.2 (parity)", "Example 4.3 (interval)"):
        assert example in out
    summary = out.split("The papers' claims (", 1)[1]
    assert summary.startswith(SCOPE + "):") and len(summary.splitlines()) <= 20

    document = json.loads(target.read_text())
    jsonschema.validate(document, json.loads(_schema_text()))
    theorems = document["theorems"]
    registered = [c.id for c in all_claims()]
    run = [r["id"] for r in theorems["results"]]
    assert theorems["scope"] == "first_instance" and theorems["instances_per_claim"] == 1
    assert theorems["registered_claims"] == len(registered)
    assert sorted(run + theorems["not_run"]) == sorted(registered)
    assert set(theorems["not_run"]) == set(NOT_RUN_IN_DEMO)
    assert all(r["instances"] == 1 for r in theorems["results"])
    assert document["claims_hold"] is (theorems["status"] == "holds")

    statuses = [r["status"] for r in theorems["results"]]
    head = summary.splitlines()[1]
    assert head.startswith(f"{len(run)} claims on {len(run)} instances: "
                           f"{statuses.count('holds')} hold there, "
                           f"{statuses.count('violated')} violated")
    listed = summary.split("violated: ", 1)[1].split("not run here", 1)[0]
    assert [i.strip() for i in listed.replace("\n", " ").split(",")] == [
        r["id"] for r in theorems["results"] if r["status"] == "violated"]
    assert all(claim_id in summary for claim_id in theorems["not_run"])
    if statuses.count("violated"):  # said for what it is: findings about the papers
        assert "not a failure of the toolkit" in " ".join(summary.split())


def test_every_claim_the_demo_leaves_out_is_registered():
    registered = {c.id for c in all_claims()}
    assert set(NOT_RUN_IN_DEMO) <= registered
    assert len(set(NOT_RUN_IN_DEMO)) == len(NOT_RUN_IN_DEMO) < len(registered) // 4


def _schema_text() -> str:
    from importlib.resources import files
    return (files("pufferfish.cli") / "schemas" / "demo.json").read_text()
