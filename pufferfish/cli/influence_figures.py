"""``pufferfish influence-figures --out DIR``: Figure 2(a) (exact a(b) of the binary chains of
Example 6.1) and Figure 2(b) (numerical, Example 6.2) of Bai et al., Composition for Pufferfish
Privacy, §6.3 as ``figure_2a.png`` and ``figure_2b.png``
(:mod:`pufferfish.proofs_check.paper_000.figures`). Each curve is a task: ``--workers N`` /
``--scheduler ADDRESS`` run them on Dask."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, add_common_options, add_execution_options,
                                   add_out_folder, emit, execution_engine, prepare_folder, wrote)


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "influence-figures", help="regenerate Figure 2(a) (exact, binary chains of Example 6.1) "
        "and Figure 2(b) (numerical, Example 6.2) as PNG files")
    add_out_folder(parser, "figure_2a.png and figure_2b.png", required=True)
    add_common_options(parser)
    add_execution_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.proofs_check.paper_000.figures import figure_2a, figure_2b

    folder = prepare_folder(args)
    first_path, second_path = folder / "figure_2a.png", folder / "figure_2b.png"
    with execution_engine(args) as engine:  # one task per curve
        first = figure_2a(str(first_path), engine=engine)
        wrote(args, first_path)
        second = figure_2b(str(second_path), engine=engine)
        wrote(args, second_path)
    data = {"figure_2a": {"file": str(first_path), "curves": first},
            "figure_2b": {"file": str(second_path), "curves": second, "numerical": True}}
    emit(args, data, f"Figure 2(a): exact a(b) of {len(first)} binary chains; Figure 2(b): "
                     f"{len(second)} values of ℓ (numerical)")
    return EXIT_OK
