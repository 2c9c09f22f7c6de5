"""Bad input across every command and flag (issue 13): each case runs ``pufferfish`` in a
subprocess under a time limit and a 2 GiB address-space limit, and must exit 2 (130/143 for
SIGINT/SIGTERM) with a message on stderr, no traceback, and nothing on stdout — never exit 0 with
nothing done, never hang, never eat the machine's memory."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from pufferfish.examples import example_path

CPU_SECONDS = 30     # CPU time per case, interpreter start and imports included
QUICKSTART = json.loads(example_path("quickstart.json").read_text())
CHAIN = str(example_path("chain_binary_T100.json"))
MULTIUSER = json.loads(example_path("multiuser_bernoulli.json").read_text())
BAYESNET = json.loads(example_path("bayesnet_vstructure.json").read_text())
FIVE_THOUSAND_DIGITS = "1" + "0" * 4999


def model(tmp: Path, data, name: str = "model.json") -> str:
    """Write ``data`` (a JSON value, or raw text) to ``tmp/name``."""
    path = tmp / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def quickstart(**changes) -> dict:
    data = json.loads(json.dumps(QUICKSTART))
    data.update(changes)
    return data


def with_probability(value) -> dict:
    data = quickstart()
    data["priors"]["fair"]["independent"]["x1"]["0"] = value
    return data


def parametric(edit) -> dict:
    data = json.loads(example_path("quickstart_parametric.json").read_text())
    edit(data)
    return data


def constraints(epsilon) -> dict:
    return {"nfc_constraints": 1, "epsilon": epsilon, "constraints": [
        {"name": "dp", "left": [1], "pair": ["s2", "s1"], "beta": [[[0], "1"]]}]}


def no_alternative() -> dict:
    data = json.loads(json.dumps(MULTIUSER))
    del data["users"][3]["alternative"]
    return data


def cyclic_network() -> dict:
    data = json.loads(json.dumps(BAYESNET))
    data["nodes"]["A"]["parents"] = ["D"]
    return data


def fifo(tmp: Path) -> str:
    path = tmp / "fifo"
    os.mkfifo(path)
    return str(path)


def existing_file(tmp: Path) -> str:
    path = tmp / "existing"
    path.write_text("x")
    return str(path)


def audit(tmp: Path, data, *options: str) -> list[str]:
    return ["audit", model(tmp, data), *options]


# name -> argv(tmp): every case must exit 2 with a message and no traceback
CASES = {
    # malformed or unreadable model files
    "malformed JSON": lambda t: audit(t, "{not json"),
    "empty file": lambda t: audit(t, ""),
    "not UTF-8": lambda t: ["audit", _binary(t)],
    "duplicate keys": lambda t: audit(t, '{"pufferfish_model": 1, "pufferfish_model": 1}'),
    "top level is an array": lambda t: audit(t, "[]"),
    "missing file": lambda t: ["audit", str(t / "absent.json")],
    "model file is a folder": lambda t: ["audit", str(t)],
    "/dev/zero as a model file": lambda t: ["audit", "/dev/zero"],
    "wrong version": lambda t: audit(t, quickstart(pufferfish_model=2)),
    "wrong kind: attributes is a number": lambda t: audit(t, quickstart(attributes=3)),
    "float probability": lambda t: audit(t, with_probability(0.5)),
    "NaN probability": lambda t: audit(t, json.dumps(with_probability("@")).replace(
        '"@"', "NaN")),
    "Infinity probability": lambda t: audit(t, json.dumps(with_probability("@")).replace(
        '"@"', "Infinity")),
    "5,000-digit integer": lambda t: audit(t, with_probability(FIVE_THOUSAND_DIGITS)),
    "5,000-digit denominator": lambda t: audit(t, with_probability(f"1/{FIVE_THOUSAND_DIGITS}")),
    "10^5 nested arrays": lambda t: audit(t, "[" * 100_000 + "]" * 100_000),
    "empty domain": lambda t: audit(t, quickstart(domain=[])),
    "no attributes": lambda t: audit(t, quickstart(attributes=[])),
    "unknown secret in a pair": lambda t: audit(t, quickstart(pairs=[["x1=0", "nobody"]])),
    "unknown top-level key": lambda t: audit(t, quickstart(colour=1)),
    "no mechanisms passes no budget": lambda t: audit(t, quickstart(mechanisms={}),
                                                      "--epsilon", "1"),
    "2^40-dataset universe": lambda t: audit(t, quickstart(
        attributes=[f"x{i}" for i in range(1, 41)], priors={"fair": {"uniform": True}},
        secrets={"x1=0": {"where": {"x1": 0}}, "x1=1": {"where": {"x1": 1}}},
        mechanisms={"rr": QUICKSTART["mechanisms"]["rr"]})),
    "repeat 10^9": lambda t: audit(t, quickstart(mechanisms={
        "sum": QUICKSTART["mechanisms"]["sum"],
        "many": {"repeat": {"mechanism": "sum", "times": 10**9}}})),
    "geometric range 0..10^8": lambda t: audit(t, quickstart(mechanisms={
        "sum": {"query": "sum", "noise": {"geometric": {"alpha": "1/2", "min": 0,
                                                        "max": 10**8}}}})),
    # budgets
    "--epsilon abc": lambda t: ["audit", CHAIN, "--epsilon", "abc"],
    "--epsilon -1": lambda t: ["audit", CHAIN, "--epsilon", "-1"],
    "--epsilon 1e999999999": lambda t: ["composes", str(example_path("hidden_coin.json")),
                                        "--epsilon", "1e999999999"],
    "--epsilon log(1/2)": lambda t: ["wasserstein", str(example_path("flu.json")), "--query",
                                     "sum", "--epsilon", "log(1/2)"],
    "constraints epsilon 1e-999999999": lambda t: [
        "postprocess", "--constraints", model(t, constraints("1e-999999999"))],
    "constraints epsilon float": lambda t: ["postprocess", "--constraints",
                                            model(t, constraints(0.1))],
    "constraints epsilon 1e400": lambda t: ["postprocess", "--constraints",
                                            model(t, '{"nfc_constraints": 1, "epsilon": 1e400, '
                                                     '"constraints": []}')],
    "dcp --delta 2": lambda t: ["dcp", str(example_path("dcp_two_secrets.json")), "--delta", "2"],
    "wasserstein --delta abc": lambda t: ["wasserstein", str(example_path("flu.json")),
                                          "--query", "sum", "--epsilon", "1", "--delta", "abc"],
    # flags
    "unknown command": lambda t: ["no-such-command"],
    "unknown option": lambda t: ["audit", CHAIN, "--colour"],
    "--block-datasets 0": lambda t: ["audit", CHAIN, "--block-datasets", "0"],
    "--block-datasets huge": lambda t: ["audit", CHAIN, "--block-datasets", FIVE_THOUSAND_DIGITS],
    "audit --group 0": lambda t: ["audit", CHAIN, "--group", "0"],
    "composes --runs 0": lambda t: ["composes", str(example_path("hidden_coin.json")),
                                    "--epsilon", "0", "--runs", "0"],
    "composes unknown mechanism": lambda t: ["composes", str(example_path("hidden_coin.json")),
                                             "--epsilon", "0", "--mechanisms", "nobody"],
    "composes empty mechanism name": lambda t: ["composes", str(example_path("hidden_coin.json")),
                                                "--epsilon", "0", "--mechanisms", "coin,"],
    "dcp-design --iterations -1": lambda t: ["dcp-design", str(example_path("dcp_xor.json")),
                                             "--target-epsilon", "1", "--target-delta", "0",
                                             "--iterations", "-1"],
    "collapse parity --size 2": lambda t: ["collapse", "parity", "--size", "2"],
    "collapse interval bound abc": lambda t: ["collapse", "interval", "--lt", "abc"],
    "mqm --pi 2 --g 1/2": lambda t: ["mqm", CHAIN, "--epsilon", "1", "--method", "approx",
                                     "--pi", "2", "--g", "1/2"],
    "mqm --pi abc alone": lambda t: ["mqm", CHAIN, "--epsilon", "1", "--method", "approx",
                                     "--pi", "abc"],
    "mqm unknown node": lambda t: ["mqm", CHAIN, "--epsilon", "1", "--nodes", "0"],
    "quilts unknown node": lambda t: ["quilts", str(example_path("bayesnet_vstructure.json")),
                                      "--node", "Z"],
    "cyclic Bayesian network": lambda t: ["quilts", model(t, cyclic_network()), "--node", "A"],
    "multiuser PQ on a target without alternative": lambda t: [
        "multiuser", model(t, no_alternative()), "--pairs", "PQ", "--epsilon", "1"],
    "multiuser log budget": lambda t: ["multiuser", str(example_path("multiuser_bernoulli.json")),
                                       "--pairs", "PQ", "--epsilon", "log(2)"],
    "wasserstein unknown query": lambda t: ["wasserstein", str(example_path("flu.json")),
                                            "--query", "median", "--epsilon", "1"],
    "influence bad secret pair": lambda t: ["influence", str(example_path("influence_chain.json")),
                                            "--secret-pair", "only-one"],
    "translate float curve": lambda t: ["translate", "--epsilon-puffer", "1", "--curve", model(
        t, {"influence_curve": 1, "points": [{"b": 0, "a": 0.5}]})],
    "mqm-figures --lengths a,b": lambda t: ["mqm-figures", "--out", str(t / "f"), "--figure", "4",
                                            "--lengths", "a,b"],
    "experiment --out existing file": lambda t: ["experiment", "topk", "--out", existing_file(t)],
    # parametric models (issue 14)
    "parameter used but not declared": lambda t: ["audit", model(t, parametric(
        lambda d: d["mechanisms"]["rr"]["per_entry"]["randomized_response"].update(keep="r"))),
        "--symbolic"],
    "empty parameter range": lambda t: ["region", model(t, parametric(
        lambda d: d["parameters"].update(p=["1", "1/2"]))), "--epsilon", "1"],
    "entry negative somewhere in the range": lambda t: ["region", model(t, parametric(
        lambda d: d["mechanisms"]["rr"]["per_entry"]["randomized_response"].update(keep="2*p-1/2"))),
        "--epsilon", "1"],
    "row sums to 1 only at some values": lambda t: ["audit", model(t, parametric(
        lambda d: d["priors"]["sticky"]["markov"]["transition"]["0"].update({"1": "q/9"}))),
        "--symbolic"],
    "parametric model without --set": lambda t: ["audit", str(example_path(
        "quickstart_parametric.json"))],
    # output paths
    "--output ''": lambda t: ["collapse", "parity", "--output", ""],
    "--output /dev/full": lambda t: ["collapse", "parity", "--output", "/dev/full"],
    "--output a folder": lambda t: ["collapse", "parity", "--output", str(t)],
    "--output a FIFO": lambda t: ["collapse", "parity", "--output", fifo(t)],
    "--output in a missing folder": lambda t: ["collapse", "parity", "--output",
                                               str(t / "missing" / "out.json")],
    "--out ''": lambda t: ["influence-figures", "--out", ""],
    "--out an existing file": lambda t: ["influence-figures", "--out", existing_file(t)],
}


def _binary(tmp: Path) -> str:
    path = tmp / "binary.json"
    path.write_bytes(b"\xff\xfe\x00{")
    return str(path)


def test_at_least_forty_kinds():
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_exits_2_with_a_message(name, tmp_path, pufferfish_process):
    argv = CASES[name](tmp_path)
    before = set(os.listdir(tmp_path))
    code, out, err = pufferfish_process(argv, cpu_seconds=CPU_SECONDS)
    assert code == 2, f"exit {code}; stderr: {err[-500:]}"
    assert err.strip() and "Traceback" not in err, err[-2000:]
    assert out == ""
    assert not [f for f in set(os.listdir(tmp_path)) - before if f.endswith(".tmp")]


def _cpu_seconds(pid: int) -> float:
    """The user and system CPU time a running process has used (``/proc/PID/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interruption_leaves_no_partial_or_temporary_file(signum, status, tmp_path,
                                                          pufferfish_process):
    """A long run stopped by a signal: no traceback, the documented status, and neither the
    --output file nor a temporary file beside it."""
    target, results = tmp_path / "out" / "result.json", tmp_path / "topk"
    target.parent.mkdir()

    def interrupt(process) -> None:
        # Past the imports, inside the trials: measured in the process's own CPU time, which a
        # loaded machine does not stretch (the trials run in this process without --workers).
        while process.poll() is None and _cpu_seconds(process.pid) < 4:
            time.sleep(0.05)
        process.send_signal(signum)

    code, out, err = pufferfish_process(["experiment", "topk", "--shape", "activities",
                                         "--trials", "1000000", "--out",
                                         results, "--output", target], cpu_seconds=120,
                                        start=interrupt)
    assert code == status, err[-2000:]
    assert "Traceback" not in err and out == ""
    assert os.listdir(target.parent) == []
