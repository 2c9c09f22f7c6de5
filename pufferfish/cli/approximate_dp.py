"""``pufferfish approximate-dp MODEL [--epsilon E] [--delta D] [--mechanism NAME]
[--neighbours RELATION]``: (ε, δ)-differential privacy of a model's mechanisms (Dwork and Roth,
The Algorithmic Foundations of Differential Privacy, §2.3, Definition 2.4;
:mod:`pufferfish.verify.privacy.approximate`).

With ``--epsilon`` it prints each mechanism's exact δ(ε) under each neighbour relation (the
largest hockey-stick divergence over ordered neighbour pairs) with the pair and outputs that
attain it; with ``--delta`` too it checks (ε, δ)-DP and exits 1 when a mechanism violates it;
with ``--delta`` alone it prints the exact least ε with δ(ε) ≤ δ.  Probabilities of programs with
Laplace-type noise are exact numbers of ``Q(e^(1/n))``, so δ and ε are exact closed forms;
programs with Gaussian noise have certified enclosures, so δ and ε are certified intervals and a
verdict whose interval straddles the budget is undecided (exit 3).
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, RATIONAL_FORMS,
                                   UsageError, add_execution_options,
                                   add_mechanisms_and_relations, budget_text, emit,
                                   epsilon_help, execution_engine, load_pufferfish_model,
                                   mechanisms_and_relations, model_file, model_help)


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "approximate-dp", help="(epsilon, delta)-DP: the exact delta(epsilon) of each mechanism, "
        "the (epsilon, delta) verdict, or the least epsilon for a delta",
        description=__doc__.split("\n\n", 1)[1].split("\n\n")[0])
    parser.add_argument("model", type=model_file, help=model_help("model file (JSON)"))
    parser.add_argument("--epsilon", type=budget_text, help=epsilon_help(
        "compute delta(eps); with --delta, check (eps, delta)-DP and exit 1 if violated"))
    parser.add_argument("--delta", help=f"delta in [0, 1] ({RATIONAL_FORMS}); alone: the least "
                                        f"eps with delta(eps) <= delta")
    add_mechanisms_and_relations(parser)
    add_execution_options(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from pufferfish.api import _exact_delta, budget
    from pufferfish.verify.privacy.approximate import approximate_dp
    from pufferfish.verify.program_laws import program_laws, universe_keys
    from pufferfish.verify.report import assuming

    if args.epsilon is None and args.delta is None:
        raise UsageError("give --epsilon, --delta or both")
    epsilon = None if args.epsilon is None else budget(args.epsilon)
    delta = None if args.delta is None else _exact_delta(args.delta)
    model = load_pufferfish_model(args, dp_only=True)  # DP needs no prior
    chosen, relations = mechanisms_and_relations(args, model)
    with execution_engine(args) as engine:  # the programs' laws on the datasets as tasks
        program_laws(engine, [model.mechanisms[name] for name in chosen],
                     lambda m: universe_keys(m, model.universe, args.max_datasets))
    results = [approximate_dp(model.universe, model.mechanisms[name], relation, epsilon=epsilon,
                              delta=delta,
                              max_datasets=args.max_datasets, max_outputs=args.max_outputs)
               for name in chosen for relation in relations]
    verdicts = [r.holds for r in results if r.holds is not None]
    undecided = any(r.undecided for r in results)
    holds = (False if False in verdicts else None if undecided or not verdicts else True)
    document = {"check": "approximate_dp", "model": str(args.model),
                "epsilon": None if epsilon is None else epsilon.text,
                "delta": args.delta, "results": [r.to_dict() for r in results]}
    text = f"(ε, δ)-DP of {args.model}\n\n" + "\n".join(r.explain() for r in results)
    if holds is not None or undecided:
        document["holds"] = holds
        verdict = assuming("holds" if holds else "VIOLATED" if holds is False else "UNDECIDED",
                           args.assumptions)
        text += f"\n\n({epsilon.text}, {args.delta})-DP: {verdict}"
    emit(args, document, text)
    if holds is False:
        return EXIT_VIOLATED
    return EXIT_UNDECIDED if undecided else EXIT_OK
