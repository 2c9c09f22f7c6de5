"""``pufferfish quilts MODEL --node N [--epsilon E]``: the minimal Markov quilts of node ``N``
(``002_e1f2e9a9937b8cda.txt`` §4, Definition 4.2 by d-separation; Definition B.1) and, with
``--epsilon``, each quilt's exact max-influence and score, best first.

``MODEL`` is either a Bayesian-network file (``"bayesnet": 1``,
:mod:`pufferfish.models.files.bayesnet_file`) or an ordinary model file whose priors are
homogeneous ``markov`` chains (the family Θ); :func:`load_quilt_family` reads both (``mqm``
uses it too).
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import (EXIT_OK, add_common_options, emit, epsilon_help,
                                   nonnegative_int, parse_epsilon, positive_int)
from pufferfish.verify.report import Progress, table


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("quilts", help="Markov quilts of a node (Definition 4.2)",
                                   description="List the minimal Markov quilts of a node of a "
                                   "Bayesian network or chain (002_e1f2e9a9937b8cda.txt §4, "
                                   "Definition 4.2) and, with --epsilon, their max-influence and "
                                   "score.")
    parser.add_argument("model", help="a bayesnet file or a model file with markov priors")
    parser.add_argument("--node", required=True,
                        help="node name (chains: attribute name or 1-based index)")
    parser.add_argument("--epsilon", help=epsilon_help(
        "privacy budget ε > 0: scores card(X_N)/(ε − e(X_Q|X_i))"))
    add_search_options(parser)
    add_common_options(parser, datasets=True)
    parser.set_defaults(handler=run)
    return parser


def add_search_options(parser: argparse.ArgumentParser) -> None:
    """``--initial``, ``--max-quilt-size``, ``--max-quilts`` (shared with ``mqm``)."""
    from pufferfish.verify.quilts.markov_quilts import DEFAULT_MAX_CANDIDATES
    from pufferfish.models.chain_family import INITIAL_MODES

    parser.add_argument("--initial", choices=INITIAL_MODES, default="given",
                        help="chains: initial distribution as given, stationary, or any (§5)")
    parser.add_argument("--max-quilt-size", type=nonnegative_int, default=None,
                        help="Bayesian networks: largest quilt enumerated (default: no limit)")
    parser.add_argument("--max-quilts", type=positive_int, default=DEFAULT_MAX_CANDIDATES,
                        help=f"Bayesian networks: candidate quilts examined per node "
                             f"(default {DEFAULT_MAX_CANDIDATES:,})")


def load_quilt_family(args: argparse.Namespace):
    """A :class:`BayesNetFamily` or a :class:`ChainFamily` from ``args.model`` (with ``mqm``'s
    ``--interval``: the binary-chain family of §5 on the model's attributes)."""
    from pufferfish.models.bayesnet import chain_from_markov_prior
    from pufferfish.models.errors import ModelError
    from pufferfish.models.files.bayesnet_file import is_bayesnet_file, parse_bayesnet
    from pufferfish.models.files.pufferfish_file import parse_model, read_json_file
    from pufferfish.models.priors import MarkovPrior
    from pufferfish.models.chain_family import ChainFamily, binary_grid_family

    data = read_json_file(args.model, "model file")
    if is_bayesnet_file(data):
        return parse_bayesnet(data)
    model = parse_model(data, max_datasets=args.max_datasets)
    interval = getattr(args, "interval", None)
    if interval:
        parts = interval.split(",")
        if len(parts) != 2:
            raise ModelError("write the interval as L,U (for example 1/10,9/10)", "--interval")
        return binary_grid_family(parts[0], parts[1], model.universe.width, args.step,
                               args.initial if args.initial != "given" else "any")
    chains = []
    for name, prior in model.priors.items():
        if not isinstance(prior, MarkovPrior):
            raise ModelError("the chain algorithms need every prior to be a markov chain",
                             f"priors.{name}")
        chains.append(chain_from_markov_prior(prior))
    return ChainFamily(tuple(chains), args.initial)


def chain_node(text: str, family, option: str) -> int:
    """The 1-based chain node named ``text`` (``"3"`` or ``"x3"``)."""
    from pufferfish.models.errors import ModelError

    stripped = text.strip()
    digits = stripped[1:] if stripped.startswith("x") else stripped
    i = int(digits) if digits.isdigit() and len(digits) < 20 else -1
    if not 1 <= i <= family.length:
        raise ModelError(f"node {text!r} is not in the chain 1..{family.length}", option)
    return i


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.bayesnet import BayesNetFamily
    from pufferfish.verify.quilts.scores import as_budget

    family = load_quilt_family(args)
    budget = as_budget(parse_epsilon(args.epsilon)) if args.epsilon else None
    if isinstance(family, BayesNetFamily):
        return _bayesnet(args, family, budget)
    return _chain(args, family, budget)


def _bayesnet(args, family, budget) -> int:
    from pufferfish.models.errors import ModelError
    from pufferfish.verify.quilts.markov_quilts import check_enumeration_budget, enumerate_quilts
    from pufferfish.verify.influence.max_influence import network_max_influence
    from pufferfish.verify.quilts.scores import exact_score

    node = next((n for n in family.nodes if str(n) == args.node), None)
    if node is None:
        raise ModelError(f"unknown node {args.node!r}; the nodes are "
                         f"{[str(n) for n in family.nodes]}", "--node")
    check_enumeration_budget(family.graph, args.max_quilt_size, args.max_quilts)
    progress = Progress(1, "quilts")
    try:
        enum = enumerate_quilts(family.graph, node, max_size=args.max_quilt_size,
                                max_candidates=args.max_quilts,
                                progress=lambda d, t: progress.step(f"{d}/{t}"))
    finally:
        progress.close()
    rows, entries = [], []
    for q in enum.minimal:
        entry = q.to_dict()
        row = ["{" + ", ".join(entry["quilt"]) + "}", "{" + ", ".join(entry["nearby"]) + "}",
               "{" + ", ".join(entry["remote"]) + "}", q.card_nearby]
        if budget is not None:
            influence = network_max_influence(family, node, q.quilt)
            score = exact_score(q.card_nearby, influence.max_ratio, budget)
            entry["max_influence"] = influence.to_dict()
            entry["score"] = score.to_dict()["score"]
            row += [influence.to_dict()["epsilon"], _number(score.upper)]
        rows.append(row)
        entries.append(entry)
    if budget is not None:
        order = sorted(range(len(rows)), key=lambda j: _score_key(entries[j]["score"][1]))
        rows = [rows[j] for j in order]
        entries = [entries[j] for j in order]
    headers = ["X_Q", "X_N", "X_R", "card(X_N)"] + (["e(X_Q|X_i)", "score ≤"] if budget else [])
    text = (f"{len(enum.minimal)} minimal Markov quilts for node {node} "
            f"({enum.examined} candidates examined)\n" + table(headers, rows))
    if not enum.complete:
        text += "\n" + enum.message
    emit(args, {"node": str(node), "complete": enum.complete, "message": enum.message,
                "quilts": entries, "epsilon": args.epsilon}, text)
    return EXIT_OK


def _chain(args, family, budget) -> int:
    from pufferfish.verify.quilts.chain_search import chain_node_quilts_exact, mqm_chain_exact

    i = chain_node(args.node, family, "--node")
    if budget is None:
        n = family.length
        text = (f"node {i} of a chain of {n}: the Lemma B.2 quilts are {{X_(i-a), X_(i+b)}}, "
                f"{{X_(i-a)}}, {{X_(i+b)}} and ∅ for 1 <= a <= {i - 1}, 1 <= b <= {n - i} "
                f"({i * (n + 1 - i)} quilts); give --epsilon to score them")
        emit(args, {"node": i, "length": n, "count": i * (n + 1 - i)}, text)
        return EXIT_OK
    if family.length > 200:
        choice = mqm_chain_exact(family, budget, nodes=[i]).choices[0]
        emit(args, {"node": i, "best": choice.to_dict()},
             f"node {i}: best quilt {choice.quilt_label()}, card(X_N) = "
             f"{choice.score.card_nearby}, score ≤ {_number(choice.score.upper)}")
        return EXIT_OK
    choices = sorted(chain_node_quilts_exact(family, i, budget),
                     key=lambda c: (c.score.upper, c.score.card_nearby))
    rows = [[c.quilt_label(), c.score.card_nearby, f"{c.log_influence[1]:.6g}",
             _number(c.score.upper)] for c in choices[:15]]
    text = (f"node {i}: {len(choices)} Lemma B.2 quilts; the 15 best\n"
            + table(["X_Q", "card(X_N)", "e(X_Q|X_i) ≤", "score ≤"], rows))
    emit(args, {"node": i, "quilts": [c.to_dict() for c in choices]}, text)
    return EXIT_OK


def _number(x: float) -> str:
    return "inf" if x == float("inf") else f"{x:.10g}"


def _score_key(x) -> float:
    return float("inf") if x == "inf" else float(x)
