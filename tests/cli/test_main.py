"""The command line: exit codes 0/1/2, --json, --output, bad-input messages (DESIGN.md, "Command line")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pufferfish.cli.main import main
from pufferfish.examples import example_path

QUICKSTART = example_path("quickstart.json")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def quickstart_data() -> dict:
    return json.loads(QUICKSTART.read_text())


def write(tmp_path: Path, data: object, name: str = "model.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_audit_quickstart_prints_the_exact_levels_of_the_readme(capsys):
    code, out, _ = run(capsys, "audit", str(QUICKSTART))
    assert code == 0
    assert "log(12)" in out and "log(706/137)" in out and "log(1194/31)" in out


def test_audit_json_carries_witnesses(capsys):
    code, out, _ = run(capsys, "audit", str(QUICKSTART), "--json")
    data = json.loads(out)
    assert code == 0
    rr = data["mechanisms"][0]
    assert rr["pufferfish"]["max_ratio"] == "12"
    assert rr["pufferfish"]["witness"]["prior"] == "sticky"
    assert rr["dp"][0]["epsilon"] == "log(3)"
    assert data["composition"]["joint"]["max_ratio"] == "1194/31"


@pytest.mark.parametrize("budget, expected", [("2", 1), ("3.7", 0), ("log(12)", 1),
                                              ("log(1194/31)", 0), ("3.6510", 1)])
def test_audit_budget_exit_codes(capsys, budget, expected):
    # rr needs log 12 ≈ 2.4849, the joint release log(1194/31) ≈ 3.65108
    code, out, _ = run(capsys, "audit", str(QUICKSTART), "--epsilon", budget)
    assert code == expected
    assert ("VIOLATED" in out) == (expected == 1)


def test_output_file_is_written_and_not_clobbered_on_error(capsys, tmp_path):
    target = tmp_path / "result.json"
    code, _, _ = run(capsys, "audit", str(QUICKSTART), "--output", str(target))
    assert code == 0
    good = target.read_text()
    assert json.loads(good)["check"] == "audit"
    bad = quickstart_data()
    bad["priors"]["fair"]["independent"]["x1"]["0"] = "3/4"
    code, _, err = run(capsys, "audit", write(tmp_path, bad), "--output", str(target))
    assert code == 2 and "must sum to 1" in err
    assert target.read_text() == good


@pytest.mark.parametrize("mutate, phrase", [
    (lambda d: d.__setitem__("colour", 1), "colour"),
    (lambda d: d["priors"]["sticky"]["markov"]["transition"]["1"].__setitem__("0", "2/10"),
     "priors.sticky.markov.transition.1"),
    (lambda d: d["priors"]["fair"]["independent"]["x2"].__setitem__("0", 0.5), "string"),
    (lambda d: d["pairs"].append(["x1=0", "nobody"]), "nobody"),
    (lambda d: d["secrets"].__setitem__("x1=1", {"where": {"x1": 7}}), "x1"),
])
def test_bad_model_files_exit_2_with_a_path_and_no_traceback(capsys, tmp_path, mutate, phrase):
    data = quickstart_data()
    mutate(data)
    code, out, err = run(capsys, "audit", write(tmp_path, data))
    assert code == 2
    assert phrase in err
    assert "Traceback" not in err and out == ""


def test_malformed_json_and_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "audit", write(tmp_path, "{not json"))
    assert code == 2 and "error" in err
    code, _, err = run(capsys, "audit", str(tmp_path / "absent.json"))
    assert code == 2 and "absent.json" in err


def test_usage_errors_exit_2(capsys):
    assert run(capsys, "audit")[0] == 2
    assert run(capsys, "no-such-command")[0] == 2
    assert run(capsys, "audit", str(QUICKSTART), "--epsilon", "-1")[0] == 2
    assert run(capsys, "audit", str(QUICKSTART), "--block-datasets", "zero")[0] == 2


def test_too_large_universe_is_refused_with_its_size(capsys, tmp_path):
    data = quickstart_data()
    data["attributes"] = [f"x{i}" for i in range(1, 41)]
    data["priors"] = {"fair": {"uniform": True}}
    data["mechanisms"] = {"sum": data["mechanisms"]["sum"]}
    path = write(tmp_path, data)
    code, _, err = run(capsys, "audit", path, "--method", "enumeration")
    assert code == 2
    assert "1,099,511,627,776" in err or "10^12" in err
    assert "memory" in err  # the limit of an audit is the machine's memory, stated up front
    # by the prior's structure (a product prior, a sum) nothing is listed: the audit runs
    code, out, err = run(capsys, "audit", path)
    assert code == 0 and "exact by the prior's structure" in out


def test_debug_shows_the_traceback(capsys, tmp_path):
    code, _, err = run(capsys, "audit", write(tmp_path, "[]"), "--debug")
    assert code == 2 and "Traceback" in err


def test_influence_figures_are_written(capsys, tmp_path):
    """Figure 2(a)/(b) of 000_65109fe28ca61d17.txt §6.3 regenerate as PNG files."""
    code, out, _ = run(capsys, "influence-figures", "--out", str(tmp_path))
    assert code == 0
    for name in ("figure_2a.png", "figure_2b.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_subcommand_is_registered():
    from pufferfish.cli.main import COMMANDS, build_parser

    build_parser()
    assert {"audit", "collapse", "theorems", "demo", "composes", "postprocess", "influence",
            "translate", "quilts", "mqm", "wasserstein", "multiuser", "dcp",
            "dcp-design"} <= set(COMMANDS)


def test_the_entry_point_loads_only_the_standard_library_before_main_runs():
    """Everything past the standard library is imported inside main(), so Ctrl-C during start-up
    is handled like any other interruption (exit 130, no traceback)."""
    import subprocess
    import sys

    code = ("import sys; import pufferfish.cli.main; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pufferfish', 'sympy', 'cvxpy', 'jsonschema', 'numpy', 'mpmath')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "['pufferfish', 'pufferfish.cli', 'pufferfish.cli.main']"


def test_an_in_process_quiet_run_leaves_progress_as_it_found_it(capsys):
    """``--quiet`` hides progress for its own run; ``main`` restores the setting afterwards, so
    later work in the same process (a notebook, the next test) still shows its progress."""
    from pufferfish.verify.report import progress_visible, set_progress_visible

    try:
        for before in (True, False):
            set_progress_visible(before)
            assert run(capsys, "collapse", "parity", "--quiet")[0] == 0
            assert run(capsys, "audit", str(QUICKSTART / "absent"), "--quiet")[0] == 2
            assert progress_visible() is before
    finally:
        set_progress_visible(True)


def test_a_shipped_example_is_read_by_its_name_outside_a_clone(capsys, tmp_path, monkeypatch):
    """The command line reads a model argument that names no file but a shipped example as that
    example, as ``pufferfish.load`` does."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "audit", "quickstart.json")
    assert code == 0 and "log(12)" in out and str(QUICKSTART) in out


def test_a_file_of_an_example_s_name_is_read_before_the_example(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quickstart.json").write_text("{}")
    code, _, err = run(capsys, "audit", "quickstart.json")
    assert code == 2 and "pufferfish_model" in err


def test_a_name_that_is_no_file_and_no_example_lists_the_examples(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "audit", "no_such_model.json")
    assert code == 2 and out == ""
    assert "nor is it the name of a shipped example" in err and "quickstart.json" in err


def test_python_dash_m_pufferfish_runs_the_command_line(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pufferfish", "audit", "hidden_coin.json",
                           "--json"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["command"] == "audit"
