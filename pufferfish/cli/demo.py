"""``pufferfish demo``: the main job on the shipped example ``quickstart.json`` — its audit, the
collapse examples of ``000_65109fe28ca61d17.txt`` §4 and every registered claim.  The demo
reports and exits 0; ``pufferfish theorems`` is the command that gates on the claims."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import EXIT_OK, add_common_options, emit
from pufferfish.verify.report import Progress


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("demo", help="the main job on the embedded default: audit "
                                   "examples/quickstart.json, run the collapse examples and the "
                                   "claims")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.examples import example_path
    from pufferfish.models.files.pufferfish_file import load_model
    from pufferfish.proofs_check.paper_000.collapse_report import collapse_report
    from pufferfish.proofs_check.registry import claims_for
    from pufferfish.proofs_check.runner import run_claims
    from pufferfish.verify.privacy.audit import audit_model

    audit = audit_model(load_model(example_path("quickstart.json")), None)
    collapses = [collapse_report("resample", bits=2), collapse_report("parity", n=3),
                 collapse_report("interval")]
    progress = Progress(len(claims_for()), "claims")
    try:
        claims = run_claims(claims_for(), progress=progress.step)
    finally:
        progress.close()
    data = {"check": "demo", "audit": audit.to_dict(),
            "collapse": [c.to_dict() for c in collapses], "theorems": claims.to_dict(),
            "claims_hold": claims.holds, "collapse_statements_hold": all(c.holds for c in collapses)}
    text = "\n\n".join([audit.explain("examples/quickstart.json"),
                        "Privacy collapse (000_65109fe28ca61d17.txt §4):\n" +
                        "\n".join(c.explain() for c in collapses),
                        claims.explain()])
    emit(args, data, text)
    return EXIT_OK
