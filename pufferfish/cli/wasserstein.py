"""``pufferfish wasserstein MODEL --query Q --epsilon E [--delta D]`` (``002_e1f2e9a9937b8cda.txt`` §3).

Computes ``W`` of Algorithm 1 for the query over the model's priors and secret pairs, prints the
worst pair with its comonotone coupling (the certificate of ``W_∞``), the noise scale
``σ = W/ε``, and the *certified actual* Pufferfish level of ``Q(D) + Lap(σ)``
(:func:`pufferfish.verify.transport.laplace_level.laplace_pufferfish_level`) next to ε (Theorem 3.2).  With
``--delta`` it runs the (ε, δ) variant of Appendix A.4 and compares the certified hockey-stick
divergence with δ (Theorem A.8).

Exit status: 0 when the level is proved ``<= ε`` (or the divergence ``<= δ``), 1 when it is
proved larger, 3 when the certified interval cannot separate them, 2 on bad input.
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, RATIONAL_FORMS,
                                   add_common_options, emit, epsilon_help, parse_epsilon)
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.report import table


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "wasserstein", help="Wasserstein mechanism (002 §3, Algorithm 1): W, its coupling, "
        "σ = W/ε and the certified actual Pufferfish level of Q + Lap(σ)")
    parser.add_argument("model", help="model file (JSON)")
    parser.add_argument("--query", required=True,
                        help="the released query: sum, count, parity or attribute:NAME")
    parser.add_argument("--epsilon", required=True, help=epsilon_help("privacy parameter ε > 0"))
    parser.add_argument("--delta", help=f"run the (ε, δ) variant of Appendix A.4 with this δ in "
                                        f"[0, 1) ({RATIONAL_FORMS})")
    add_common_options(parser, datasets=True)
    parser.set_defaults(handler=run)
    return parser


def _status(relation: str | None) -> int:
    if relation == "above":
        return EXIT_VIOLATED
    if relation == "undecided":
        return EXIT_UNDECIDED
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import load_model
    from pufferfish.models.numbers import exact
    from pufferfish.verify.transport.epsilon_delta import verify_epsilon_delta_mechanism
    from pufferfish.verify.transport.queries import parse_query
    from pufferfish.verify.transport.wasserstein import verify_wasserstein_mechanism

    budget = parse_epsilon(args.epsilon)
    delta = exact(args.delta, "--delta") if args.delta is not None else None
    model = load_model(args.model, max_datasets=args.max_datasets)
    query = parse_query(args.query, model.universe)
    if delta is not None:
        result = verify_epsilon_delta_mechanism(model, query, budget, delta, args.max_datasets)
        emit(args, {"model": str(args.model), "query": args.query, **result.to_dict()},
             _delta_text(args, result))
        return _status(result.relation)
    result = verify_wasserstein_mechanism(model, query, budget, args.max_datasets, args.query)
    emit(args, {"model": str(args.model), "query": args.query, **result.to_dict()},
         _text(args, result))
    return _status(result.level.relation)


def _coupling_rows(coupling) -> list[list[str]]:
    return [[fraction_str(a), fraction_str(b), fraction_str(m), fraction_str(abs(a - b))]
            for a, b, m in coupling]


def _text(args, result) -> str:
    parameter = result.parameter
    lines = [f"model {args.model}: Wasserstein mechanism for query {args.query!r}, "
             f"ε = {fraction_str(result.epsilon)}"]
    rows = [[d.pair, d.prior, fraction_str(d.value)] for d in parameter.distances]
    lines += ["", table(["pair", "prior", "W∞"], rows)]
    lines.append("")
    lines.append(f"W = {fraction_str(parameter.value)}")
    if parameter.witness is not None:
        witness = parameter.witness
        lines.append(f"witness: pair {witness.pair} under prior {witness.prior}; comonotone "
                     f"coupling (certificate verified: {witness.distance.verify()}):")
        lines.append(table([f"{witness.first} value", f"{witness.second} value", "mass", "moved"],
                           _coupling_rows(witness.distance.coupling)))
    lines.append(f"σ = W/ε = {fraction_str(result.scale)}")
    level = result.level
    lines.append(f"actual Pufferfish level of {args.query} + Lap({fraction_str(result.scale)}): "
                 f"ε ∈ [{level.epsilon_lower:.10g}, {level.epsilon_upper:.10g}] (certified)")
    if level.witness is not None:
        lines.append(f"worst case: {level.witness.explain()}")
    verdict = {None: "UNDECIDED", True: "holds", False: "VIOLATED"}[level.holds]
    lines.append(f"Theorem 3.2 (level <= ε = {fraction_str(result.epsilon)}): {verdict} "
                 f"({level.relation})")
    return "\n".join(lines)


def _delta_text(args, result) -> str:
    parameter = result.parameter
    lines = [f"model {args.model}: (ε, δ)-Wasserstein mechanism for query {args.query!r}, "
             f"ε = {fraction_str(result.epsilon)}, δ = {fraction_str(result.delta)}",
             f"W_δ = {fraction_str(parameter.value)}; σ = W_δ/ε = {fraction_str(result.scale)}"]
    if parameter.witness is not None:
        distance = parameter.witness.distance
        lines.append(f"witness: pair {parameter.witness.pair} under prior "
                     f"{parameter.witness.prior}; partial coupling of mass "
                     f"{fraction_str(1 - result.delta)} (certificate verified: {distance.verify()}):")
        lines.append(table(["first", "second", "mass", "moved"],
                           _coupling_rows(distance.partial_coupling)))
    rows = [[f"{a} -> {b}", p, f"[{h.to_dict()['hockey_stick']['lower_float']:.6g}, "
             f"{h.to_dict()['hockey_stick']['upper_float']:.6g}]", r]
            for a, b, p, h, r in result.divergences]
    lines += ["", table(["direction", "prior", "sup_S P1(S) - e^ε P2(S)", "vs δ"], rows)]
    verdict = {None: "UNDECIDED", True: "holds", False: "VIOLATED"}[result.holds]
    lines.append(f"Theorem A.8 ((ε, δ)-Pufferfish): {verdict} ({result.relation})")
    return "\n".join(lines)
