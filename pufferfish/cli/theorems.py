"""``pufferfish theorems [--paper P] [--claim ID] [--list]``: check the papers' claims on their
generated instances (:mod:`pufferfish.proofs_check.registry`, :mod:`pufferfish.proofs_check.runner`).
Exit 1 when a claim is violated on some instance (or a check fails to run), 3 when nothing is
violated but some instance could not be decided at certified precision."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, add_common_options,
                                   emit)
from pufferfish.verify.report import Progress, table


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("theorems", help="check the papers' claims on generated "
                                   "instances")
    parser.add_argument("--paper", help="paper file name (e.g. 000_65109fe28ca61d17.txt)")
    parser.add_argument("--claim", help="one claim id (see --list)")
    parser.add_argument("--list", action="store_true", help="list the registered claims")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.proofs_check.registry import claims_for
    from pufferfish.proofs_check.runner import run_claims

    claims = claims_for(paper=args.paper, claim_id=args.claim)
    if args.list:
        text = table(["id", "paper", "section", "statement"],
                     [[c.id, c.paper, c.section, c.statement[:70]] for c in claims])
        emit(args, {"claims": [{"id": c.id, "paper": c.paper, "section": c.section,
                                "statement": c.statement} for c in claims]}, text)
        return EXIT_OK
    progress = Progress(len(claims), "claims")
    try:
        report = run_claims(claims, progress=progress.step)
    finally:
        progress.close()
    emit(args, report.to_dict(), report.explain())
    return {"holds": EXIT_OK, "undecided": EXIT_UNDECIDED}.get(report.status, EXIT_VIOLATED)
