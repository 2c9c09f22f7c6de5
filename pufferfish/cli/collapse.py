"""``pufferfish collapse {resample,parity,interval}``: the privacy-collapse examples of
Bai et al., Composition for Pufferfish Privacy, §4 (Examples 4.1–4.3, Theorems 1–3), audited against
their theorem (:func:`pufferfish.proofs_check.paper_000.collapse_report.collapse_report`)."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (RATIONAL_FORMS, UsageError, add_common_options, emit,
                                   positive_int, verdict)

DEFAULT_SIZE = {"resample": 2, "parity": 3}
"""``--size`` when omitted: bits of the resample example, entries of the parity example."""

INTERVAL_BOUNDS = (("lt", "1/5"), ("ut", "2/5"), ("lf", "3/10"), ("uf", "1/2"))


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("collapse", help="the privacy-collapse examples (Bai et al., "
                                   "Composition for Pufferfish Privacy, §4, Examples 4.1–4.3)")
    parser.add_argument("example", choices=["resample", "parity", "interval"])
    parser.add_argument("--size", type=positive_int, default=None,
                        help="size of the example: bits of resample (default 2), entries of "
                             "parity (>= 3, default 3)")
    for alias in ("--n", "--bits"):  # earlier spellings of --size
        parser.add_argument(alias, dest="size", type=positive_int, default=argparse.SUPPRESS,
                            help=argparse.SUPPRESS)
    for name, default in INTERVAL_BOUNDS:
        parser.add_argument(f"--{name}", default=default,
                            help=f"interval example bound {name.upper()} ({RATIONAL_FORMS}; "
                                 f"default {default})")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.numbers import exact
    from pufferfish.proofs_check.paper_000.collapse_report import collapse_report

    if args.example == "interval":
        if args.size is not None:
            raise UsageError("--size applies to the resample and parity examples")
        report = collapse_report("interval", **{name: exact(getattr(args, name), f"--{name}")
                                                for name, _ in INTERVAL_BOUNDS})
    else:
        size = DEFAULT_SIZE[args.example] if args.size is None else args.size
        report = collapse_report(args.example,
                                 **({"bits": size} if args.example == "resample" else {"n": size}))
    emit(args, report.to_dict(), report.explain())
    return verdict(report.holds)
