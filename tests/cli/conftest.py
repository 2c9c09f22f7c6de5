"""Fixtures of the command-line tests: run ``pufferfish`` in this process through ``main``, and
one invocation of every command on the shipped examples."""

from __future__ import annotations

import json

import pytest

import pufferfish
from pufferfish.cli.main import main
from pufferfish.examples import example_path


@pytest.fixture
def cli(capsys):
    """``cli(*argv) -> (exit status, stdout, stderr)``."""
    def run(*argv: str) -> tuple[int, str, str]:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run


MAP = {"map": [["a", [["x", "1"]]], ["b", [["x", "1/2"], ["y", "1/2"]]]]}
SUM_MAP = {"map": [[0, [["low", "1"]]], [1, [["low", "1"]]], [2, [["high", "1"]]],
                   [3, [["high", "1"]]]]}
CONSTRAINTS = {"nfc_constraints": 1, "epsilon": "1/2", "constraints": [
    {"name": "mixed", "left": [0], "beta": [[[1], "1/2"], [[2], "1/2"]]},
    {"name": "dp", "left": [1], "pair": ["s2", "s1"], "beta": [[[0], "1"]]}]}


def cases_on_examples(tmp):
    """``(command, argv)`` on the examples for every command (``tmp``: a scratch folder);
    several shapes where a command has them.  Also used by the pure-JSON subprocess test."""
    ex = lambda name: str(example_path(name))  # noqa: E731
    (tmp / "map.json").write_text(json.dumps(MAP))
    (tmp / "constraints.json").write_text(json.dumps(CONSTRAINTS))
    (tmp / "sum_map.json").write_text(json.dumps(SUM_MAP))
    curve = {"influence_curve": 1, "entries": 3, "points": [
        {"b": 0, "a": "inf"}, {"b": 1, "a": "log(4)"}, {"b": 2, "a": "log(2)"}, {"b": 3, "a": "0"}]}
    (tmp / "curve.json").write_text(json.dumps(curve))
    certificate = tmp / "quickstart.cert.json"
    certificate.write_text(json.dumps(pufferfish.certificate(ex("quickstart.json"), "log(3)")))
    return [
        ("check-certificate", ["check-certificate", str(certificate)]),
        ("audit", ["audit", ex("quickstart.json"), "--epsilon", "log(3)"]),
        ("audit", ["audit", ex("composable_rr.json")]),
        ("approximate-dp", ["approximate-dp", ex("quickstart.json"), "--epsilon", "log(2)",
                            "--delta", "1/4"]),
        ("epsilon-range", ["epsilon-range", ex("dp_benchmarks/laplace_suite.json"),
                           "--mechanism", "noisy_histogram", "--factor", "2", "--low", "1/10",
                           "--high", "2"]),
        ("approximate-dp", ["approximate-dp", ex("dp_benchmarks/laplace_suite.json"),
                            "--mechanism", "svt5", "--mechanism", "noisy_max_laplace",
                            "--delta", "1/100"]),
        ("collapse", ["collapse", "parity"]),
        ("collapse", ["collapse", "resample"]),
        ("collapse", ["collapse", "interval"]),
        ("theorems", ["theorems", "--list", "--paper", "004"]),
        ("theorems", ["theorems", "--claim", "002.lemB6"]),
        ("theorems", ["theorems", "--vacuity", "--paper", "001"]),
        ("theorems", ["theorems", "--coverage"]),
        ("demo", ["demo"]),
        ("composes", ["composes", ex("hidden_coin.json"), "--epsilon", "0", "--runs", "2"]),
        ("composes", ["composes", ex("composable_rr.json"), "--epsilon", "log(3)"]),
        ("postprocess", ["postprocess", ex("hidden_coin.json"), "--mechanism", "coin", "--map",
                         str(tmp / "map.json")]),
        ("postprocess", ["postprocess", "--constraints", str(tmp / "constraints.json")]),
        ("influence", ["influence", ex("influence_chain.json"), "--max-b", "3"]),
        ("translate", ["translate", "--curve", str(tmp / "curve.json"), "--epsilon-puffer", "2"]),
        ("translate", ["translate", "--curve", str(tmp / "curve.json"), "--epsilon-dp", "1/2"]),
        ("influence-figures", ["influence-figures", "--out", str(tmp / "figures")]),
        ("quilts", ["quilts", ex("bayesnet_vstructure.json"), "--node", "A", "--epsilon", "2"]),
        ("quilts", ["quilts", ex("chain_family_T8.json"), "--node", "3", "--epsilon", "1"]),
        ("quilts", ["quilts", ex("chain_binary_T100.json"), "--node", "x3"]),
        ("mqm", ["mqm", ex("chain_binary_T100.json"), "--epsilon", "1"]),
        ("mqm", ["mqm", ex("chain_binary_T100.json"), "--epsilon", "1", "--method", "fast"]),
        ("mqm-figures", ["mqm-figures", "--out", str(tmp / "mqm"), "--figure", "4",
                         "--repetitions", "2", "--length", "150", "--lengths", "120",
                         "--epsilons", "1"]),
        ("mqm-price", ["mqm-price", "--lengths", "8", "--epsilons", "1", "--lows", "1/4",
                       "--tolerance", "1/50", "--out", str(tmp / "price")]),
        ("least-noise", ["least-noise", ex("quickstart.json"), "--epsilon", "1",
                         "--tolerance", "1/50"]),
        ("least-noise", ["least-noise", ex("bayesnet_rain.json"), "--epsilon", "1/2",
                         "--query", "count", "--value", "yes", "--attributes", "wet",
                         "--noise", "laplace"]),
        ("wasserstein", ["wasserstein", ex("flu.json"), "--query", "sum", "--epsilon", "1"]),
        ("wasserstein", ["wasserstein", ex("wasserstein_chain.json"), "--query", "sum",
                         "--epsilon", "1/2", "--delta", "1/10"]),
        ("multiuser", ["multiuser", ex("multiuser_bernoulli.json"), "--pairs", "PQ",
                       "--epsilon", "1"]),
        ("dcp", ["dcp", ex("dcp_two_secrets.json"), "--epsilon", "1", "--delta", "1/10"]),
        ("dcp-design", ["dcp-design", ex("dcp_two_secrets.json"), "--target-epsilon", "log(5)",
                        "--target-delta", "0", "--iterations", "2"]),
        ("design", ["design", ex("quickstart.json"), "--query", "sum", "--epsilon", "log(3)"]),
        ("design", ["design", ex("quickstart.json"), "--query", "attribute:x1", "--epsilon", "1",
                    "--compare", "--composable", "dp-style"]),
        ("region", ["region", ex("quickstart_parametric.json"), "--epsilon", "log(3)",
                    "--mechanism", "rr", "--set", "q=9/10"]),
        ("region", ["region", ex("quickstart_parametric.json"), "--epsilon", "log(3)",
                    "--mechanism", "rr", "--width", "1/8"]),
        ("region", ["region", ex("quickstart_parametric.json"), "--epsilon", "log(3)",
                    "--mechanism", "rr", "--mechanism", "sum", "--set", "q=9/10"]),
        ("composes", ["composes", ex("quickstart_parametric.json"), "--epsilon", "log(3)",
                      "--region", "--mechanism", "rr", "--set", "q=9/10", "--width", "1/16"]),
        ("postprocess", ["postprocess", ex("quickstart_parametric.json"), "--mechanism", "sum",
                         "--map", str(tmp / "sum_map.json"), "--symbolic", "--set", "p=3/4"]),
        ("audit", ["audit", ex("quickstart_parametric.json"), "--symbolic", "--set", "q=9/10"]),
        ("audit", ["audit", ex("quickstart_parametric.json"), "--set", "p=3/4", "--set", "q=9/10"]),
        ("experiment", ["experiment", "topk", "--shape", "activities", "--trials", "2",
                        "--workers", "1", "--out", str(tmp / "topk")]),
    ]


@pytest.fixture(scope="session")
def command_cases():
    """:func:`cases_on_examples`: ``(command, argv)`` for every command on the examples."""
    return cases_on_examples


HANG_SECONDS = 1800
"""Wall-clock seconds after which a subprocess that has not finished is taken to be blocked (on
a pipe, a lock): a guard against a hung test run, never a measure of speed.  How much work a
command may do is limited in CPU seconds (``RLIMIT_CPU``), which a loaded machine does not
change."""


def cpu_and_memory_limit(cpu_seconds: float, memory: int):
    """A ``preexec_fn`` that limits the child to ``cpu_seconds`` of CPU time (the kernel sends
    SIGXCPU past it) and ``memory`` bytes of address space."""
    import math
    import resource

    seconds = max(1, math.ceil(cpu_seconds))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    return limit


def run_pufferfish(argv, *, cpu_seconds: float = 120, memory: int = 2 << 30, stdin=None,
                   start=None, timeout: float | None = None):
    """Run ``python -m pufferfish.cli.main ARGV`` in a subprocess with a CPU-time limit
    (seconds) and an address-space limit (bytes): ``(exit status, stdout, stderr)``.  Native
    writes to the file descriptors (a solver banner) are seen here, unlike in-process capture.
    A run past its CPU time, or blocked for :data:`HANG_SECONDS`, fails the test with a message
    saying which.  ``timeout`` is read as ``cpu_seconds`` (a limit in CPU time, never in
    wall-clock time)."""
    import signal
    import subprocess
    import sys

    if timeout is not None:
        cpu_seconds = timeout

    process = subprocess.Popen([sys.executable, "-m", "pufferfish.cli.main", *map(str, argv)],
                               stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=cpu_and_memory_limit(cpu_seconds, memory), text=True)
    if start is not None:
        start(process)
    command = f"pufferfish {' '.join(map(str, argv))}"
    try:
        out, err = process.communicate(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"{command} was still running after {HANG_SECONDS} s: blocked?")
    if process.returncode == -signal.SIGXCPU:
        raise AssertionError(f"{command} used more than {cpu_seconds} s of CPU time")
    return process.returncode, out, err


@pytest.fixture(scope="session")
def pufferfish_process():
    """:func:`run_pufferfish`."""
    return run_pufferfish


_BATCH = """
import json, os, sys, tempfile
from pufferfish.cli.main import main

results = []
for argv in json.load(sys.stdin):
    files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    saved = [os.dup(1), os.dup(2)]
    sys.stdout.flush(); sys.stderr.flush()
    os.dup2(files[0].fileno(), 1); os.dup2(files[1].fileno(), 2)
    try:
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code
        sys.stdout.flush(); sys.stderr.flush()
    finally:
        os.dup2(saved[0], 1); os.dup2(saved[1], 2)
        os.close(saved[0]); os.close(saved[1])
    texts = []
    for f in files:
        f.seek(0)
        texts.append(f.read().decode("utf-8", "replace"))
        f.close()
    results.append([code, *texts])
sys.stdout.write(json.dumps(results))
"""


def run_pufferfish_batch(argvs, *, cpu_seconds: float = 600, memory: int = 2 << 30):
    """Run ``pufferfish ARGV`` for every ``ARGV`` of ``argvs`` in *one* subprocess, one after
    the other, each with file descriptors 1 and 2 redirected to files of its own (so a native
    library's writes are seen, as with :func:`run_pufferfish`): ``[(exit status, stdout,
    stderr)]``.  One interpreter start instead of one per command; ``cpu_seconds`` limits the
    whole batch."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _BATCH], input=json.dumps(
        [[str(a) for a in argv] for argv in argvs]), capture_output=True, text=True,
        timeout=HANG_SECONDS, preexec_fn=cpu_and_memory_limit(cpu_seconds, memory))
    assert done.returncode == 0, done.stderr[-3000:]
    return [tuple(result) for result in json.loads(done.stdout)]


@pytest.fixture(scope="session")
def json_outputs(tmp_path_factory):
    """Every case of :func:`cases_on_examples` run once with ``--json`` in one subprocess
    (:func:`run_pufferfish_batch`): ``[(command, argv, exit status, stdout, stderr)]``.  The
    pure-JSON test and the schema test both read these runs (``test_pure_json.py``,
    ``test_output_schemas.py``; one group of the parallel run, ``tests/conftest.py``)."""
    tmp = tmp_path_factory.mktemp("json_outputs")
    cases = cases_on_examples(tmp)
    runs = run_pufferfish_batch([argv + ["--json"] for _, argv in cases])
    return [(command, argv, *run) for (command, argv), run in zip(cases, runs)]
