"""Hostile input against the command line's contract: exit 0 holds, 1 violated, 2 bad input,
3 undecided, 4 internal error.  A crash, a hang or accepted nonsense must never pass for a
verdict: every case here ends within 10 s with its documented status, a located one-paragraph
message on stderr and no traceback."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

import pufferfish
from pufferfish.cli.main import COMMANDS, main
from pufferfish.examples import example_path

ex = lambda name: str(example_path(name))  # noqa: E731
QUICKSTART = json.loads(example_path("quickstart.json").read_text())


def write(tmp: Path, data, name: str = "model.json") -> str:
    """Write ``data`` (a JSON value, or raw text) to ``tmp/name``; its path."""
    path = tmp / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def run(capsys, argv) -> tuple[int, str, str]:
    """``main(argv)`` in this process: ``(exit status, stdout, stderr)``."""
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_refused(result, status: int = 2, *phrases: str) -> None:
    """Exit ``status``, one located message on stderr naming every phrase, no traceback."""
    code, out, err = result
    assert code == status, f"exit {code}; stderr: {err[-2000:]}"
    assert "Traceback" not in err, err[-2000:]
    assert err.strip().startswith("error:") or status != 2, err
    for phrase in phrases:
        assert phrase in err, (phrase, err)


# --- a crash is never a verdict: exit 4 ----------------------------------------------------

# every command: an invocation on the examples and a library function it calls
CRASH_SITES = {
    "audit": (["audit", ex("quickstart.json")], "pufferfish.verify.privacy.audit.audit_model"),
    "collapse": (["collapse", "parity"],
                 "pufferfish.proofs_check.paper_000.collapse_report.collapse_report"),
    "theorems": (["theorems", "--claim", "002.lemB6"], "pufferfish.proofs_check.runner.run_claims"),
    "demo": (["demo"], "pufferfish.verify.privacy.audit.audit_model"),
    "composes": (["composes", ex("hidden_coin.json"), "--epsilon", "0"],
                 "pufferfish.verify.nfc.report.composition_report"),
    "postprocess": (["postprocess", ex("hidden_coin.json"), "--mechanism", "coin", "--map",
                     "{map}"], "pufferfish.verify.nfc.postprocessing.postprocess_audit"),
    "influence": (["influence", ex("influence_chain.json"), "--max-b", "2"],
                  "pufferfish.verify.influence.chains.chain_influence_curve"),
    "translate": (["translate", "--curve", "{curve}", "--epsilon-puffer", "2"],
                  "pufferfish.verify.influence.translation.epsilon_dp_for"),
    "influence-figures": (["influence-figures", "--out", "{tmp}/figures"],
                          "pufferfish.proofs_check.paper_000.figures.figure_2a"),
    "quilts": (["quilts", ex("bayesnet_vstructure.json"), "--node", "A"],
               "pufferfish.verify.quilts.node_quilts.score_quilts"),
    "mqm": (["mqm", ex("chain_binary_T100.json"), "--epsilon", "1"],
            "pufferfish.verify.quilts.scores.as_budget"),
    "mqm-figures": (["mqm-figures", "--out", "{tmp}/mqm", "--figure", "4"],
                    "pufferfish.proofs_check.paper_002.figures.make_figure4"),
    "mqm-price": (["mqm-price", "--lengths", "6", "--epsilons", "1", "--lows", "1/4"],
                  "pufferfish.verify.structured.mqm_price.mqm_price"),
    "least-noise": (["least-noise", ex("quickstart.json"), "--epsilon", "1"],
                    "pufferfish.verify.structured.least_noise.least_noise"),
    "wasserstein": (["wasserstein", ex("flu.json"), "--query", "sum", "--epsilon", "1"],
                    "pufferfish.verify.transport.report.wasserstein_report"),
    "multiuser": (["multiuser", ex("multiuser_bernoulli.json"), "--pairs", "PQ", "--epsilon",
                   "1"], "pufferfish.verify.multiuser.report.multiuser_report"),
    "dcp": (["dcp", ex("dcp_two_secrets.json"), "--epsilon", "1"],
            "pufferfish.verify.dcp.report.dcp_report"),
    "dcp-design": (["dcp-design", ex("dcp_two_secrets.json"), "--target-epsilon", "1",
                    "--target-delta", "0"], "pufferfish.verify.dcp.report.dcp_design_report"),
    "design": (["design", ex("quickstart.json"), "--query", "sum", "--epsilon", "1"],
               "pufferfish.verify.design.report.design_mechanism"),
    "experiment": (["experiment", "topk", "--shape", "activities", "--out", "{tmp}/topk"],
                   "pufferfish.proofs_check.paper_000.topk.experiment.build_setup"),
    "region": (["region", ex("quickstart_parametric.json"), "--epsilon", "1", "--mechanism", "rr",
                "--set", "q=9/10"], "pufferfish.verify.symbolic.region.budget_region"),
    "check-certificate": (["check-certificate", "{certificate}"],
                          "pufferfish_check.check_certificate"),
    "approximate-dp": (["approximate-dp", ex("quickstart.json"), "--epsilon", "1"],
                       "pufferfish.verify.privacy.approximate.approximate_dp"),
    "epsilon-range": (["epsilon-range", ex("dp_benchmarks/laplace_suite.json"), "--mechanism",
                       "noisy_histogram", "--low", "1", "--high", "2"],
                      "pufferfish.verify.privacy.epsilon_range.dp_for_every_epsilon"),
}


def _files(tmp: Path) -> dict[str, str]:
    """The input files the crash-site invocations name."""
    return {"tmp": str(tmp),
            "map": write(tmp, {"map": [["a", [["x", "1"]]], ["b", [["x", "1"]]]]}, "map.json"),
            "curve": write(tmp, {"influence_curve": 1, "entries": 2, "points": [
                {"b": 0, "a": "inf"}, {"b": 1, "a": "log(2)"}, {"b": 2, "a": "0"}]},
                "curve.json"),
            "certificate": write(tmp, pufferfish.certificate(ex("hidden_coin.json")),
                                 "certificate.json")}


def test_every_command_has_a_crash_site():
    assert set(CRASH_SITES) == set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("exception", [TypeError("unsupported operand"), MemoryError()])
def test_a_crash_exits_4_with_one_line_and_no_traceback(command, exception, tmp_path, capsys,
                                                        monkeypatch):
    argv, target = CRASH_SITES[command]
    files = _files(tmp_path)
    argv = [word.format(**files) for word in argv]
    module, name = target.rsplit(".", 1)

    def crash(*args, **kwargs):
        raise exception

    monkeypatch.setattr(f"{module}.{name}", crash)
    code, out, err = run(capsys, argv + ["--output", tmp_path / "result.json"])
    assert code == 4, f"exit {code}; stderr: {err[-2000:]}"
    assert "Traceback" not in err and out == ""
    assert not (tmp_path / "result.json").exists()
    last = err.strip().splitlines()[-1]
    if isinstance(exception, MemoryError):
        assert last.startswith("error: the run ran out of memory") and "--max-" in last
    else:
        assert last == ("error: internal error (TypeError: unsupported operand); rerun with "
                        "--debug for the traceback")


def test_debug_shows_the_traceback_of_a_crash(capsys, monkeypatch):
    def crash(*args, **kwargs):
        raise KeyError("x")

    monkeypatch.setattr("pufferfish.verify.privacy.audit.audit_model", crash)
    code, _, err = run(capsys, ["audit", ex("quickstart.json"), "--debug"])
    assert code == 4 and "Traceback" in err and "internal error (KeyError: 'x')" in err


# --- integer fields refuse floats and booleans ----------------------------------------------

def quickstart(edit) -> dict:
    """The quickstart model after ``edit(data)``."""
    data = json.loads(json.dumps(QUICKSTART))
    edit(data)
    return data


def _geometric(field: str, value):
    return lambda d: d["mechanisms"]["sum"]["noise"]["geometric"].__setitem__(field, value)


def _repeat(times):
    return lambda d: d["mechanisms"].__setitem__("many", {"repeat": {"mechanism": "sum",
                                                                     "times": times}})


def _count(value):
    return lambda d: d["mechanisms"].__setitem__("ones", {"query": {"count": {"value": value}}})


FLOAT_INTEGERS = {
    "noise min 0.0": (_geometric("min", 0.0), "mechanisms.sum.noise.geometric.min"),
    "noise max 3.0": (_geometric("max", 3.0), "mechanisms.sum.noise.geometric.max"),
    "noise max 3e0": (_geometric("max", "@3e0@"), "mechanisms.sum.noise.geometric.max"),
    "noise min true": (_geometric("min", True), "mechanisms.sum.noise.geometric.min"),
    "repeat times 2.0": (_repeat(2.0), "mechanisms.many.repeat.times"),
    "repeat times true": (_repeat(True), "mechanisms.many.repeat.times"),
    "count value 1.0": (_count(1.0), "mechanisms.ones.query.count.value"),
    "domain value 1.0": (lambda d: d.__setitem__("domain", [0, 1.0]), "domain.1"),
    "secret value 0.0": (lambda d: d["secrets"]["x1=0"]["where"].__setitem__("x1", 0.0),
                         "secrets.x1=0.where.x1"),
}


@pytest.mark.parametrize("case", sorted(FLOAT_INTEGERS))
def test_integer_fields_of_a_model_file_refuse_floats(case, tmp_path, capsys):
    edit, path = FLOAT_INTEGERS[case]
    text = json.dumps(quickstart(edit)).replace('"@3e0@"', "3e0")
    result = run(capsys, ["audit", write(tmp_path, text), "--json"])
    assert_refused(result, 2, path)
    assert "integer" in result[2] and result[1] == ""


def test_a_bayesnet_domain_refuses_floats(tmp_path, capsys):
    data = json.loads(example_path("bayesnet_vstructure.json").read_text())
    data["domain"] = [0.0, 1]
    result = run(capsys, ["quilts", write(tmp_path, data), "--node", "A"])
    assert_refused(result, 2, "domain.0", "integer")


@pytest.mark.parametrize("left, phrase", [([[1]], "constraints.0.left.0"),
                                          ([1.0], "constraints.0.left.0"),
                                          ([True], "constraints.0.left.0")])
def test_datasets_of_a_constraints_file_hold_integers_or_strings(left, phrase, tmp_path, capsys):
    data = {"nfc_constraints": 1, "epsilon": "1/2", "constraints": [
        {"name": "dp", "left": left, "pair": ["s2", "s1"], "beta": [[[0], "1"]]}]}
    result = run(capsys, ["postprocess", "--constraints", write(tmp_path, data)])
    assert_refused(result, 2, phrase, "integer or a string")


# --- names that are not text: lone UTF-16 surrogates ---------------------------------------

LONE = "\udfff"


def _rename_key(mapping: dict, old: str, new: str) -> None:
    mapping[new] = mapping.pop(old)


def _rename_secret(data: dict) -> None:
    _rename_key(data["secrets"], "x1=0", LONE)
    data["pairs"] = [[LONE, "x1=1"]]


def _rename_user(data: dict) -> None:
    data["users"][0]["name"] = "u" + LONE


SURROGATE_NAMES = {
    "secret": ("quickstart.json", ["audit"], _rename_secret, "secrets"),
    "prior": ("quickstart.json", ["audit"],
              lambda d: _rename_key(d["priors"], "fair", LONE), "priors"),
    "mechanism": ("quickstart.json", ["audit"],
                  lambda d: _rename_key(d["mechanisms"], "rr", LONE), "mechanisms"),
    "attribute": ("quickstart.json", ["audit"],
                  lambda d: d["attributes"].__setitem__(2, "x" + LONE), "attributes.2"),
    "description": ("quickstart.json", ["audit"],
                    lambda d: d.__setitem__("description", LONE), "description"),
    "user": ("multiuser_bernoulli.json", ["multiuser", "--pairs", "PQ", "--epsilon", "1"],
             _rename_user, "users.0.name"),
    "DCP secret": ("dcp_two_secrets.json", ["dcp", "--epsilon", "1"],
                   lambda d: _rename_key(d["joint"], "low", LONE), "joint"),
    "network node": ("bayesnet_vstructure.json", ["quilts", "--node", "A"],
                     lambda d: _rename_key(d["nodes"], "E", LONE), "nodes"),
}


@pytest.mark.parametrize("case", sorted(SURROGATE_NAMES))
@pytest.mark.parametrize("output", ["--json", "--output"])
def test_a_lone_surrogate_is_refused_when_read(case, output, tmp_path, capsys):
    example, command, edit, path = SURROGATE_NAMES[case]
    data = json.loads(example_path(example).read_text())
    edit(data)
    model = write(tmp_path, json.dumps(data))  # ensure_ascii: the file holds the \\udfff escape
    options = ["--json"] if output == "--json" else ["--output", tmp_path / "result.json"]
    result = run(capsys, [command[0], model, *command[1:], *options])
    assert_refused(result, 2, f"{path}: the ", "\\udfff", "surrogate")
    assert result[1] == "" and not (tmp_path / "result.json").exists()


# --- input files are regular files, checked before they are opened --------------------------

def _fifo(tmp: Path) -> str:
    """A named pipe nobody writes to: opening it for reading would block forever."""
    path = tmp / "fifo.json"
    os.mkfifo(path)
    return str(path)


FIFO_INPUTS = {
    "audit MODEL": ["audit", "{fifo}"],
    "composes MODEL": ["composes", "{fifo}", "--epsilon", "1"],
    "postprocess MODEL": ["postprocess", "{fifo}", "--mechanism", "coin", "--map", "{map}"],
    "postprocess --map": ["postprocess", ex("hidden_coin.json"), "--mechanism", "coin", "--map",
                          "{fifo}"],
    "postprocess --constraints": ["postprocess", "--constraints", "{fifo}"],
    "influence MODEL": ["influence", "{fifo}"],
    "translate --curve": ["translate", "--curve", "{fifo}", "--epsilon-puffer", "1"],
    "quilts MODEL": ["quilts", "{fifo}", "--node", "A"],
    "mqm MODEL": ["mqm", "{fifo}", "--epsilon", "1"],
    "wasserstein MODEL": ["wasserstein", "{fifo}", "--query", "sum", "--epsilon", "1"],
    "multiuser MODEL": ["multiuser", "{fifo}", "--pairs", "PQ", "--epsilon", "1"],
    "dcp MODEL": ["dcp", "{fifo}", "--epsilon", "1"],
    "dcp-design MODEL": ["dcp-design", "{fifo}", "--target-epsilon", "1", "--target-delta", "0"],
    "design MODEL": ["design", "{fifo}", "--query", "sum", "--epsilon", "1"],
    "design --loss-table": ["design", ex("quickstart.json"), "--query", "sum", "--epsilon", "1",
                            "--loss-table", "{fifo}"],
    "region MODEL": ["region", "{fifo}", "--epsilon", "1"],
    "region --map": ["region", ex("quickstart_parametric.json"), "--epsilon", "1", "--mechanism",
                     "sum", "--map", "{fifo}"],
    "experiment --foursquare CHECKINS": ["experiment", "topk", "--out", "{tmp}/topk",
                                         "--foursquare", "{fifo}", "{map}"],
    "experiment --foursquare POIS": ["experiment", "topk", "--out", "{tmp}/topk",
                                     "--foursquare", "{map}", "{fifo}"],
    "experiment --foursquare /dev/zero": ["experiment", "topk", "--out", "{tmp}/topk",
                                          "--foursquare", "/dev/zero", "/dev/urandom"],
    "experiment --capture24 a file": ["experiment", "topk", "--out", "{tmp}/topk",
                                      "--capture24", "{map}"],
}


@pytest.mark.parametrize("case", sorted(FIFO_INPUTS))
def test_a_named_pipe_or_a_device_as_an_input_file_is_refused_at_once(case, tmp_path,
                                                                        pufferfish_process):
    files = {"fifo": _fifo(tmp_path), **_files(tmp_path)}
    argv = [word.format(**files) for word in FIFO_INPUTS[case]]
    result = pufferfish_process(argv, cpu_seconds=10)
    kind = ("character device" if "/dev/zero" in case else "not a folder" if "capture24" in case
            else "named pipe")
    assert_refused(result, 2, kind)
    assert result[1] == ""


def _within(seconds: float, function, *args):
    """``function(*args)`` run in a daemon thread: its exception, or a failure when it does not
    end within ``seconds`` (a read blocked on a pipe cannot be interrupted, only abandoned)."""
    outcome: list = []

    def call() -> None:
        try:
            outcome.append(function(*args))
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome.append(error)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"{function.__name__} still blocked after {seconds} s"
    return outcome[0]


def test_the_readers_refuse_a_named_pipe_without_opening_it(tmp_path):
    from pufferfish.models.errors import ModelError
    from pufferfish.models.files.json_io import read_json_file
    from pufferfish.proofs_check.paper_000.topk.real_data import load_capture24, load_foursquare

    fifo = _fifo(tmp_path)
    regular = write(tmp_path, "", "pois.tsv")
    folder = tmp_path / "capture24"
    folder.mkdir()
    os.mkfifo(folder / "annotation-label-dictionary.csv")
    for function, args in ((read_json_file, (fifo,)), (load_foursquare, (regular, fifo)),
                           (load_foursquare, (fifo, regular)), (load_capture24, (folder,))):
        error = _within(5, function, *args)
        assert isinstance(error, ModelError) and "named pipe" in str(error), (function, error)


# --- scheduler addresses: malformed or unreachable is exit 2, never ignored -----------------

CLOSED_PORT = "tcp://127.0.0.1:1"
TASK_COMMANDS = {
    "audit": ["audit", ex("quickstart.json")],
    "experiment": ["experiment", "topk", "--shape", "activities", "--out", "{tmp}/topk"],
    "influence": ["influence", ex("influence_chain.json"), "--max-b", "2"],
    "influence-figures": ["influence-figures", "--out", "{tmp}/figures"],
    "mqm": ["mqm", ex("chain_binary_T100.json"), "--epsilon", "1"],
    "mqm-figures": ["mqm-figures", "--out", "{tmp}/mqm", "--figure", "1+3"],
    "quilts": ["quilts", ex("bayesnet_vstructure.json"), "--node", "A"],
    "theorems": ["theorems", "--claim", "002.lemB6"],
    "design": ["design", ex("quickstart.json"), "--query", "sum", "--epsilon", "1", "--compare",
               "--out", "{tmp}/design"],
}


@pytest.fixture
def short_connect_timeout(monkeypatch):
    """A scheduler that does not answer is given up after 2 s, not 10."""
    monkeypatch.setattr("pufferfish.verify.execution.CONNECT_TIMEOUT", 2.0)
    monkeypatch.delenv("PUFFERFISH_SCHEDULER", raising=False)


@pytest.mark.parametrize("command", sorted(TASK_COMMANDS))
@pytest.mark.parametrize("address, phrase", [
    ("not an address", "'not an address' is not a Dask scheduler address"),
    ("tcp://127.0.0.1:99999", "port in 1..65535"),
    ("gopher://127.0.0.1:8786", "unknown protocol 'gopher'"),
    (CLOSED_PORT, f"cannot reach the Dask scheduler at '{CLOSED_PORT}'")])
def test_a_bad_scheduler_is_refused_before_any_work(command, address, phrase, tmp_path, capsys,
                                                     short_connect_timeout):
    argv = [word.format(tmp=tmp_path) for word in TASK_COMMANDS[command]]
    result = run(capsys, argv + ["--scheduler", address])
    assert_refused(result, 2, "--scheduler", phrase)
    assert result[1] == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("address, phrase", [("not an address", "is not a Dask scheduler"),
                                             (CLOSED_PORT, "cannot reach")])
def test_a_bad_scheduler_in_the_environment_is_refused(address, phrase, capsys, monkeypatch,
                                                        short_connect_timeout):
    monkeypatch.setenv("PUFFERFISH_SCHEDULER", address)
    assert_refused(run(capsys, ["audit", ex("quickstart.json")]), 2, phrase)


@pytest.mark.parametrize("argv", [
    ["theorems", "--list"], ["theorems", "--coverage", "--paper", "004_acc5641f8e5f8c79.txt"],
    ["mqm", ex("chain_binary_T100.json"), "--epsilon", "1", "--method", "fast"],
    ["mqm-figures", "--out", "{tmp}/mqm", "--figure", "4"]])
@pytest.mark.parametrize("option", [["--workers", "2"], ["--scheduler", CLOSED_PORT]])
def test_execution_options_that_would_be_ignored_are_refused(argv, option, tmp_path, capsys,
                                                             short_connect_timeout):
    argv = [word.format(tmp=tmp_path) for word in argv]
    expected = "cannot reach" if "--scheduler" in option else "--scheduler / --workers run"
    assert_refused(run(capsys, argv + option), 2, expected)


# --- sizes checked before anything is built -------------------------------------------------

def _deterministic_repeat(times: int, nested: int | None = None):
    def edit(data: dict) -> None:
        mechanisms = {"id": {"query": "sum"},
                      "many": {"repeat": {"mechanism": "id", "times": times}}}
        if nested:
            mechanisms["twice"] = {"repeat": {"mechanism": "many", "times": nested}}
            mechanisms["joint"] = {"compose": ["twice", "id"]}
        data["mechanisms"] = mechanisms
    return edit


@pytest.mark.parametrize("edit, where, entries", [
    (_deterministic_repeat(10**9), "mechanisms.many", "about 1.0·10^9 entries"),
    (_deterministic_repeat(1000, nested=2000), "mechanisms.twice", "2,000,000 entries")])
def test_a_repeated_deterministic_mechanism_is_sized_by_its_tuple(edit, where, entries, tmp_path,
                                                                  pufferfish_process):
    """One output, but a tuple of 10^9 entries: refused with its size, not built (3.5 GB)."""
    result = pufferfish_process(["audit", write(tmp_path, quickstart(edit))], cpu_seconds=10)
    assert_refused(result, 2, f"{where}: ", entries, "limit of 1,000,000", "--max-outputs")


def test_a_tuple_within_the_limit_is_built(tmp_path, capsys):
    result = run(capsys, ["audit", write(tmp_path, quickstart(_deterministic_repeat(1000))),
                          "--json"])
    assert result[0] == 0, result[2]


def _wide(values: int, attributes: int = 2, **changes) -> dict:
    """A product model of ``attributes`` attributes of ``values`` values each, a sum query."""
    data = {"pufferfish_model": 1, "attributes": [f"x{i}" for i in range(1, attributes + 1)],
            "domain": list(range(values)), "datasets": "all", "priors": {"u": {"uniform": True}},
            "secrets": {"x1=0": {"where": {"x1": 0}}, "x1=1": {"where": {"x1": 1}}},
            "pairs": [["x1=0", "x1=1"]], "mechanisms": {"sum": {"query": "sum"}}}
    data.update(changes)
    return data


def test_an_audit_beyond_the_memory_limit_is_refused_with_its_figures(tmp_path, capsys,
                                                                      monkeypatch):
    """4·10^6 datasets of two 2,000-value attributes, enumerated: the plan states what it needs
    and refuses it against the limit set on the process, before any block runs (the structured
    path, which ``auto`` takes for this product prior, lists no dataset)."""
    monkeypatch.setattr("pufferfish.verify.privacy.audit_plan.process_memory_limit",
                        lambda: 300 * 2**20)
    result = run(capsys, ["audit", write(tmp_path, _wide(2000)), "--method", "enumeration"])
    assert_refused(result, 2, "4,000,000 datasets needs about", "MB of memory",
                   "the limit set on this process", "300 MB")


def test_a_memory_error_in_the_dp_pass_is_a_clear_refusal(tmp_path, capsys, monkeypatch):
    from pufferfish.verify.privacy import dp_blocks

    def exhausted(*args):
        raise MemoryError()

    monkeypatch.setattr(dp_blocks, "block_keys_and_pairs", exhausted)
    result = run(capsys, ["audit", write(tmp_path, _wide(3)), "--json"])
    assert_refused(result, 2, "datasets: per-entry DP over 9 datasets ran out of memory",
                   "neighbour pairs", "this process may use")


def test_an_attribute_of_10_000_values_is_refused_under_an_address_space_limit(
        tmp_path, pufferfish_process):
    """One task compares every pair of values of the attribute (10^8 pairs, several GB): the
    plan counts it and refuses it against ``prlimit --as`` (2 GiB here), not only the machine."""
    model = write(tmp_path, _wide(10_000, attributes=1))
    result = pufferfish_process(["audit", model], cpu_seconds=10, memory=2 << 30)
    assert_refused(result, 2, "10,000 datasets needs about", "GB of memory",
                   "limit set on this process", "neighbour pairs")


def test_entry_pairs_of_a_wide_attribute_are_sized_before_they_are_built(tmp_path,
                                                                          pufferfish_process):
    model = write(tmp_path, _wide(50_000, attributes=1, pairs=[], entry_pairs=True))
    result = pufferfish_process(["audit", model], cpu_seconds=10)
    assert_refused(result, 2, "entry_pairs: ", "about 1.2·10^9 secret pairs", "50,000 values",
                   "limit of 1,000,000")


def test_a_quilt_search_over_1000_nodes_is_sized_before_it_starts(tmp_path, pufferfish_process):
    """2^1000 datasets: an independent prior beside a chain makes a network of 1,000 nodes,
    whose quilt search would take 6·10^8 steps (200,000 candidates of up to 2 nodes per node)."""
    chain = {"markov": {"initial": {"0": "1/2", "1": "1/2"},
                        "transition": {"0": {"0": "9/10", "1": "1/10"},
                                       "1": {"0": "1/10", "1": "9/10"}}}}
    fair = {"independent": {f"x{i}": {"0": "1/2", "1": "1/2"} for i in range(1, 1001)}}
    model = write(tmp_path, _wide(2, attributes=1000, priors={"chain": chain, "fair": fair}))
    result = pufferfish_process(["mqm", model, "--epsilon", "1"], cpu_seconds=10)
    assert_refused(result, 2, "--max-quilts: ", "200,000 candidate quilts", "1,000 nodes",
                   "up to 2 nodes", "about 6.0·10^8 steps", "limit of about 1.0·10^8")


def _multiuser(distribution: dict, target: dict | None = None) -> dict:
    others = [{"name": f"u{k}", "presence": "1", "distribution": distribution} for k in range(4)]
    target = target or {"distribution": {"0": "4/5", "1": "1/5"},
                        "alternative": {"0": "1/10", "1": "9/10"}}
    return {"multiuser_model": 1, "targets": ["t"],
            "users": others + [{"name": "t", "presence": "1/2", **target}]}


@pytest.mark.parametrize("data, pairs, phrases", [
    (_multiuser({str(k): "1/2000" for k in range(2000)},
                {"distribution": {str(k): "1/2000" for k in range(2000)}}),
     "ab", ["1,999,000 pairs for user 't'", "limit of 2,000"]),
    (_multiuser({f"1/{k}": "1/50" for k in range(1, 51)}), "PQ",
     ["1 pair for user 't'", "about 1.8·10^22 points", "limit of 2,000"])])
def test_a_multiuser_calibration_is_sized_before_it_starts(data, pairs, phrases, tmp_path,
                                                           pufferfish_process):
    """Many values per user: n·(n − 1)/2 value pairs, or values whose common denominator puts
    the aggregate on a lattice of 10^22 points."""
    result = pufferfish_process(["multiuser", write(tmp_path, data), "--pairs", pairs,
                                 "--epsilon", "1"], cpu_seconds=10)
    assert_refused(result, 2, "--pairs: calibrating", *phrases)


@pytest.mark.parametrize("options, phrases", [
    (["--length", "1000000000000"], ["--length: a chain of T = 1,000,000,000,000 steps",
                                     "limit of 1,000,000"]),
    (["--lengths", "100,999999", "--repetitions", "100000"],
     ["--repetitions: Figure 4 samples 100,000 × 999,999 chain states", "GB"])])
def test_figure_4_is_sized_before_it_samples(options, phrases, tmp_path, capsys):
    """numpy would ask for 3.6 TiB for T = 10^12: refused before any folder or figure."""
    result = run(capsys, ["mqm-figures", "--out", tmp_path / "out", "--figure", "4", *options])
    assert_refused(result, 2, *phrases)
    assert not (tmp_path / "out").exists()


# --- accepted nonsense ----------------------------------------------------------------------

EMPTY_BUDGETS = {
    "quilts --epsilon": ["quilts", ex("bayesnet_vstructure.json"), "--node", "A", "--epsilon"],
    "design --epsilon-dp": ["design", ex("quickstart.json"), "--query", "sum", "--epsilon", "1",
                            "--composable", "dp-style", "--epsilon-dp"],
    "audit --epsilon": ["audit", ex("quickstart.json"), "--epsilon"],
    "dcp --epsilon": ["dcp", ex("dcp_two_secrets.json"), "--epsilon"],
    "translate --epsilon-dp": ["translate", "--curve", "{curve}", "--epsilon-dp"],
    "mqm-figures --epsilons": ["mqm-figures", "--out", "{tmp}/mqm", "--figure", "4",
                               "--epsilons"],
}


@pytest.mark.parametrize("case", sorted(EMPTY_BUDGETS))
@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_budget_is_refused(case, empty, tmp_path, capsys):
    argv = [word.format(**_files(tmp_path)) for word in EMPTY_BUDGETS[case]]
    option = case.split()[-1]
    result = run(capsys, argv + [empty])
    assert_refused(result, 2, f"argument {option}: expected a budget, got an empty string")


@pytest.mark.parametrize("target, phrase", [("/proc/x", "proc file system"),
                                            ("/sys/x", "sysfs file system"),
                                            ("/proc/self/x", "proc file system")])
def test_output_on_a_special_file_system_is_refused_before_the_work(target, phrase,
                                                                    pufferfish_process):
    """``demo`` runs for minutes: a target it cannot write is refused before it starts."""
    result = pufferfish_process(["demo", "--output", target], cpu_seconds=10)
    assert_refused(result, 2, "argument --output", phrase)


def test_output_into_a_folder_where_nothing_can_be_created_is_refused(tmp_path, capsys,
                                                                     monkeypatch):
    """The permission bits do not tell for the superuser: a file is tried."""
    monkeypatch.setattr("pufferfish.cli.common._can_create_in", lambda folder: False)
    result = run(capsys, ["demo", "--output", tmp_path / "x.json"])
    assert_refused(result, 2, "argument --output", "is not writable")


def test_out_on_a_special_file_system_is_refused(capsys):
    assert_refused(run(capsys, ["influence-figures", "--out", "/proc/x/figures"]), 2,
                   "argument --out", "proc file system")


def test_a_curve_point_beyond_the_entries_is_refused(tmp_path, capsys):
    curve = {"influence_curve": 1, "entries": 2, "points": [{"b": 0, "a": "inf"},
                                                            {"b": 1000000, "a": "0"}]}
    result = run(capsys, ["translate", "--curve", write(tmp_path, curve), "--epsilon-puffer",
                          "1"])
    assert_refused(result, 2, "points.1.b: b = 1,000,000 is more than the 2 entries")


# --- interruptions of a local cluster: quiet, whenever they come ----------------------------

def test_a_ctrl_c_while_the_local_cluster_starts_closes_it_and_exits_130(tmp_path, capsys,
                                                                        monkeypatch):
    """The interruption is held until the cluster has started, then the cluster is closed (a
    half-started one made Dask fail at exit with an AssertionError traceback) and the run ends
    as interrupted, without an output file."""
    import signal

    import dask.distributed
    from distributed.core import Status
    from distributed.deploy.spec import SpecCluster

    started = []
    real = dask.distributed.LocalCluster

    def interrupted_start(*args, **kwargs):
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while the cluster starts
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(dask.distributed, "LocalCluster", interrupted_start)
    code, out, err = run(capsys, ["audit", ex("quickstart.json"), "--workers", "1",
                                  "--output", tmp_path / "result.json"])
    assert code == 130 and err.strip().splitlines()[-1] == "interrupted", err
    assert "Traceback" not in err and out == "" and not (tmp_path / "result.json").exists()
    assert started and all(c.status == Status.closed for c in started)
    assert not [c for c in SpecCluster._instances if c.status != Status.closed]


def test_the_workers_of_a_local_cluster_leave_ctrl_c_to_the_command_line():
    """A Ctrl-C at the terminal reaches the workers too: they ignore it (the command line shuts
    them down), so none dies with a KeyboardInterrupt traceback."""
    import signal

    from pufferfish.verify.execution import DaskEngine

    def sigint_handler():
        return signal.getsignal(signal.SIGINT) is signal.SIG_IGN

    engine = DaskEngine(workers=1)
    try:
        assert list(engine.client.run(sigint_handler).values()) == [True]
    finally:
        engine.close()


@pytest.mark.parametrize("main, ignored", [
    ("runpy.run_module('pufferfish.cli.main', run_name='__mp_main__')", True),  # python -m
    ("runpy.run_path(SCRIPT, run_name='__mp_main__')", True),  # the pufferfish script
    ("import pufferfish.cli.main", False)])
def test_a_process_spawned_from_the_command_line_ignores_sigint_from_its_first_line(
        main, ignored, tmp_path):
    """``multiprocessing`` runs the main module again as ``__mp_main__`` in each worker it
    spawns, before the worker imports anything else."""
    import subprocess
    import sys

    script = tmp_path / "pufferfish"
    script.write_text("import sys\nfrom pufferfish.cli.main import main\n"
                      "if __name__ == '__main__':\n    sys.exit(main())\n")
    code = (f"import runpy, signal; SCRIPT = {str(script)!r}; {main}; "
            f"print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == str(ignored), result.stderr
