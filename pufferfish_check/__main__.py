"""``python -m pufferfish_check CERTIFICATE [MODEL]``: exit 0 accepted, 1 rejected, 2 bad input."""

from __future__ import annotations

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
        path = Path(args.certificate)
        if not path.is_file():
            raise BadInput(f"{args.certificate}: not a regular file")
        try:
            certificate = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise BadInput(f"cannot read {args.certificate}: {error}") from None
        result = check_certificate(certificate, args.model)
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if result.accepted:
        print(f"accepted: {args.certificate}")
        for note in result.notes:
            print(f"  note: {note}")
        return 0
    print(f"rejected: {result.reason}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
