"""``pufferfish check-certificate CERTIFICATE [MODEL]``: check an audit's certificate with the
independent checker :mod:`pufferfish_check` (standard library only, its own model reader), which
re-derives every number from the model file (``MODEL``, else the file the certificate names) and
accepts or rejects it with the reason (docs/certificates.md).  ``--window-bits N``: a program's
noise is enumerated down to paths of mass ``2^-N``.  Exit 0 accepted, 1 rejected, 2 a file that
cannot be read."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (add_common_options, emit, input_file, model_file, model_help,
                                   positive_int)


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "check-certificate", help="check an audit's certificate with the independent, "
        "standard-library checker (exit 0 accepted, 1 rejected)")
    parser.add_argument("certificate", type=input_file,
                        help="certificate file (JSON; audit --certificate FILE writes one)")
    parser.add_argument("model", type=model_file, nargs="?",
                        help=model_help("model file (default: the file the certificate names)"))
    parser.add_argument("--window-bits", type=positive_int, default=16, metavar="N",
                        help="programs: enumerate the noise down to paths of mass 2^-N; a larger "
                             "N narrows each probability's bound, at a higher cost (default 16)")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from fractions import Fraction

    from pufferfish.models.errors import ModelError
    from pufferfish.models.files.json_io import read_json_file
    from pufferfish_check import BadInput, check_certificate

    certificate = read_json_file(args.certificate)
    try:
        result = check_certificate(certificate, args.model, Fraction(1, 2 ** args.window_bits))
    except BadInput as error:
        raise ModelError(str(error), "certificate") from None
    data = {"check": "certificate", "certificate": args.certificate,
            "model": args.model or (certificate.get("model") or {}).get("file"),
            "accepted": result.accepted, "reason": result.reason or None,
            "notes": list(result.notes)}
    text = (f"accepted: {args.certificate}" if result.accepted
            else f"rejected: {args.certificate}: {result.reason}")
    text += "".join(f"\n  note: {note}" for note in result.notes)
    emit(args, data, text)
    return 0 if result.accepted else 1
