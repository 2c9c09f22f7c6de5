"""Reading and writing model files (DESIGN.md, "Model files").

A model file is JSON, versioned, with exact numbers written as integers or strings (``"3/8"``,
``"0.125"``; floats are refused, DESIGN.md "Exactness policy").  Top-level keys:

``pufferfish_model``  the format version, ``1`` (required).
``description``       free text (optional).
``attributes``        the attribute names, distinct, in order (a dataset lists one value each).
``domain``            one list of values for all attributes, or an object attribute -> list.
                      Values are JSON integers or strings.
``datasets``          ``"all"`` (the product of the domains) or an explicit list of value lists.
``records``           optional partition of the attributes into persons' records (lists of names).
``priors``            name -> one of
                      ``{"table": [[dataset, p], ...]}``,
                      ``{"independent": {attribute: {value: p}}}`` (every attribute),
                      ``{"markov": {"initial": {value: p}, "transition": {value: {value: p}}}}``
                      (a homogeneous chain over the attributes in order; ``"transitions"``, a list
                      of one kernel per step, for an inhomogeneous one),
                      ``{"uniform": true}``, or
                      ``{"interval": {secret: [block, ...]}}`` (the families of Example 4.3), a block
                      being ``{"datasets": [...], "mass": [low, high]}``,
                      ``{"where": {attribute: value}, "mass": ...}`` or ``{"rest": true, "mass": ...}``.
                      In objects, a value is written as the text of a domain value (``"0"`` for 0).
``secrets``           name -> ``{"where": {attribute: value or [values]}}`` or ``{"datasets": [...]}``.
``pairs``             list of ``[s1, s2]`` (checked both ways) or ``{"pair": [s1, s2], "directed": true}``.
``entry_pairs``       ``true`` adds every pair "attribute i is a" vs "attribute i is b" and their
                      secrets (named ``x1=0``).
``mechanisms``        name -> ``{"table": [[dataset, [[output, p], ...]], ...]}``,
                      ``{"query": Q, "noise": {"geometric": {"alpha": a, "min": lo, "max": hi}}}``
                      (Q is ``"sum"``, ``"count"``, ``"parity"``, ``"identity"``,
                      ``{"sum": {"attributes": [...]}}``, ``{"count": {"value": v}}``,
                      ``{"attribute": "x1"}``; noise optional),
                      ``{"per_entry": {"randomized_response": {"keep": p, "attributes": [...]}}}``,
                      ``{"compose": [names]}``, ``{"repeat": {"mechanism": name, "times": k}}`` or
                      ``{"postprocess": {"mechanism": name, "map": [[output, [[output2, p], ...]], ...]}}``.
                      Mechanisms may refer to each other in any order (no cycles).  Lists in
                      outputs stand for tuples.

The structure is checked first against ``pufferfish_model.schema.json`` (JSON Schema 2020-12,
unknown keys refused); the meaning is checked by hand.  Every error is a :class:`ModelError`
(:class:`TooLargeError` when a check would enumerate more datasets than ``max_datasets``) whose
``path`` is the dotted JSON path of the offending value, e.g.
``priors.sticky.markov.transition.1: probabilities sum to 11/10, must sum to 1``.

>>> model = load_model("examples/quickstart.json")          # doctest: +SKIP
>>> model.priors["sticky"].probability((0, 0, 0))           # doctest: +SKIP
Fraction(81, 200)
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import jsonschema

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError, join_path
from pufferfish.models.mechanisms import (Composition, GeometricNoise, Mechanism, PostProcessed, Query,
                               QueryMechanism, RandomizedResponse, Repeated, TableMechanism,
                               tabulate)
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import exact, probability
from pufferfish.models.priors import (IndependentPrior, IntervalBlock, IntervalFamily, MarkovPrior, Prior,
                           TablePrior, UniformPrior, check_prior_in_universe, markov_kernel)
from pufferfish.models.secrets import Secret, SecretPair, entry_pairs, entry_secrets
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe, Value

__all__ = ["FORMAT_VERSION", "DEFAULT_MAX_DATASETS", "SCHEMA_PATH", "load_model", "parse_model",
           "model_to_dict", "dump_model", "schema"]

FORMAT_VERSION = 1
"""The model-file version this module reads and writes."""

SCHEMA_PATH = Path(__file__).with_name("pufferfish_model.schema.json")
"""The JSON Schema of the format."""

_PRIOR_KINDS = ("table", "independent", "markov", "uniform", "interval")
_MECHANISM_KINDS = ("table", "query", "per_entry", "compose", "repeat", "postprocess")


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------

def load_model(path: str | os.PathLike, *, max_datasets: int = DEFAULT_MAX_DATASETS) -> PufferfishModel:
    """Read and validate the model file at ``path``.

    Checks that need every dataset (interval families, explicit-universe priors) refuse a universe
    of more than ``max_datasets`` datasets with :class:`TooLargeError`.
    """
    data = read_json_file(path, "model file")
    return parse_model(data, max_datasets=max_datasets)


def read_json_file(path: str | os.PathLike, kind: str = "file") -> object:
    """Decode the JSON document at ``path`` for one of the toolkit's readers.

    Every failure is a :class:`ModelError` saying which file and what is wrong: unreadable, not
    UTF-8, not JSON (with line and column), or an object with a repeated key.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ModelError(f"cannot read {kind} {str(path)!r}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ModelError(f"{kind} {str(path)!r} is not UTF-8 text: {error.reason}") from None
    try:
        return json.loads(text, object_pairs_hook=reject_duplicate_keys)
    except json.JSONDecodeError as error:
        raise ModelError(f"{kind} {str(path)!r} is not valid JSON: {error.msg} at line "
                         f"{error.lineno}, column {error.colno}") from None


def parse_model(data: object, *, max_datasets: int = DEFAULT_MAX_DATASETS) -> PufferfishModel:
    """Build a :class:`PufferfishModel` from a decoded model file (``dict``), validating it all."""
    _check_version(data)
    _check_schema(data)
    return _Reader(data, max_datasets).model()  # type: ignore[arg-type]


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of the model-file format."""
    return json.loads(json.dumps(_schema()))


def model_to_dict(model: PufferfishModel, *, max_datasets: int = DEFAULT_MAX_DATASETS) -> dict:
    """The model-file form of ``model``; :func:`parse_model` reads it back to an equivalent model.

    Priors, secrets and mechanisms are written with their own ``to_dict``.  What a file cannot
    hold as such is tabulated over the universe (which must then have at most ``max_datasets``
    datasets): mechanisms defined by Python functions or post-processed by a function become
    ``table`` mechanisms, predicate secrets become ``datasets`` secrets.  The parts of composite
    mechanisms are written under their own names.
    """
    universe = model.universe
    out: dict = {"pufferfish_model": FORMAT_VERSION}
    if model.description:
        out["description"] = model.description
    out["attributes"] = list(universe.attributes)
    if all(d == universe.domains[0] for d in universe.domains):
        out["domain"] = list(universe.domains[0])
    else:
        out["domain"] = {a: list(d) for a, d in zip(universe.attributes, universe.domains)}
    out["datasets"] = "all" if universe.explicit is None else [list(d) for d in universe.explicit]
    if universe.records != tuple((i,) for i in range(universe.width)):
        out["records"] = [[universe.attributes[i] for i in record] for record in universe.records]

    out["priors"] = {name: prior.to_dict() for name, prior in model.priors.items()}

    secrets: dict[str, Secret] = dict(model.secrets)
    for pair in model.pairs:
        for secret in (pair.first, pair.second):
            known = secrets.setdefault(secret.name, secret)
            if known is not secret and known != secret:
                raise ModelError(f"two different secrets are called {secret.name!r}", "secrets")
    out["secrets"] = {name: _secret_to_dict(secret, universe, max_datasets)
                      for name, secret in secrets.items()}
    out["pairs"] = [{"pair": [p.first.name, p.second.name], "directed": True} if p.directed
                    else [p.first.name, p.second.name] for p in model.pairs]

    mechanisms: dict[str, dict] = {}
    objects: dict[str, Mechanism] = {}
    pending = list(model.mechanisms.values())
    while pending:
        mechanism = pending.pop(0)
        if mechanism.name in objects:
            if objects[mechanism.name] is not mechanism and \
                    _mechanism_to_dict(objects[mechanism.name], universe, max_datasets) != \
                    _mechanism_to_dict(mechanism, universe, max_datasets):
                raise ModelError(f"two different mechanisms are called {mechanism.name!r}",
                                 f"mechanisms.{mechanism.name}")
            continue
        objects[mechanism.name] = mechanism
        body, structural = _mechanism_body(mechanism, universe, max_datasets)
        mechanisms[mechanism.name] = body
        if structural:
            pending.extend(mechanism.parts())
    out["mechanisms"] = mechanisms
    return out


def dump_model(model: PufferfishModel, path: str | os.PathLike, *,
               max_datasets: int = DEFAULT_MAX_DATASETS) -> None:
    """Write ``model`` to ``path`` as a model file, atomically (see :func:`write_json_atomically`)."""
    write_json_atomically(model_to_dict(model, max_datasets=max_datasets), path)


def write_json_atomically(data: object, path: str | os.PathLike) -> None:
    """Write ``data`` as JSON to ``path`` without ever leaving a partial file there.

    The file is written to a temporary file in the same folder and then moved over ``path`` with
    :func:`os.replace`, so a failure half-way leaves the previous file (if any) untouched.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder,
                                         prefix=f".{target.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, _file_mode(target))
        os.replace(handle.name, target)
    except BaseException:
        try:
            os.unlink(handle.name)
        except OSError:
            pass
        raise


def _file_mode(target: Path) -> int:
    """The permissions the written file gets: those of the file it replaces, else the usual ones."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


# --------------------------------------------------------------------------------------------
# Structure: version and schema
# --------------------------------------------------------------------------------------------

def reject_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    result: dict = {}
    for key, value in pairs:
        if key in result:
            raise ModelError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


OTHER_KINDS = {
    "dcp_model": "a differential-confounding-privacy model file: use `pufferfish dcp`",
    "multiuser_model": "a multi-user model file: use `pufferfish multiuser`",
    "bayesnet": "a Bayesian-network file: use `pufferfish quilts` or `pufferfish mqm`",
    "nfc_constraints": "an NfC constraints file: use `pufferfish postprocess --constraints`",
    "influence_curve": "an influence-curve file: use `pufferfish translate --curve`",
}
"""Version keys of the toolkit's other file kinds, so a file given to the wrong command is named."""


def _check_version(data: object) -> None:
    if isinstance(data, dict) and "pufferfish_model" not in data:
        for key, text in OTHER_KINDS.items():
            if key in data:
                raise ModelError(f"this is {text}; a Pufferfish model file starts with "
                                 f"\"pufferfish_model\": {FORMAT_VERSION}", key)
    if isinstance(data, dict) and "pufferfish_model" in data:
        version = data["pufferfish_model"]
        if type(version) is not int or version != FORMAT_VERSION:
            raise ModelError(f"unsupported model file version {version!r}; this reader supports "
                             f"version {FORMAT_VERSION} (write \"pufferfish_model\": "
                             f"{FORMAT_VERSION})", "pufferfish_model")


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(_schema())


def _check_schema(data: object) -> None:
    check_schema(data, _validator())


@lru_cache(maxsize=None)
def schema_validator(path: Path) -> jsonschema.protocols.Validator:
    """A (cached) draft 2020-12 validator for the schema file at ``path``."""
    return jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def check_schema(data: object, validator: jsonschema.protocols.Validator) -> None:
    """Raise the first schema violation in reading order as a :class:`ModelError` with its path.

    Shared by every reader of the toolkit's file kinds, so their messages read the same.
    """
    errors = list(validator.iter_errors(data))
    if errors:
        raise schema_error(min(errors, key=lambda e: _document_position(data, e.absolute_path)))


def _document_position(data: object, path: Sequence) -> tuple:
    """Where a JSON path sits in the document (so the first error in reading order wins)."""
    position = []
    node = data
    for part in path:
        if isinstance(node, dict):
            keys = list(node)
            position.append(keys.index(part) if part in node else len(keys))
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int):
            position.append(part)
            node = node[part] if part < len(node) else None
        else:
            break
    return tuple(position)


_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
               float: "number", type(None): "null"}


def schema_error(error: jsonschema.ValidationError) -> ModelError:
    path = join_path(*error.absolute_path)
    instance = error.instance
    if error.validator == "type":
        if isinstance(instance, float):
            try:
                exact(instance, path)
            except ModelError as refusal:
                return refusal
        wanted = error.validator_value
        wanted = [wanted] if isinstance(wanted, str) else list(wanted)
        return ModelError(f"expected {' or '.join(wanted)}, got {_JSON_TYPES.get(type(instance), 'value')} "
                          f"{_short(instance)}", path)
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        allowed = list(error.schema.get("properties", {}))
        unknown = [k for k in instance if k not in allowed]
        names = ", ".join(repr(k) for k in unknown)
        noun = "key" if len(unknown) == 1 else "keys"
        return ModelError(f"unknown {noun} {names}; the allowed keys are "
                          f"{', '.join(repr(k) for k in allowed)}", path)
    if error.validator == "required":
        return ModelError(error.message.replace("is a required property",
                                                "is required but missing"), path)
    if error.validator == "const":
        return ModelError(f"expected {json.dumps(error.validator_value)}, got {_short(instance)}", path)
    if error.validator == "pattern" and error.validator_value == "^all$":
        return ModelError(f"expected \"all\" or a list of datasets, got {_short(instance)}", path)
    if error.validator == "pattern":
        return ModelError(f"{_short(instance)} is not one of the known names "
                          f"{error.validator_value[2:-2].split('|')}", path)
    if error.validator == "maxProperties":
        return ModelError(f"expected exactly one of the keys {list(error.schema.get('properties', {}))}, "
                          f"got {list(instance)}", path)
    return ModelError(error.message, path)


def _short(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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

class _Reader:
    """Builds the model from schema-valid data, checking its meaning section by section."""

    def __init__(self, data: dict, max_datasets: int) -> None:
        self.data = data
        self.limit = max_datasets
        self._key_maps: dict[tuple, dict[str, list]] = {}
        self._secret_sets: dict[str, frozenset] = {}

    def model(self) -> PufferfishModel:
        self.universe = self._universe()
        self.secrets = self._secrets()
        priors = {name: self._prior(name, body) for name, body in self.data["priors"].items()}
        pairs = self._pairs()
        mechanisms = self._mechanisms()
        model = PufferfishModel(self.universe, priors, self.secrets, pairs, mechanisms,
                                self.data.get("description", ""))
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
        for k, value in enumerate(values):
            if value in seen:
                raise ModelError(f"the value {value!r} is listed twice", f"{path}.{k}")
            seen.add(value)

    def _dataset(self, raw: Sequence, path: str) -> Dataset:
        """A JSON dataset, checked to be in the universe."""
        universe = self.universe
        dataset = tuple(raw)
        if len(dataset) != universe.width:
            raise ModelError(f"a dataset must list {universe.width} values (one per attribute), "
                             f"this one has {len(dataset)}", path)
        for name, value, domain in zip(universe.attributes, dataset, universe.domains):
            if value not in domain:
                raise ModelError(f"value {value!r} of attribute {name!r} is not in its domain "
                                 f"{list(domain)}", path)
        if dataset not in universe:
            raise ModelError(f"dataset {list(dataset)} is not in the universe (the explicit "
                             f"'datasets' list)", path)
        return dataset

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
        if not pairs:
            raise ModelError("the model needs at least one secret pair: list some under 'pairs' "
                             "or set \"entry_pairs\": true", "pairs")
        return pairs

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
        else:
            base = self._reference(raw["mechanism"], f"{kpath}.mechanism")
            mapping: dict = {}
            for k, (output, distribution) in enumerate(raw["map"]):
                key = _output(output)
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
            key = _output(output)
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


def _output(raw: object) -> object:
    """A JSON output as the model holds it: lists become tuples, recursively."""
    if isinstance(raw, list):
        return tuple(_output(item) for item in raw)
    return raw


# --------------------------------------------------------------------------------------------
# Writer helpers
# --------------------------------------------------------------------------------------------

def _secret_to_dict(secret: Secret, universe: Universe, limit: int) -> dict:
    if secret.conditions is not None or secret.members is not None:
        return secret.to_dict(universe)
    try:
        members = [d for d in universe.datasets(limit) if secret.holds(d)]
    except TooLargeError as error:
        raise TooLargeError(f"secret {secret.name!r} is a Python predicate; writing it lists its "
                            f"datasets, but {error.reason}", f"secrets.{secret.name}") from None
    return Secret.of_datasets(secret.name, members).to_dict(universe)


def _mechanism_body(mechanism: Mechanism, universe: Universe, limit: int) -> tuple[dict, bool]:
    """``(model-file form, whether it refers to its parts by name)``."""
    try:
        return mechanism.to_dict(), True
    except ModelError:
        pass
    try:
        datasets = list(universe.datasets(limit))
    except TooLargeError as error:
        raise TooLargeError(f"mechanism {mechanism.name!r} cannot be written as it is, and "
                            f"tabulating it needs every dataset: {error.reason}",
                            f"mechanisms.{mechanism.name}") from None
    return tabulate(mechanism, datasets).to_dict(), False


def _mechanism_to_dict(mechanism: Mechanism, universe: Universe, limit: int) -> dict:
    return _mechanism_body(mechanism, universe, limit)[0]

