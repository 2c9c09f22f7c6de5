"""``pufferfish epsilon-range MODEL --low E0 --high E1 [--factor C] [--mechanism NAME]
[--neighbours RELATION] [--parameter NAME]``: is a program (C·ε)-DP for every ε in [E0, E1]?
(:mod:`pufferfish.verify.privacy.epsilon_range`).

The program's argument ``--parameter`` (default ``epsilon``) becomes the symbol ε, which may only
scale the parameter of its ``discrete_laplace`` draws; every probability is then one rational
function of ``e^(ε/n)``, and the claim is decided exactly on the whole interval, with a rational
counterexample ε when it fails (exit 1).
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, EXIT_VIOLATED, RATIONAL_FORMS,
                                   add_execution_options, add_mechanisms_and_relations, emit,
                                   execution_engine, load_pufferfish_model,
                                   mechanisms_and_relations, model_file, model_help)


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "epsilon-range", help="is a program (c·epsilon)-DP for every epsilon of an interval? "
        "(epsilon as a symbol; exact, with a counterexample epsilon)",
        description=__doc__.split("\n\n", 1)[1])
    parser.add_argument("model", type=model_file, help=model_help("model file (JSON)"))
    parser.add_argument("--low", required=True, help=f"the interval's lower end, > 0 "
                                                     f"({RATIONAL_FORMS})")
    parser.add_argument("--high", required=True, help=f"the interval's upper end "
                                                      f"({RATIONAL_FORMS})")
    parser.add_argument("--factor", default="1", help=f"the claim is (factor·eps)-DP "
                                                      f"({RATIONAL_FORMS}; default 1)")
    parser.add_argument("--parameter", default="epsilon",
                        help="the program argument that becomes the symbol eps "
                             "(default: epsilon)")
    add_mechanisms_and_relations(parser)
    add_execution_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.api import dp_for_every_epsilon
    from pufferfish.models.numbers import exact

    low, high, factor = (exact(getattr(args, name), f"--{name}")
                         for name in ("low", "high", "factor"))
    model = load_pufferfish_model(args, dp_only=True)  # DP needs no prior
    chosen, relations = mechanisms_and_relations(args, model)
    with execution_engine(args) as engine:  # the program's laws on the datasets as tasks
        results = [dp_for_every_epsilon(model, name, relation, low=low, high=high, factor=factor,
                                        parameter=args.parameter,
                                        max_datasets=args.max_datasets,
                                        max_outputs=args.max_outputs, engine=engine)
                   for name in chosen for relation in relations]
    holds = all(r.holds for r in results)
    document = {"check": "dp_for_every_epsilon", "model": str(args.model), "holds": holds,
                "results": [r.to_dict() for r in results]}
    text = "\n".join(r.explain() for r in results)
    emit(args, document, text)
    return EXIT_OK if holds else EXIT_VIOLATED
