"""The fault boundary of programs: every law in a fresh process forked from the zygote, CPU and
wall-clock limits, the kill of the request's whole process group, and a worker's death reported
for what it was.

No assertion on wall-clock time (CI machines are loaded): small limits, and the message says
which limit ended the program."""

from __future__ import annotations

import functools
import os
import signal
from fractions import Fraction

import pytest

from pufferfish.models.programs import Limits, ProgramError, ProgramMechanism, coin, load_program

# What stands behind the program language: these programs (module-level state, sleeps, signals,
# exceptions that cannot print) are outside it on purpose, so they run trusted.
load_program = functools.partial(load_program, trusted=True)
ProgramMechanism = functools.partial(ProgramMechanism, trusted=True)

FAST = Limits(cpu_seconds=1, grace_seconds=1)
WALL = Limits(cpu_seconds=5, grace_seconds=1, wall_seconds=2)


def _file(tmp_path, text, name="prog.py"):
    (tmp_path / name).write_text(text)
    return name


# --- a fresh process per law ------------------------------------------------------------------

FIRST_SEEN = """
from pufferfish.models.programs import coin
SEEN = []
def f(data, cache=[]):
    SEEN.append(data[0])        # a module-level list: the first dataset ever seen
    cache.append(data[0])       # a mutable default: the same
    first = SEEN[0] + cache[0]
    return first if coin("3/4") else -1
"""


def test_state_a_program_mutates_never_survives_into_the_next_law(tmp_path):
    """The program is deterministic within one law (the replay cannot see the state), but with
    one process kept for every law the second dataset's law was the first's."""
    program = load_program(_file(tmp_path, FIRST_SEEN), "f", tmp_path, limits=FAST)
    mechanism = ProgramMechanism("m", program, limits=FAST)
    assert mechanism.distribution((1,)).prob(2) == Fraction(3, 4)
    assert mechanism.distribution((2,)).prob(4) == Fraction(3, 4)   # 2 with a kept process
    other = ProgramMechanism("m", program, limits=FAST)                # the other order
    assert other.distribution((2,)).prob(4) == other.distribution((1,)).prob(2) == Fraction(3, 4)


def test_a_function_with_state_is_isolated_too():
    calls = []

    def counted(data):
        calls.append(1)
        return len(calls) > 10**6 or coin()   # true only if runs of all laws added up

    mechanism = ProgramMechanism("m", counted, limits=FAST)
    for k in range(3):
        assert mechanism.distribution((k,)).prob(True) == Fraction(1, 2)
    assert calls == []  # nothing ran in this process


# --- the wall-clock limit and the kill of the group -------------------------------------------

def test_a_program_that_sleeps_is_stopped_at_the_wall_clock_limit():
    import time

    def sleeper(data):
        time.sleep(1000)
        return 1

    with pytest.raises(ProgramError, match=r"ran for more than 2 seconds of wall-clock time and "
                                           r"was stopped \(it waits"):
        ProgramMechanism("m", sleeper, limits=WALL).distribution((0,))


def test_a_program_that_blocks_on_a_pipe_is_stopped_at_the_wall_clock_limit(tmp_path):
    file = _file(tmp_path, "import os\nREAD, WRITE = os.pipe()\n"
                           "def f(data):\n    return os.read(READ, 1)[0]\n")
    program = load_program(file, "f", tmp_path, limits=WALL)
    with pytest.raises(ProgramError, match="ran for more than 2 seconds of wall-clock time"):
        ProgramMechanism("m", program, limits=WALL).distribution((0,))


def test_an_import_that_sleeps_is_stopped_at_the_wall_clock_limit(tmp_path):
    file = _file(tmp_path, "import time\ntime.sleep(1000)\ndef f(data):\n    return 1\n")
    with pytest.raises(ProgramError, match="ran for more than 2 seconds of wall-clock time"):
        load_program(file, "f", tmp_path, limits=WALL)


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie waiting for init counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_the_whole_process_group_of_a_request_is_killed(tmp_path):
    """A process the program started dies with it (each request leads a process group)."""
    record = tmp_path / "child.pid"
    file = _file(tmp_path, "import os, subprocess, time\n"
                           "def f(data):\n"
                           "    child = subprocess.Popen(['sleep', '1000'])\n"
                           f"    open({str(record)!r}, 'w').write(str(child.pid))\n"
                           "    time.sleep(1000)\n")
    program = load_program(file, "f", tmp_path, limits=WALL)
    with pytest.raises(ProgramError, match="wall-clock time"):
        ProgramMechanism("m", program, limits=WALL).distribution((0,))
    child = int(record.read_text())
    for _ in range(200):  # init reaps the orphan when it gets to it: no time is asserted
        if _gone(child):
            break
        os.sched_yield()
        import time
        time.sleep(0.01)
    assert _gone(child)


# --- CPU -----------------------------------------------------------------------------------------

def test_a_program_that_ignores_the_cpu_signal_is_ended_by_the_hard_limit():
    import itertools

    def stubborn(data):
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        return sum(itertools.count())

    limits = Limits(cpu_seconds=1, grace_seconds=1, wall_seconds=10**6)  # CPU alone ends it
    with pytest.raises(ProgramError, match="used more than 1 CPU seconds and was stopped"):
        ProgramMechanism("m", stubborn, limits=limits).distribution((0,))


def test_the_cpu_budget_is_per_law_not_per_worker():
    """The parent compared the kept child's total CPU time with the budget of one request: a
    program of many cheap laws was killed after a few."""
    def busy(data):
        sum(range(4_000_000))  # about 0.08 s of CPU per run (3 runs a law), in C
        return coin()

    mechanism = ProgramMechanism("m", busy, limits=Limits(cpu_seconds=0.5, grace_seconds=0.5))
    for k in range(6):  # more CPU in all than one request's budget of 1 s
        assert mechanism.distribution((k,)).prob(True) == Fraction(1, 2)


# --- death reported for what it was ---------------------------------------------------------

def test_a_kill_from_outside_is_reported_as_the_signal_not_a_limit():
    def killed(data):
        os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer or a user would

    with pytest.raises(ProgramError, match=r"was killed by signal SIGKILL, not by the toolkit's "
                                           r"limits") as caught:
        ProgramMechanism("m", killed, limits=FAST).distribution((0,))
    assert "CPU" not in str(caught.value)


def test_a_crash_in_c_code_names_the_signal():
    def crashes(data):
        os.kill(os.getpid(), signal.SIGSEGV)

    with pytest.raises(ProgramError, match="was ended by signal SIGSEGV \\(a crash in C code\\)"):
        ProgramMechanism("m", crashes, limits=FAST).distribution((0,))


def test_memory_past_the_limit_is_reported_in_bytes():
    def hungry(data):
        return len(bytearray(1 << 30))

    limits = Limits(cpu_seconds=5, memory_bytes=64 << 20)
    with pytest.raises(ProgramError, match=r"used more than 67,108,864 bytes of memory"):
        ProgramMechanism("m", hungry, limits=limits).distribution((0,))


def test_a_zygote_killed_between_requests_is_replaced():
    mechanism = ProgramMechanism("m", lambda data: coin(), limits=FAST)
    mechanism.distribution((0,))
    zygote = mechanism._worker._process.pid
    os.kill(zygote, signal.SIGKILL)
    while not _gone(zygote):  # dead before the next request (it is not reaped yet)
        os.sched_yield()
    assert mechanism.distribution((1,)).prob(True) == Fraction(1, 2)  # a new zygote
    assert mechanism._worker._process.pid != zygote
