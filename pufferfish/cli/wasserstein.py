"""``pufferfish wasserstein MODEL --query Q --epsilon E [--delta D]`` (Wang et al.,
Privacy-Preserving Analysis of Correlated Data, §3).

Computes ``W`` of Algorithm 1 for the query over the model's priors and secret pairs, prints the
worst pair with its comonotone coupling (the certificate of ``W_∞``), the noise scale
``σ = W/ε``, and the *certified actual* Pufferfish level of ``Q(D) + Lap(σ)``
(:func:`pufferfish.verify.transport.laplace_level.laplace_pufferfish_level`) next to ε (Theorem 3.2).  With
``--delta`` it runs the (ε, δ) variant of Appendix A.4 and compares the certified hockey-stick
divergence with δ (Theorem A.8); :mod:`pufferfish.verify.transport.report`.

Exit status: 0 when the level is proved ``<= ε`` (or the divergence ``<= δ``), 1 when it is
proved larger, 3 when the certified interval cannot separate them, 2 on bad input.
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import RATIONAL_EPSILON_FORMS
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, RATIONAL_FORMS,
                                   add_common_options, emit, epsilon_help, parse_epsilon)
from pufferfish.cli.common import add_parameter_options, load_pufferfish_model


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "wasserstein", help="Wasserstein mechanism (Wang et al., Privacy-Preserving Analysis of "
        "Correlated Data, §3, Algorithm 1): W, its coupling, "
        "σ = W/ε and the certified actual Pufferfish level of Q + Lap(σ)")
    parser.add_argument("model", type=model_file, help=model_help("model file (JSON)"))
    parser.add_argument("--query", required=True,
                        help="the released query: sum, count, parity or attribute:NAME")
    parser.add_argument("--epsilon", type=budget_text, required=True,
                        help=epsilon_help("privacy parameter ε > 0", RATIONAL_EPSILON_FORMS))
    parser.add_argument("--delta", help=f"run the (ε, δ) variant of Appendix A.4 with this δ in "
                                        f"[0, 1) ({RATIONAL_FORMS})")
    add_common_options(parser, datasets=True)
    add_parameter_options(parser)
    parser.set_defaults(handler=run)
    return parser


def _status(relation: str | None) -> int:
    if relation == "above":
        return EXIT_VIOLATED
    if relation == "undecided":
        return EXIT_UNDECIDED
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.numbers import exact
    from pufferfish.verify.transport.report import wasserstein_report

    budget = parse_epsilon(args.epsilon, "--epsilon", RATIONAL_EPSILON_FORMS)
    delta = exact(args.delta, "--delta") if args.delta is not None else None
    model = load_pufferfish_model(args)
    report = wasserstein_report(model, args.query, budget, delta, max_datasets=args.max_datasets,
                                source=str(args.model))
    emit(args, report.to_dict(), report.explain())
    return _status(report.relation)
