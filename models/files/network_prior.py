"""The ``bayesnet`` prior of a Pufferfish model file: a Bayesian network over the attributes.

A model's prior may be a Bayesian network whose nodes are exactly the model's attributes (the
setting of Wang et al., Privacy-Preserving Analysis of Correlated Data, §4), read into a
:class:`~pufferfish.models.bayesnet.BayesNetPrior`, in one of two forms:

* ``{"bayesnet": {"bif": "networks/asia.bif", "renormalise": false}}`` — a network in BIF, the
  format of the Bayesian Network Repository (bnlearn), read exactly by
  :func:`pufferfish.models.bif.load_bif`; the path is relative to the model file (as a program
  mechanism's ``file``).  BIF values are strings, so each attribute's domain must list exactly
  its node's values, as strings (in any order; the model's order is kept).  A CPT row that does
  not sum to one as printed is refused with its file, line and sum, unless ``"renormalise":
  true``, which divides each such row by its sum exactly when the sum is within 1/100 of one
  (:data:`~pufferfish.models.bif.RENORMALISE_TOLERANCE`; a row further off is still refused),
  or ``"renormalise": "any"``, which divides every row; the prior then lists those rows
  (:attr:`~pufferfish.models.bayesnet.BayesNetPrior.renormalised`) and says so in its
  :attr:`~pufferfish.models.bayesnet.BayesNetPrior.notes`.
* ``{"bayesnet": {"nodes": {"A": {"parents": [], "cpt": {"": {"0": "1/2", "1": "1/2"}}}, ...}}}``
  — the network written out: per node its parents and its CPT, one row per combination of the
  parents' values, keyed by those values' texts joined with commas in the order of ``parents``
  (``""`` for a root), as the ``"bayesnet": 1`` family files write them; a row maps the node's
  values (texts of domain values) to exact probabilities summing to 1.  An optional
  ``renormalised`` list (``{"node", "parents", "sum"}`` per row) records rows an import
  renormalised (:meth:`~pufferfish.models.bayesnet.BayesNetPrior.to_dict` writes it).

Cost: the size of the network's tables (one exact conversion per probability).

>>> from pufferfish.models.files.pufferfish_file import parse_model
>>> model = parse_model({"pufferfish_model": 1, "attributes": ["a", "b"], "domain": [0, 1],
...     "datasets": "all", "entry_pairs": True, "priors": {"net": {"bayesnet": {"nodes": {
...         "a": {"parents": [], "cpt": {"": {"0": "1/2", "1": "1/2"}}},
...         "b": {"parents": ["a"], "cpt": {"0": {"0": "3/4", "1": "1/4"}, "1": {"1": "1"}}}}}}}})
>>> model.priors["net"].probability((0, 1)), model.priors["net"].probability((1, 0))
(Fraction(1, 8), Fraction(0, 1))
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping
from itertools import product as cartesian

import networkx as nx

from pufferfish.models.bayesnet import BayesNet, BayesNetPrior, RenormalisedRow
from pufferfish.models.bif import load_bif
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, join_path
from pufferfish.models.numbers import exact, probability
from pufferfish.models.universe import Universe

__all__ = ["read_bayesnet_prior"]

ValueOf = Callable[[str, int, str], object]
"""The reader's lookup of a value's text: ``(text, attribute position, JSON path) -> value``."""


def read_bayesnet_prior(name: str, raw: Mapping, path: str, universe: Universe,
                        base: str | os.PathLike | None, value_of: ValueOf) -> BayesNetPrior:
    """The ``bayesnet`` prior ``name`` of a model file (module docstring); ``path`` is its JSON
    path (``priors.NAME.bayesnet``), ``base`` the model file's folder and ``value_of`` the
    reader's lookup of a domain value by its text.  Errors are :class:`ModelError` at the JSON
    path, a BIF file's own errors also naming the file and line."""
    if ("bif" in raw) == ("nodes" in raw):
        raise ModelError("a bayesnet prior needs exactly one of 'bif' (a BIF file) and 'nodes' "
                         "(the network written out)", path)
    if "bif" in raw:
        if "renormalised" in raw:
            raise ModelError("'renormalised' records the rows of a network written out; a BIF "
                             "file is renormalised with \"renormalise\": true", f"{path}.renormalised")
        network = _from_bif(name, raw, path, universe, base)
    else:
        if "renormalise" in raw:
            raise ModelError("'renormalise' applies to a BIF file; the rows of a network written "
                             "out must sum to 1", f"{path}.renormalise")
        network = _inline(name, raw, path, universe, value_of)
    return BayesNetPrior(name, universe.attributes, network)


def _from_bif(name: str, raw: Mapping, path: str, universe: Universe,
              base: str | os.PathLike | None) -> BayesNet:
    file = os.path.join(base or ".", raw["bif"])
    try:
        network = load_bif(file, renormalise=raw.get("renormalise", False))
    except ModelError as error:
        where = f"{error.path}: " if error.path else ""
        raise type(error)(f"{where}{error.reason}", f"{path}.bif") from None
    nodes, attributes = list(network.nodes), list(universe.attributes)
    missing = [a for a in attributes if a not in network.domains]
    extra = [n for n in nodes if n not in set(attributes)]
    if missing or extra:
        parts = ([f"no node for the attributes {missing}"] if missing else []) + \
                ([f"the nodes {extra} are not attributes"] if extra else [])
        raise ModelError(f"the network's nodes must be exactly the model's attributes: "
                         f"{'; '.join(parts)} (the network {raw['bif']!r} has the nodes "
                         f"{nodes})", f"{path}.bif")
    domains = {}
    for attribute, domain in zip(attributes, universe.domains):
        values = network.domains[attribute]
        if set(values) != set(domain) or len(values) != len(domain):
            suggestion = json.dumps({attribute: list(values)}, ensure_ascii=False)
            raise ModelError(f"node {attribute!r} of {raw['bif']!r} takes the values "
                             f"{list(values)}, but attribute {attribute!r} has the domain "
                             f"{list(domain)}; BIF values are strings: give the attribute "
                             f"exactly these values (\"domain\": {suggestion[:-1]}, ...}})",
                             f"{path}.bif")
        domains[attribute] = tuple(domain)
    if any(domains[a] != network.domains[a] for a in attributes):  # keep the model's value order
        network = dataclasses.replace(
            BayesNet.from_cpts(network.parents, domains, network.cpts, network.name),
            renormalised=network.renormalised)
    return network


def _inline(name: str, raw: Mapping, path: str, universe: Universe, value_of: ValueOf) -> BayesNet:
    nodes = raw["nodes"]
    attributes = list(universe.attributes)
    for node in nodes:
        if node not in attributes:
            raise ModelError(f"{node!r} is not an attribute; the nodes of a bayesnet prior are "
                             f"the attributes {attributes}", f"{path}.nodes.{node}")
    for attribute in attributes:
        if attribute not in nodes:
            raise ModelError(f"no node for attribute {attribute!r}; the nodes of a bayesnet "
                             f"prior are exactly the attributes", f"{path}.nodes")
    position = {a: i for i, a in enumerate(attributes)}
    parents = {}
    for node, body in nodes.items():
        for k, parent in enumerate(body["parents"]):
            if parent not in position:
                raise ModelError(f"the parent {parent!r} is not an attribute",
                                 f"{path}.nodes.{node}.parents.{k}")
            if parent == node or parent in body["parents"][:k]:
                raise ModelError(f"{parent!r} is listed twice or is the node itself",
                                 f"{path}.nodes.{node}.parents.{k}")
        parents[node] = tuple(body["parents"])
    graph = nx.DiGraph([(p, n) for n, ps in parents.items() for p in ps])
    graph.add_nodes_from(nodes)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = [edge[0] for edge in nx.find_cycle(graph)]
        raise ModelError(f"the parents form a cycle {' -> '.join(cycle + cycle[:1])}; a Bayesian "
                         f"network is acyclic", f"{path}.nodes")
    domains = {a: tuple(d) for a, d in zip(attributes, universe.domains)}
    cpts = {}
    for node, body in nodes.items():
        cpath = f"{path}.nodes.{node}.cpt"
        table = {}
        for key, row in body["cpt"].items():
            rpath = join_path(cpath, key)
            texts = key.split(",") if key != "" else []
            if len(texts) != len(parents[node]):
                raise ModelError(f"the row key {key!r} needs {len(parents[node])} comma-separated "
                                 f"values, one per parent {list(parents[node])}", rpath)
            values = tuple(value_of(t.strip(), position[p], rpath)
                           for t, p in zip(texts, parents[node]))
            if values in table:
                raise ModelError(f"a second row for the parent values {list(values)}", rpath)
            probs = {value_of(v, position[node], join_path(rpath, v)): probability(
                p, join_path(rpath, v)) for v, p in row.items()}
            table[values] = Distribution(probs, rpath)
        for values in cartesian(*(domains[p] for p in parents[node])):
            if values not in table:
                text = ",".join(map(str, values))
                raise ModelError(f"no row for the parent values {list(values)} (key {text!r}): "
                                 f"a CPT has a row for every combination of its parents' values",
                                 cpath)
        cpts[node] = table
    network = BayesNet.from_cpts(parents, domains, cpts, name, f"{path}.")
    rows = []
    for k, entry in enumerate(raw.get("renormalised", ())):
        epath = f"{path}.renormalised.{k}"
        node = entry["node"]
        if node not in position:
            raise ModelError(f"{node!r} is not a node", f"{epath}.node")
        texts = entry["parents"].split(",") if entry["parents"] != "" else []
        if len(texts) != len(parents[node]):
            raise ModelError(f"needs {len(parents[node])} comma-separated parent values",
                             f"{epath}.parents")
        values = tuple(value_of(t.strip(), position[p], f"{epath}.parents")
                       for t, p in zip(texts, parents[node]))
        total = exact(entry["sum"], f"{epath}.sum")
        if total <= 0:
            raise ModelError("the sum of a renormalised row is positive", f"{epath}.sum")
        rows.append(RenormalisedRow(node, values, total))
    return dataclasses.replace(network, renormalised=tuple(rows))

