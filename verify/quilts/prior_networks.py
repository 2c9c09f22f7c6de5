"""A model file's priors as a family of Bayesian networks on one graph, for the Markov Quilt
Mechanism (Wang et al., Privacy-Preserving Analysis of Correlated Data, §4, "The Setting": Θ is a
set of CPT sets on one graph).

Each prior of a Pufferfish model (Bai et al., Composition for Pufferfish Privacy, §2) factorises
over a graph on its attributes; the family gets the sparsest graph every member factorises over:

* **independent** priors factorise over the graph with **no edges** (a product prior is a network
  whose every CPT is a root marginal);
* **Markov** priors, homogeneous or with a kernel per step, factorise over the **chain**
  ``x_1 → x_2 → … → x_n`` (node ``t+1``'s CPT is the step-``t`` kernel); an independent prior is
  a chain whose rows do not depend on the parent (:func:`independent_as_chain`, which the
  structured influence curve uses too);
* **Bayesian-network** priors (``bayesnet``) factorise over their own DAG; with other network
  or Markov priors the family takes the **network** that is the union of their edges (a prior
  factorises over any graph that contains its own: extra parents are ignored by its rows), when
  that union is acyclic;
* **table** and **uniform** priors state no conditional independence, and by the chain rule
  ``P(x) = Π_t P(x_t | x_<t)`` every distribution factorises over the **complete** DAG in attribute
  order (node ``t``'s parents are all earlier attributes).  A parent assignment of probability 0
  gets the uniform row: it never contributes to the joint, so any row gives the same network.
  Networks whose union has a cycle fall back to the complete DAG too.

Interval families are refused: Definition 4.1's max-influence conditions on ``X_i = a``, and the
family of Example 4.3 fixes only the conditionals of its own secrets.

Complexity: one CPT row per parent assignment of each node (``Π_p d_p`` rows, refused beyond
``max_rows`` in all), each copied from a kernel or a network's table; for the complete DAG,
``O(|support| · n)`` more to read the rows off the support.

>>> from pufferfish.models.files.pufferfish_file import parse_model
>>> model = parse_model({"pufferfish_model": 1, "attributes": ["a", "b"], "domain": [0, 1],
...     "datasets": "all", "priors": {"p": {"independent": {"a": {"0": "1/2", "1": "1/2"},
...     "b": {"0": "1/4", "1": "3/4"}}}}, "entry_pairs": True})
>>> family = network_family(model.priors, model.universe)
>>> family.members[0].parents["b"], str(family.members[0].cpts["b"][()].prob(1))
((), '3/4')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import product

import networkx as nx

from pufferfish.models.bayesnet import BayesNet, BayesNetFamily, BayesNetPrior
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import TooLargeError, UnsupportedError
from pufferfish.models.priors import IndependentPrior, IntervalFamily, MarkovPrior, PriorLike
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Universe

GRAPHS = ("no edges", "chain", "network", "complete")
"""The graphs a prior family may factorise over, sparsest first (the module docstring)."""


def network_graph(priors: Mapping[str, PriorLike]) -> str:
    """The sparsest of :data:`GRAPHS` that every prior factorises over (module docstring)."""
    return _network(priors, ())[0]


def _network(priors: Mapping[str, PriorLike], attributes: Sequence[str]
             ) -> tuple[str, dict | None]:
    """The graph's name and, unless it is the complete DAG, each attribute's parents (in the
    order of ``attributes``)."""
    for name, prior in priors.items():
        if isinstance(prior, IntervalFamily):
            raise UnsupportedError("the Markov Quilt Mechanism's max-influence conditions on "
                                   "X_i = a, but an interval family fixes only the conditionals "
                                   "of its own secrets; use finite priors", f"priors.{name}")
    edges: set[tuple] = set()
    for prior in priors.values():
        if isinstance(prior, IndependentPrior):
            continue
        if isinstance(prior, MarkovPrior):
            chain = prior.attributes
            edges |= {(chain[t - 1], chain[t]) for t in range(1, len(chain))}
        elif isinstance(prior, BayesNetPrior):
            edges |= {(p, v) for v, ps in prior.network.parents.items() for p in ps}
        else:
            return "complete", None
    graph = nx.DiGraph(list(edges))
    graph.add_nodes_from(attributes)
    if not nx.is_directed_acyclic_graph(graph):
        return "complete", None
    place = {a: t for t, a in enumerate(attributes)}
    parents = {a: sorted(graph.predecessors(a), key=place.__getitem__) for a in attributes}
    kinds = {type(p) for p in priors.values()}
    name = ("no edges" if not edges else
            "chain" if kinds <= {IndependentPrior, MarkovPrior} else "network")
    return name, parents


def network_family(priors: Mapping[str, PriorLike], universe: Universe,
                   max_rows: int = DEFAULT_MAX_DATASETS) -> BayesNetFamily:
    """The priors as a :class:`BayesNetFamily` over the attributes (module docstring)."""
    attributes = universe.attributes
    graph, parents = _network(priors, attributes)
    domains = dict(zip(attributes, universe.domains))
    if parents is None:
        parents = {a: list(attributes[:t]) for t, a in enumerate(attributes)}
    rows = sum(_count([domains[p] for p in parents[a]]) for a in attributes)
    if rows > max_rows:
        raise TooLargeError(f"the priors factorise over the {graph} graph, whose CPTs have "
                            f"{rows:,} rows, more than the limit of {max_rows:,}; raise it with "
                            f"--max-datasets", "priors")
    members = []
    for name, prior in priors.items():
        cpts = {a: _cpt(prior, t, parents, domains, max_rows)
                for t, a in enumerate(attributes)}
        members.append(BayesNet.from_cpts(parents, domains, cpts, name, f"priors.{name}."))
    return BayesNetFamily(tuple(members))


def independent_as_chain(prior: IndependentPrior, domains) -> MarkovPrior:
    """The independent prior as a Markov chain with constant rows (one kernel per step).

    >>> from pufferfish.models.distribution import Distribution
    >>> coins = IndependentPrior("c", ("x1", "x2"), (Distribution({0: "1/2", 1: "1/2"}),
    ...                                               Distribution({0: "1/4", 1: "3/4"})))
    >>> chain = independent_as_chain(coins, ((0, 1), (0, 1)))
    >>> chain.probability((1, 1)) == coins.probability((1, 1))
    True
    """
    kernels = tuple({v: prior.marginals[t + 1] for v in domains[t]}
                    for t in range(len(prior.attributes) - 1))
    return MarkovPrior(prior.name, prior.attributes, prior.marginals[0], kernels,
                       homogeneous=False)


def _count(domains) -> int:
    count = 1
    for domain in domains:
        count *= len(domain)
    return count


def _contains(parents_of: Mapping, network: BayesNet) -> bool:
    """Whether every edge of ``network`` is an edge of the graph of ``parents_of``: then the
    network's rows are rows of that graph (extra parents ignored)."""
    return all(set(ps) <= set(parents_of[v]) for v, ps in network.parents.items())


def _cpt(prior, t: int, parents_of: Mapping, domains: Mapping, max_rows: int) -> dict:
    """Node ``t``'s CPT rows, keyed by its parents' values (``parents_of``: every node's)."""
    parents = parents_of[list(domains)[t]]
    keys = list(product(*(domains[p] for p in parents)))
    if isinstance(prior, IndependentPrior):
        return {key: prior.marginals[t] for key in keys}
    if isinstance(prior, MarkovPrior):
        if t == 0:
            return {key: prior.initial for key in keys}
        kernel = prior.transitions[t - 1]
        previous = parents.index(list(domains)[t - 1])
        return {key: kernel[key[previous]] for key in keys}
    if isinstance(prior, BayesNetPrior) and _contains(parents_of, prior.network):
        node = list(domains)[t]
        own = [parents.index(p) for p in prior.network.parents[node]]
        table = prior.network.cpts[node]
        return {key: table[tuple(key[i] for i in own)] for key in keys}
    return _chain_rule_rows(prior, t, keys, domains[list(domains)[t]], max_rows)


def _chain_rule_rows(prior, t: int, keys: list, domain: tuple, max_rows: int) -> dict:
    """``P(x_t | x_<t)`` from the prior's support; the uniform row where ``P(x_<t) = 0``."""
    joint: dict[tuple, dict] = {}
    for dataset, p in prior.support(max_rows):
        row = joint.setdefault(tuple(dataset[:t]), {})
        row[dataset[t]] = row.get(dataset[t], Fraction(0)) + p
    uniform = Distribution._trusted({v: Fraction(1, len(domain)) for v in domain})
    out = {}
    for key in keys:
        row = joint.get(key)
        if not row:
            out[key] = uniform
            continue
        total = sum(row.values(), Fraction(0))
        out[key] = Distribution._trusted({v: p / total for v, p in row.items() if p})
    return out


__all__ = ["GRAPHS", "independent_as_chain", "network_graph", "network_family"]
