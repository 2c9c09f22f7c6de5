"""The compatibility table (docs/compatibility.md) is generated from the capability declarations
(pufferfish.verify.capabilities), and every declared cell holds on the command line: a refused
cell exits 2 with a message at its declared location and no traceback, every other runnable cell
runs (exit 0, 1 or 3) on the sample model of its kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pufferfish.cli.main import main
from pufferfish.verify.capabilities import CAPABILITIES, PRIOR_KINDS, markdown, sample_model

PAGE = Path(__file__).resolve().parent.parent / "docs" / "compatibility.md"
CELLS = [(cap, kind) for cap in CAPABILITIES for kind in PRIOR_KINDS
         if cap.argv(kind, "MODEL") is not None]


def test_committed_page_is_the_generated_one():
    assert PAGE.read_text(encoding="utf-8") == markdown(), (
        "regenerate: python -m pufferfish.verify.capabilities --markdown > docs/compatibility.md")


def test_every_refusal_has_a_runnable_probe():
    for cap in CAPABILITIES:
        for kind, cell in cap.cells.items():
            if cell.status == "refused":
                assert cap.argv(kind, "MODEL") is not None, (cap.analysis, kind)


@pytest.mark.parametrize("cap, kind", CELLS, ids=[f"{c.command}:{c.analysis[:24]}:{k}"
                                                  for c, k in CELLS])
def test_cell_behaves_as_declared(cap, kind, tmp_path, capsys):
    path = tmp_path / f"{kind}.json"
    sample = sample_model("multiuser" if cap.sample == "multiuser" else kind)
    path.write_text(json.dumps(sample))
    code = main(cap.argv(kind, str(path)) + ["--quiet"])
    err = capsys.readouterr().err
    cell = cap.cells[kind]
    if cell.status == "refused":
        assert code == 2, err
        assert cell.at in err and "Traceback" not in err, err
    else:
        assert code in (0, 1, 3), err
