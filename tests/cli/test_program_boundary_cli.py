"""A program can never change the toolkit's exit status or its JSON: the reproducers through the
command line (in this process with ``cli``, and as a separate process where file descriptors
matter)."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest

from pufferfish.models.programs import sandbox

PROGRAMS = {
    "exit_run.py": "from pufferfish.models.programs import coin\n"
                   "def f(data):\n"
                   "    if data[0] == 1:\n"
                   "        raise SystemExit(0)\n"
                   "    return coin()\n",
    "exit_import.py": "import sys\nsys.exit(0)\ndef f(data):\n    return 1\n",
    "interrupt.py": "def f(data):\n    raise KeyboardInterrupt\n",
    "hidden.py": "import random\n"
                 "def f(data):\n"
                 "    return data[0] if random.random() < 0.001 else 0\n",
    "printer.py": "import os\n"
                  "from pufferfish.models.programs import coin\n"
                  "def f(data):\n"
                  "    print('printed by the program')\n"
                  "    os.write(1, b'written to fd 1\\n')\n"
                  "    os.write(2, b'written to fd 2\\n')\n"
                  "    return data[0] if coin('3/4') else 1 - data[0]\n",
    "module_loop.py": "while True:\n    pass\ndef f(data):\n    return 1\n",
    "c_loop.py": "import itertools\ndef f(data):\n    return sum(itertools.count())\n",
    "huge.py": "def f(data):\n    return 10**5000\n",
    "frozen.py": "def f(data):\n    return frozenset(data)\n",
    "until_heads.py": "from pufferfish.models.programs import coin\n"
                      "def f(data):\n"
                      "    n = 0\n"
                      "    while not coin():\n"
                      "        n += 1\n"
                      "    return n\n",
    "rr.program": "from pufferfish.models.programs import coin\n"
                  "def f(data):\n"
                  "    return data[0] if coin('3/4') else 1 - data[0]\n",
}


def _model(tmp_path, file: str, trusted: bool = True) -> str:
    """The model naming ``file``; ``trusted`` (the default here: these are tests of the run-time
    boundary) skips the program language, which refuses most of them before they run."""
    (tmp_path / file).write_text(PROGRAMS[file])
    program = {"file": file, "function": "f", **({"trusted": True} if trusted else {})}
    model = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
             "priors": {"u": {"uniform": True}}, "secrets": {}, "entry_pairs": True,
             "mechanisms": {"m": {"program": program}}}
    path = tmp_path / f"{file}.json"
    path.write_text(json.dumps(model))
    return str(path)


@pytest.mark.parametrize("file, message", [
    ("exit_run.py", r"raised SystemExit: 0 at exit_run.py, line 4"),
    ("exit_import.py", r"raised SystemExit: 0 while loading at exit_import.py, line 2"),
    ("interrupt.py", r"raised KeyboardInterrupt at interrupt.py, line 2"),
    ("hidden.py", r"random.random is refused: a program draws randomness only through the "
                  r"toolkit's primitives"),
    ("huge.py", r"an integer of about 5,000 digits"),
    ("frozen.py", r"returned a frozenset, which is not a JSON value"),
    ("until_heads.py", r"more than 500 random decisions at until_heads.py, line 4"),
])
def test_a_program_that_exits_interrupts_or_hides_randomness_is_bad_input(tmp_path, cli, file,
                                                                         message):
    output = tmp_path / "result.json"
    code, out, err = cli("audit", _model(tmp_path, file), "--epsilon", "0", "--json",
                         "--output", output)
    assert code == 2, (code, err)
    assert out == "" and not output.exists()
    assert re.search(message, err), err
    assert "Traceback" not in err


@pytest.mark.parametrize("file, message", [
    ("exit_run.py", r"exit_run.py, line 4: raise of this exception is not allowed"),
    ("exit_import.py", r"exit_import.py, line 1: import sys is not allowed"),
    ("interrupt.py", r"interrupt.py, line 2: raise of this exception is not allowed"),
    ("hidden.py", r"hidden.py, line 1: import random is not allowed"),
    ("printer.py", r"printer.py, line 1: import os is not allowed"),
    ("module_loop.py", r"module_loop.py, line 1: a module-level while is not allowed"),
    ("c_loop.py", r"c_loop.py, line 1: import itertools is not allowed"),
    ("frozen.py", r"frozen.py, line 2: frozenset\(\) is not allowed"),
])
def test_the_program_language_refuses_them_before_they_run(tmp_path, cli, file, message):
    code, out, err = cli("audit", _model(tmp_path, file, trusted=False), "--json")
    assert code == 2 and out == "", (code, err)
    assert re.search(r"mechanisms\.m\.program\.file: .*" + message, err), err
    assert "Traceback" not in err


def test_a_module_level_loop_is_refused(tmp_path, cli):
    code, _, err = cli("audit", _model(tmp_path, "module_loop.py"))
    assert code == 2 and "ran more than 1,000,000 lines while loading" in err


def test_a_loop_in_c_code_is_killed_at_the_cpu_limit(tmp_path, cli, monkeypatch):
    monkeypatch.setattr(sandbox, "DEFAULT_CPU_SECONDS", 1)
    code, _, err = cli("audit", _model(tmp_path, "c_loop.py"))
    assert code == 2 and "used more than 1 CPU seconds and was stopped" in err


def test_a_program_file_without_the_py_suffix_is_audited(tmp_path, cli):
    code, out, _ = cli("audit", _model(tmp_path, "rr.program"), "--json")
    assert code == 0 and json.loads(out)["mechanisms"][0]["pufferfish"]["epsilon"] == "log(3)"


def test_a_failed_self_check_of_the_engine_is_an_internal_error(tmp_path, cli, monkeypatch):
    from pufferfish.models.programs import enumerate

    # an engine that loses mass, as a defect would (the worker, forked later, inherits it)
    monkeypatch.setattr(enumerate, "_paths", lambda *arguments: {0: Fraction(1, 2)})
    code, _, err = cli("audit", _model(tmp_path, "rr.program"))
    assert code == 4, err
    assert "error: internal error in the engine: program m (rr.program:f) on dataset" in err
    assert "sum to 1/2, not 1" in err


def test_what_a_program_prints_never_reaches_the_json(tmp_path, pufferfish_process):
    code, out, err = pufferfish_process(["audit", _model(tmp_path, "printer.py"), "--json"])
    assert code == 0, err
    assert json.loads(out)["mechanisms"][0]["pufferfish"]["epsilon"] == "log(3)"
    assert "printed" not in out + err and "written" not in out + err


@pytest.mark.parametrize("file", ["exit_run.py", "hidden.py", "until_heads.py"])
def test_a_program_refused_on_a_cluster_is_refused_as_in_this_process(tmp_path, cli, file):
    model = _model(tmp_path, file)
    code, out, err = cli("audit", model, "--json")
    code_cluster, out_cluster, err_cluster = cli("audit", model, "--json", "--workers", "2")
    assert code == code_cluster == 2 and out == out_cluster == ""
    assert err.strip().splitlines()[-1] == err_cluster.strip().splitlines()[-1]
    assert "Traceback" not in err_cluster
