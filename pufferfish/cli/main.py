"""The ``pufferfish`` command line (DESIGN.md, "Command line").

Every subcommand prints a readable table by default and the full result object with ``--json``
(or writes it atomically with ``--output FILE``), and exits 0 when the property checked holds or
the command only computes, 1 when it is violated, 2 on bad input or usage (one paragraph, no
traceback unless ``--debug``).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.numbers import epsilon_float, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.report import (EXIT_BAD_INPUT, EXIT_OK, Progress, compact, emit as _emit, table,
                           verdict as _verdict)

QUICKSTART = example_path("quickstart.json")


class UsageError(Exception):
    """Bad command-line usage (exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit with its own status and format
        raise UsageError(f"{self.prog}: {message}")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--output", metavar="FILE", help="also write the JSON result to FILE "
                        "(atomically: a failure never leaves a partial file)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--max-datasets", type=_positive_int, default=DEFAULT_MAX_DATASETS,
                        help=f"refuse to enumerate more datasets than this "
                             f"(default {DEFAULT_MAX_DATASETS:,})")
    parser.add_argument("--max-outputs", type=_positive_int, default=DEFAULT_MAX_OUTPUTS,
                        help=f"refuse mechanisms with more outputs (default {DEFAULT_MAX_OUTPUTS:,})")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pufferfish", description="Exact verification of Pufferfish privacy "
                     "and its composition.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    audit = sub.add_parser("audit", help="Pufferfish, DP and leakage levels of every mechanism "
                           "of a model, and of their joint release")
    audit.add_argument("model", help="model file (JSON)")
    audit.add_argument("--epsilon", help="budget to check: 0.5, 1/2, log(3) ...; exit 1 if a "
                       "mechanism or the joint release exceeds it")
    audit.add_argument("--group", type=_positive_int, help="also compute group-K DP")
    _common(audit)
    audit.set_defaults(handler=_run_audit)

    collapse = sub.add_parser("collapse", help="the privacy-collapse examples of §4 "
                              "(000_65109fe28ca61d17.txt, Examples 4.1–4.3)")
    collapse.add_argument("example", choices=["resample", "parity", "interval"])
    collapse.add_argument("--n", type=int, default=3, help="bits for the parity example (>= 3)")
    collapse.add_argument("--bits", type=int, default=2, help="bits for the resample example")
    for name, default in (("lt", "1/5"), ("ut", "2/5"), ("lf", "3/10"), ("uf", "1/2")):
        collapse.add_argument(f"--{name}", default=default,
                              help=f"interval example bound {name.upper()} (default {default})")
    _common(collapse)
    collapse.set_defaults(handler=_run_collapse)

    theorems = sub.add_parser("theorems", help="check the papers' claims on generated instances")
    theorems.add_argument("--paper", help="paper file name (e.g. 000_65109fe28ca61d17.txt)")
    theorems.add_argument("--claim", help="one claim id (see --list)")
    theorems.add_argument("--list", action="store_true", help="list the registered claims")
    _common(theorems)
    theorems.set_defaults(handler=_run_theorems)

    demo = sub.add_parser("demo", help="the main job on the embedded default: audit "
                          "examples/quickstart.json, run the collapse examples and the claims")
    _common(demo)
    demo.set_defaults(handler=_run_demo)
    for module in _command_modules():
        module.add_parser(sub, _common)
    return parser


def _command_modules() -> list:
    """Modules that add subcommands: each has ``add_parser(subparsers, common)`` which registers
    its parser(s) with ``set_defaults(handler=...)``; a handler takes the parsed arguments and
    returns the exit status."""
    from pufferfish.cli import (composes, dcp, experiment, influence, multiuser, postprocess, quilts,
                                wasserstein)

    return [composes, postprocess, influence, quilts, wasserstein, multiuser, dcp, experiment]


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    try:
        args = build_parser().parse_args(arguments)
        return args.handler(args)
    except (ModelError, UsageError) as error:
        if debug:
            traceback.print_exc()
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:
        if debug:
            traceback.print_exc()
        print(f"error: {error.strerror or error}: {error.filename or ''}".rstrip(": "),
              file=sys.stderr)
        return EXIT_BAD_INPUT


def _eps_text(ratio) -> str:
    value = epsilon_float(ratio)
    return "inf" if value == float("inf") else f"{value:.4f}"


# --- audit -------------------------------------------------------------------------------------

def _run_audit(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import load_model
    from pufferfish.verify.privacy.audit import audit_model
    from pufferfish.verify.numerics.certified import parse_budget

    budget = parse_budget(args.epsilon) if args.epsilon is not None else None
    model = load_model(args.model, max_datasets=args.max_datasets)
    progress = Progress(len(model.mechanisms) + 1, "auditing")
    try:
        result = audit_model(model, budget, args.group, args.max_datasets, args.max_outputs,
                             progress.step)
    finally:
        progress.close()
    _emit(args, result.to_dict(), _audit_text(args.model, result))
    return _verdict(result.holds)


def _audit_text(source: str, result) -> str:
    rows = []
    for m in result.mechanisms:
        p = m.pufferfish
        rows.append([m.name, compact(p.epsilon), _eps_text(p.level_ratio),
                     ", ".join(f"{d.relation} {compact(d.epsilon)}" for d in m.dp),
                     "zero" if m.leakage.zero_leakage else compact(fraction_str(m.leakage.worst_shift)),
                     "-" if p.holds is None else ("ok" if p.holds else "VIOLATED")])
    lines = [f"Audit of {source}", "",
             table(["mechanism", "pufferfish ε", "≈", "DP ε", "leakage (max shift)", "budget"],
                   rows), ""]
    for m in result.mechanisms:
        if m.pufferfish.witness is not None:
            lines.append(f"  {m.name}: worst case {m.pufferfish.witness.explain()}")
        for note in m.pufferfish.skipped[:3]:
            lines.append(f"  {m.name}: skipped {note[0]} under {note[1]} ({note[2]})")
    if result.composition is not None:
        lines += ["", result.composition.explain()]
    elif result.composition_note:
        lines += ["", result.composition_note]
    if result.budget is not None:
        lines += ["", f"budget ε = {result.budget.text}: "
                      f"{'holds' if result.holds else 'VIOLATED'}"]
    return "\n".join(lines)


# --- collapse ----------------------------------------------------------------------------------

def _run_collapse(args: argparse.Namespace) -> int:
    from pufferfish.models.numbers import exact
    from pufferfish.proofs_check.paper_000.collapse_report import collapse_report

    if args.example == "parity":
        report = collapse_report("parity", n=args.n)
    elif args.example == "resample":
        report = collapse_report("resample", bits=args.bits)
    else:
        report = collapse_report("interval", **{name: exact(getattr(args, name), f"--{name}")
                                                for name in ("lt", "ut", "lf", "uf")})
    _emit(args, report.to_dict(), report.explain())
    return _verdict(report.holds)


# --- theorems ----------------------------------------------------------------------------------

def _run_theorems(args: argparse.Namespace) -> int:
    from pufferfish.proofs_check.registry import claims_for
    from pufferfish.proofs_check.runner import run_claims

    claims = claims_for(paper=args.paper, claim_id=args.claim)
    if args.list:
        text = table(["id", "paper", "section", "statement"],
                     [[c.id, c.paper, c.section, c.statement[:70]] for c in claims])
        _emit(args, {"claims": [{"id": c.id, "paper": c.paper, "section": c.section,
                                 "statement": c.statement} for c in claims]}, text)
        return EXIT_OK
    progress = Progress(len(claims), "claims")
    try:
        report = run_claims(claims, progress=progress.step)
    finally:
        progress.close()
    _emit(args, report.to_dict(), report.explain())
    return _verdict(report.holds)


# --- demo --------------------------------------------------------------------------------------

def _run_demo(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import load_model
    from pufferfish.proofs_check.registry import claims_for
    from pufferfish.proofs_check.runner import run_claims
    from pufferfish.verify.privacy.audit import audit_model
    from pufferfish.proofs_check.paper_000.collapse_report import collapse_report

    model = load_model(QUICKSTART, max_datasets=args.max_datasets)
    audit = audit_model(model, None, None, args.max_datasets, args.max_outputs)
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
    text = "\n\n".join([_audit_text("examples/quickstart.json", audit),
                        "Privacy collapse (000_65109fe28ca61d17.txt §4):\n" +
                        "\n".join(c.explain() for c in collapses),
                        claims.explain()])
    _emit(args, data, text)
    return EXIT_OK  # the demo reports; `pufferfish theorems` is the command that gates on claims


if __name__ == "__main__":
    sys.exit(main())
