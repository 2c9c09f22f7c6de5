"""Faults at the door, through the command line: the law of a program does not depend on the
hash seed, a program cannot write into the ``--json`` output through ``/proc``, a failure of the
engine's own code is exit 4 "internal error in the engine", and numbers too large to convert are
bad input (exit 2), never an internal error."""

from __future__ import annotations

import json

import pytest

from pufferfish.models.programs import noise

HASHED = "def f(data):\n    return hash('abc') % 2\n"

POLLUTER = """import os
from pufferfish.models.programs import coin

def _parent(pid):
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])

def f(data):
    zygote = os.getppid()
    for pid in (zygote, _parent(zygote)):
        for fd in (1, 2):
            try:
                end = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY)
                os.write(end, b"POLLUTED")
                os.close(end)
            except OSError:
                pass
    return data[0] if coin("3/4") else 1 - data[0]
"""

CLAMPED = ("from pufferfish.models.programs import laplace\n"
           "def f(data):\n    return max(0, min(laplace(2) + data[0], 5))\n")

SPREAD = ("from pufferfish.models.programs import exponential_mechanism\n"
          "def f(data):\n    return exponential_mechanism({'a': 15000 * data[0], 'b': 0}, 2)\n")

RR = ("from pufferfish.models.programs import coin\n"
      "def f(data):\n    return data[0] if coin('3/4') else 1 - data[0]\n")


def _model(tmp_path, text: str, name: str = "prog.py") -> str:
    (tmp_path / name).write_text(text)
    model = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
             "neighbours": "linf:1", "priors": {"u": {"uniform": True}}, "secrets": {},
             "entry_pairs": True, "mechanisms": {"m": {"program": {
                 "file": name, "function": "f",
                 "trusted": True}}}}  # behind the language: these programs are outside it
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(model))
    return str(path)


def test_the_law_does_not_depend_on_the_hash_seed(tmp_path, pufferfish_process, monkeypatch):
    """``hash('abc') % 2`` is 1, 0, 1, 1, 0, 1 under the seeds 1 to 6: the command re-executes
    itself with ``PYTHONHASHSEED=0``, so every run reports the same law."""
    model = _model(tmp_path, HASHED)
    outputs = set()
    for seed in range(1, 7):
        monkeypatch.setenv("PYTHONHASHSEED", str(seed))
        code, out, err = pufferfish_process(["audit", model, "--json"])
        assert code == 0, err
        outputs.add(json.dumps(json.loads(out)["mechanisms"], sort_keys=True))
    assert len(outputs) == 1


def test_a_program_cannot_write_into_the_json_through_proc(tmp_path, pufferfish_process):
    code, out, err = pufferfish_process(["audit", _model(tmp_path, POLLUTER), "--json"])
    assert code == 0, err
    assert "POLLUTED" not in out + err
    assert json.loads(out)["mechanisms"][0]["pufferfish"]["epsilon"] == "log(3)"


def test_a_clamped_continuous_value_is_bad_input_with_the_reason(tmp_path, cli):
    code, _, err = cli("audit", _model(tmp_path, CLAMPED))
    assert code == 2, err
    assert "atoms at the ends and a density between" in err and "discrete_laplace" in err


def test_a_failure_of_the_engine_is_an_internal_error_with_the_workers_traceback(
        tmp_path, cli, monkeypatch):
    monkeypatch.setattr(noise, "_has_difference", None)  # inherited by the forked workers
    code, _, err = cli("audit", _model(tmp_path, RR))
    assert code == 4, err
    assert "error: internal error in the engine: program m (prog.py:f) on dataset" in err
    assert "raised" not in err and "Traceback" not in err
    code, _, err = cli("audit", _model(tmp_path, RR), "--debug")
    assert code == 4 and "Traceback" in err and "in output_law" in err


def test_an_upper_end_of_a_thousand_digits_is_bad_input(cli):
    code, _, err = cli("epsilon-range", "dp_benchmarks/laplace_suite.json", "--mechanism",
                       "noisy_histogram", "--low", "1", "--high", "1" + "0" * 1000)
    assert code == 2, err
    assert "upper end is too large: a number of 1,001 digits, more than 1,000" in err


def test_a_delta_of_more_than_4300_digits_is_written_out(tmp_path, cli):
    """Weights of 4,516 digits: δ(ε) is an exact number whose text passed Python's limit of
    4,300 digits for ``str(int)`` (exit 4)."""
    code, out, err = cli("approximate-dp", _model(tmp_path, SPREAD), "--epsilon", "1",
                         "--delta", "1/100")
    assert code == 1, err  # violated: a verdict, not an internal error
    assert "VIOLATED" in out


@pytest.mark.parametrize("option", ["--json"])
def test_the_delta_of_more_than_4300_digits_is_written_to_json(tmp_path, cli, option):
    code, out, err = cli("approximate-dp", _model(tmp_path, SPREAD), "--epsilon", "1", option)
    assert code == 0, err
    assert len(json.loads(out)["results"][0]["delta"]) > 4300
