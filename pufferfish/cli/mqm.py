"""``pufferfish mqm MODEL --epsilon E [--method exact|approx|fast]``: the Markov Quilt
Mechanism's noise scale σ_max with the chosen quilt per node (Wang et al., Privacy-Preserving
Analysis of Correlated Data, §4, Algorithm 2; for chains Algorithms 3–5;
:mod:`pufferfish.verify.quilts.chain_search`).  ``MODEL`` as for ``pufferfish quilts``
(:func:`pufferfish.cli.quilts.load_quilt_family`): a Bayesian-network file, or a model file with any
independent, Markov (one kernel or a kernel per step), table or uniform priors; secrets and pairs
are not used.

``--pi`` and ``--g`` (approx/fast only) are given together or not at all, each an exact rational
in (0, 1]; without them (π_Θ, g_Θ) come from ``--interval`` or are certified from the chains.
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import FINITE_EPSILON_FORMS
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import budget_text
from pufferfish.cli.common import (EXIT_OK, RATIONAL_FORMS, UsageError, add_common_options, emit,
                                   epsilon_help, parse_epsilon)
from pufferfish.cli.common import add_execution_options, add_parameter_options, execution_engine
from pufferfish.cli.common import refuse_execution_options
from pufferfish.cli.quilts import add_search_options, chain_node, load_quilt_family, network_node


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("mqm", help="Markov Quilt Mechanism noise scale (Algorithm 2)",
                                   description="Compute σ_max of the Markov Quilt Mechanism "
                                   "(Wang et al., Privacy-Preserving Analysis of Correlated "
                                   "Data, §4, Algorithm 2; chains: "
                                   "Algorithms 3–5) with the chosen quilt per node.")
    parser.add_argument("model", type=model_file,
                        help=model_help("a bayesnet file or a model file with markov priors"))
    parser.add_argument("--epsilon", type=budget_text, required=True,
                        help=epsilon_help("privacy budget ε > 0", FINITE_EPSILON_FORMS))
    parser.add_argument("--method", choices=("exact", "approx", "fast"), default="exact",
                        help="chains: exact max-influence (MQMExact, Algorithm 3), Lemma B.4 "
                             "bounds (MQMApprox, Algorithms 3-4) or Algorithm 5 with the bounds "
                             "(fast)")
    parser.add_argument("--pi", help=f"π_Θ for approx/fast, in (0, 1], together with --g "
                                     f"({RATIONAL_FORMS}; default: computed from the chains)")
    parser.add_argument("--g", help=f"g_Θ for approx/fast, in (0, 1], together with --pi "
                                    f"({RATIONAL_FORMS}; default: certified from the chains)")
    parser.add_argument("--interval", help="L,U: use the binary-chain family p0, p1 ∈ [L, U] of "
                                           "§5 instead of the model's priors (T = number of "
                                           "attributes)")
    parser.add_argument("--step", default="1/20", help="grid step that makes --interval finite "
                                                       "for the exact methods (default 1/20)")
    parser.add_argument("--nodes", help="only these comma-separated 1-based nodes (exact method)")
    add_search_options(parser)
    add_common_options(parser, datasets=True)
    add_parameter_options(parser)
    add_execution_options(parser)  # exact method: the nodes' quilt searches are the tasks
    parser.set_defaults(handler=run)
    return parser


def chain_parameters(args: argparse.Namespace):
    """``(π_Θ, g_Θ)`` from ``--pi`` and ``--g``, or ``None`` when neither is given."""
    from pufferfish.models.errors import ModelError
    from pufferfish.models.numbers import exact

    if args.pi is None and args.g is None:
        return None
    if args.method == "exact":
        raise UsageError("--pi and --g apply to --method approx and fast only")
    if args.pi is None or args.g is None:
        missing = "--g" if args.g is None else "--pi"
        raise UsageError(f"give --pi and --g together ({missing} is missing)")
    values = []
    for option, text in (("--pi", args.pi), ("--g", args.g)):
        value = exact(text, option)
        if not 0 < value <= 1:
            raise ModelError(f"must be in (0, 1], got {text}", option)
        values.append(value)
    return tuple(values)


def run(args: argparse.Namespace) -> int:
    from pufferfish.verify.report import Progress
    from pufferfish.models.bayesnet import BayesNetFamily
    from pufferfish.models.errors import ModelError
    from pufferfish.models.numbers import exact
    from pufferfish.models.chain_family import binary_box_parameters, chain_family_parameters
    from pufferfish.verify.quilts.bayesnet_mqm import mqm_bayesnet
    from pufferfish.verify.quilts.chain_search import mqm_chain_approx, mqm_chain_exact
    from pufferfish.verify.quilts.scores import as_budget

    budget = as_budget(parse_epsilon(args.epsilon, "--epsilon", FINITE_EPSILON_FORMS))
    parameters = chain_parameters(args)
    if args.nodes is not None and args.method != "exact":
        raise UsageError("--nodes applies to --method exact only")
    if args.method != "exact":
        refuse_execution_options(args, "--method exact")
    family = load_quilt_family(args)
    if isinstance(family, BayesNetFamily):
        if args.method != "exact":
            raise ModelError("Bayesian networks (and priors that are not homogeneous chains) "
                             "support --method exact only: the approx and fast methods use the "
                             "bounds of Lemma B.4, which hold for homogeneous reversible chains",
                             "--method")
        nodes = None
        if args.nodes:
            nodes = [network_node(t, family, "--nodes") for t in args.nodes.split(",")]
        progress = Progress(len(nodes or family.nodes), "mqm")
        try:
            with execution_engine(args) as engine:
                result = mqm_bayesnet(family, budget, nodes=nodes,
                                      max_quilt_size=args.max_quilt_size,
                                      max_candidates=args.max_quilts,
                                      progress=lambda d, t: progress.step(f"node {d}/{t}"),
                                      engine=engine)
        finally:
            progress.close()
    elif args.method == "exact":
        nodes = None
        if args.nodes:
            nodes = [chain_node(t, family, "--nodes") for t in args.nodes.split(",")]
        progress = Progress(family.length, "mqm")
        try:
            with execution_engine(args) as engine:
                # d of t nodes (in this process) or runs of nodes (on a cluster)
                result = mqm_chain_exact(family, budget, nodes=nodes,
                                         progress=lambda d, t: progress.update(
                                             family.length * d // t, f"{d}/{t}"),
                                         engine=engine)
        finally:
            progress.close()
    else:
        if parameters is not None:
            pi, g = parameters
        elif args.interval:
            low, high = (exact(x, "--interval") for x in args.interval.split(","))
            pi, g = binary_box_parameters(low, high)
        else:
            pi, g = chain_family_parameters(family)
        result = mqm_chain_approx(family.length, budget, pi, g, fast=args.method == "fast")
    emit(args, result.to_dict(), result.explain())
    return EXIT_OK
