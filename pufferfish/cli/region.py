"""``pufferfish region MODEL --epsilon E [--mechanism M [--map MAP] | --joint M1,M2]
[--set NAME=VALUE] [--width W] [--out DIR]``: the parameter values of a parametric model where a
Pufferfish budget holds (Bai et al., Composition for Pufferfish Privacy, Definition 5;
:func:`pufferfish.verify.symbolic.region.budget_region`): exact intervals with algebraic endpoints
for one free parameter, a certified map of boxes for several (with ``--out``, a picture of it for
two).  ``--joint`` asks for the joint release of some mechanisms (§4), ``--map`` for ``M``
followed by a post-processor (§5.2; the map may use the model's parameters)."""

from __future__ import annotations

import argparse

from pufferfish.cli.common import add_mechanism_option
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, RATIONAL_FORMS, UsageError, add_common_options,
                                   add_out_folder, emit, epsilon_help, parse_epsilon,
                                   prepare_folder, wrote)
from pufferfish.cli.common import input_file
from pufferfish.cli.common import add_parameter_options


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("region", help="parameter values of a parametric model where "
                                   "a Pufferfish budget holds (exact for one parameter)")
    parser.add_argument("model", type=model_file,
                        help=model_help("parametric model file (JSON with \"parameters\")"))
    parser.add_argument("--epsilon", type=budget_text, required=True,
                        help=epsilon_help("the budget"))
    add_mechanism_option(parser, "one: the region of that mechanism; several: of their joint "
                                 "release (independent runs; Bai et al., Composition for "
                                 "Pufferfish Privacy, §4); default: every mechanism and their "
                                 "joint release, as audit --epsilon checks", old=("--joint",))
    parser.add_argument("--map", type=input_file,
                        help="with --mechanism M: the region of M followed by this "
                                      "post-processor (JSON file {\"map\": [[output, [[new "
                                      "output, p], ...]], ...]}; p may use the parameters)")
    add_parameter_options(parser)
    parser.add_argument("--width", help=f"several parameters: bisect undecided boxes until "
                                         f"narrower than this ({RATIONAL_FORMS}; default 1/64 "
                                         f"of the widest range)")
    add_out_folder(parser, "region.png, the map of a two-parameter region")
    add_common_options(parser, datasets=True, outputs=True)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.files.json_io import read_json_file
    from pufferfish.models.parametric import add_postprocessed, load_free_parameters
    from pufferfish.verify.symbolic.region import budget_region

    budget = parse_epsilon(args.epsilon)
    width = parse_width(args.width)
    named = args.mechanism or []
    twice = sorted({n for n in named if named.count(n) > 1})
    if twice:
        raise UsageError(f"--mechanism: {twice[0]!r} is named twice")
    mechanism = named[0] if len(named) == 1 else None
    joint = named if len(named) > 1 else None
    if args.map is not None:
        if mechanism is None:
            raise UsageError("--map post-processes one mechanism: give one --mechanism M too")
        data, mechanism = add_postprocessed(read_json_file(args.model, "model file"), mechanism,
                                            read_json_file(args.map, "map file"))
        model = load_free_parameters(args.model, args.assignments, data)
    else:
        model = load_free_parameters(args.model, args.assignments)
    require_plottable(args, model)
    return emit_region(args, budget_region(model, budget, mechanism, width, args.max_datasets,
                                           args.max_outputs, tuple(joint) if joint else None))


def parse_width(text: str | None):
    """``--width``: the exact positive width below which undecided boxes stop being bisected
    (``None``: the computation's default)."""
    from pufferfish.models.numbers import exact

    if text is None:
        return None
    width = exact(text, "--width")
    if width <= 0:
        raise UsageError("--width must be positive")
    return width


def require_plottable(args: argparse.Namespace, model) -> None:
    """``--out`` draws a map of two parameters: refuse it for any other number, before work."""
    if args.out is not None and len(model.box.names) != 2:
        raise UsageError(f"--out draws a two-parameter map; this region has "
                         f"{len(model.box.names)} free parameter(s)")


def emit_region(args: argparse.Namespace, result) -> int:
    """Print a region (and with ``--out`` draw ``region.png``); a region always exits 0."""
    if args.out is not None:
        from pufferfish.verify.symbolic.plot import plot_region

        path = prepare_folder(args) / "region.png"
        plot_region(result, path)
        wrote(args, path)
    emit(args, result.to_dict(), result.explain(args.model))
    return EXIT_OK
