"""``pufferfish design MODEL --query Q --epsilon E``: the mechanism of least expected loss that is
ε-Pufferfish private for the model (Bai et al., Composition for Pufferfish Privacy, §2.2 Definition
5), optionally with DP-style constraints so that it composes linearly (§5–6); exact, re-audited,
with a certified lower bound on the optimum (:mod:`pufferfish.verify.design`).

``--out DIR`` writes ``DIR/designed.json``, the model with the designed mechanism as its only
mechanism (for ``audit``, ``composes``, ``postprocess``); with ``--compare`` also the comparison
with the papers' mechanisms and ``DIR/design_loss.png``, the loss against ε.

Exit status: 0 designed and verified (with ``--composable nfc``: linear composition certified), 1
the NfC programs refute composition, 3 they leave it undecided, 2 bad input.
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, UsageError,
                                   add_common_options, add_out_folder, emit, epsilon_help,
                                   parse_epsilon, prepare_folder, wrote)
from pufferfish.cli.common import input_file, note
from pufferfish.cli.common import (add_execution_options, add_parameter_options,
                                   execution_engine, load_pufferfish_model)

MODEL_FILE = "designed.json"
FIGURE_FILE = "design_loss.png"


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "design", help="the ε-Pufferfish mechanism of least expected loss (exact, re-audited, "
                       "with a dual lower bound); optionally DP-style so that it composes")
    parser.add_argument("model", type=model_file, help=model_help("model file (JSON)"))
    parser.add_argument("--query", required=True,
                        help="the released query: sum, count, parity or attribute:NAME")
    parser.add_argument("--epsilon", type=budget_text, required=True,
                        help=epsilon_help("the Pufferfish budget ε"))
    parser.add_argument("--loss", choices=["l1", "l2", "01"],
                        help="loss of releasing ω when the query is q(D): |ω−q|, (ω−q)², or "
                             "[ω≠q] (default l1 for numeric queries, else 01)")
    parser.add_argument("--loss-table", type=input_file, metavar="FILE",
                        help="a loss table file {\"design_loss\": 1, \"loss\": {q: {ω: loss}}} "
                             "instead of --loss")
    parser.add_argument("--output-values", metavar="VALUES",
                        help="comma-separated output set Ω (default: the query's values)")
    parser.add_argument("--data", metavar="PRIOR",
                        help="the prior the expected loss is taken under (default: the first)")
    parser.add_argument("--composable", choices=["none", "dp-style", "nfc"], default="none",
                        help="none; dp-style: add P(ω|D) <= e^ε_DP P(ω|D') for neighbours; nfc: "
                             "design, then certify linear composition (NfC programs)")
    parser.add_argument("--epsilon-dp", type=budget_text,
                        help=epsilon_help("ε_DP of the DP-style constraints (default: ε)"))
    parser.add_argument("--neighbours", action="append", metavar="RELATION",
                        help="the neighbour relation of the DP-style constraints: entry, record "
                             "or group:K (default entry; one relation)")
    parser.add_argument("--name", default="designed", help="name of the designed mechanism")
    parser.add_argument("--compare", action="store_true",
                        help="also the optimal DP-style design and the papers' mechanisms at ε, "
                             "each audited exactly, and the price of composability")
    parser.add_argument("--epsilons", type=budget_text, help=epsilon_help(
        "with --compare and --out: comma-separated budgets for the figure of loss against ε"))
    add_out_folder(parser, f"{MODEL_FILE} (the model with the designed mechanism) and, with "
                           f"--compare, {FIGURE_FILE}")
    add_common_options(parser, datasets=True)
    add_parameter_options(parser)
    add_execution_options(parser)  # the figure's budgets (--compare --out) are the tasks
    parser.set_defaults(handler=run)
    return parser


def _outputs(text: str | None) -> list | None:
    from pufferfish.models.errors import ModelError
    from pufferfish.models.numbers import exact

    if text is None:
        return None
    items = [t.strip() for t in text.split(",")]
    if not items or any(not t for t in items):
        raise UsageError(f"--output-values: expected comma-separated values, got {text!r}")
    values: list = []
    for item in items:
        try:
            number = exact(item, "--output-values")
        except ModelError:
            values.append(item)
            continue
        values.append(int(number) if number.denominator == 1 else number)
    return values


def _loss(args: argparse.Namespace):
    if args.loss_table is None:
        return args.loss
    if args.loss is not None:
        raise UsageError("give --loss or --loss-table, not both")
    from pufferfish.models.errors import ModelError
    from pufferfish.models.files.json_io import read_json_file
    from pufferfish.verify.design.losses import read_loss_table

    try:
        return read_loss_table(read_json_file(args.loss_table, "loss table"), args.loss_table)
    except ModelError as error:
        raise ModelError(f"{args.loss_table}: {error.reason}", error.path) from None


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import dump_model
    from pufferfish.verify.design.report import design_mechanism, designed_model

    budget = parse_epsilon(args.epsilon)
    dp_budget = (parse_epsilon(args.epsilon_dp, "--epsilon-dp") if args.epsilon_dp is not None
                 else None)
    epsilons = ([parse_epsilon(t.strip(), "--epsilons") for t in args.epsilons.split(",")]
                if args.epsilons is not None else None)
    if epsilons and not (args.compare and args.out):
        raise UsageError("--epsilons draws the figure of --compare into --out DIR: give both")
    if (args.scheduler or args.workers) and not (args.compare and args.out):
        raise UsageError("--scheduler / --workers run the budgets of the --compare figure as "
                         "tasks: give --compare and --out DIR (and --epsilons)")
    model = load_pufferfish_model(args)
    options = dict(loss=_loss(args), outputs=_outputs(args.output_values), data=args.data,
                   neighbours=_relation(args), max_datasets=args.max_datasets)
    result = design_mechanism(model, args.query, budget, composable=args.composable,
                              dp_budget=dp_budget, name=args.name, **options)
    data, text = result.to_dict(), result.explain(str(args.model))
    if args.compare:
        from pufferfish.verify.design.compare import compare_mechanisms

        comparison = compare_mechanisms(model, args.query, budget, dp_budget=dp_budget,
                                        designed=result, **options)
        data["comparison"] = comparison.to_dict()
        text += "\n\n" + comparison.explain()
    if args.out:
        folder = prepare_folder(args)
        dump_model(designed_model(model, result.mechanism), folder / MODEL_FILE,
                   max_datasets=args.max_datasets)
        wrote(args, folder / MODEL_FILE)
        if args.compare:
            from pufferfish.verify.design.figure import loss_figure

            with execution_engine(args) as engine:
                loss_figure(model, args.query, epsilons or [budget], folder / FIGURE_FILE, engine,
                            **options)
            wrote(args, folder / FIGURE_FILE)
    emit(args, data, text)
    if result.composition is not None:
        return {"holds": EXIT_OK, "violated": EXIT_VIOLATED}.get(result.composition.verdict,
                                                                 EXIT_UNDECIDED)
    return EXIT_OK if result.holds else EXIT_VIOLATED


def _relation(args: argparse.Namespace) -> str:
    """The one ``--neighbours`` relation (default ``entry``); ``group-K``, the old spelling of
    ``group:K``, is read with a note."""
    relations = args.neighbours or ["entry"]
    if len(relations) > 1:
        raise UsageError(f"--neighbours: the DP-style constraints take one relation, got "
                         f"{len(relations)} ({', '.join(relations)})")
    relation = relations[0]
    if relation.strip().lower().startswith("group-"):
        relation = relation.strip().lower().replace("group-", "group:", 1)
        note(args, f"note: --neighbours {relations[0]} is the old spelling of {relation}")
    return relation
