"""The layout rules of ``docs/design.md``, checked on the source: the import graph's direction and
acyclicity, module length, and tests that use only public names.

Layers, bottom to top: ``pufferfish.models`` → ``pufferfish.verify`` → ``pufferfish.api`` and
``pufferfish.proofs_check`` → ``pufferfish.cli``.  A module may import its own layer and the ones
below it, never one above.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import networkx as nx
import pytest

import pufferfish

MAX_LINES = 600
LENGTH_REASON = "Length:"   # a module longer than MAX_LINES says why in a docstring line starting so

LAYERS = {"pufferfish": 2, "pufferfish.models": 0, "pufferfish.examples": 0, "pufferfish.verify": 1,
          "pufferfish.bibliography": 0,  # the papers as data: every layer cites them
          "pufferfish.api": 2, "pufferfish.proofs_check": 2, "pufferfish.cli": 3,
          "pufferfish.__main__": 3}  # python -m pufferfish: the command line


def _package_files() -> dict[str, Path]:
    """Module name -> source file, for every module of the installed package."""
    roots = {"pufferfish": Path(pufferfish.__file__).parent}
    for sub in ("models", "verify", "proofs_check", "examples"):
        roots[f"pufferfish.{sub}"] = Path(importlib.import_module(f"pufferfish.{sub}").__file__).parent
    files = {}
    for prefix, root in roots.items():
        for path in root.rglob("*.py"):
            if ".venv" in path.parts or path.is_relative_to(root / "cli") and prefix != "pufferfish":
                continue
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join((prefix, *parts))
            if prefix == "pufferfish" and parts and parts[0] in ("models", "verify", "proofs_check", "examples"):
                continue
            files[name] = path
    return files


FILES = _package_files()


def _layer(module: str) -> int | None:
    for prefix, layer in sorted(LAYERS.items(), key=lambda item: -len(item[0])):
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return None


def _imports(name: str, path: Path) -> set[str]:
    """The pufferfish modules ``name`` imports (at any depth of its code)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {m for m in found if m in FILES and m != name}


GRAPH = nx.DiGraph()
for _name, _path in FILES.items():
    GRAPH.add_node(_name)
    GRAPH.add_edges_from((_name, target) for target in _imports(_name, _path))


def test_the_package_has_its_parts():
    assert {"pufferfish.api", "pufferfish.cli.main", "pufferfish.models.numbers",
            "pufferfish.verify.numerics.intervals", "pufferfish.proofs_check.registry"} <= set(FILES)


def test_no_module_imports_a_layer_above_its_own():
    upward = [(a, b) for a, b in GRAPH.edges if _layer(b) > _layer(a)]
    assert upward == []


def test_only_the_command_line_imports_the_claims():
    importers = {a for a, b in GRAPH.edges if b.startswith("pufferfish.proofs_check")
                 and not a.startswith("pufferfish.proofs_check")}
    assert all(a.startswith("pufferfish.cli") for a in importers), importers


def test_the_import_graph_has_no_cycle():
    # a package's __init__ re-exporting its own modules is not a cycle of concepts
    graph = GRAPH.copy()
    graph.remove_edges_from([(a, b) for a, b in GRAPH.edges if b.startswith(a + ".")])
    assert list(nx.simple_cycles(graph)) == []


@pytest.mark.parametrize("name", sorted(FILES))
def test_long_modules_say_why(name):
    source = FILES[name].read_text(encoding="utf-8")
    lines = source.count("\n")
    if lines > MAX_LINES:
        docstring = ast.get_docstring(ast.parse(source)) or ""
        assert any(line.startswith(LENGTH_REASON) for line in docstring.splitlines()), (
            f"{name} has {lines} lines; split it or give the reason in a '{LENGTH_REASON}' line")


def test_tests_use_public_names_only():
    offenders = []
    for path in Path(__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pufferfish"):
                offenders += [f"{path.name}: {node.module}.{a.name}" for a in node.names
                              if a.name.startswith("_") and a.name != "__version__"]
    assert offenders == []
