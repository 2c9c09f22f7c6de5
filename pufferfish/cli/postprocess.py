"""``pufferfish postprocess``: levels before and after a post-processor, and the post-processing
invariance of NfC constraint sets (``000_65109fe28ca61d17.txt`` §5.2, Theorem 5; see
:mod:`pufferfish.verify.nfc.postprocessing`)."""

from __future__ import annotations

import argparse
import json

from pufferfish.models.errors import ModelError
from pufferfish.verify.report import EXIT_OK, EXIT_VIOLATED, emit


def add_parser(subparsers, common) -> None:
    parser = subparsers.add_parser(
        "postprocess", help="Pufferfish/DP/NfC levels before and after a post-processor, or the "
        "post-processing invariance of a set of NfC constraints (Theorem 5)")
    parser.add_argument("model", nargs="?", help="model file (with --mechanism and --map)")
    parser.add_argument("--mechanism", help="the mechanism to post-process")
    parser.add_argument("--map", help="JSON file {\"map\": [[output, [[new output, p], ...]], ...]}")
    parser.add_argument("--constraints", help="NfC constraints file {\"nfc_constraints\": 1, ...}")
    parser.add_argument("--write", metavar="FILE", help="with --constraints: write the proof's "
                        "construction (M̂ and A∘M̂) as a model file")
    common(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.constraints:
        if args.model or args.mechanism or args.map:
            raise ModelError("use either --constraints FILE or MODEL --mechanism M --map MAP",
                             "--constraints")
        return _constraints(args)
    if not (args.model and args.mechanism and args.map):
        raise ModelError("give MODEL --mechanism M --map MAP, or --constraints FILE", "postprocess")
    return _audit(args)


def _read_json(path: str, what: str) -> object:
    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)
    except json.JSONDecodeError as error:
        raise ModelError(f"malformed JSON at line {error.lineno}, column {error.colno}: "
                         f"{error.msg}", what) from None


def _audit(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import parse_model
    from pufferfish.verify.nfc.postprocessing import postprocess_audit

    data = _read_json(args.model, args.model)
    mapping = _read_json(args.map, "--map")
    if not isinstance(mapping, dict) or set(mapping) != {"map"}:
        raise ModelError("the map file is {\"map\": [[output, [[new output, p], ...]], ...]}",
                         "--map")
    if not isinstance(data, dict) or not isinstance(data.get("mechanisms"), dict):
        raise ModelError("the model has no mechanisms", "mechanisms")
    name = "postprocessed"
    while name in data["mechanisms"]:
        name += "_"
    data["mechanisms"][name] = {"postprocess": {"mechanism": args.mechanism,
                                                "map": mapping["map"]}}
    model = parse_model(data, max_datasets=args.max_datasets)
    result = postprocess_audit(model, model.mechanism(args.mechanism), model.mechanism(name),
                               args.max_datasets, args.max_outputs)
    emit(args, result.to_dict(), result.explain())
    return EXIT_OK if result.holds else EXIT_VIOLATED


def _constraints(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import dump_model
    from pufferfish.verify.nfc.postprocessing import counterexample_model, invariance_report, parse_constraints

    constraints = parse_constraints(_read_json(args.constraints, "--constraints"))
    report = invariance_report(constraints)
    text = report.explain()
    if args.write:
        if report.construction is None:
            raise ModelError("every non-redundant β is one-hot: there is no construction to write",
                             "--write")
        dump_model(counterexample_model(report.construction, constraints.budget), args.write)
        text += f"\nwrote the construction (M_hat, A_of_M_hat) to {args.write}"
    emit(args, report.to_dict(), text)
    return EXIT_OK if report.invariant else EXIT_VIOLATED
