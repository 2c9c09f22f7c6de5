"""``python -m pufferfish_check CERTIFICATE [MODEL] [--window-bits N]``: exit 0 accepted (the
certificate's claims stated), 1 rejected (the reason), 2 bad input (a file that cannot be read, an
option out of range)."""

import argparse
import sys
from fractions import Fraction
from pathlib import Path

from pufferfish_check import BadInput, check_certificate
from pufferfish_check.programs import WINDOW_BITS
from pufferfish_check.reader import parse_json, read_text


def window_bits(text: str) -> int:
    if not text.isdigit() or len(text) > 4 or int(text) not in WINDOW_BITS:
        raise argparse.ArgumentTypeError(f"expected {WINDOW_BITS.start}..{WINDOW_BITS.stop - 1}")
    return int(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="pufferfish_check", description=__doc__)
    parser.add_argument("certificate", help="certificate file (JSON)")
    parser.add_argument("model", nargs="?", help="model file (default: the one it names)")
    parser.add_argument("--window-bits", type=window_bits, default=16, metavar="N",
                        help="programs: noise enumerated down to paths of mass 2^-N, N in "
                        f"{WINDOW_BITS.start}..{WINDOW_BITS.stop - 1} (default 16)")
    args = parser.parse_args(argv)
    try:
        certificate = parse_json(read_text(Path(args.certificate), "certificate"),
                                 args.certificate)
        result = check_certificate(certificate, args.model, Fraction(1, 2 ** args.window_bits))
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"accepted: {args.certificate} — {result.statement}" if result.accepted
          else f"rejected: {result.reason}")
    print("".join(f"  note: {note}\n" for note in result.notes), end="")
    return 0 if result.accepted else 1


if __name__ == "__main__":
    sys.exit(main())
