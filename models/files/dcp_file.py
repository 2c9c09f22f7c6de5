"""Reader and writer of DCP model files (``{"dcp_model": 1, ...}``).

A DCP model file describes the finite ``{θ, G}`` of Zhang et al., Differential Confounding Privacy
and Inverse Composition, §II: the joint ``P_θ(s, x)`` (``joint``: secret -> dataset -> probability),
the adjacent secret pairs (``adjacency``: a list of pairs, each checked in both directions, or
``"all"``), and mechanisms (``mechanisms``: name -> dataset -> output -> probability).  Optional
``secrets`` and ``datasets`` lists fix the order and may name labels of probability zero.  Rationals
are strings (``"3/8"``, ``"0.125"``) or integers; floats are refused with a hint.  The JSON Schema
is ``models/dcp_model.schema.json``; every error carries the JSON path of the offending value.

Example (the two-secret model of ``examples/dcp_two_secrets.json``)::

    {"dcp_model": 1,
     "joint": {"s0": {"a": "1/4", "b": "1/4"}, "s1": {"b": "1/4", "c": "1/4"}},
     "adjacency": [["s0", "s1"]],
     "mechanisms": {"rr": {"a": {"0": "3/4", "1": "1/4"}, ...}}}

The format is versioned: a file written for another version is refused, never misread.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


from pufferfish.models.dcp import DCPModel, DatasetKernel
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, join_path
from pufferfish.models.files.json_io import (check_schema, read_json_file, schema_validator,
                              write_json_atomically)
from pufferfish.models.numbers import exact, fraction_str

VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("dcp_model.schema.json")
"""The JSON Schema of the format, the file ``dcp_model.schema.json`` beside this module.

:meta hide-value:
"""


def load_dcp_model(path: str | os.PathLike) -> DCPModel:
    """Read and validate the DCP model file at ``path``."""
    data = read_json_file(path, "DCP model file")
    return parse_dcp_model(data)


def is_dcp_file(data: object) -> bool:
    """Whether a decoded JSON document declares itself a DCP model file."""
    return isinstance(data, dict) and "dcp_model" in data


def parse_dcp_model(data: object) -> DCPModel:
    """Build a :class:`DCPModel` from a decoded DCP model file, validating everything."""
    if not isinstance(data, dict):
        raise ModelError("a DCP model file is a JSON object")
    if "dcp_model" not in data:
        raise ModelError("missing the version key \"dcp_model\": 1 (is this a Pufferfish model "
                         "file? use the audit command for those)", "dcp_model")
    if data["dcp_model"] != VERSION:
        raise ModelError(f"unsupported DCP model file version {data['dcp_model']!r}; this reader "
                         f"reads version {VERSION}", "dcp_model")
    _check_schema(data)
    joint = {}
    for s, row in data["joint"].items():
        joint[s] = {x: _number(p, join_path("joint", s, x)) for x, p in row.items()}
    cells = {(s, x): p for s, row in joint.items() for x, p in row.items()}
    total = sum(cells.values())
    if total != 1:
        raise ModelError(f"the joint probabilities sum to {fraction_str(total)}, must sum to 1",
                         "joint")
    secrets = tuple(data.get("secrets", ())) or tuple(joint)
    for s in joint:
        if s not in secrets:
            raise ModelError(f"secret {s!r} is not in the \"secrets\" list", join_path("joint", s))
    named = data.get("datasets")
    datasets = tuple(named) if named else tuple(dict.fromkeys(x for r in joint.values() for x in r))
    for s, row in joint.items():
        for x in row:
            if x not in datasets:
                raise ModelError(f"dataset {x!r} is not in the \"datasets\" list",
                                 join_path("joint", s, x))
    mechanisms = {}
    for name, rows in data.get("mechanisms", {}).items():
        built = {}
        for x, row in rows.items():
            where = join_path("mechanisms", name, x)
            if x not in datasets:
                raise ModelError(f"unknown dataset {x!r}; the datasets are {list(datasets)}", where)
            built[x] = Distribution({y: _number(p, join_path(where, y)) for y, p in row.items()},
                                    where)
        mechanisms[name] = DatasetKernel(name, built)
    return DCPModel(secrets, datasets, Distribution(cells, "joint"),
                    _pairs(data["adjacency"], secrets), mechanisms, data.get("description", ""))


def dcp_model_to_dict(model: DCPModel, description: str | None = None) -> dict:
    """The model as a version-1 DCP model file (labels written with ``str``)."""
    joint: dict = {}
    for (s, x), p in model.joint.items():
        joint.setdefault(str(s), {})[str(x)] = fraction_str(p)
    data = {"dcp_model": VERSION}
    text = model.description if description is None else description
    if text:
        data["description"] = text
    data.update({"secrets": [str(s) for s in model.secrets],
                 "datasets": [str(x) for x in model.datasets],
                 "joint": joint,
                 "adjacency": [[str(a), str(b)] for a, b in model.pairs],
                 "mechanisms": {name: k.to_dict() for name, k in model.mechanisms.items()}})
    return data


def dump_dcp_model(model: DCPModel, path: str | os.PathLike) -> None:
    """Write ``model`` as a DCP model file, atomically."""
    write_json_atomically(dcp_model_to_dict(model), path)


def _pairs(adjacency: object, secrets: Sequence[str]):
    from pufferfish.models.dcp import adjacency_pairs
    return adjacency_pairs(adjacency, secrets, "adjacency")


def _number(value: object, path: str):
    return exact(value, path)


def _check_schema(data: dict) -> None:
    try:
        check_schema(data, schema_validator(SCHEMA_PATH))
    except ModelError as error:
        if error.path == "adjacency":
            raise ModelError("adjacency must be \"all\" or a list of [secret, secret] pairs",
                             "adjacency") from None
        raise
