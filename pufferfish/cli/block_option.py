"""``audit --block-datasets N``: the size of the blocks an audit cuts the priors and the
universe into (:mod:`pufferfish.verify.privacy.audit_plan`), named apart from ``--max-datasets``,
which on every command is a refusal limit (:data:`pufferfish.cli.common.MAX_DATASETS_HELP`), so
that one option name has one meaning across the command line.  The old spelling ``audit
--max-datasets N`` is still read, hidden from the help, with a deprecation note on stderr (never
on stdout, so ``--json`` stays valid).

>>> parser = argparse.ArgumentParser()
>>> add_block_option(parser, "a block of a prior")
>>> parser.parse_args(["--block-datasets", "64"]).max_datasets
64
"""

from __future__ import annotations

import argparse
import sys

from pufferfish.cli.common import positive_int


class _OldBlockSpelling(argparse.Action):
    """``audit --max-datasets N``: the old spelling of ``--block-datasets N`` (a block size
    there, a refusal limit on every other command), still read, with a note on stderr."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print("note: audit --max-datasets N is deprecated: in an audit it is the block size, "
              "now spelled --block-datasets N (elsewhere --max-datasets refuses to enumerate "
              "more datasets than N)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_block_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--block-datasets N``: the most datasets one task of the command holds at once (``what``
    says which blocks), read into ``args.max_datasets`` as before; the old spelling
    ``--max-datasets N`` is still read (hidden, with a deprecation note) because a block size
    is not the refusal limit ``--max-datasets`` names on every other command."""
    from pufferfish.models.universe import DEFAULT_MAX_DATASETS

    parser.add_argument("--block-datasets", type=positive_int, default=DEFAULT_MAX_DATASETS,
                        dest="max_datasets", metavar="N",
                        help=f"the most datasets one task holds at once: {what} (default "
                             f"{DEFAULT_MAX_DATASETS:,})")
    parser.add_argument("--max-datasets", type=positive_int, dest="max_datasets",
                        action=_OldBlockSpelling, help=argparse.SUPPRESS)


__all__ = ["add_block_option"]
