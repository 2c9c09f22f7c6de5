"""``python -m pufferfish_check CERTIFICATE [MODEL]``: exit 0 accepted, 1 rejected, 2 bad input."""

import argparse
import json
import sys
from pathlib import Path

from pufferfish_check import BadInput, check_certificate


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="pufferfish_check", description=__doc__)
    parser.add_argument("certificate", help="certificate file (JSON)")
    parser.add_argument("model", nargs="?", help="model file (default: the one it names)")
    args = parser.parse_args(argv)
    try:
        try:
            certificate = json.loads(Path(args.certificate).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise BadInput(f"cannot read {args.certificate}: {error}") from None
        result = check_certificate(certificate, args.model)
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"accepted: {args.certificate}" if result.accepted else f"rejected: {result.reason}")
    print("".join(f"  note: {note}\n" for note in result.notes), end="")
    return 0 if result.accepted else 1


if __name__ == "__main__":
    sys.exit(main())
