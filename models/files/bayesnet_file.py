"""Reader of Bayesian-network family files (``"bayesnet": 1``), validated with JSON paths.

A separate, versioned file kind for the networks of Wang et al., Privacy-Preserving Analysis of
Correlated Data, §4 (a graph, node domains, and a finite family Θ of CPT sets); chains need no such
file (an ordinary model file with a ``markov`` prior is read by
:func:`pufferfish.models.files.pufferfish_file.load_model`).  Schema:
``models/bayesnet.schema.json``.  Example::

    {"bayesnet": 1, "domain": [0, 1],
     "nodes": {"A": {"parents": []}, "B": {"parents": ["A"]}},
     "members": {"theta": {"A": {"": {"0": "1/2", "1": "1/2"}},
                           "B": {"0": {"0": "3/4", "1": "1/4"}, "1": {"0": "1/4", "1": "3/4"}}}}}

A CPT row is keyed by the parents' values joined with commas in the order of ``parents`` (``""``
for a root); its value maps the node's values (as strings) to exact probabilities.  Rational
probabilities are strings (``"1/3"``, ``"0.25"``) or integers; floats are refused.
"""

from __future__ import annotations

import os
from pathlib import Path


from pufferfish.models.bayesnet import BayesNet, BayesNetFamily
from pufferfish.models.errors import ModelError
from pufferfish.models.files.json_io import check_schema, read_json_file, schema_validator

FORMAT_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("bayesnet.schema.json")
"""The JSON Schema of the format, the file ``bayesnet.schema.json`` beside this module.

:meta hide-value:
"""


def is_bayesnet_file(data: object) -> bool:
    """Whether a parsed JSON document is a Bayesian-network file (has the ``bayesnet`` key)."""
    return isinstance(data, dict) and "bayesnet" in data


def load_bayesnet(path: str | os.PathLike) -> BayesNetFamily:
    """Read and validate a Bayesian-network family file."""
    data = read_json_file(path, "Bayesian-network file")
    return parse_bayesnet(data)


def parse_bayesnet(data: object) -> BayesNetFamily:
    """Validate a parsed document against the schema, then build the family."""
    if isinstance(data, dict) and "bayesnet" in data and data["bayesnet"] != FORMAT_VERSION:
        raise ModelError(f"unsupported bayesnet file version {data['bayesnet']!r}; this reader "
                         f"supports version {FORMAT_VERSION}", "bayesnet")
    check_schema(data, schema_validator(SCHEMA_PATH))
    assert isinstance(data, dict)
    default = data.get("domain")
    parents, domains = {}, {}
    for name, body in data["nodes"].items():
        parents[name] = list(body["parents"])
        domain = body.get("domain", default)
        if domain is None:
            raise ModelError("no domain: give one per node or a top-level 'domain'",
                             f"nodes.{name}.domain")
        domains[name] = list(domain)
    for name, ps in parents.items():
        for k, p in enumerate(ps):
            if p not in parents:
                raise ModelError(f"parent {p!r} is not a node; the nodes are {list(parents)}",
                                 f"nodes.{name}.parents.{k}")
    members = []
    for member, body in data["members"].items():
        cpts = {}
        for node, rows in body.items():
            if node not in parents:
                raise ModelError(f"unknown node {node!r}", f"members.{member}.{node}")
            table = {}
            for key, row in rows.items():
                where = f"members.{member}.{node}.{key}"
                texts = key.split(",") if key != "" else []
                ps = parents[node]
                if len(texts) != len(ps):
                    raise ModelError(f"the row key {key!r} needs {len(ps)} comma-separated parent "
                                     f"values (parents {ps})", where)
                values = tuple(_value(t.strip(), domains[p], where) for t, p in zip(texts, ps))
                table[values] = {_value(v, domains[node], f"{where}.{v}"): p for v, p in row.items()}
            cpts[node] = table
        members.append(BayesNet.from_cpts(parents, domains, cpts, member, f"members.{member}."))
    return BayesNetFamily(tuple(members))


def _value(text: str, domain: list, path: str) -> object:
    for value in domain:
        if str(value) == text:
            return value
    raise ModelError(f"{text!r} is not in the domain {domain}", path)


__all__ = ["load_bayesnet", "parse_bayesnet", "is_bayesnet_file", "FORMAT_VERSION"]
