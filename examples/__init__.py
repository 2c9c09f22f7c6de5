"""The example model files, installed with the package as ``pufferfish.examples``.

>>> from pufferfish.examples import example_path, example_names
>>> example_path("quickstart.json").name
'quickstart.json'
>>> "hidden_coin.json" in example_names()
True
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from importlib.resources import files
from pathlib import Path


def example_path(name: str) -> Path:
    """The path of the shipped example file ``name`` (e.g. ``"quickstart.json"``)."""
    path = Path(str(files(__name__) / name))
    if not path.is_file():
        raise FileNotFoundError(f"no example named {name!r}; the examples are: "
                                f"{', '.join(example_names())}")
    return path


def path_or_example(source: str | os.PathLike) -> Path:
    """The file ``source`` names: the path itself when it exists, else, when ``source`` names a
    shipped example (``"quickstart.json"``, ``"dp_benchmarks/svt1.json"``), that example; else
    the path as given (whose
    reader then reports it missing).  The Python API (``pufferfish.load``) and the command line
    (a model argument) read a model file through it, so ``pufferfish audit quickstart.json``
    works outside a clone of the repository.

    >>> path_or_example("hidden_coin.json") == example_path("hidden_coin.json")
    True
    >>> str(path_or_example("no/such/file.json"))
    'no/such/file.json'
    """
    path = Path(source)
    if not path.exists() and isinstance(source, str) and not path.is_absolute():
        try:  # a shipped example, at the top or in a folder of them (dp_benchmarks/svt1.json)
            return example_path(source)
        except FileNotFoundError:
            pass
    return path


def example_names() -> list[str]:
    """The names of the shipped example model files, sorted."""
    return sorted(entry.name for entry in files(__name__).iterdir() if entry.name.endswith(".json"))


def quickstart_over(attributes: int, *, fair_one: str = "1/2", randomized: int = 3) -> dict:
    """The quickstart model (``quickstart.json``) over ``attributes`` binary attributes
    ``x1..xn``, as a model-file dict: the ``fair`` prior independent with ``Pr[x_i = 1] =
    fair_one``, the ``sticky`` chain as shipped, randomized response on ``x1..x{randomized}`` and
    the geometric sum clamped to ``[0, attributes]``.  The scalable instance of the audit
    benchmarks and tests (``2^attributes`` datasets).

    >>> data = quickstart_over(5, randomized=2)
    >>> data["attributes"][-1], data["mechanisms"]["rr"]["per_entry"]["randomized_response"]
    ('x5', {'keep': '3/4', 'attributes': ['x1', 'x2']})
    """
    data = json.loads(example_path("quickstart.json").read_text(encoding="utf-8"))
    names = [f"x{i}" for i in range(1, attributes + 1)]
    zero = str(1 - Fraction(fair_one))
    data["attributes"] = names
    data["priors"]["fair"] = {"independent": {a: {"0": zero, "1": fair_one} for a in names}}
    data["mechanisms"]["rr"]["per_entry"]["randomized_response"]["attributes"] = names[:randomized]
    data["mechanisms"]["sum"]["noise"]["geometric"]["max"] = attributes
    return data
