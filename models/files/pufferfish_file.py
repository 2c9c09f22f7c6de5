"""Reading and writing model files (DESIGN.md, "Model files").

A model file is JSON, versioned, with exact numbers written as integers or strings (``"3/8"``,
``"0.125"``; floats are refused, DESIGN.md "Exactness policy").  Top-level keys::

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
                        ``{"uniform": true}``,
                        ``{"bayesnet": {"bif": file, "renormalise": false}}`` or
                        ``{"bayesnet": {"nodes": {attribute: {"parents": [...], "cpt": {...}}}}}``
                        (a Bayesian network over the attributes:
                        :mod:`pufferfish.models.files.network_prior`), or
                        ``{"interval": {secret: [block, ...]}}`` (the families of Example 4.3), a block
                        being ``{"datasets": [...], "mass": [low, high]}``,
                        ``{"where": {attribute: value}, "mass": ...}`` or ``{"rest": true, "mass": ...}``.
                        In objects, a value is written as the text of a domain value (``"0"`` for 0).
  ``secrets``           name -> ``{"where": {attribute: value or [values]}}`` or ``{"datasets": [...]}``.
  ``pairs``             list of ``[s1, s2]`` (checked both ways) or ``{"pair": [s1, s2], "directed": true}``.
  ``entry_pairs``       ``true`` adds every pair "attribute i is a" vs "attribute i is b" and their
                        secrets (named ``x1=0``).
  ``parameters``        optional: name -> ``[low, high]``; a file that declares parameters is a
                        parametric model, read by :mod:`pufferfish.models.parametric` (this
                        reader refuses it with the commands that accept it).
  ``mechanisms``        name -> ``{"table": [[dataset, [[output, p], ...]], ...]}``,
                        ``{"query": Q, "noise": {"geometric": {"alpha": a, "min": lo, "max": hi}}}``
                        (Q is ``"sum"``, ``"count"``, ``"parity"``, ``"identity"``,
                        ``{"sum": {"attributes": [...]}}``, ``{"count": {"value": v}}``,
                        ``{"attribute": "x1"}``; noise optional),
                        ``{"per_entry": {"randomized_response": {"keep": p, "attributes": [...]}}}``,
                        ``{"compose": [names]}``, ``{"repeat": {"mechanism": name, "times": k}}``,
                        ``{"postprocess": {"mechanism": name, "map": [[output, [[output2, p], ...]], ...]}}``
                        or ``{"program": {"file": f, "function": name, "arguments": {...}}}`` (a
                        Python program; the file is resolved relative to the model file and its
                        code runs: :mod:`pufferfish.models.programs`).
                        Mechanisms may refer to each other in any order (no cycles).  Outputs
                        compare as JSON values (``true`` is not ``1``); lists stand for tuples.
  ``neighbours``        optional: the neighbour relation of the DP levels (default per-entry, and
                        per-record with multi-attribute records): ``"entry"``, ``"record"``,
                        ``"group:K"``, ``"linf:K"``, ``"l1:K"`` (vectors of numeric query answers),
                        ``{"pairs": [[dataset, dataset], ...]}`` or ``{"add_remove": {"absent": v}}``
                        (:mod:`pufferfish.models.neighbours`).

The file is decoded by :func:`pufferfish.models.files.json_io.read_json_file`, the JSON layer
shared with the toolkit's other file kinds (at most 64 MiB, nesting at most 100 levels, integers
of at most 4,000 digits, no ``NaN``/``Infinity``, no repeated keys); its meaning is checked by
:class:`pufferfish.models.files.pufferfish_reader.ModelReader`.

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
from functools import lru_cache
from pathlib import Path

import jsonschema

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.files.json_io import (check_schema, read_json_file, reject_duplicate_keys,
                                             schema_error, schema_validator, validator_for,
                                             write_json_atomically)
from pufferfish.models.files.pufferfish_reader import ModelReader
from pufferfish.models.mechanisms import Mechanism, tabulate
from pufferfish.models.model import PufferfishModel
from pufferfish.models.secrets import Secret
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Universe

__all__ = ["FORMAT_VERSION", "DEFAULT_MAX_DATASETS", "SCHEMA_PATH", "load_model", "parse_model",
           "model_to_dict", "dump_model", "schema",
           # the JSON layer, defined in pufferfish.models.files.json_io and kept importable here
           "read_json_file", "check_schema", "schema_validator", "schema_error",
           "reject_duplicate_keys", "write_json_atomically"]

FORMAT_VERSION = 1
"""The model-file version this module reads and writes."""

SCHEMA_PATH = Path(__file__).with_name("pufferfish_model.schema.json")
"""The JSON Schema of the format, the file ``pufferfish_model.schema.json`` beside this module.

:meta hide-value:
"""



# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------

def load_model(path: str | os.PathLike, *, max_datasets: int = DEFAULT_MAX_DATASETS) -> PufferfishModel:
    """Read and validate the model file at ``path``.

    Checks that need every dataset (interval families, explicit-universe priors) refuse a universe
    of more than ``max_datasets`` datasets with :class:`TooLargeError`.
    """
    data = read_json_file(path, "model file")
    return parse_model(data, max_datasets=max_datasets, base=Path(path).parent)


def parse_model(data: object, *, max_datasets: int = DEFAULT_MAX_DATASETS,
                base: str | os.PathLike | None = None) -> PufferfishModel:
    """Build a :class:`PufferfishModel` from a decoded model file (``dict``), validating it all.

    ``base`` is the folder that program files (``{"program": {"file": ...}}``) are named
    relative to: the model file's folder when it is read from a file, else the current folder.
    """
    _check_version(data)
    _check_schema(data)
    _refuse_parameters(data)
    return ModelReader(data, max_datasets, base).model()  # type: ignore[arg-type]


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
    if model.neighbours is not None:
        out["neighbours"] = model.neighbours.to_json()
    return out


def dump_model(model: PufferfishModel, path: str | os.PathLike, *,
               max_datasets: int = DEFAULT_MAX_DATASETS) -> None:
    """Write ``model`` to ``path`` as a model file, atomically (see :func:`write_json_atomically`);
    :func:`load_model` reads it back (:func:`model_to_dict` says what is written how).  A model
    built in code is written with its structure: a homogeneous chain as one ``"transition"``.

    >>> import os, tempfile
    >>> from pufferfish.models import MarkovPrior, PufferfishModel, Universe, entry_pairs
    >>> u = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
    >>> sticky = MarkovPrior.homogeneous("sticky", u, {0: "1/2", 1: "1/2"},
    ...                                  {0: {0: "9/10", 1: "1/10"}, 1: {0: "1/10", 1: "9/10"}})
    >>> path = os.path.join(tempfile.mkdtemp(), "sticky.json")
    >>> dump_model(PufferfishModel.build(u, [sticky], entry_pairs(u)), path)
    >>> load_model(path).priors["sticky"].to_dict() == sticky.to_dict()
    True
    """
    write_json_atomically(model_to_dict(model, max_datasets=max_datasets), path)


# --------------------------------------------------------------------------------------------
# Structure: version and schema (the JSON layer is pufferfish.models.files.json_io)
# --------------------------------------------------------------------------------------------

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


def _refuse_parameters(data: dict) -> None:
    """A parametric model is not one exact model: name the commands that read it."""
    if "parameters" in data:
        names = ", ".join(data["parameters"])
        raise ModelError(f"this model declares parameters ({names}), so it is not a single exact "
                         f"model; `pufferfish audit MODEL --symbolic` and `pufferfish region MODEL "
                         f"--epsilon E` accept it as it is, and `pufferfish audit MODEL --set "
                         f"NAME=VALUE` audits it at a point (pufferfish.models.parametric)",
                         "parameters")


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    return validator_for(_schema())


def _check_schema(data: object) -> None:
    check_schema(data, _validator())



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

