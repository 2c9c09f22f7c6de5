"""``pufferfish theorems [--paper P] [--claim ID] [--list | --vacuity | --coverage]``: check the
papers' claims on their generated instances (:mod:`pufferfish.proofs_check.registry`,
:mod:`pufferfish.proofs_check.runner`).  ``--vacuity`` runs every claim's mutants (exit 1 when a
mutant survives); ``--coverage`` lists each paper's numbered statements with the claims checking
them (:mod:`pufferfish.proofs_check.coverage`; exit 0, it only reports).
Exit 1 when a claim is violated on some instance (or a check fails to run), 3 when nothing is
violated but some instance could not be decided at certified precision."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, add_common_options,
                                   UsageError, add_execution_options, emit, execution_engine)
from pufferfish.cli.common import refuse_execution_options


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("theorems", help="check the papers' claims on generated "
                                   "instances")
    parser.add_argument("--paper", help="a paper by its number: 000 (Bai et al., Composition for "
                        "Pufferfish Privacy), 001 (Ding et al.), 002 (Wang et al.), 004 (Zhang "
                        "et al.); see docs/bibliography.md")
    parser.add_argument("--claim", help="one claim id (see --list)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="list the registered claims")
    mode.add_argument("--vacuity", action="store_true",
                      help="run every claim's mutants (deliberately wrong variants its check "
                           "must reject) and list the claims without one")
    mode.add_argument("--coverage", action="store_true",
                      help="list each paper's numbered statements with the claims checking them")
    parser.add_argument("--markdown", action="store_true",
                        help="print the claims that do not hold as a Markdown table (the "
                             "findings page, docs/findings.md) instead of the report")
    add_common_options(parser)
    add_execution_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import Progress, table
    from pufferfish.proofs_check.registry import claims_for
    from pufferfish.proofs_check.runner import run_claims, run_vacuity

    if args.coverage or args.list:
        refuse_execution_options(args, "a run of the claims or of their mutants (--vacuity)")
    if args.coverage:
        if args.claim is not None:
            raise UsageError("--coverage reports whole papers: use --paper, not --claim")
        from pufferfish.proofs_check.coverage import coverage_report
        report = coverage_report(args.paper)
        emit(args, report.to_dict(), report.explain())
        return EXIT_OK
    if args.markdown and (args.json or args.list or args.vacuity):
        raise UsageError("--markdown prints the findings of a run: not with --json, --list or "
                         "--vacuity")
    claims = claims_for(paper=args.paper, claim_id=args.claim)
    if args.vacuity:
        progress = Progress(len(claims), "claims")
        try:
            with execution_engine(args) as engine:
                vacuity = run_vacuity(claims, progress=progress.step, engine=engine)
        finally:
            progress.close()
        emit(args, vacuity.to_dict(), vacuity.explain())
        return EXIT_OK if vacuity.holds else EXIT_VIOLATED
    if args.list:
        text = table(["id", "paper, section", "statement"],
                     [[c.id, c.citation, c.statement[:70]] for c in claims])
        emit(args, {"claims": [{"id": c.id, "paper": c.paper, "citation": c.citation,
                                "section": c.section, "statement": c.statement}
                               for c in claims]}, text)
        return EXIT_OK
    progress = Progress(len(claims), "claims")
    try:
        with execution_engine(args) as engine:
            report = run_claims(claims, progress=progress.step, engine=engine)
    finally:
        progress.close()
    if args.markdown:
        from pufferfish.proofs_check.findings import findings_markdown
        emit(args, report.to_dict(), findings_markdown(report.to_dict()))
    else:
        emit(args, report.to_dict(), report.explain())
    return {"holds": EXIT_OK, "undecided": EXIT_UNDECIDED}.get(report.status, EXIT_VIOLATED)
