"""The checker is small and independent: under 1,500 lines (a thousand for the certificate
checker, the rest the program language it shares with the toolkit, ``pufferfish_check/language.py``),
importing only the Python standard library, and running in a fresh interpreter without any module of the toolkit — also
while it loads a program file that imports ``pufferfish.models.programs``."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pufferfish
import pufferfish_check
from pufferfish.examples import example_path

CHECKER = Path(pufferfish_check.__file__).parent
SOURCES = sorted(CHECKER.glob("*.py"))
MAX_LINES = 1600
"""The checker proper (reader, laws, programs, check): it re-derives every entry and verdict."""
MAX_LANGUAGE_LINES = 600
"""The program language (``language.py``), which the toolkit shares."""


def test_the_checker_and_its_language_stay_small():
    assert len(SOURCES) >= 5
    lines = {path.name: path.read_text(encoding="utf-8").count("\n") for path in SOURCES}
    language = lines.pop("language.py")
    assert sum(lines.values()) < MAX_LINES, f"pufferfish_check has {sum(lines.values())} lines"
    assert language < MAX_LANGUAGE_LINES, f"the language has {language} lines"


def test_the_checker_imports_only_the_standard_library():
    imported = set()
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path.name}: relative import"
                imported.add(node.module.split(".")[0])
    imported.discard("pufferfish_check")
    assert imported and imported <= set(sys.stdlib_module_names), imported - set(
        sys.stdlib_module_names)


def test_the_checker_runs_without_the_toolkit(tmp_path):
    """``python -I`` (no user site, no PYTHONPATH), with only the checker's folder on the path:
    a program's certificate is checked and no ``pufferfish`` module is ever left in
    ``sys.modules`` (the program's import of ``pufferfish.models.programs`` is served by the
    checker's stand-in while the file loads, then removed)."""
    model = example_path("dp_benchmarks/svt5.json")
    certificate = tmp_path / "svt5.cert.json"
    certificate.write_text(json.dumps(pufferfish.certificate(str(model))))
    script = f"""
import sys
sys.path = [p for p in sys.path if "site-packages" not in p and p not in ("", ".")]
sys.path.insert(0, {str(CHECKER.parent)!r})
import importlib.abc
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pufferfish" or name.startswith("pufferfish."):
            raise ImportError("the checker imported " + name)
sys.meta_path.insert(0, Refuse())
from pufferfish_check.__main__ import main
code = main([{str(certificate)!r}])
engine = sorted(m for m in sys.modules if m == "pufferfish" or m.startswith("pufferfish."))
third_party = sorted(m for m in sys.modules if m.split(".")[0] in ("flint", "sympy", "numpy",
                                                                 "mpmath", "networkx"))
print("MODULES", engine, third_party)
sys.exit(code)
"""
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "accepted" in done.stdout
    assert "MODULES [] []" in done.stdout


def test_python_dash_m_exit_statuses(tmp_path):
    model = example_path("hidden_coin.json")
    certificate = tmp_path / "coin.json"
    data = pufferfish.certificate(str(model), "0")
    certificate.write_text(json.dumps(data))
    run = lambda *args: subprocess.run([sys.executable, "-m", "pufferfish_check", *map(str, args)],  # noqa: E731
                                       capture_output=True, text=True, timeout=120)
    assert run(certificate).returncode == 0
    assert run(certificate, model).returncode == 0
    data["mechanisms"][0]["pufferfish"]["max_ratio"] = "2"
    certificate.write_text(json.dumps(data))
    rejected = run(certificate)
    assert rejected.returncode == 1 and "rejected: coin.pufferfish.max_ratio" in rejected.stdout
    (tmp_path / "broken.json").write_text("{")
    assert run(tmp_path / "broken.json").returncode == 2
    assert run(tmp_path / "missing.json").returncode == 2
