"""``pufferfish mqm-price [--lengths 100,1000,10000] [--epsilons 1/2,1,2] [--lows 1/10,1/4,2/5]
[--out DIR]``: the price of the Markov Quilt Mechanism — MQMApprox and MQMExact σ, the
Wasserstein mechanism's ``W/ε`` and the certified least Laplace scale of the sum and of a count,
on the binary chains of Wang et al., Privacy-Preserving Analysis of Correlated Data, §5
(:mod:`pufferfish.verify.structured.mqm_price`, which states what each column guarantees).

Prints the table (``--json``: the whole result).  With ``--out DIR`` also writes
``mqm_price.json`` (the result, readable by ``MQMPriceTable.from_dict``), ``mqm_price.md`` (the
table in Markdown, included by :doc:`/price_of_mqm`) and ``mqm_price.png`` (the figure), each
atomically, and lists them on stderr.  The sizes are checked against this machine's memory
before any work (exit 2 with the estimate).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from pufferfish.cli.common import FINITE_EPSILON_FORMS
from pufferfish.cli.common import (EXIT_OK, add_common_options, add_out_folder, budget_text,
                                   emit, epsilon_help, nonnegative_int, parse_epsilon,
                                   prepare_folder, wrote)
from pufferfish.verify.report import Progress

FILES = ("mqm_price.json", "mqm_price.md", "mqm_price.png")


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "mqm-price", help="the price of the Markov Quilt Mechanism: MQM σ beside the least "
        "Laplace scale of a sum and a count (Wang et al., §5 chains)",
        description="Compare, on the binary chains of Wang et al., Privacy-Preserving Analysis of "
                    "Correlated Data, §5 (p0, p1 in "
                    "[ℓ, 1 − ℓ]), MQMApprox and MQMExact σ, the Wasserstein mechanism's W/ε and "
                    "the certified least Laplace scale of the sum and of a count, each with what "
                    "it guarantees.")
    parser.add_argument("--lengths", default="100,1000,10000",
                        help="comma-separated chain lengths T (default 100,1000,10000)")
    parser.add_argument("--epsilons", type=budget_text, default="1/2,1,2",
                        help=epsilon_help("comma-separated budgets ε, each in [1e-9, 100] "
                                          "(default 1/2,1,2)", FINITE_EPSILON_FORMS))
    parser.add_argument("--lows", default="1/10,1/4,2/5",
                        help="comma-separated ℓ in [1/1000000, 1/2): the families [ℓ, 1 − ℓ] "
                             "(default 1/10,1/4,2/5)")
    parser.add_argument("--queries", default="sum,count",
                        help="sum and/or count (the 1s among the first ⌊T/2⌋ attributes)")
    parser.add_argument("--tolerance", default="1/1000",
                        help="relative width of the least-scale brackets, in (0, 1) "
                             "(default 1/1000)")
    parser.add_argument("--exact-up-to", type=nonnegative_int, default=1000,
                        help="the longest chain whose laws are built: the least-scale bracket and "
                             "W (default 1000)")
    parser.add_argument("--ends-up-to", type=nonnegative_int, default=10000,
                        help="the longest chain with an ends-only lower bound of the least scale "
                             "(default 10000); longer chains get MQM only")
    parser.add_argument("--no-geometric", action="store_true",
                        help="skip the exact geometric brackets (JSON only)")
    add_out_folder(parser, "mqm_price.json, mqm_price.md and mqm_price.png")
    add_common_options(parser)
    parser.set_defaults(handler=run)
    return parser


def _integers(text: str, option: str) -> list[int]:
    from pufferfish.models.errors import ModelError

    parts = [x.strip() for x in text.split(",")]
    if not all(p.isdigit() and len(p) < 12 and int(p) >= 1 for p in parts):
        raise ModelError(f"expected comma-separated positive integers, got {text!r}", option)
    return [int(p) for p in parts]


def _list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",")]


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.errors import ModelError
    from pufferfish.models.numbers import exact
    from pufferfish.verify.structured.least_noise import search_budget
    from pufferfish.verify.structured.mqm_price import (QUERIES, check_price_size, family_low,
                                                        mqm_price, price_steps)

    lengths = _integers(args.lengths, "--lengths")
    epsilons = _list(args.epsilons)
    for e in epsilons:
        search_budget(parse_epsilon(e, "--epsilons", FINITE_EPSILON_FORMS), "--epsilons")
    lows = _list(args.lows)
    for low in lows:
        family_low(low, "--lows")
    queries = _list(args.queries)
    if not queries or any(q not in QUERIES for q in queries) or len(set(queries)) < len(queries):
        raise ModelError(f"expected sum and/or count, got {args.queries!r}", "--queries")
    tolerance = exact(args.tolerance, "--tolerance")
    if not 0 < tolerance < 1:
        raise ModelError(f"the tolerance must be in (0, 1), got {args.tolerance}", "--tolerance")
    check_price_size(lengths, lows, args.exact_up_to, args.ends_up_to)
    folder = prepare_folder(args) if args.out else None
    progress = Progress(price_steps(lengths, epsilons, lows, queries, args.ends_up_to),
                        "mqm-price")
    try:
        table = mqm_price(lengths=lengths, epsilons=epsilons, lows=lows, queries=queries,
                          tolerance=tolerance, exact_up_to=args.exact_up_to,
                          ends_up_to=args.ends_up_to, geometric=not args.no_geometric,
                          progress=progress.step)
    finally:
        progress.close()
    if folder is not None:
        _write_files(args, folder, table)
    emit(args, table.to_dict(), table.explain())
    return EXIT_OK


def _write_files(args: argparse.Namespace, folder: Path, table) -> None:
    """The three files, each through a temporary file in ``folder`` replaced in one step."""
    from pufferfish.models.files.json_io import write_json_atomically
    from pufferfish.verify.structured.mqm_price import plot_mqm_price

    write_json_atomically(table.to_dict(), folder / FILES[0], "--out")
    wrote(args, folder / FILES[0])
    _atomically(folder / FILES[1], lambda path: Path(path).write_text(table.markdown(),
                                                                     encoding="utf-8"))
    wrote(args, folder / FILES[1])
    _atomically(folder / FILES[2], lambda path: plot_mqm_price(table).savefig(path, format="png",
                                                                             dpi=120))
    wrote(args, folder / FILES[2])


def _atomically(target: Path, write) -> None:
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                             dir=target.parent)
    os.close(descriptor)
    try:
        write(temporary)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
