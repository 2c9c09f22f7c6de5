"""The meaning checks of the Pufferfish model-file reader (DESIGN.md, "Model files").

:func:`pufferfish.models.files.pufferfish_file.parse_model` first checks a file's version and its
structure against the JSON Schema; :class:`ModelReader` then builds the model from the
schema-valid data section by section (universe, secrets, priors, pairs, mechanisms), checking what
a schema cannot say (names that refer to each other, domain values, probabilities summing to 1,
blocks of interval families, cycles between mechanisms), every error located by its JSON path.
Cost: linear in the file, plus an enumeration of the universe (at most ``max_datasets``
datasets) for interval families and table mechanisms of explicit universes.

>>> from pufferfish.models.files.pufferfish_file import parse_model
>>> parse_model({"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
...              "priors": {"p": {"uniform": True}}, "secrets": {"a": {"where": {"x": 0}},
...              "b": {"where": {"x": 7}}}, "pairs": [["a", "b"]]})
Traceback (most recent call last):
...
pufferfish.models.errors.ModelError: secrets.b.where.x: value 7 is not in the domain [0, 1] of attribute 'x'
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError, join_path
from pufferfish.models.mechanisms import (Composition, GeometricNoise, Mechanism, PostProcessed, Query,
                                          QueryMechanism, RandomizedResponse, Repeated,
                                          TableMechanism)
from pufferfish.models.files.network_prior import read_bayesnet_prior
from pufferfish.models.model import PufferfishModel
from pufferfish.models.neighbours import NeighbourRelation, parse_file_neighbours
from pufferfish.models.numbers import probability
from pufferfish.models.programs.mechanism import ProgramMechanism, load_program
from pufferfish.models.priors import (IndependentPrior, IntervalBlock, IntervalFamily, MarkovPrior,
                                      Prior, TablePrior, UniformPrior, check_prior_in_universe,
                                      markov_kernel)
from pufferfish.models.secrets import Secret, SecretPair, entry_pairs, entry_secrets
from pufferfish.models.universe import Dataset, Universe, Value
from pufferfish.models.values import canonical_value

__all__ = ["ModelReader"]

_PRIOR_KINDS = ("table", "independent", "markov", "uniform", "bayesnet", "interval")
_MECHANISM_KINDS = ("table", "query", "per_entry", "compose", "repeat", "postprocess", "program")


def _one_kind(body: Mapping, kinds: Sequence[str], what: str, path: str) -> str:
    present = [k for k in kinds if k in body]
    if len(present) != 1:
        raise ModelError(f"{what} needs exactly one of the keys {list(kinds)}, got "
                         f"{present or list(body)}", path)
    return present[0]


def _names(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) > 12:
        return ", ".join(repr(n) for n in names[:12]) + f", ... ({len(names)} in all)"
    return ", ".join(repr(n) for n in names) or "(none)"


# --------------------------------------------------------------------------------------------
# Meaning: the reader
# --------------------------------------------------------------------------------------------

class ModelReader:
    """Builds the model from schema-valid data, checking its meaning section by section."""

    def __init__(self, data: dict, max_datasets: int, base: str | os.PathLike | None = None) -> None:
        self.data = data
        self.limit = max_datasets
        self.base = base
        self._key_maps: dict[tuple, dict[str, list]] = {}
        self._secret_sets: dict[str, frozenset] = {}

    def model(self) -> PufferfishModel:
        self.universe = self._universe()
        self.secrets = self._secrets()
        priors = {name: self._prior(name, body)
                  for name, body in self.data.get("priors", {}).items()}
        pairs = self._pairs()
        mechanisms = self._mechanisms()
        model = PufferfishModel(self.universe, priors, self.secrets, pairs, mechanisms,
                                self.data.get("description", ""), self._neighbours())
        model.check_secrets_match(self.limit)
        return model

    # --- universe -------------------------------------------------------------------------

    def _universe(self) -> Universe:
        attributes = list(self.data["attributes"])
        raw = self.data["domain"]
        if isinstance(raw, list):
            domain = tuple(raw)
            self._distinct(domain, "domain")
            domains = [domain] * len(attributes)
        else:
            for name in raw:
                if name not in attributes:
                    raise ModelError(f"unknown attribute {name!r}; the attributes are "
                                     f"{attributes}", f"domain.{name}")
            domains = []
            for name in attributes:
                if name not in raw:
                    raise ModelError(f"no domain for attribute {name!r}", "domain")
                self._distinct(raw[name], f"domain.{name}")
                domains.append(tuple(raw[name]))
        records = []
        for k, record in enumerate(self.data.get("records", ())):
            indices = []
            for j, name in enumerate(record):
                if name not in attributes:
                    raise ModelError(f"unknown attribute {name!r}; the attributes are "
                                     f"{attributes}", f"records.{k}.{j}")
                indices.append(attributes.index(name))
            records.append(tuple(indices))
        datasets = self.data["datasets"]
        if datasets == "all":
            return Universe.product(attributes, domains, records)
        for k, dataset in enumerate(datasets):
            if len(dataset) != len(attributes):
                raise ModelError(f"a dataset must list {len(attributes)} values (one per "
                                 f"attribute), this one has {len(dataset)}", f"datasets.{k}")
        return Universe.listed(attributes, domains, datasets, records)

    @staticmethod
    def _distinct(values: Sequence[Value], path: str) -> None:
        seen = set()
        for k, raw in enumerate(values):
            value = canonical_value(raw, f"{path}.{k}")
            if value in seen:
                raise ModelError(f"the value {value!r} is listed twice", f"{path}.{k}")
            seen.add(value)

    def _dataset(self, raw: Sequence, path: str) -> Dataset:
        """A JSON dataset, checked to be in the universe."""
        return self.universe.require_dataset(raw, path)

    def _value(self, key: str, position: int, path: str) -> Value:
        """The domain value of attribute ``position`` whose text is ``key``."""
        domain = self.universe.domains[position]
        mapping = self._key_maps.get(domain)
        if mapping is None:
            mapping = {}
            for value in domain:
                mapping.setdefault(str(value), []).append(value)
            self._key_maps[domain] = mapping
        found = mapping.get(key)
        if not found:
            raise ModelError(f"unknown value {key!r}; the domain of attribute "
                             f"{self.universe.attributes[position]!r} is {list(domain)}", path)
        if len(found) > 1:
            raise ModelError(f"the key {key!r} is ambiguous: the domain of attribute "
                             f"{self.universe.attributes[position]!r} holds {found}", path)
        return found[0]

    def _value_distribution(self, raw: Mapping[str, object], position: int, path: str) -> Distribution:
        probs = {}
        for key, p in raw.items():
            probs[self._value(key, position, join_path(path, key))] = probability(p, join_path(path, key))
        return Distribution(probs, path)

    def _all_datasets(self, path: str, purpose: str) -> list[Dataset]:
        try:
            return list(self.universe.datasets(self.limit))
        except TooLargeError as error:
            raise TooLargeError(f"{purpose} needs every dataset: {error.reason}", path) from None

    # --- secrets ----------------------------------------------------------------------------

    def _secrets(self) -> dict[str, Secret]:
        secrets: dict[str, Secret] = {}
        for name, body in self.data.get("secrets", {}).items():
            path = f"secrets.{name}"
            kind = _one_kind(body, ("where", "datasets"), "a secret", path)
            if kind == "where":
                secrets[name] = Secret.where(name, self.universe, body["where"], f"{path}.where")
            else:
                datasets = self._dataset_list(body["datasets"], f"{path}.datasets")
                secrets[name] = Secret.of_datasets(name, datasets)
        if self.data.get("entry_pairs", False):
            for name, secret in entry_secrets(self.universe).items():
                known = secrets.get(name)
                if known is None:
                    secrets[name] = secret
                elif known.conditions != secret.conditions:
                    raise ModelError(f"'entry_pairs' defines the secret {name!r} as "
                                     f"{secret.description}, but this secret is defined "
                                     f"differently; rename it", f"secrets.{name}")
        return secrets

    def _dataset_list(self, raw: Sequence, path: str) -> list[Dataset]:
        datasets, seen = [], set()
        for k, item in enumerate(raw):
            dataset = self._dataset(item, f"{path}.{k}")
            if dataset in seen:
                raise ModelError(f"dataset {list(dataset)} is listed twice", f"{path}.{k}")
            seen.add(dataset)
            datasets.append(dataset)
        return datasets

    def _secret(self, name: str, path: str) -> Secret:
        try:
            return self.secrets[name]
        except KeyError:
            raise ModelError(f"unknown secret {name!r}; the secrets are "
                             f"{_names(list(self.secrets))}", path) from None

    def _secret_datasets(self, name: str, datasets: list[Dataset]) -> frozenset:
        cached = self._secret_sets.get(name)
        if cached is None:
            secret = self.secrets[name]
            cached = frozenset(d for d in datasets if secret.holds(d))
            self._secret_sets[name] = cached
        return cached

    # --- pairs ------------------------------------------------------------------------------

    def _pairs(self) -> list[SecretPair]:
        pairs = []
        for k, item in enumerate(self.data.get("pairs", ())):
            if isinstance(item, dict):
                names, directed, base = item["pair"], item.get("directed", False), f"pairs.{k}.pair"
            else:
                names, directed, base = item, False, f"pairs.{k}"
            first = self._secret(names[0], f"{base}.0")
            second = self._secret(names[1], f"{base}.1")
            if first.name == second.name:
                raise ModelError(f"a pair needs two different secrets, got {first.name!r} twice", base)
            pairs.append(SecretPair(first, second, directed))
        if self.data.get("entry_pairs", False):
            pairs.extend(entry_pairs(self.universe, self.secrets))
        if not pairs and not self.data.get("priors") and not self.secrets:
            return pairs  # a DP-only model: no priors, secrets or pairs
        if not pairs:
            raise ModelError("the model needs at least one secret pair: list some under 'pairs' "
                             "or set \"entry_pairs\": true", "pairs")
        return pairs

    # --- neighbours -------------------------------------------------------------------------

    def _neighbours(self) -> NeighbourRelation | None:
        """The optional neighbour relation of the DP levels, checked against the universe."""
        if "neighbours" not in self.data:
            return None
        return parse_file_neighbours(self.data["neighbours"], self.universe, "neighbours")

    # --- priors -----------------------------------------------------------------------------

    def _prior(self, name: str, body: Mapping) -> Prior | IntervalFamily:
        path = f"priors.{name}"
        kind = _one_kind(body, _PRIOR_KINDS, "a prior", path)
        path = f"{path}.{kind}"
        raw = body[kind]
        universe = self.universe
        if kind == "interval":
            return self._interval(name, raw, path)
        if kind == "table":
            probs: dict[Dataset, Fraction] = {}
            for k, (dataset, p) in enumerate(raw):
                dataset = self._dataset(dataset, f"{path}.{k}.0")
                if dataset in probs:
                    raise ModelError(f"dataset {list(dataset)} is listed twice", f"{path}.{k}.0")
                probs[dataset] = probability(p, f"{path}.{k}.1")
            prior: Prior = TablePrior(name, Distribution(probs, path))
        elif kind == "independent":
            for attribute in raw:
                universe.index(attribute, f"{path}.{attribute}")
            marginals = []
            for position, attribute in enumerate(universe.attributes):
                if attribute not in raw:
                    raise ModelError(f"no marginal for attribute {attribute!r}; an independent "
                                     f"prior gives one for every attribute", path)
                marginals.append(self._value_distribution(raw[attribute], position,
                                                          f"{path}.{attribute}"))
            prior = IndependentPrior(name, universe.attributes, tuple(marginals))
        elif kind == "markov":
            prior = self._markov(name, raw, path)
        elif kind == "bayesnet":  # models/files/network_prior.py
            prior = read_bayesnet_prior(name, raw, path, universe, self.base, self._value)
        else:
            prior = UniformPrior(name, universe)
        try:
            check_prior_in_universe(prior, universe, self.limit, path)
        except TooLargeError as error:
            raise TooLargeError(error.reason, path) from None
        return prior

    def _markov(self, name: str, raw: Mapping, path: str) -> MarkovPrior:
        universe = self.universe
        steps = universe.width - 1
        initial = self._value_distribution(raw["initial"], 0, f"{path}.initial")
        given = [k for k in ("transition", "transitions") if k in raw]
        if len(given) != 1:
            raise ModelError("a Markov prior needs exactly one of 'transition' (the same kernel at "
                             "every step) and 'transitions' (one kernel per step)", path)
        if given[0] == "transition":
            cache: dict[tuple, dict] = {}
            kernels = []
            for step in range(steps):
                domains = (universe.domains[step], universe.domains[step + 1])
                if domains not in cache:
                    cache[domains] = self._kernel(raw["transition"], step, f"{path}.transition")
                kernels.append(cache[domains])
            return MarkovPrior(name, universe.attributes, initial, tuple(kernels), homogeneous=True)
        raw_kernels = raw["transitions"]
        if len(raw_kernels) != steps:
            raise ModelError(f"a chain over {universe.width} attributes needs {steps} transition "
                             f"kernels (one per step), got {len(raw_kernels)}", f"{path}.transitions")
        kernels = [self._kernel(kernel, step, f"{path}.transitions.{step}")
                   for step, kernel in enumerate(raw_kernels)]
        return MarkovPrior(name, universe.attributes, initial, tuple(kernels), homogeneous=False)

    def _kernel(self, raw: Mapping, step: int, path: str) -> dict:
        rows = {}
        for key, row in raw.items():
            value = self._value(key, step, join_path(path, key))
            rows[value] = self._value_distribution(row, step + 1, join_path(path, key))
        source = self.universe.domains[step]
        if source == self.universe.domains[step + 1]:
            return markov_kernel(rows, source, path)
        for value in source:
            if value not in rows:
                raise ModelError(f"no transition row for value {value!r}", path)
        return {value: rows[value] for value in source}

    def _interval(self, name: str, raw: Mapping, path: str) -> IntervalFamily:
        datasets = self._all_datasets(path, "resolving the blocks of an interval family")
        blocks: dict[str, tuple[IntervalBlock, ...]] = {}
        for secret_name, raw_blocks in raw.items():
            spath = f"{path}.{secret_name}"
            self._secret(secret_name, spath)
            members = self._secret_datasets(secret_name, datasets)
            if not members:
                raise ModelError(f"secret {secret_name!r} holds on no dataset of the universe", spath)
            resolved: list[list[Dataset] | None] = []
            owner: dict[Dataset, int] = {}
            rest = None
            for k, block in enumerate(raw_blocks):
                bpath = f"{spath}.{k}"
                kind = _one_kind(block, ("datasets", "where", "rest"), "a block", bpath)
                if kind == "rest":
                    if rest is not None:
                        raise ModelError(f"only one 'rest' block per secret (block {rest} is one)", bpath)
                    rest = k
                    resolved.append(None)
                    continue
                if kind == "datasets":
                    chosen = self._dataset_list(block["datasets"], f"{bpath}.datasets")
                    for j, dataset in enumerate(chosen):
                        if dataset not in members:
                            raise ModelError(f"dataset {list(dataset)} does not satisfy the secret "
                                             f"{secret_name!r}", f"{bpath}.datasets.{j}")
                else:
                    condition = Secret.where(f"{secret_name} block {k}", self.universe,
                                             block["where"], f"{bpath}.where")
                    chosen = [d for d in datasets if d in members and condition.holds(d)]
                for dataset in chosen:
                    if dataset in owner:
                        raise ModelError(f"block {k} shares dataset {list(dataset)} with block "
                                         f"{owner[dataset]}; blocks must be disjoint", bpath)
                    owner[dataset] = k
                resolved.append(chosen)
            if rest is not None:
                resolved[rest] = [d for d in datasets if d in members and d not in owner]
            else:
                for dataset in datasets:
                    if dataset in members and dataset not in owner:
                        raise ModelError(f"the blocks do not cover dataset {list(dataset)}, where "
                                         f"secret {secret_name!r} holds; add it to a block or add "
                                         f"a {{\"rest\": true}} block", spath)
            built = []
            for k, (block, chosen) in enumerate(zip(raw_blocks, resolved)):
                low, high = block["mass"]
                built.append(IntervalBlock(tuple(chosen or ()),
                                           probability(low, f"{spath}.{k}.mass.0"),
                                           probability(high, f"{spath}.{k}.mass.1")))
            blocks[secret_name] = tuple(built)
        names = list(blocks)
        for i, first in enumerate(names):
            for second in names[i + 1:]:
                shared = self._secret_sets[first] & self._secret_sets[second]
                if shared:
                    example = min(shared, key=repr)
                    raise ModelError(f"the secrets {first!r} and {second!r} of one interval family "
                                     f"must be disjoint, but both hold on dataset {list(example)}",
                                     path)
        return IntervalFamily(name, blocks)

    # --- mechanisms -------------------------------------------------------------------------

    def _mechanisms(self) -> dict[str, Mechanism]:
        raw = self.data.get("mechanisms", {})
        self._raw_mechanisms = raw
        self._built: dict[str, Mechanism] = {}
        self._building: list[str] = []
        for name in raw:
            self._mechanism(name, f"mechanisms.{name}")
        return {name: self._built[name] for name in raw}

    def _reference(self, name: str, path: str) -> Mechanism:
        if name not in self._raw_mechanisms:
            raise ModelError(f"unknown mechanism {name!r}; the mechanisms are "
                             f"{_names(list(self._raw_mechanisms))}", path)
        if name in self._building:
            cycle = self._building[self._building.index(name):] + [name]
            raise ModelError(f"the mechanisms refer to each other in a cycle: "
                             f"{' -> '.join(cycle)}", path)
        return self._mechanism(name, f"mechanisms.{name}")

    def _mechanism(self, name: str, path: str) -> Mechanism:
        if name in self._built:
            return self._built[name]
        self._building.append(name)
        body = self._raw_mechanisms[name]
        kind = _one_kind(body, _MECHANISM_KINDS, "a mechanism", path)
        if "noise" in body and kind != "query":
            raise ModelError("'noise' is only allowed together with 'query'", f"{path}.noise")
        kpath = f"{path}.{kind}"
        raw = body[kind]
        universe = self.universe
        mechanism: Mechanism
        if kind == "table":
            mechanism = self._table_mechanism(name, raw, kpath)
        elif kind == "query":
            query = self._query(raw, kpath)
            noise = None
            if "noise" in body:
                geometric = body["noise"]["geometric"]
                npath = f"{path}.noise.geometric"
                noise = GeometricNoise(probability(geometric["alpha"], f"{npath}.alpha"),
                                       geometric["min"], geometric["max"], npath)
                self._check_integer_query(query, kpath)
            mechanism = QueryMechanism(name, universe, query, noise)
        elif kind == "per_entry":
            rr = raw["randomized_response"]
            rpath = f"{kpath}.randomized_response"
            mechanism = RandomizedResponse(name, universe, probability(rr["keep"], f"{rpath}.keep"),
                                           rr.get("attributes"), rpath)
        elif kind == "compose":
            parts = [self._reference(part, f"{kpath}.{k}") for k, part in enumerate(raw)]
            mechanism = Composition(name, parts)
        elif kind == "repeat":
            base = self._reference(raw["mechanism"], f"{kpath}.mechanism")
            mechanism = Repeated(name, base, raw["times"])
        elif kind == "program":  # runs the named file's code (docs/programs.md)
            trusted = raw.get("trusted", False)  # skips the program language's check
            program = load_program(raw["file"], raw["function"], self.base, kpath,
                                   trusted=trusted)
            source = (os.path.realpath(os.path.join(self.base or ".", raw["file"])), raw["function"])
            reads = None if "reads" not in raw else [
                universe.index(a, f"{kpath}.reads.{k}") for k, a in enumerate(raw["reads"])]
            mechanism = ProgramMechanism(name, program, raw.get("arguments", {}), reads=reads,
                                         read_names=raw.get("reads"), source=source,
                                         trusted=trusted)
        else:
            base = self._reference(raw["mechanism"], f"{kpath}.mechanism")
            mapping: dict = {}
            for k, (output, distribution) in enumerate(raw["map"]):
                key = _output(output, f"{kpath}.map.{k}.0")
                if key in mapping:
                    raise ModelError(f"output {output!r} is mapped twice", f"{kpath}.map.{k}.0")
                mapping[key] = self._output_distribution(distribution, f"{kpath}.map.{k}.1")
            mechanism = PostProcessed(name, base, mapping)
        self._building.pop()
        self._built[name] = mechanism
        return mechanism

    def _query(self, raw: object, path: str) -> Query:
        universe = self.universe
        if isinstance(raw, str):
            return Query(raw, universe, None, 1, path)
        kind = next(iter(raw))  # the schema allows exactly one key
        body = raw[kind]
        if kind == "attribute":
            return Query("attribute", universe, [body], 1, f"{path}.attribute")
        if "value" in body and kind != "count":
            raise ModelError("'value' is only meaningful for the 'count' query", f"{path}.{kind}.value")
        return Query(kind, universe, body.get("attributes"), body.get("value", 1), f"{path}.{kind}")

    def _check_integer_query(self, query: Query, path: str) -> None:
        if query.kind == "identity":
            raise ModelError("geometric noise needs an integer query; 'identity' answers a tuple", path)
        if query.kind == "attribute":
            position = query.positions[0]
            for value in self.universe.domains[position]:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ModelError(f"geometric noise needs integer answers, but attribute "
                                     f"{self.universe.attributes[position]!r} takes the value "
                                     f"{value!r}", path)

    def _output_distribution(self, raw: Sequence, path: str) -> Distribution:
        probs: dict = {}
        for k, (output, p) in enumerate(raw):
            key = _output(output, f"{path}.{k}.0")
            if key in probs:
                raise ModelError(f"output {output!r} is listed twice", f"{path}.{k}.0")
            probs[key] = probability(p, f"{path}.{k}.1")
        return Distribution(probs, path)

    def _table_mechanism(self, name: str, raw: Sequence, path: str) -> TableMechanism:
        rows: dict[Dataset, Distribution] = {}
        for k, (dataset, distribution) in enumerate(raw):
            dataset = self._dataset(dataset, f"{path}.{k}.0")
            if dataset in rows:
                raise ModelError(f"dataset {list(dataset)} has two rows", f"{path}.{k}.0")
            rows[dataset] = self._output_distribution(distribution, f"{path}.{k}.1")
        # Every listed row is a distinct dataset of the universe, so the table is complete exactly
        # when it has as many rows as the universe has datasets.  Otherwise a missing dataset is
        # found among the first len(rows) + 1 datasets, so no enumeration limit is needed.
        if len(rows) < self.universe.size:
            source = (self.universe.explicit if self.universe.explicit is not None
                      else self.universe.datasets(limit=self.universe.size))
            for dataset in source:
                if dataset not in rows:
                    raise ModelError(f"kernel missing dataset {list(dataset)}: a table mechanism "
                                     f"needs a row for every dataset of the universe", path)
        return TableMechanism(name, rows)


def _output(raw: object, path: str = "") -> object:
    """A JSON output as the model holds it: its canonical value (lists become tuples, ``true``
    is not ``1``; :mod:`pufferfish.models.values`)."""
    return canonical_value(raw, path)
