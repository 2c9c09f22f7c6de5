"""docs/certificates.md, a notebook the documentation build executes, runs as written here too:
its code cells in order, in one namespace (``ast``: a cell's last expression is evaluated)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "certificates.md"
CELL = re.compile(r"^```\{code-cell\} python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def test_the_certificates_page_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    cells = CELL.findall(PAGE.read_text(encoding="utf-8"))
    assert len(cells) >= 5
    namespace: dict = {}
    shown = []
    for cell in cells:
        tree = ast.parse(cell)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, str(PAGE), "exec"), namespace)
        if last is not None:
            shown.append(eval(compile(ast.Expression(last.value), str(PAGE), "eval"), namespace))
    printed = capsys.readouterr().out
    assert shown[2][0] is True and shown[2][1].startswith("rr, sum, joint release rr+sum; ")
    for change in ("changed_probability", "swapped_pair", "wrong_level", "removed_output"):
        assert f"{change}: " in printed and f"{change}: None" not in printed
    assert shown[3][1] is True                              # the program's certificate accepted
    assert "0 accepted:" in printed                         # python -m pufferfish_check
