"""Programs behind the fault boundary: determinism enforced, exits and interrupts located, output
captured, limits applied from import on, outputs checked at the door, paths counted, the memo
never evicted mid-computation, the engine's self-check an internal error.

Limits are deterministic (steps, paths, decisions, CPU seconds set small), never wall-clock."""

from __future__ import annotations

import pickle
from fractions import Fraction

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.models.programs import (EngineError, Limits, ProgramError, ProgramMechanism, coin,
                                        geometric, load_program, program_distribution)
from pufferfish.models.programs import constraints, enumerate

FAST = Limits(cpu_seconds=1, grace_seconds=1)


def _isolated(program, dataset=(0,), limits=FAST, **options):
    """The law behind the boundary, the program language's check skipped (``trusted``): these
    tests are of the run-time checks, which the language would refuse to reach."""
    return ProgramMechanism("p", program, limits=limits, trusted=True,
                            **options).distribution(dataset)


def _file(tmp_path, text, name="prog.py"):
    (tmp_path / name).write_text(text)
    return name


# --- determinism -------------------------------------------------------------------------------

HIDDEN = {
    "random.random": "import random\ndef f(data):\n    return random.random() < 0.5\n",
    "random.Random.seed": "import random\ndef f(data):\n    return random.Random(3).random() < 0.5\n",
    "secrets.randbelow": "import secrets\ndef f(data):\n    return secrets.randbelow(2)\n",
    "os.urandom": "import os\ndef f(data):\n    return os.urandom(1)[0] % 2\n",
    "uuid.uuid4": "import uuid\ndef f(data):\n    return str(uuid.uuid4())[:1]\n",
    "time.time": "import time\ndef f(data):\n    return int(time.time()) % 2\n",
    "time.perf_counter": "import time\ndef f(data):\n    return int(time.perf_counter()) % 2\n",
    "datetime.datetime.now": "import datetime\ndef f(data):\n"
                             "    return datetime.datetime.now().second % 2\n",
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_hidden_randomness_and_clocks_fail_loudly_with_the_line(tmp_path, name):
    file = _file(tmp_path, HIDDEN[name])
    module = name.split(".")[0]
    with pytest.raises(ModelError, match=rf"prog.py, line 1: import {module} is not allowed in a "
                                         rf"program: module {module} is outside the language"):
        load_program(file, "f", tmp_path)  # the program language, before the file runs
    program = load_program(file, "f", tmp_path, trusted=True)  # the run-time guard
    with pytest.raises(ProgramError, match=rf"{name} is refused: a program draws randomness only "
                                           rf"through the toolkit's primitives.* at prog.py, line 3"):
        ProgramMechanism("p", program, limits=FAST, trusted=True).distribution((0,))


def test_a_leaking_program_that_hides_its_coin_is_never_called_private():
    """A rare output that reveals the data: audited as deterministic it would look private."""
    import random

    def leaky(data):
        return data[0] if random.random() < 0.001 else 0

    with pytest.raises(ProgramError, match="random.random is refused"):
        program_distribution(leaky, (1,))
    assert 0 <= random.random() < 1  # the guard is lifted after the run


def test_numpy_randomness_is_refused_when_numpy_is_loaded():
    numpy = pytest.importorskip("numpy")

    def draws(data):
        return int(numpy.random.randint(2))

    with pytest.raises(ProgramError, match="numpy.random.randint is refused"):
        program_distribution(draws, (0,))


def test_a_refusal_the_program_catches_is_still_a_refusal():
    import time

    def sly(data):
        try:
            time.time()
        except BaseException:
            pass
        return coin()

    with pytest.raises(ProgramError, match="time.time is refused.*line"):
        program_distribution(sly, (0,))


def test_randomness_at_import_is_refused(tmp_path):
    file = _file(tmp_path, "import random\nSEED = random.random()\ndef f(data):\n    return 1\n")
    with pytest.raises(ModelError, match="mechanisms.m.program.file: .*prog.py, line 1: import "
                                         "random is not allowed"):
        load_program(file, "f", tmp_path, "mechanisms.m.program")
    with pytest.raises(ModelError, match="while loading: random.random is refused.*line 2"):
        load_program(file, "f", tmp_path, "mechanisms.m.program", trusted=True)


def test_a_global_counter_is_found_by_the_replay():
    calls = [0]

    def counter(data):  # the output depends on the number of earlier runs
        calls[0] += 1
        return calls[0]

    with pytest.raises(ProgramError, match="is not deterministic: the same random choices gave "
                                           "another output"):
        program_distribution(counter, (0,))


def test_state_that_changes_the_decisions_is_found_at_the_replayed_prefix():
    seen = []

    def drifting(data):
        first = coin()
        seen.append(first)
        if len(seen) > 3:  # later runs take another branch before the replayed decision
            return [first, coin(), coin("1/3")]
        return [first, coin()]

    with pytest.raises(ProgramError, match="not deterministic: replaying the random choices of an "
                                           "earlier run reached a decision"):
        program_distribution(drifting, (0,))


# --- the fault boundary ------------------------------------------------------------------------

def test_system_exit_and_keyboard_interrupt_from_a_program_are_located_errors():
    def exits(data):
        raise SystemExit(0)

    def interrupts(data):
        raise KeyboardInterrupt

    with pytest.raises(ProgramError, match=r"raised SystemExit: 0 at test_program_boundary.py"):
        _isolated(exits)
    with pytest.raises(ProgramError, match="raised KeyboardInterrupt at test_program_boundary.py"):
        _isolated(interrupts)
    with pytest.raises(ProgramError, match="raised SystemExit"):  # in this process as well
        program_distribution(exits, (0,))
    with pytest.raises(KeyboardInterrupt):  # in this process it may be the user's Ctrl-C
        program_distribution(interrupts, (0,))


def test_a_program_that_ends_its_process_is_a_program_error():
    import os

    def vanishes(data):
        os._exit(0)

    with pytest.raises(ProgramError, match="ended its process with status 0"):
        _isolated(vanishes)


def test_an_exit_at_import_is_a_located_error(tmp_path):
    file = _file(tmp_path, "import sys\nprint('loading')\nsys.exit(0)\ndef f(data):\n    return 1\n")
    with pytest.raises(ModelError, match=r"prog.py, line 1: import sys is not allowed"):
        load_program(file, "f", tmp_path, "mechanisms.m.program")
    with pytest.raises(ModelError, match=r"raised SystemExit: 0 while loading at prog.py, line 3"):
        load_program(file, "f", tmp_path, "mechanisms.m.program", trusted=True)


def test_what_a_program_prints_is_captured(capfd):
    import os

    def noisy(data):
        print("from print")
        os.write(1, b"from fd 1\n")
        os.write(2, b"from fd 2\n")
        return data[0] if coin("3/4") else 1 - data[0]

    assert _isolated(noisy, (1,)).prob(1) == Fraction(3, 4)
    out, err = capfd.readouterr()
    assert "from" not in out and "from" not in err


def test_what_a_failing_program_printed_is_quoted():
    def talks(data):
        print("the reason is here")
        return 1 / 0

    with pytest.raises(ProgramError, match="ZeroDivisionError.*it printed: the reason is here"):
        _isolated(talks)


def test_a_module_level_loop_is_refused_at_the_step_limit(tmp_path):
    file = _file(tmp_path, "while True:\n    pass\ndef f(data):\n    return 1\n")
    with pytest.raises(ModelError, match="prog.py, line 1: a module-level while is not allowed"):
        load_program(file, "f", tmp_path, import_steps=1000)
    with pytest.raises(ModelError, match="ran more than 1,000 lines while loading at prog.py, "
                                         "line 1; does a loop at module level never end"):
        load_program(file, "f", tmp_path, import_steps=1000, trusted=True)


def test_a_loop_in_c_code_is_stopped_at_the_cpu_limit():
    import itertools

    def forever(data):
        return sum(itertools.count())

    with pytest.raises(ProgramError, match="used more than 1 CPU seconds and was stopped"):
        _isolated(forever)


def test_a_program_that_ignores_the_cpu_signal_is_killed():
    import itertools
    import signal

    def stubborn(data):
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        return sum(itertools.count())

    with pytest.raises(ProgramError, match="used more than 1 CPU seconds and was stopped"):
        _isolated(stubborn)


def test_a_huge_power_at_import_is_stopped_at_the_cpu_limit(tmp_path):
    file = _file(tmp_path, "BIG = 10**10**10\ndef f(data):\n    return 1\n")
    with pytest.raises(ProgramError, match="used more than 1 CPU seconds"):
        load_program(file, "f", tmp_path, limits=FAST)


def test_a_zygote_serves_every_dataset_and_outlives_a_killed_request():
    import itertools

    def program(data):
        if data[0] == 2:
            return sum(itertools.count())
        return data[0] if coin("3/4") else 1 - data[0]

    mechanism = ProgramMechanism("p", program, limits=FAST, trusted=True)
    mechanism.distribution((0,))
    pid = mechanism._worker._process.pid
    mechanism.distribution((1,))
    assert mechanism._worker._process.pid == pid
    with pytest.raises(ProgramError, match="CPU seconds"):
        mechanism.distribution((2,))
    assert mechanism._worker._process.pid == pid  # the request's own process was killed
    assert mechanism.key_distribution((3,)).prob(3) == Fraction(3, 4)


def test_a_program_file_without_the_py_suffix_is_read_as_python(tmp_path):
    file = _file(tmp_path, "from pufferfish.models.programs import coin\n"
                           "def f(data):\n    return data[0] if coin('3/4') else 1 - data[0]\n",
                 name="rr.program")
    program = load_program(file, "f", tmp_path)
    assert ProgramMechanism("p", program).distribution((1,)).prob(1) == Fraction(3, 4)
    assert program_distribution(program, (0,)).prob(0) == Fraction(3, 4)  # also in this process


def test_mechanisms_pickle_with_their_limits(tmp_path):
    file = _file(tmp_path, "from pufferfish.models.programs import coin\n"
                           "def f(data):\n    return coin('1/4')\n")
    mechanism = ProgramMechanism("p", load_program(file, "f", tmp_path), source=(
        str(tmp_path / file), "f"), limits=FAST, max_depth=7)
    copy = pickle.loads(pickle.dumps(mechanism))
    assert (copy.limits, copy.max_depth) == (FAST, 7)
    assert copy.distribution((0,)).prob(True) == Fraction(1, 4)


# --- paths, loops and the memo -----------------------------------------------------------------

def test_forty_coins_are_refused_after_few_runs():
    runs = [0]

    def forty(data):
        runs[0] += 1
        return [coin() for _ in range(40)]

    with pytest.raises(ProgramError, match=r"at least 20,\d{3} paths \(runs done and queued\), "
                                           r"more than the limit of 20,000"):
        program_distribution(forty, (0,))
    assert runs[0] < 2_000  # breadth first: the count of paths grows about 40 per run


def test_a_loop_that_ends_with_probability_one_is_refused_with_the_mass_explored():
    def until_heads(data):
        flips = 0
        while not coin("1/2"):
            flips += 1
        return flips

    with pytest.raises(ProgramError, match=r"more than 30 random decisions .* probability 1 but "
                                           r"not surely .* The 30 paths run have probability "
                                           r"1073741823/1073741824, the paths left 1/1073741824"):
        program_distribution(until_heads, (0,), max_depth=30)
    with pytest.raises(ProgramError, match="more than 500 random decisions"):  # the default
        program_distribution(until_heads, (0,))


def _svt(data):
    threshold = geometric("1/3")
    answers = []
    for value in data:
        answers.append(value + geometric("1/2") >= threshold + 1)
    return answers


def test_the_memo_is_never_emptied_in_the_middle_of_a_computation(monkeypatch):
    expected = program_distribution(_svt, (0, 1, 2, 1))
    monkeypatch.setattr(constraints, "_MEMO_LIMIT", 1)
    constraints.trim_memo()
    assert program_distribution(_svt, (0, 1, 2, 1)) == expected   # the memo grew past 1 entry
    assert len(constraints._BELIEFS) > 1
    program_distribution(_svt, (1,))                              # trimmed between computations
    assert len(constraints._BELIEFS) < 10


# --- outputs at the door -----------------------------------------------------------------------

@pytest.mark.parametrize("output, match", [
    (frozenset({1}), "returned a frozenset, which is not a JSON value"),
    (object(), "returned an object, which is not a JSON value"),
    ({1, 2}, "returned a set"),
    (0.5, "returned the float 0.5"),
    (10**5000, "an integer of about 5,000 digits, more than the 4,000"),
    ([1, [2, {"a": 1}]], "a dict"),
], ids=["frozenset", "object", "set", "float", "huge int", "nested dict"])
def test_outputs_that_are_not_json_values_are_refused_with_the_line(output, match):
    with pytest.raises(ProgramError, match=rf"{match}.*at test_program_boundary.py, line \d+"):
        program_distribution(lambda data: output, (0,), name="p")


def test_values_that_print_the_same_are_one_output():
    def written_two_ways(data):
        return Fraction(1, 2) if coin() else "1/2"

    law = program_distribution(written_two_ways, (0,))
    assert dict(law.items()) == {"1/2": 1}
    assert program_distribution(lambda data: [Fraction(4, 2), True], (0,)).prob([2, True]) == 1
    assert len(program_distribution(lambda data: coin(), (0,))) == 2  # true and 1 stay apart


def test_a_huge_integer_output_is_refused_behind_the_boundary_too():
    with pytest.raises(ProgramError, match="5,000 digits"):
        _isolated(lambda data: 10**5000)


# --- the engine's own self-check ---------------------------------------------------------------

def test_a_failed_self_check_of_the_engine_is_an_engine_error(monkeypatch):
    monkeypatch.setattr(enumerate, "_paths", lambda *arguments: {1: Fraction(1, 2)})
    with pytest.raises(EngineError, match="sum to 1/2, not 1") as caught:
        program_distribution(lambda data: 1, (0,))
    assert not isinstance(caught.value, ModelError)


# --- progress ----------------------------------------------------------------------------------

def test_a_long_computation_shows_its_progress_off_a_terminal(capsys, monkeypatch):
    from pufferfish.models.programs import sandbox
    from pufferfish.verify.report import progress_visible, set_progress_visible

    def ten_coins(data):
        return [coin() for _ in range(10)]

    monkeypatch.setattr(sandbox._ProgressLine, "INTERVAL", 0)
    visible = progress_visible()
    label = "p (test_a_long_computation_shows_its_progress_off_a_terminal.<locals>.ten_coins)"
    try:
        set_progress_visible(True)
        mechanism = ProgramMechanism("p", ten_coins, limits=FAST)
        assert len(mechanism.distribution((0,))) == 1024
        assert len(mechanism.distribution((1,))) == 1024
        lines = capsys.readouterr().err.splitlines()
        assert lines == [f"{label}: 0 datasets done, {256 * k:,} paths of the next "
                         f"({25 * k:.1f}% of its probability)" for k in (1, 2, 3, 4)] + [
            f"{label}: 1 dataset done"] + [
            f"{label}: 1 dataset done, {256 * k:,} paths of the next ({25 * k:.1f}% of its "
            f"probability)" for k in (1, 2, 3, 4)] + [f"{label}: 2 datasets done"]
        set_progress_visible(False)  # --quiet
        assert len(mechanism.distribution((2,))) == 1024
        assert capsys.readouterr().err == ""
    finally:
        set_progress_visible(visible)


def test_arguments_of_a_python_function_need_not_be_picklable():
    def scaled(data, transform):
        return transform(data[0]) if coin("3/4") else 0

    law = ProgramMechanism("p", scaled, {"transform": lambda x: x * 10},
                           limits=FAST).distribution((2,))
    assert law.prob(20) == Fraction(3, 4)
