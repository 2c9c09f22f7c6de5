"""``pufferfish postprocess``: levels before and after a post-processor, and the post-processing
invariance of NfC constraint sets (Bai et al., Composition for Pufferfish Privacy, §5.2, Theorem 5;
see :mod:`pufferfish.verify.nfc.postprocessing`).

* ``pufferfish postprocess MODEL --mechanism M --map MAP`` — exit 1 if a level increased;
* ``pufferfish postprocess MODEL --mechanism M --map MAP --symbolic [--set ...]`` — a parametric
  model: the Pufferfish and DP levels before and after as closed forms in the free parameters
  (:mod:`pufferfish.verify.symbolic.postprocess`; the map may use the parameters); exit 0;
* ``pufferfish postprocess --constraints FILE [--out DIR]`` — exit 1 when the constraint set is
  not invariant; ``--out`` writes the proof's construction (M̂ and A∘M̂) as the model file
  ``DIR/construction.json``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from pufferfish.cli.common import single_mechanism
from pufferfish.cli.common import add_mechanism_option
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import (EXIT_OK, EXIT_VIOLATED, UsageError, add_common_options,
                                   add_out_folder, emit, output_file, prepare_folder, wrote)
from pufferfish.cli.common import input_file
from pufferfish.cli.common import add_parameter_options

CONSTRUCTION_FILE = "construction.json"


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "postprocess", help="Pufferfish/DP/NfC levels before and after a post-processor, or the "
        "post-processing invariance of a set of NfC constraints (Theorem 5)")
    parser.add_argument("model", type=model_file, nargs="?",
                        help=model_help("model file (with --mechanism and --map)"))
    add_mechanism_option(parser, "the one mechanism to post-process", old=())
    parser.add_argument("--map", type=input_file,
                        help="JSON file {\"map\": [[output, [[new output, p], ...]], ...]}")
    parser.add_argument("--constraints", type=input_file,
                        help="NfC constraints file {\"nfc_constraints\": 1, ...}")
    parser.add_argument("--symbolic", action="store_true",
                        help="parametric model: the levels before and after as closed forms in the "
                             "parameters left free by --set")
    add_out_folder(parser, f"the construction of the proof (M̂ and A∘M̂) as the model file "
                           f"{CONSTRUCTION_FILE}, with --constraints")
    parser.add_argument("--write", metavar="FILE", type=output_file, help=argparse.SUPPRESS)
    add_common_options(parser, datasets=True, outputs=True)
    add_parameter_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    args.mechanism = single_mechanism(args, "post-processing takes one mechanism")
    if args.constraints:
        if args.model or args.mechanism or args.map or args.symbolic:
            raise UsageError("use either --constraints FILE or MODEL --mechanism M --map MAP")
        return _constraints(args)
    if not (args.model and args.mechanism and args.map):
        raise UsageError("give MODEL --mechanism M --map MAP, or --constraints FILE")
    if args.out or args.write:
        raise UsageError("--out applies to --constraints only")
    return _symbolic(args) if args.symbolic else _audit(args)


def _symbolic(args: argparse.Namespace) -> int:
    from pufferfish.models.files.json_io import read_json_file
    from pufferfish.models.parametric import add_postprocessed, load_free_parameters
    from pufferfish.verify.symbolic.postprocess import symbolic_postprocess

    data, name = add_postprocessed(read_json_file(args.model, "model file"), args.mechanism,
                                   read_json_file(args.map, "map file"))
    model = load_free_parameters(args.model, args.assignments, data)
    result = symbolic_postprocess(model, args.mechanism, name, args.max_datasets,
                                  args.max_outputs)
    emit(args, result.to_dict(), result.explain(args.model))
    return EXIT_OK


def _audit(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import parse_model, read_json_file
    from pufferfish.models.parametric import add_postprocessed, model_data_at
    from pufferfish.verify.nfc.postprocessing import postprocess_audit

    data = model_data_at(args.model, args.assignments, max_datasets=args.max_datasets)
    data, name = add_postprocessed(data, args.mechanism, read_json_file(args.map, "map file"))
    model = parse_model(data, max_datasets=args.max_datasets,
                        base=os.path.dirname(os.fspath(args.model)))
    args.assumptions = model.assumptions()
    result = postprocess_audit(model, model.mechanism(args.mechanism), model.mechanism(name),
                               args.max_datasets, args.max_outputs)
    emit(args, result.to_dict(), result.explain())
    return EXIT_OK if result.holds else EXIT_VIOLATED


def _constraints(args: argparse.Namespace) -> int:
    from pufferfish.models.errors import ModelError
    from pufferfish.models.files.pufferfish_file import dump_model, read_json_file
    from pufferfish.verify.nfc.postprocessing import (counterexample_model, invariance_report,
                                                      parse_constraints)

    constraints = parse_constraints(read_json_file(args.constraints, "constraints file"))
    report = invariance_report(constraints)
    target = (prepare_folder(args) / CONSTRUCTION_FILE if args.out else
              Path(args.write) if args.write else None)
    if target is not None:
        if report.construction is None:
            raise ModelError("every non-redundant β is one-hot: there is no construction to write",
                             "--out")
        dump_model(counterexample_model(report.construction, constraints.budget), target)
        wrote(args, target)
    emit(args, report.to_dict(), report.explain())
    return EXIT_OK if report.invariant else EXIT_VIOLATED
