"""The findings of a claims run as a Markdown table: the page "What the claims found"
(:doc:`/findings`).

The table is rendered from the JSON document of ``pufferfish theorems --json`` (a
:meth:`~pufferfish.proofs_check.runner.ClaimsReport.to_dict`), never written by hand, so the
page cannot drift from what the program finds: ``pufferfish theorems --markdown`` prints it,
and ``tests/test_findings.py`` compares it with that page (``--update`` rewrites the section).
One row per claim that does not hold — violated, undecided, failed to run or without
instances — by paper and claim id, with its first counterexample or open interval as the check
reported it.

>>> print(findings_markdown({"claims": 1, "instances": 3, "results": [
...     {"id": "x.thm1", "paper": "000", "section": "§1", "status": "holds",
...      "instances": 3, "violated": 0, "undecided": 0, "errors": 0}]}))
1 claims on 3 instances: every claim holds.
"""

from __future__ import annotations

from pufferfish.bibliography import cite

DETAIL_LENGTH = 220
"""Characters of a counterexample's description shown in the table (the JSON has it all)."""


def findings_markdown(document: dict) -> str:
    """The summary line and the table of claims that do not hold, from ``theorems --json``."""
    results = document["results"]
    # by paper and id: the registry's order depends on which claim modules were imported first
    failing = sorted((r for r in results if r["status"] != "holds"),
                     key=lambda r: (r["paper"], r["id"]))
    counts = {status: sum(r["status"] == status for r in results)
              for status in ("violated", "undecided", "error", "no instances")}
    head = f"{document['claims']} claims on {document['instances']} instances: "
    if not failing:
        return head + "every claim holds."
    parts = [f"{n} {status}" for status, n in counts.items() if n]
    lines = [head + f"{len(results) - len(failing)} hold, " + ", ".join(parts) + ".", "",
             "| claim | paper, section | result | first counterexample or open case |",
             "|---|---|---|---|"]
    for r in failing:
        source = cite(f"{r['paper']} {r['section']}")
        lines.append(f"| `{r['id']}` | {source} | {_result(r)} | "
                     f"{_cell(_detail(r))} |")
    return "\n".join(lines)


def _result(r: dict) -> str:
    if r["status"] == "violated":
        return f"violated on {r['violated']}/{r['instances']}"
    if r["status"] == "undecided":
        return f"undecided on {r['undecided']}/{r['instances']}"
    if r["status"] == "error":
        return f"check failed on {r['errors']}/{r['instances']}"
    return "no instances"


def _detail(r: dict) -> str:
    for key in ("first_violation", "first_undecided", "first_error"):
        if r.get(key):
            return r[key]
    return ""


def _cell(text: str) -> str:
    """One table cell: one line, pipes escaped, cut at :data:`DETAIL_LENGTH` characters."""
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= DETAIL_LENGTH else text[:DETAIL_LENGTH - 1].rstrip() + "…"
