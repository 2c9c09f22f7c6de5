"""Reader and writer of multi-user model files (``{"multiuser_model": 1, ...}``).

A multi-user model file describes the system of Ding et al., Multi-user Pufferfish Privacy, §3 (see
:mod:`pufferfish.models.multiuser`): ``users`` (each with ``name``, ``presence`` ζ (default 1),
``distribution`` P (value -> probability; values of probability 0 may be listed and belong to
the alphabet), optional ``alternative`` Q for 𝕊_{P,Q}, optional ``values`` (extra alphabet
values), ``value_pairs`` (explicit 𝕊_{a,b} pairs) and ``present_values`` (explicit 𝕊_{a,⊥}
values)); optional ``targets`` (the protected users, a non-empty list; default all) and
``others`` (``marginal``, the default, or ``present``: the reading of the other users' absence).  Rationals are strings
(``"3/8"``, ``"0.125"``) or integers; floats are refused with a hint.  The JSON Schema is
``models/files/multiuser_model.schema.json``; every error carries the JSON path of the offending
value.  A pair set that has no pair for a protected user (e.g. 𝕊_{P,Q} for a user without
``alternative``) is refused when a calibration asks for it
(:func:`pufferfish.verify.multiuser.pairs.require_pairs`), located at that user's entry.

Example (``examples/multiuser_bernoulli.json``, Figures 7–8)::

    {"multiuser_model": 1,
     "users": [{"name": "u1", "distribution": {"1": "0.01", "2": "0.04", ...}}, ...,
               {"name": "u4", "presence": "1/2", "distribution": {"0": "0.8", "1": "0.2"},
                "alternative": {"0": "0.1", "1": "0.9"}}],
     "targets": ["u4"]}

The format is versioned: a file written for another version is refused, never misread.
"""

from __future__ import annotations

import os
from pathlib import Path


from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, join_path
from pufferfish.models.files.json_io import (check_schema, read_json_file, schema_validator,
                              write_json_atomically)
from pufferfish.models.multiuser import MultiUserModel, User
from pufferfish.models.numbers import exact, fraction_str, probability

VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("multiuser_model.schema.json")
"""The JSON Schema of the format, the file ``multiuser_model.schema.json`` beside this module.

:meta hide-value:
"""


def load_multiuser_model(path: str | os.PathLike) -> MultiUserModel:
    """Read and validate the multi-user model file at ``path``."""
    data = read_json_file(path, "multi-user model file")
    return parse_multiuser_model(data)


def parse_multiuser_model(data: object) -> MultiUserModel:
    """Build a :class:`MultiUserModel` from a decoded file, validating everything."""
    if not isinstance(data, dict):
        raise ModelError("a multi-user model file is a JSON object")
    if "multiuser_model" not in data:
        raise ModelError("missing the version key \"multiuser_model\": 1", "multiuser_model")
    version = data["multiuser_model"]
    if type(version) is not int or version != VERSION:
        raise ModelError(f"unsupported multi-user model file version {version!r}; this reader "
                         f"reads version {VERSION} (write \"multiuser_model\": {VERSION})",
                         "multiuser_model")
    check_schema(data, schema_validator(SCHEMA_PATH))
    users = []
    for k, raw in enumerate(data["users"]):
        where = join_path("users", k)
        presence = probability(raw.get("presence", 1), join_path(where, "presence"))
        dist, alphabet = _distribution(raw.get("distribution"), join_path(where, "distribution"))
        alt, alt_alphabet = _distribution(raw.get("alternative"), join_path(where, "alternative"))
        values = alphabet | alt_alphabet | {exact(v, join_path(where, "values", j))
                                            for j, v in enumerate(raw.get("values", []))}
        pairs = None
        if "value_pairs" in raw:
            pairs = []
            for j, (a, b) in enumerate(raw["value_pairs"]):
                a = exact(a, join_path(where, "value_pairs", j, 0))
                b = exact(b, join_path(where, "value_pairs", j, 1))
                if a == b:
                    raise ModelError(f"a value pair needs two different values, got {fraction_str(a)} "
                                     "twice", join_path(where, "value_pairs", j))
                pairs.append((a, b))
            pairs = tuple(pairs)
        present = None
        if "present_values" in raw:
            present = tuple(exact(v, join_path(where, "present_values", j))
                            for j, v in enumerate(raw["present_values"]))
        if dist is None and alt is not None:
            raise ModelError("an alternative Q needs a distribution P", join_path(where, "alternative"))
        values |= {v for pair in (pairs or ()) for v in pair} | set(present or ())
        users.append(User(raw["name"], presence, dist, alt, tuple(sorted(values)), pairs, present))
    return MultiUserModel(tuple(users), _targets(data), data.get("others", "marginal"),
                          data.get("description", ""))


def _targets(data: dict) -> tuple[str, ...]:
    """The protected users: ``()`` (every user) when ``targets`` is absent; an explicit list must
    not be empty (the model checks that it names known users)."""
    if "targets" not in data:
        return ()
    if not data["targets"]:
        raise ModelError("the list of protected users is empty; name at least one user, or omit "
                         "\"targets\" to protect every user", "targets")
    return tuple(data["targets"])


def _distribution(raw, path: str) -> tuple[Distribution | None, set]:
    if raw is None:
        return None, set()
    values = {}
    for key, p in raw.items():
        v = exact(key, join_path(path, key))
        if v in values:
            raise ModelError(f"value {fraction_str(v)} is listed twice", join_path(path, key))
        values[v] = probability(p, join_path(path, key))
    return Distribution(values, path), set(values)


def multiuser_model_to_dict(model: MultiUserModel, description: str | None = None) -> dict:
    """The model as a version-1 multi-user model file."""
    data: dict = {"multiuser_model": VERSION}
    text = model.description if description is None else description
    if text:
        data["description"] = text
    data["others"] = model.others
    users = []
    for user in model.users:
        entry: dict = {"name": user.name, "presence": fraction_str(user.presence)}
        if user.distribution is not None:
            entry["distribution"] = {fraction_str(v): fraction_str(user.distribution.prob(v))
                                     for v in user.values}
        if user.alternative is not None:
            entry["alternative"] = {fraction_str(v): fraction_str(user.alternative.prob(v))
                                    for v in user.values}
        if user.distribution is None:
            entry["values"] = [fraction_str(v) for v in user.values]
        if user.value_pairs is not None:
            entry["value_pairs"] = [[fraction_str(a), fraction_str(b)] for a, b in user.value_pairs]
        if user.present_values is not None:
            entry["present_values"] = [fraction_str(v) for v in user.present_values]
        users.append(entry)
    data["users"] = users
    data["targets"] = list(model.targets)
    return data


def dump_multiuser_model(model: MultiUserModel, path: str | os.PathLike) -> None:
    """Write ``model`` as a multi-user model file, atomically."""
    write_json_atomically(multiuser_model_to_dict(model), path)
