"""``pufferfish demo``: the main job on the shipped example ``quickstart.json`` — its
audit, the three privacy-collapse examples of Bai et al., Composition for Pufferfish Privacy, §4,
and a one-screen summary of the papers' claims, each checked on its first instance only (counts by
verdict and the ids of the claims that do not hold there).  The claims whose first instance alone
takes several seconds (:data:`NOT_RUN_IN_DEMO`) are named and not run.  The demo reports and
exits 0; ``pufferfish theorems`` runs every instance of every claim and is the command that gates
on them."""

from __future__ import annotations

import argparse
import textwrap

from pufferfish.cli.common import EXIT_OK, add_common_options, emit

SCOPE = "first instance of each claim; `pufferfish theorems` runs them all"

NOT_RUN_IN_DEMO = (
    # the Top-K tables: their first cell simulates the experiment's trials (half a minute each)
    "000.table2.ordering", "000.table3.ordering", "000.table4.ordering",
    "000.table5.ordering", "000.table7.ordering", "000.table8.ordering",
    # the first instance expands the paper's constraints symbolically (several seconds)
    "001.eq15.symbolic",
    # the first reading computes the whole figure (MQM and GK16 scales on its grid)
    "002.fig1.readings", "002.fig3.readings", "002.fig4.readings",
)
"""Claims the demo does not run: the first instance of each takes several seconds on a 2-core
machine (together well over a minute), far more than all the other claims' first instances."""

VERDICTS = ("holds", "violated", "error", "undecided", "no instances")


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("demo", help="the main job on the embedded default (some "
                                   "seconds): audit examples/quickstart.json, run the three collapse "
                                   "examples and summarise the claims on their first instance "
                                   "(`pufferfish theorems` runs them all)")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import Progress
    from pufferfish.examples import example_path
    from pufferfish.models.files.pufferfish_file import load_model
    from pufferfish.proofs_check.paper_000.collapse_report import collapse_report
    from pufferfish.proofs_check.registry import claims_for
    from pufferfish.proofs_check.runner import run_first_instances
    from pufferfish.verify.privacy.audit import audit_model

    audit = audit_model(load_model(example_path("quickstart.json")), None)
    collapses = [collapse_report("resample", bits=2), collapse_report("parity", n=3),
                 collapse_report("interval")]
    registered = claims_for()
    skipped = set(NOT_RUN_IN_DEMO)
    selected = [c for c in registered if c.id not in skipped]
    not_run = [c.id for c in registered if c.id in skipped]
    progress = Progress(len(selected), "claims")
    try:
        claims = run_first_instances(selected, count=1, progress=progress.step)
    finally:
        progress.close()
    theorems = {**claims.to_dict(), "scope": "first_instance", "instances_per_claim": 1,
                "registered_claims": len(registered), "not_run": not_run}
    data = {"check": "demo", "audit": audit.to_dict(),
            "collapse": [c.to_dict() for c in collapses], "theorems": theorems,
            "claims_hold": claims.holds, "collapse_statements_hold": all(c.holds for c in collapses)}
    text = "\n\n".join([audit.explain("examples/quickstart.json"),
                        "Privacy collapse (Bai et al., Composition for Pufferfish Privacy, "
                        "§4):\n" +
                        "\n".join(c.explain() for c in collapses),
                        claims_summary(claims, not_run)])
    emit(args, data, text)
    return EXIT_OK


def claims_summary(report, not_run: list[str]) -> str:
    """One screen: how many claims hold, are violated, ... on their first instance, the ids of
    those that do not hold, and the claims not run."""
    by_verdict: dict[str, list[str]] = {verdict: [] for verdict in VERDICTS}
    for result in report.results:
        by_verdict[result.status].append(result.claim.id)
    counts = ", ".join(f"{len(ids)} {'hold there' if verdict == 'holds' else verdict}"
                       for verdict, ids in by_verdict.items()
                       if ids or verdict in ("holds", "violated"))
    lines = [f"The papers' claims ({SCOPE}):",
             f"{len(report.results)} claims on {sum(r.instances for r in report.results)} "
             f"instances: {counts}"]
    for verdict in VERDICTS[1:]:
        if by_verdict[verdict]:
            lines.append(_wrapped(f"{verdict}: ", by_verdict[verdict]))
    if not_run:
        lines.append(_wrapped(f"not run here ({len(not_run)}; the first instance of each takes "
                              "several seconds): ", not_run))
    if by_verdict["violated"]:
        lines.append(textwrap.fill(
            "(a violated claim is a finding about a paper — a printed statement that fails on "
            "an instance, with its counterexample — not a failure of the toolkit: "
            "docs/findings.md explains each; `pufferfish theorems --claim ID` shows one)",
            width=100, initial_indent="  ", subsequent_indent="  "))
    return "\n".join(lines)


def _wrapped(head: str, ids: list[str]) -> str:
    return textwrap.fill(", ".join(ids), width=100, initial_indent="  " + head,
                         subsequent_indent="    ", break_on_hyphens=False)
