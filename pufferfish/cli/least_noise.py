"""``pufferfish least-noise MODEL --epsilon E [--mechanism M | --query sum|count [--attributes
A,B] [--value V] [--min L --max H]] [--noise geometric|laplace|both] [--tolerance T]``: the least
noise that makes a sum or a count ε-Pufferfish private against the model's priors and secret
pairs (Bai et al., Composition for Pufferfish Privacy, §2.2, Definition 5), for two-sided
geometric noise clamped to ``[L, H]`` and for Laplace noise:
:func:`pufferfish.verify.structured.least_noise.least_noise`.

``--mechanism M`` reads the query, its attributes, the counted value and the clamp from the
model's mechanism ``M`` (a sum or a count with geometric noise), searches that kind of noise, and
says whether ``M``'s own α is private; the flags ``--query`` ... ``--max`` describe a query
instead.  The priors must have a factored form (Markov chains, product priors, Bayesian
networks); the level is read from the junction tree's laws, never by listing the datasets.  Each
search prints a certified bracket ``(fail, ok]`` — ``ok`` proved private, ``fail`` proved not,
by exact levels for geometric noise and certified ones for Laplace noise; the least noise
itself lies between them — and then what to use, plainly: ``use α >= α_ok`` (``use b >= b_ok``).

Exit status: 0 when every asked-for kind of noise has a private end, 1 when no noise of some kind
makes the query private (a pair the query separates whatever the noise), 2 on bad input.
"""

from __future__ import annotations

import argparse

from pufferfish.cli.common import FINITE_EPSILON_FORMS
from pufferfish.cli.common import model_file, model_help
from pufferfish.cli.common import (EXIT_OK, EXIT_UNDECIDED, EXIT_VIOLATED, RATIONAL_FORMS, UsageError,
                                   add_common_options, add_mechanism_option,
                                   add_parameter_options, budget_text, emit, epsilon_help,
                                   integer, load_pufferfish_model, parse_epsilon,
                                   single_mechanism)


def add_parser(subparsers) -> argparse.ArgumentParser:
    from pufferfish.models.universe import DEFAULT_MAX_DATASETS

    parser = subparsers.add_parser(
        "least-noise", help="certified brackets around the least geometric noise α (exact "
        "levels at their ends) and the least Laplace scale b (certified levels) that make a sum "
        "or a count ε-Pufferfish private, by the prior's structure, and which noise to use")
    parser.add_argument("model", type=model_file, help=model_help("model file (JSON)"))
    parser.add_argument("--epsilon", type=budget_text, required=True,
                        help=epsilon_help("privacy parameter ε, in [1e-9, 100]",
                                          FINITE_EPSILON_FORMS))
    add_mechanism_option(parser, "read the query, its attributes, the counted value and the "
                                 "clamp from this mechanism of the model (a sum or a count with "
                                 "geometric noise; one mechanism), search that noise and check "
                                 "its own α", old=())
    parser.add_argument("--query", choices=("sum", "count"),
                        help="the released query (default sum; not with --mechanism)")
    parser.add_argument("--attributes",
                        help="comma-separated attributes the query reads (default all)")
    parser.add_argument("--value",
                        help="the value a count counts (default 1; read as the attributes' "
                             "domain values are written)")
    parser.add_argument("--min", type=integer, dest="low",
                        help="the geometric clamp's lower end (default the query's least value)")
    parser.add_argument("--max", type=integer, dest="high",
                        help="the geometric clamp's upper end (default the query's largest value)")
    parser.add_argument("--noise", choices=("geometric", "laplace", "both"),
                        help="which noise to search (default both; with --mechanism, the "
                             "mechanism's geometric noise)")
    parser.add_argument("--tolerance", default="1/1000",
                        help=f"relative width of each bracket's scales, in (0, 1) (default "
                             f"1/1000; {RATIONAL_FORMS})")
    parser.add_argument("--ends-only", action="store_true",
                        help="read every pair at the two ends of the output range only: a "
                             "certified lower bound on the least noise, for chains too long for "
                             "their laws to fit in memory")
    add_common_options(parser)
    add_parameter_options(parser)
    # the model is read, never enumerated: no --max-datasets
    parser.set_defaults(handler=run, max_datasets=DEFAULT_MAX_DATASETS)
    return parser


def _value(text: str, model):
    """``--value`` as a domain value of the attributes: the value whose text it is."""
    from pufferfish.models.errors import ModelError

    values = {v for domain in model.universe.domains for v in domain}
    matches = [v for v in values if str(v) == text]
    if len(matches) != 1:
        known = ", ".join(sorted(map(str, values))[:12])
        raise ModelError(f"{text!r} is not a value of the attributes (values: {known})",
                         "--value")
    return matches[0]


def _noise_of(model, name: str) -> str:
    """The noise to search for the model's mechanism ``name``: its own geometric noise, both
    kinds when it adds none."""
    from pufferfish.verify.structured.least_noise import mechanism_query

    return "geometric" if mechanism_query(model, name)[1] is not None else "both"


def run(args: argparse.Namespace) -> int:
    from pufferfish.models.errors import ModelError, TooLargeError
    from pufferfish.models.numbers import exact
    from pufferfish.verify.structured.least_noise import least_noise, search_budget

    budget = search_budget(parse_epsilon(args.epsilon, "--epsilon", FINITE_EPSILON_FORMS),
                           "--epsilon")
    tolerance = exact(args.tolerance, "--tolerance")
    if not 0 < tolerance < 1:
        raise ModelError(f"the tolerance must be in (0, 1), got {args.tolerance}", "--tolerance")
    mechanism = single_mechanism(args, "least-noise reads one mechanism's query")
    if mechanism is not None:
        flags = (("--query", args.query), ("--attributes", args.attributes),
                 ("--value", args.value), ("--min", args.low), ("--max", args.high))
        given = [flag for flag, value in flags if value is not None]
        if given:
            raise UsageError(f"--mechanism {mechanism} gives the query, its attributes, the "
                             f"counted value and the clamp; leave out {', '.join(given)}")
    model = load_pufferfish_model(args)
    attributes = None
    if args.attributes is not None:
        attributes = [a.strip() for a in args.attributes.split(",")]
        unknown = [a for a in attributes if a not in model.universe.attributes]
        if unknown or not all(attributes):
            raise ModelError(f"unknown attributes {unknown or attributes}; the model's are "
                             f"{', '.join(model.universe.attributes)}", "--attributes")
    query = args.query or "sum"
    value = _value(args.value or "1", model) if query == "count" else 1
    noise = args.noise or ("both" if mechanism is None else _noise_of(model, mechanism))
    try:
        report = least_noise(model, budget, query, attributes=attributes, value=value,
                             low=args.low, high=args.high, noise=noise,
                             tolerance=tolerance, ends_only=args.ends_only, mechanism=mechanism)
    except TooLargeError as error:
        if args.ends_only:
            raise
        raise TooLargeError(f"{error.reason}; --ends-only needs no polynomials and gives a "
                            f"certified lower bound on the least noise", error.path) from None
    emit(args, report.to_dict(), report.explain())
    searched = [r for r in (report.geometric, report.laplace) if r is not None]
    if any(r.ok is None and r.fail is not None for r in searched):
        return EXIT_VIOLATED
    if report.mechanism is not None:  # --mechanism: its own noise is a check too
        return {"private": EXIT_OK, "not private": EXIT_VIOLATED}.get(report.mechanism.verdict,
                                                                      EXIT_UNDECIDED)
    return EXIT_OK
