"""``pufferfish mqm-figures --out DIR [--figure 1+3|4|all]``: Figure 1 (§5), Figure 3 (Appendix
B.11) and Figure 4 (Appendix B.12, the private histogram) of Wang et al., Privacy-Preserving
Analysis of Correlated Data (numerical, seeded; :mod:`pufferfish.proofs_check.paper_002.figures`).

Files: ``figure_1.png``, ``figure_3.png``; with Figure 4 ``figure_4.png`` and ``figure_4.json``
(its data).  Every file written is listed on stderr.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pufferfish.cli.common import FINITE_EPSILON_FORMS
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import add_execution_options, execution_engine, refuse_execution_options
from pufferfish.cli.common import (EXIT_OK, add_common_options, add_out_folder, emit,
                                   epsilon_help, nonnegative_int, parse_epsilon, positive_int,
                                   prepare_folder,
                                   wrote)

def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("mqm-figures", help="Figures 1, 3 and 4 of Wang et al., "
                                   "Privacy-Preserving Analysis of Correlated Data (§5, B.11, "
                                   "B.12) as PNG", description="Regenerate Figure 1 (§5), "
                                   "Figure 3 (Appendix B.11) and Figure 4 (Appendix B.12) of "
                                   "Wang et al., Privacy-Preserving Analysis of Correlated Data "
                                   "as PNG files (numerical).")
    add_out_folder(parser, "the figures", required=True)
    parser.add_argument("--figure", choices=("1+3", "4", "all"), default="1+3",
                        help="which figures: 1+3 (default: figure_1.png and figure_3.png), 4 "
                             "(Appendix B.12: figure_4.png and its data figure_4.json, the "
                             "private histogram of a 5-state reversible chain) or all")
    parser.add_argument("--runs", type=positive_int, default=500,
                        help="runs averaged in Figure 1 (default 500)")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="random seed (default 0)")
    parser.add_argument("--grid", type=positive_int, default=99,
                        help="Figure 3 grid points per axis (default 99)")
    parser.add_argument("--repetitions", type=positive_int, default=100,
                        help="Figure 4: runs averaged, each on a new data set (default 100)")
    parser.add_argument("--length", type=positive_int, default=10000,
                        help="Figure 4: chain length T of panels (a) and (b) (default 10000)")
    parser.add_argument("--lengths", default="1000,3000,10000,30000",
                        help="Figure 4: comma-separated positive lengths of panel (c)")
    parser.add_argument("--epsilons", type=budget_text, default="1/10,1/5,1/2,1,2,5,10",
                        help=epsilon_help("Figure 4: comma-separated ε values",
                                          FINITE_EPSILON_FORMS))
    add_common_options(parser)
    add_execution_options(parser)
    parser.set_defaults(handler=run)
    return parser


def _lengths(text: str) -> tuple[int, ...]:
    from pufferfish.models.errors import ModelError

    parts = [x.strip() for x in text.split(",")]
    if not all(p.isdigit() and len(p) < 12 and int(p) >= 1 for p in parts):
        raise ModelError(f"expected comma-separated positive integers, got {text!r}", "--lengths")
    return tuple(int(p) for p in parts)


def run(args: argparse.Namespace) -> int:
    from pufferfish.proofs_check.paper_002.figures import (check_figure4_size, make_figure4,
                                                           make_figures)
    from pufferfish.verify.quilts.scores import as_budget

    figure_4 = args.figure in ("4", "all")
    if args.figure == "4":
        refuse_execution_options(args, "figures 1 and 3 (--figure 1+3 or all)")
    if figure_4:  # validate before any figure is drawn
        lengths = _lengths(args.lengths)
        epsilons = tuple(x.strip() for x in args.epsilons.split(","))
        for e in epsilons:
            as_budget(parse_epsilon(e, "--epsilons", FINITE_EPSILON_FORMS), "--epsilons")
        check_figure4_size(args.repetitions, [args.length, *lengths])
    folder = prepare_folder(args)
    paths = []
    if args.figure in ("1+3", "all"):
        with execution_engine(args) as engine:  # the noise scales of the grids as tasks
            figures = make_figures(folder, runs=args.runs, seed=args.seed, grid=args.grid,
                                   engine=engine)
        for path in figures:
            paths.append(Path(path))
            wrote(args, paths[-1])
    if figure_4:
        png = Path(make_figure4(folder, repetitions=args.repetitions, seed=args.seed,
                                length=args.length, lengths=lengths, epsilons=epsilons))
        data = png.with_suffix(".json")
        paths += [png, data]
        wrote(args, paths[-2])
        wrote(args, paths[-1])
    emit(args, {"figures": [str(p) for p in paths]}, "\n".join(f"figure: {p}" for p in paths))
    return EXIT_OK
