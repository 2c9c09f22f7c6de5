"""Command-line subcommands ``quilts``, ``mqm`` and ``mqm-figures`` (``002_e1f2e9a9937b8cda.txt`` §4–5).

* ``pufferfish quilts MODEL --node N [--epsilon E]`` — the minimal Markov quilts of node ``N``
  (Definition 4.2 by d-separation; Definition B.1), and with ``--epsilon`` each quilt's exact
  max-influence and score, best first.
* ``pufferfish mqm MODEL --epsilon E [--method exact|approx|fast|exact-fast]`` — the Markov Quilt
  Mechanism's noise scale σ_max with the chosen quilt per node (Algorithm 2; for chains
  Algorithms 3–5).
* ``pufferfish mqm-figures --out DIR [--figure 1+3|4|all]`` — Figures 1 and 3 (default) and
  Figure 4 (Appendix B.12, the private histogram) of the paper as PNG files.

``MODEL`` is either a Bayesian-network file (``"bayesnet": 1``, :mod:`pufferfish.models.files.bayesnet_file`) or an
ordinary model file whose priors are homogeneous ``markov`` chains (the family Θ).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pufferfish.models.bayesnet import BayesNetFamily, chain_from_markov_prior
from pufferfish.models.files.bayesnet_file import is_bayesnet_file, parse_bayesnet
from pufferfish.models.errors import ModelError
from pufferfish.models.files.pufferfish_file import load_model
from pufferfish.models.numbers import exact
from pufferfish.models.priors import MarkovPrior
from pufferfish.verify.quilts.mqm import (INITIAL_MODES, ChainFamily, as_budget, chain_family_parameters,
                        chain_node_quilts_exact, exact_score, interval_family, interval_parameters,
                        max_influence, mqm_bayesnet, mqm_chain_approx, mqm_chain_exact)
from pufferfish.verify.quilts.markov_quilts import DEFAULT_MAX_CANDIDATES, check_enumeration_budget, enumerate_quilts
from pufferfish.verify.report import EXIT_OK, Progress, emit, table


def add_parser(subparsers, common) -> None:
    """Register ``quilts``, ``mqm`` and ``mqm-figures``."""
    q = subparsers.add_parser("quilts", help="Markov quilts of a node (Definition 4.2)",
                              description="List the minimal Markov quilts of a node of a Bayesian "
                              "network or chain (002_e1f2e9a9937b8cda.txt §4, Definition 4.2) and, "
                              "with --epsilon, their max-influence and score.")
    q.add_argument("model", help="a bayesnet file or a model file with markov priors")
    q.add_argument("--node", required=True, help="node name (chains: attribute name or 1-based index)")
    q.add_argument("--epsilon", help="privacy budget ε: scores card(X_N)/(ε − e(X_Q|X_i))")
    _search_options(q)
    common(q)
    q.set_defaults(handler=run_quilts)

    m = subparsers.add_parser("mqm", help="Markov Quilt Mechanism noise scale (Algorithm 2)",
                              description="Compute σ_max of the Markov Quilt Mechanism "
                              "(002_e1f2e9a9937b8cda.txt §4 Algorithm 2; chains: Algorithms 3–5) "
                              "with the chosen quilt per node.")
    m.add_argument("model", help="a bayesnet file or a model file with markov priors")
    m.add_argument("--epsilon", required=True, help="privacy budget ε (e.g. 1, 1/2, log(3))")
    m.add_argument("--method", choices=("exact", "approx", "fast"), default="exact",
                   help="chains: exact max-influence (MQMExact, Algorithm 3), Lemma B.4 bounds "
                        "(MQMApprox, Algorithms 3-4) or Algorithm 5 with the bounds (fast)")
    m.add_argument("--pi", help="π_Θ for approx/fast (default: computed from the chains)")
    m.add_argument("--g", help="g_Θ for approx/fast (default: certified from the chains)")
    m.add_argument("--interval", help="L,U: use the binary-chain family p0, p1 ∈ [L, U] of §5 "
                                      "instead of the model's priors (T = number of attributes)")
    m.add_argument("--step", default="1/20", help="grid step that makes --interval finite for "
                                                  "the exact methods (default 1/20)")
    m.add_argument("--nodes", help="only these comma-separated 1-based nodes (exact method)")
    _search_options(m)
    common(m)
    m.set_defaults(handler=run_mqm)

    f = subparsers.add_parser("mqm-figures", help="Figures 1, 3 and 4 of 002 §5/B.11/B.12 as PNG",
                              description="Regenerate Figure 1 (§5), Figure 3 (Appendix B.11) and "
                              "Figure 4 (Appendix B.12) of 002_e1f2e9a9937b8cda.txt as PNG files "
                              "(numerical).")
    f.add_argument("--out", required=True, help="output directory")
    f.add_argument("--runs", type=int, default=500, help="runs averaged in Figure 1 (default 500)")
    f.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    f.add_argument("--grid", type=int, default=99, help="Figure 3 grid points per axis (default 99)")
    f.add_argument("--figure", choices=("1+3", "4", "all"), default="1+3",
                   help="which figures: 1+3 (default: figure1.png and figure3.png), 4 (Appendix "
                        "B.12: figure4.png and figure4.json, the private histogram of a 5-state "
                        "reversible chain) or all")
    f.add_argument("--repetitions", type=int, default=100,
                   help="Figure 4: runs averaged, each on a new data set (default 100)")
    f.add_argument("--length", type=int, default=10000,
                   help="Figure 4: chain length T of panels (a) and (b) (default 10000)")
    f.add_argument("--lengths", default="1000,3000,10000,30000",
                   help="Figure 4: comma-separated lengths of panel (c)")
    f.add_argument("--epsilons", default="1/10,1/5,1/2,1,2,5,10",
                   help="Figure 4: comma-separated ε values")
    common(f)
    f.set_defaults(handler=run_figures)


def _search_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--initial", choices=INITIAL_MODES, default="given",
                        help="chains: initial distribution as given, stationary, or any (§5)")
    parser.add_argument("--max-quilt-size", type=int, default=None,
                        help="Bayesian networks: largest quilt enumerated (default: no limit)")
    parser.add_argument("--max-quilts", type=int, default=DEFAULT_MAX_CANDIDATES,
                        help=f"Bayesian networks: candidate quilts examined per node "
                             f"(default {DEFAULT_MAX_CANDIDATES:,})")


def _load(path: str, args: argparse.Namespace):
    """A :class:`BayesNetFamily` or a :class:`ChainFamily` from ``path``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ModelError(f"cannot read {path}: {error.strerror}", path) from None
    except json.JSONDecodeError as error:
        raise ModelError(f"{path} is not valid JSON: {error.msg} at line {error.lineno}", path) from None
    if is_bayesnet_file(data):
        return parse_bayesnet(data)
    model = load_model(path, max_datasets=args.max_datasets)
    interval = getattr(args, "interval", None)
    if interval:
        parts = interval.split(",")
        if len(parts) != 2:
            raise ModelError("write the interval as L,U (for example 1/10,9/10)", "--interval")
        return interval_family(parts[0], parts[1], model.universe.width, args.step,
                               args.initial if args.initial != "given" else "any")
    chains = []
    for name, prior in model.priors.items():
        if not isinstance(prior, MarkovPrior):
            raise ModelError("the chain algorithms need every prior to be a markov chain",
                             f"priors.{name}")
        chains.append(chain_from_markov_prior(prior))
    return ChainFamily(tuple(chains), args.initial)


def _chain_node(text: str, family: ChainFamily, path: str) -> int:
    try:
        i = int(text)
    except ValueError:
        i = int(text[1:]) if text.startswith("x") and text[1:].isdigit() else -1
    if not 1 <= i <= family.length:
        raise ModelError(f"node {text!r} is not in the chain 1..{family.length}", path)
    return i


def run_quilts(args: argparse.Namespace) -> int:
    family = _load(args.model, args)
    budget = as_budget(args.epsilon) if args.epsilon else None
    if isinstance(family, BayesNetFamily):
        node = next((n for n in family.nodes if str(n) == args.node), None)
        if node is None:
            raise ModelError(f"unknown node {args.node!r}; the nodes are "
                             f"{[str(n) for n in family.nodes]}", "--node")
        check_enumeration_budget(family.graph, args.max_quilt_size, args.max_quilts)
        progress = Progress(1, "quilts")
        enum = enumerate_quilts(family.graph, node, max_size=args.max_quilt_size,
                                max_candidates=args.max_quilts,
                                progress=lambda d, t: progress.step(f"{d}/{t}"))
        progress.close()
        rows, entries = [], []
        for q in enum.minimal:
            entry = q.to_dict()
            row = ["{" + ", ".join(entry["quilt"]) + "}", "{" + ", ".join(entry["nearby"]) + "}",
                   "{" + ", ".join(entry["remote"]) + "}", q.card_nearby]
            if budget is not None:
                influence = max_influence(family, node, q.quilt)
                score = exact_score(q.card_nearby, influence.ratio, budget)
                entry["max_influence"] = influence.to_dict()
                entry["score"] = score.to_dict()["score"]
                row += [influence.to_dict()["epsilon"], _fmt(score.upper)]
            rows.append(row)
            entries.append(entry)
        if budget is not None:
            order = sorted(range(len(rows)), key=lambda j: _key(entries[j]["score"][1]))
            rows = [rows[j] for j in order]
            entries = [entries[j] for j in order]
        headers = ["X_Q", "X_N", "X_R", "card(X_N)"] + (["e(X_Q|X_i)", "score ≤"] if budget else [])
        text = (f"{len(enum.minimal)} minimal Markov quilts for node {node} "
                f"({enum.examined} candidates examined)\n" + table(headers, rows))
        if not enum.complete:
            text += "\n" + enum.message
        data = {"node": str(node), "complete": enum.complete, "message": enum.message,
                "quilts": entries, "epsilon": args.epsilon}
        emit(args, data, text)
        return EXIT_OK
    i = _chain_node(args.node, family, "--node")
    if budget is None:
        n = family.length
        text = (f"node {i} of a chain of {n}: the Lemma B.2 quilts are {{X_(i-a), X_(i+b)}}, "
                f"{{X_(i-a)}}, {{X_(i+b)}} and ∅ for 1 <= a <= {i - 1}, 1 <= b <= {n - i} "
                f"({i * (n + 1 - i)} quilts); give --epsilon to score them")
        emit(args, {"node": i, "length": n, "count": i * (n + 1 - i)}, text)
        return EXIT_OK
    if family.length > 200:
        result = mqm_chain_exact(family, budget, nodes=[i])
        choice = result.choices[0]
        emit(args, {"node": i, "best": choice.to_dict()},
             f"node {i}: best quilt {choice.quilt_label()}, card(X_N) = "
             f"{choice.score.card_nearby}, score ≤ {_fmt(choice.score.upper)}")
        return EXIT_OK
    choices = sorted(chain_node_quilts_exact(family, i, budget),
                     key=lambda c: (c.score.upper, c.score.card_nearby))
    rows = [[c.quilt_label(), c.score.card_nearby, f"{c.log_influence[1]:.6g}", _fmt(c.score.upper)]
            for c in choices[:15]]
    text = (f"node {i}: {len(choices)} Lemma B.2 quilts; the 15 best\n"
            + table(["X_Q", "card(X_N)", "e(X_Q|X_i) ≤", "score ≤"], rows))
    emit(args, {"node": i, "quilts": [c.to_dict() for c in choices]}, text)
    return EXIT_OK


def _fmt(x: float) -> str:
    return "inf" if x == float("inf") else f"{x:.10g}"


def _key(x) -> float:
    return float("inf") if x == "inf" else float(x)


def run_mqm(args: argparse.Namespace) -> int:
    family = _load(args.model, args)
    budget = as_budget(args.epsilon)
    if isinstance(family, BayesNetFamily):
        if args.method != "exact":
            raise ModelError("Bayesian networks support --method exact only", "--method")
        progress = Progress(len(family.nodes), "mqm")
        result = mqm_bayesnet(family, budget, max_quilt_size=args.max_quilt_size,
                              max_candidates=args.max_quilts,
                              progress=lambda d, t: progress.step(f"node {d}/{t}"))
        progress.close()
    elif args.method == "exact":
        nodes = None
        if args.nodes:
            nodes = [_chain_node(t.strip(), family, "--nodes") for t in args.nodes.split(",")]
        progress = Progress(family.length, "mqm")
        result = mqm_chain_exact(family, budget, nodes=nodes,
                                 progress=lambda d, t: progress.step(f"node {d}/{t}"))
        progress.close()
    else:
        if args.pi and args.g:
            pi, g = exact(args.pi, "--pi"), exact(args.g, "--g")
        elif args.interval:
            low, high = (exact(x, "--interval") for x in args.interval.split(","))
            pi, g = interval_parameters(low, high)
        else:
            pi, g = chain_family_parameters(family)
        result = mqm_chain_approx(family.length, budget, pi, g, fast=args.method == "fast")
    emit(args, result.to_dict(), result.explain())
    return EXIT_OK


def run_figures(args: argparse.Namespace) -> int:
    from pufferfish.proofs_check.paper_002.figures import make_figure4, make_figures
    paths = []
    if args.figure in ("1+3", "all"):
        paths += make_figures(Path(args.out), runs=args.runs, seed=args.seed, grid=args.grid)
    if args.figure in ("4", "all"):
        if args.repetitions < 1:
            raise ModelError("--repetitions must be a positive integer", "--repetitions")
        try:
            lengths = tuple(int(x) for x in args.lengths.split(","))
        except ValueError:
            raise ModelError("--lengths must be comma-separated integers", "--lengths") from None
        if args.length < 1 or any(T < 1 for T in lengths):
            raise ModelError("chain lengths must be positive", "--lengths")
        epsilons = tuple(x.strip() for x in args.epsilons.split(","))
        for e in epsilons:
            as_budget(e)
        paths.append(make_figure4(Path(args.out), repetitions=args.repetitions, seed=args.seed,
                                  length=args.length, lengths=lengths, epsilons=epsilons))
    emit(args, {"figures": [str(p) for p in paths]}, "\n".join(f"wrote {p}" for p in paths))
    return EXIT_OK


__all__ = ["add_parser", "run_quilts", "run_mqm", "run_figures"]
