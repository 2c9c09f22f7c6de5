"""``pufferfish quilts MODEL --node N [--epsilon E]``: the minimal Markov quilts of node ``N``
(Wang et al., Privacy-Preserving Analysis of Correlated Data, §4, Definition 4.2 by d-separation;
Definition B.1) and, with ``--epsilon``, each quilt's exact max-influence and score, best first
(:mod:`pufferfish.verify.quilts.node_quilts`).

``MODEL`` is either a Bayesian-network file (``"bayesnet": 1``,
:mod:`pufferfish.models.files.bayesnet_file`) or an ordinary model file (the family Θ):
homogeneous ``markov`` chains use the chain algorithms; independent, non-homogeneous Markov, table
and uniform priors become a network family (:mod:`pufferfish.verify.quilts.prior_networks`).
:func:`load_quilt_family` reads both (``mqm`` uses it too).
"""

from __future__ import annotations

import argparse
import os

from pufferfish.cli.common import FINITE_EPSILON_FORMS
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, add_common_options, emit, epsilon_help,
                                   nonnegative_int, parse_epsilon, positive_int)
from pufferfish.cli.common import add_execution_options, add_parameter_options, execution_engine


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("quilts", help="Markov quilts of a node (Definition 4.2)",
                                   description="List the minimal Markov quilts of a node of a "
                                   "Bayesian network or chain (Wang et al., Privacy-Preserving "
                                   "Analysis of Correlated Data, §4, "
                                   "Definition 4.2) and, with --epsilon, their max-influence and "
                                   "score.")
    parser.add_argument("model", type=model_file,
                        help=model_help("a bayesnet file or a model file with markov priors"))
    parser.add_argument("--node", required=True,
                        help="node name (chains: attribute name or 1-based index)")
    parser.add_argument("--epsilon", type=budget_text, help=epsilon_help(
        "privacy budget ε > 0: scores card(X_N)/(ε − e(X_Q|X_i))", FINITE_EPSILON_FORMS))
    add_search_options(parser)
    add_common_options(parser, datasets=True)
    add_parameter_options(parser)
    add_execution_options(parser)  # with --epsilon: parts of the node's quilts are the tasks
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
    ``--interval``: the binary-chain family of §5 on the model's attributes).

    A model file whose priors are all homogeneous chains gives a :class:`ChainFamily` (the fast
    chain algorithms); any other mix of independent, Markov (a kernel per step), table and uniform
    priors gives the network family of :mod:`pufferfish.verify.quilts.prior_networks`.  Secrets and
    pairs are not used (the mechanism protects every node), so a model without pairs is read too.
    """
    from pufferfish.models.bayesnet import chain_from_markov_prior
    from pufferfish.models.errors import ModelError, UnsupportedError
    from pufferfish.models.files.bayesnet_file import is_bayesnet_file, parse_bayesnet
    from pufferfish.models.files.pufferfish_file import parse_model
    from pufferfish.models.parametric import model_data_at
    from pufferfish.models.priors import MarkovPrior
    from pufferfish.models.chain_family import ChainFamily, binary_grid_family
    from pufferfish.verify.quilts.prior_networks import network_family

    data = model_data_at(args.model, getattr(args, "assignments", None),
                         max_datasets=args.max_datasets)
    if is_bayesnet_file(data):
        return parse_bayesnet(data)
    model = parse_model(_priors_only(data), max_datasets=args.max_datasets,
                        base=os.path.dirname(os.fspath(args.model)))
    interval = getattr(args, "interval", None)
    if interval:
        parts = interval.split(",")
        if len(parts) != 2:
            raise ModelError("write the interval as L,U (for example 1/10,9/10)", "--interval")
        return binary_grid_family(parts[0], parts[1], model.universe.width, args.step,
                               args.initial if args.initial != "given" else "any")
    chains = []
    for prior in model.priors.values():
        try:
            chains.append(chain_from_markov_prior(prior) if isinstance(prior, MarkovPrior)
                          else None)
        except UnsupportedError:
            chains.append(None)
    if all(chain is not None for chain in chains) and len({c.states for c in chains}) == 1:
        return ChainFamily(tuple(chains), args.initial)
    if args.initial != "given":
        raise ModelError(f"--initial {args.initial} applies to homogeneous chains only (a chain "
                         "with a kernel per step, or a prior that is no chain, has no stationary "
                         "law to start from)", "--initial")
    return network_family(model.priors, model.universe, args.max_datasets)


def _priors_only(data: object) -> object:
    """The model file as read for the quilt algorithms: secrets and pairs are not used, so a
    file without pairs gets the entry pairs in their place (its own secrets are kept when it has
    pairs, and interval families keep theirs to be refused by name)."""
    if not isinstance(data, dict) or data.get("pairs") or data.get("entry_pairs"):
        return data
    priors = data.get("priors")
    if isinstance(priors, dict) and any(isinstance(p, dict) and "interval" in p
                                        for p in priors.values()):
        return data
    stripped = {k: v for k, v in data.items() if k not in ("secrets", "pairs", "mechanisms")}
    return {**stripped, "entry_pairs": True}


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
    from pufferfish.verify.quilts.node_quilts import score_quilts
    from pufferfish.verify.quilts.scores import as_budget

    family = load_quilt_family(args)
    budget = (as_budget(parse_epsilon(args.epsilon, "--epsilon", FINITE_EPSILON_FORMS))
              if args.epsilon is not None else None)
    if isinstance(family, BayesNetFamily):
        node = network_node(args.node, family, "--node")
    else:
        node = chain_node(args.node, family, "--node")
    with execution_engine(args) as engine:
        result = score_quilts(family, node, budget, max_size=args.max_quilt_size,
                              max_candidates=args.max_quilts, engine=engine)
    emit(args, result.to_dict(), result.explain())
    return EXIT_OK


def network_node(text: str, family, option: str):
    """The node of a network family named ``text`` (its name, or a 1-based position)."""
    from pufferfish.models.errors import ModelError

    node = next((n for n in family.nodes if str(n) == text.strip()), None)
    stripped = text.strip()
    if node is None and stripped.isdigit() and len(stripped) < 20:
        position = int(stripped)
        if 1 <= position <= len(family.nodes):
            node = family.nodes[position - 1]
    if node is None:
        raise ModelError(f"unknown node {text!r}; the nodes are "
                         f"{[str(n) for n in family.nodes]}", option)
    return node
