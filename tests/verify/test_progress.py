"""Progress lines: redrawn in place on a terminal; off a terminal (a log, CI, a notebook) a plain
line at most every few seconds on long work and nothing on short work; never with ``--quiet``,
and never on stdout.  Time is a fake clock: nothing sleeps."""

from __future__ import annotations

import io
import json

import pytest

import pufferfish.verify.report as report
from pufferfish.cli.main import main
from pufferfish.examples import example_path
from pufferfish.verify.report import Progress, set_progress_visible


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def visible():
    set_progress_visible(True)
    yield
    set_progress_visible(True)


def test_short_work_off_a_terminal_writes_nothing():
    log, clock = io.StringIO(), Clock()
    bar = Progress(3, "claims", stream=log, clock=clock)
    for _ in range(3):
        clock.now += 1
        bar.step("x")
    bar.close()
    assert log.getvalue() == ""


def test_long_work_off_a_terminal_writes_a_line_every_interval_and_a_last_one():
    log, clock = io.StringIO(), Clock()
    bar = Progress(100, "trials", stream=log, clock=clock)
    for _ in range(100):
        clock.now += 0.5              # 50 s of work: a line every 5 s, never more often
        bar.step("trial")
    bar.close()
    bar.close()                       # a second close adds nothing
    lines = log.getvalue().splitlines()
    assert lines[0] == "trials: 10/100 trial" and lines[1] == "trials: 20/100 trial"
    assert lines[-1] == "trials: 100/100 done" and len(lines) == 11
    assert "\r" not in log.getvalue()


def test_counts_reported_by_update_show_as_counts():
    log, clock = io.StringIO(), Clock()
    bar = Progress(100, "prior blocks", stream=log, clock=clock, interval=2)
    clock.now = 3
    bar.update(40, "2/5 blocks")
    assert log.getvalue() == "prior blocks: 40/100 2/5 blocks\n"


def test_a_terminal_line_is_redrawn_in_place_and_cleared():
    tty, clock = Terminal(), Clock()
    bar = Progress(2, "claims", stream=tty, clock=clock)
    bar.step("a")
    bar.step("b")
    bar.close()
    text = tty.getvalue()
    assert text.startswith("\rclaims [############............] 1/2 a")
    assert "\n" not in text and text.endswith("\r" + " " * 100 + "\r")


def test_hidden_progress_and_single_steps_write_nothing():
    for total, visible_now in ((5, False), (1, True)):
        set_progress_visible(visible_now)
        log, tty, clock = io.StringIO(), Terminal(), Clock()
        bars = [Progress(total, "x", stream=log, clock=clock),
                Progress(total, "x", stream=tty, clock=clock)]
        for _ in range(total):
            clock.now += 10
            for bar in bars:
                bar.step()
        for bar in bars:
            bar.close()
        assert log.getvalue() == tty.getvalue() == ""


def test_the_command_line_logs_progress_on_stderr_only_and_quiet_silences_it(capsys, monkeypatch):
    monkeypatch.setattr(report, "PROGRESS_INTERVAL", 0)     # every step is "long" work
    model = str(example_path("quickstart.json"))
    assert main(["audit", model, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["command"] == "audit"
    assert "auditing: 1/3 rr\n" in captured.err and "\r" not in captured.err
    assert main(["audit", model, "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["command"] == "audit" and captured.err == ""
