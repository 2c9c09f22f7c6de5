"""Bad input to the model layer: every case a located ModelError, fast, never a traceback.

Covers the model-file defects of issue 13 (huge numbers, deep nesting, huge exponents, output
spaces sized before they are built, unbounded reads, non-finite floats, the atomic writer) and a
sweep of malformed model files, each refused with the JSON path of the offending value.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from contextlib import contextmanager
from pathlib import Path

import pytest

import pufferfish.models.files.json_io as json_io
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.files.json_io import read_json_file, write_json_atomically
from pufferfish.models.files.pufferfish_file import load_model, parse_model
from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import RandomizedResponse, compose, repeat
from pufferfish.models.numbers import MAX_DIGITS, exact
from pufferfish.models.universe import Universe

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart.json"


def quickstart() -> dict:
    return json.loads(QUICKSTART.read_text())


@contextmanager
def bounded(seconds: float = 2.0, megabytes: float = 64.0):
    """Fail if the block uses more than ``seconds`` of CPU time (which a loaded machine does not
    stretch) or allocates more than ``megabytes``."""
    tracemalloc.start()
    start = time.process_time()
    try:
        yield
    finally:
        elapsed = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < seconds, f"took {elapsed:.2f} s of CPU time"
    assert peak < megabytes * 2**20, f"allocated {peak / 2**20:.0f} MiB"


def refusal(call, *args, error=ModelError, **kwargs) -> ModelError:
    with bounded():
        with pytest.raises(error) as info:
            call(*args, **kwargs)
    return info.value


def with_change(change) -> dict:
    data = quickstart()
    change(data)
    return data


def write(tmp_path: Path, text: str, name: str = "model.json") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --- a: huge integers and denominators ------------------------------------------------------

def test_huge_integer_in_a_model_file_is_refused_with_its_path(tmp_path):
    text = QUICKSTART.read_text().replace('"min": 0', '"min": ' + "1" * 5000)
    error = refusal(load_model, write(tmp_path, text))
    assert error.path == "mechanisms.sum.noise.geometric.min"
    assert "5,000 digits" in str(error) and f"{MAX_DIGITS:,}" in str(error)


def test_huge_denominator_is_refused_with_its_path():
    data = with_change(lambda d: d["mechanisms"]["rr"]["per_entry"]["randomized_response"]
                       .update(keep="1/" + "7" * 5000))
    error = refusal(parse_model, data)
    assert error.path == "mechanisms.rr.per_entry.randomized_response.keep"
    assert "denominator" in str(error)


def test_numbers_up_to_the_digit_limit_are_read_exactly():
    big = "1" + "0" * (MAX_DIGITS - 1)
    assert exact(f"1/{big}") == 1 / exact(big)
    assert exact(f"1e-{MAX_DIGITS}").denominator == 10 ** MAX_DIGITS
    with pytest.raises(ModelError, match="at most 4,000 digits"):
        exact(f"1e-{MAX_DIGITS + 1}")


# --- b: nesting -----------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [101, 10**5])
def test_deep_nesting_is_refused(tmp_path, depth):
    path = write(tmp_path, "[" * depth + "]" * depth)
    error = refusal(read_json_file, path, "model file")
    assert "more than 100 levels deep" in str(error)


def test_nesting_within_the_limit_is_read(tmp_path):
    path = write(tmp_path, "[" * 100 + "]" * 100)
    assert read_json_file(path) is not None


# --- c: exponents ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1e999999999", "1e-999999999", "1e" + "9" * 50, "-2.5E+7777"])
def test_huge_exponents_are_refused_at_once(text):
    error = refusal(exact, text, "--epsilon")
    assert error.path == "--epsilon" and "at most 4,000 digits" in str(error)


def test_huge_exponent_in_a_model_file_is_located():
    data = with_change(lambda d: d["mechanisms"]["sum"]["noise"]["geometric"]
                       .update(alpha="1e-999999999"))
    assert refusal(parse_model, data).path == "mechanisms.sum.noise.geometric.alpha"


# --- d: output spaces sized before they are built -------------------------------------------

def repeated_model(times: int) -> dict:
    return with_change(lambda d: d["mechanisms"].update(
        r={"repeat": {"mechanism": "rr", "times": times}}))


@pytest.mark.parametrize("times, size", [(21, "about 9.2·10^18"), (10**9, "8^1,000,000,000")])
def test_repeat_beyond_the_output_limit_is_refused_before_building(times, size):
    model = parse_model(repeated_model(times))
    datasets = list(model.universe.datasets())
    error = refusal(KernelTable.build, model.mechanisms["r"], datasets, error=TooLargeError)
    assert error.path == "mechanisms.r"
    assert size in str(error) and "1,000,000" in str(error) and "--max-outputs" in str(error)


def test_geometric_range_beyond_the_output_limit_is_refused_before_building():
    model = parse_model(with_change(
        lambda d: d["mechanisms"]["sum"]["noise"]["geometric"].update(max=10**8)))
    datasets = list(model.universe.datasets())
    error = refusal(KernelTable.build, model.mechanisms["sum"], datasets, error=TooLargeError)
    assert "about 1.0·10^8 outputs" in str(error) and error.path == "mechanisms.sum"


def test_composition_is_sized_as_the_product_of_its_parts():
    universe = Universe.product(["x"], [[0, 1, 2]])
    rr = RandomizedResponse("rr", universe, exact("1/2"))
    joint = compose([repeat(rr, 7), rr], "joint")
    assert joint.support_size((0,), 10**6) == 3**8 == len(joint.distribution((0,)))
    with pytest.raises(TooLargeError, match="6,561 outputs"):
        KernelTable.build(joint, [(0,)], max_outputs=6560)
    assert len(KernelTable.build(joint, [(0,)], max_outputs=6561).outputs) == 6561


def test_degenerate_noise_counts_only_outputs_of_positive_probability():
    universe = Universe.product(["x"], [[0, 1]])
    assert RandomizedResponse("keep", universe, exact(1)).support_size((0,), 1) == 1
    model = parse_model(with_change(
        lambda d: d["mechanisms"]["sum"]["noise"]["geometric"].update(alpha=0, max=10**8)))
    sum_ = model.mechanisms["sum"]
    assert sum_.support_size((0, 1, 1), 1) == 1 == len(sum_.distribution((0, 1, 1)))


def test_universe_of_2_to_the_40_datasets_is_refused_at_once():
    universe = Universe.product([f"x{i}" for i in range(40)], [[0, 1]] * 40)
    error = refusal(universe.datasets, error=TooLargeError)
    assert "about 1.1·10^12" in str(error) and "--max-datasets" in str(error)


# --- e: bounded reads -----------------------------------------------------------------------

def test_devices_are_refused_without_reading():
    error = refusal(read_json_file, "/dev/zero", "model file")
    assert "'/dev/zero'" in str(error) and "character device" in str(error)


def test_files_beyond_the_size_cap_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(json_io, "MAX_FILE_BYTES", 1000)
    path = write(tmp_path, json.dumps({"description": "x" * 2000}))
    error = refusal(read_json_file, path, "model file")
    assert "larger than the limit" in str(error) and str(path) in str(error)


def test_the_size_cap_is_64_mib():
    assert json_io.MAX_FILE_BYTES == 64 * 2**20


def test_a_directory_is_refused(tmp_path):
    assert "cannot read" in str(refusal(read_json_file, tmp_path, "model file"))


# --- f: non-finite numbers ------------------------------------------------------------------

@pytest.mark.parametrize("number, hint", [("NaN", '"1/2"'), ("Infinity", '"1/2"'),
                                          ("-Infinity", '"1/2"'), ("1e400", '"1e400"')])
def test_non_finite_numbers_are_refused_with_a_hint(tmp_path, number, hint):
    text = QUICKSTART.read_text().replace('"keep": "3/4"', f'"keep": {number}')
    error = refusal(load_model, write(tmp_path, text))
    assert error.path == "mechanisms.rr.per_entry.randomized_response.keep"
    assert "not exact" in str(error) and hint in str(error)


def test_finite_float_keeps_the_hint(tmp_path):
    text = QUICKSTART.read_text().replace('"keep": "3/4"', '"keep": 0.75')
    error = refusal(load_model, write(tmp_path, text))
    assert '"0.75"' in str(error) and '"3/4"' in str(error)


# --- g: the atomic writer -------------------------------------------------------------------

def test_empty_output_path_names_the_option():
    error = refusal(write_json_atomically, {}, "", option="--output")
    assert error.path == "--output" and "empty" in str(error)


@pytest.mark.parametrize("special", ["/dev/full", "/dev/null"])
def test_device_targets_are_refused_and_left_alone(special):
    error = refusal(write_json_atomically, {}, special, option="--output")
    assert error.path == "--output" and repr(special) in str(error)
    assert Path(special).is_char_device()


def test_fifo_and_directory_targets_are_refused(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "named pipe" in str(refusal(write_json_atomically, {}, fifo))
    assert fifo.is_fifo()
    assert "directory" in str(refusal(write_json_atomically, {}, tmp_path))


def test_symlink_to_a_regular_file_is_written_through(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_json_atomically({"a": 1}, link)
    assert link.is_symlink() and json.loads(target.read_text()) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_errors_name_the_users_path_not_the_temporary_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for path in (tmp_path / "missing" / "out.json", blocker / "out.json"):
        with pytest.raises(OSError) as info:
            write_json_atomically({}, path)
        assert info.value.filename == str(path) and ".tmp" not in str(info.value)


def test_keyboard_interrupt_mid_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "out.json"

    def interrupted(obj, handle, **kwargs):
        handle.write("{")
        raise KeyboardInterrupt

    monkeypatch.setattr(json_io.json, "dump", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_json_atomically({}, target)
    assert list(tmp_path.iterdir()) == []


def test_sigterm_mid_write_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "out.json"
    script = (
        "import json, sys, time\n"
        "import pufferfish.models.files.json_io as io\n"
        "def slow(obj, handle, **kwargs):\n"
        "    handle.write('{'); handle.flush(); print('writing', flush=True); time.sleep(30)\n"
        "io.json.dump = slow\n"
        f"io.write_json_atomically({{}}, {str(target)!r})\n")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "writing"
        process.send_signal(signal.SIGTERM)
        assert process.wait() == 128 + signal.SIGTERM
    finally:
        process.kill()
        process.wait()
    assert list(tmp_path.iterdir()) == []


# --- h: a sweep of malformed model files ----------------------------------------------------

def _set(path: tuple, value):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _delete(path: tuple):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return change


BAD_MODELS = [
    # (name, change, the JSON path named in the error)
    ("empty domain", _set(("domain",), []), "domain"),
    ("empty domain of one attribute", _set(("domain",), {"x1": [], "x2": [0, 1], "x3": [0, 1]}),
     "domain.x1"),
    ("repeated domain value", _set(("domain",), [0, 0]), "domain.1"),
    ("float domain value", _set(("domain",), [0, 0.5]), "domain.1"),
    ("empty datasets list", _set(("datasets",), []), "datasets"),
    ("dataset of the wrong width", _set(("datasets",), [[0, 1]]), "datasets.0"),
    ("dataset value outside the domain", _set(("datasets",), [[0, 1, 7]]), "datasets.0"),
    ("datasets neither all nor a list", _set(("datasets",), "some"), "datasets"),
    ("no attributes", _set(("attributes",), []), "attributes"),
    ("attributes not a list", _set(("attributes",), "x1"), "attributes"),
    ("unknown top-level key", _set(("colour",), "red"), ""),
    ("no priors", _set(("priors",), {}), "priors"),
    ("unknown prior kind", _set(("priors", "fair"), {"gaussian": {}}), "priors.fair"),
    ("prior not an object", _set(("priors", "fair"), [1]), "priors.fair"),
    ("probabilities not summing to 1",
     _set(("priors", "fair", "independent", "x1"), {"0": "1/2", "1": "1/3"}),
     "priors.fair.independent.x1"),
    ("negative probability", _set(("priors", "fair", "independent", "x1"), {"0": "-1", "1": 2}),
     "priors.fair.independent.x1.0"),
    ("unknown value key", _set(("priors", "fair", "independent", "x1"), {"0": "1/2", "7": "1/2"}),
     "priors.fair.independent.x1.7"),
    ("missing marginal", _delete(("priors", "fair", "independent", "x3")),
     "priors.fair.independent"),
    ("unknown attribute in a secret", _set(("secrets", "x1=0"), {"where": {"y": 0}}),
     "secrets.x1=0.where.y"),
    ("unknown secret in a pair", _set(("pairs",), [["x1=0", "nobody"]]), "pairs.0.1"),
    ("pair of one secret twice", _set(("pairs",), [["x1=0", "x1=0"]]), "pairs.0"),
    ("no pairs", _set(("pairs",), []), "pairs"),
    ("pair not a list", _set(("pairs",), ["x1=0"]), "pairs.0"),
    ("unknown mechanism reference",
     _set(("mechanisms", "both"), {"compose": ["rr", "ghost"]}), "mechanisms.both.compose.1"),
    ("mechanism cycle", _set(("mechanisms", "loop"), {"repeat": {"mechanism": "loop", "times": 2}}),
     "mechanisms.loop.repeat.mechanism"),
    ("repeat zero times", _set(("mechanisms", "r"), {"repeat": {"mechanism": "rr", "times": 0}}),
     "mechanisms.r.repeat.times"),
    ("repeat a string number of times",
     _set(("mechanisms", "r"), {"repeat": {"mechanism": "rr", "times": "2"}}),
     "mechanisms.r.repeat.times"),
    ("unknown query", _set(("mechanisms", "sum", "query"), "median"), "mechanisms.sum.query"),
    ("keep above 1", _set(("mechanisms", "rr", "per_entry", "randomized_response", "keep"), "3/2"),
     "mechanisms.rr.per_entry.randomized_response.keep"),
    ("keep as a float", _set(("mechanisms", "rr", "per_entry", "randomized_response", "keep"), 0.75),
     "mechanisms.rr.per_entry.randomized_response.keep"),
    ("keep as a boolean", _set(("mechanisms", "rr", "per_entry", "randomized_response", "keep"), True),
     "mechanisms.rr.per_entry.randomized_response.keep"),
    ("alpha as text", _set(("mechanisms", "sum", "noise", "geometric", "alpha"), "half"),
     "mechanisms.sum.noise.geometric.alpha"),
    ("alpha of 1", _set(("mechanisms", "sum", "noise", "geometric", "alpha"), 1),
     "mechanisms.sum.noise.geometric.alpha"),
    ("min above max", _set(("mechanisms", "sum", "noise", "geometric", "min"), 9),
     "mechanisms.sum.noise.geometric"),
    ("division by zero", _set(("mechanisms", "sum", "noise", "geometric", "alpha"), "1/0"),
     "mechanisms.sum.noise.geometric.alpha"),
    ("table mechanism missing a dataset",
     _set(("mechanisms", "t"), {"table": [[[0, 0, 0], [[0, 1]]]]}), "mechanisms.t.table"),
    ("wrong version", _set(("pufferfish_model",), 2), "pufferfish_model"),
    ("document is a list", lambda d: None, ""),
]


@pytest.mark.parametrize("name, change, path", BAD_MODELS, ids=[case[0] for case in BAD_MODELS])
def test_bad_model_files_are_refused_with_the_json_path(name, change, path):
    data = [] if name == "document is a list" else with_change(change)
    error = refusal(parse_model, copy.deepcopy(data))
    assert error.path == path, str(error)
    if path:
        assert str(error).startswith(f"{path}: ")
    assert "Traceback" not in str(error)


def test_the_sweep_has_at_least_twenty_kinds():
    assert len(BAD_MODELS) >= 20
