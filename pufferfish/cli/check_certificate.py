"""``pufferfish check-certificate CERTIFICATE [MODEL]``: check an audit's certificate with the
independent checker :mod:`pufferfish_check` (standard library only, its own model reader), which
re-derives every number from the model file (``MODEL``, else the file the certificate names) and
accepts or rejects it with the reason (docs/certificates.md); an accepted certificate is stated:
its mechanisms, joint release, relations, budgets and verdicts.  ``--window-bits N`` (16..64): a
program's noise is enumerated down to paths of mass ``2^-N``.  Exit 0 accepted, 1 rejected, 2 a
file that cannot be read or an option out of range.  The certificate is read by the checker's own
reader (bounded sizes, nesting and numbers), as ``python -m pufferfish_check`` reads it."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import add_common_options, emit, input_file, model_file, model_help


def window_bits(text: str) -> int:
    """``N`` of the noise window ``2^-N``, in the checker's range (argparse type)."""
    from pufferfish_check.programs import WINDOW_BITS

    if not text.strip().isdigit() or len(text) > 4 or int(text) not in WINDOW_BITS:
        raise argparse.ArgumentTypeError(f"expected an integer in {WINDOW_BITS.start}.."
                                         f"{WINDOW_BITS.stop - 1}, got {text!r:.20}")
    return int(text)


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "check-certificate", help="check an audit's certificate with the independent, "
        "standard-library checker (exit 0 accepted, 1 rejected)")
    parser.add_argument("certificate", type=input_file,
                        help="certificate file (JSON; audit --certificate FILE writes one)")
    parser.add_argument("model", type=model_file, nargs="?",
                        help=model_help("model file (default: the file the certificate names)"))
    parser.add_argument("--window-bits", type=window_bits, default=16, metavar="N",
                        help="programs: enumerate the noise down to paths of mass 2^-N, N in "
                             "16..64; a larger N narrows each probability's bound, at a higher "
                             "cost (default 16)")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from fractions import Fraction
    from pathlib import Path

    from pufferfish.models.errors import ModelError
    from pufferfish_check import BadInput, check_certificate
    from pufferfish_check.reader import parse_json, read_text

    try:
        certificate = parse_json(read_text(Path(args.certificate), "certificate"),
                                 args.certificate)
        result = check_certificate(certificate, args.model, Fraction(1, 2 ** args.window_bits))
    except BadInput as error:
        raise ModelError(str(error), "certificate") from None
    reference = certificate.get("model") if isinstance(certificate, dict) else None
    data = {"check": "certificate", "certificate": args.certificate,
            "model": args.model or (reference.get("file") if isinstance(reference, dict) else None),
            "accepted": result.accepted, "reason": result.reason or None,
            "certified": result.statement or None, "notes": list(result.notes)}
    text = (f"accepted: {args.certificate} — {result.statement}" if result.accepted
            else f"rejected: {args.certificate}: {result.reason}")
    text += "".join(f"\n  note: {note}" for note in result.notes)
    emit(args, data, text)
    return 0 if result.accepted else 1
