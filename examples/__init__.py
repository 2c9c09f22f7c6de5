"""The example model files, installed with the package as ``pufferfish.examples``.

>>> from pufferfish.examples import example_path, example_names
>>> example_path("quickstart.json").name
'quickstart.json'
>>> "hidden_coin.json" in example_names()
True
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def example_path(name: str) -> Path:
    """The path of the shipped example file ``name`` (e.g. ``"quickstart.json"``)."""
    path = Path(str(files(__name__) / name))
    if not path.is_file():
        raise FileNotFoundError(f"no example named {name!r}; the examples are: "
                                f"{', '.join(example_names())}")
    return path


def example_names() -> list[str]:
    """The names of the shipped example model files, sorted."""
    return sorted(entry.name for entry in files(__name__).iterdir() if entry.name.endswith(".json"))
