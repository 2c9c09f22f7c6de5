"""Solver output never reaches standard output (issue 13: ``--json`` is one JSON document).

highspy 1.16 prints a banner from native code when a solver object is created; in-process capture
does not see such writes, so the command line runs in a subprocess here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from pufferfish.examples import example_path
from pufferfish.verify.numerics.solvers import native_stdout_silenced


def test_composes_json_is_pure_json_in_a_subprocess():
    command = [sys.executable, "-c", "import sys; from pufferfish.cli.main import main; "
               "sys.exit(main())", "composes", str(example_path("hidden_coin.json")),
               "--epsilon", "0", "--json"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)           # nothing but the result object on stdout
    assert isinstance(data, dict)
    assert "Running HiGHS" not in done.stdout


def test_native_writes_to_descriptor_one_are_dropped_and_restored():
    code = ("import os, sys\n"
            "from pufferfish.verify.numerics.solvers import native_stdout_silenced\n"
            "print('before', flush=False)\n"
            "with native_stdout_silenced():\n"
            "    os.write(1, b'native\\n')\n"
            "    print('python')\n"
            "print('after')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout == "before\nafter\n"


def test_silencing_restores_descriptor_one_after_an_error():
    before = os.fstat(1)
    try:
        with native_stdout_silenced():
            raise RuntimeError("inside")
    except RuntimeError:
        pass
    after = os.fstat(1)
    assert (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino)
