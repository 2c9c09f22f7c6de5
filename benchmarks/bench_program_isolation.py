"""Benchmark: the price of a fresh process per law behind the fault boundary of programs
(:mod:`pufferfish.models.programs.sandbox`), against one process kept for all of a program's
laws.

Run as ``.venv/bin/python benchmarks/bench_program_isolation.py [--names svt1 rnm1] [--m 4]
[--forks 200]`` from the repository root (never run by CI).

For each shipped program of ``examples/dp_benchmarks/`` (answers in {0, 1, 2}, ``m`` of them:
the laws of all ``3^m`` datasets), timed in this run (``time.perf_counter``, one run each, one
core), every mode computing the same laws (checked):

* **kept**: one forked process computes every law in turn, the engine's memo shared between
  them (the boundary before: a child kept for all requests);
* **kept, memo cleared**: the same, the memo emptied before each law (what a fresh process
  loses, without the fork);
* **fresh**: :class:`~pufferfish.models.programs.sandbox.ProgramWorker` as shipped — a zygote,
  and a process forked from it for each law, which reports the law and exits.

The ratio fresh / kept is the price of isolation; fresh / kept-memo-cleared separates the fork
from the lost memo.  ``--names gaussian_suite:gaussian_svt`` names a mechanism of a suite.  ``--forks N`` also times ``N`` bare forks of this process (the toolkit and
the program loaded) that exit at once, and reports the cost of one.
"""

from __future__ import annotations

import argparse
import itertools
import os
import pickle
import time

from pufferfish.examples import example_path
from pufferfish.models.programs import constraints, load_program, program_distribution
from pufferfish.models.programs.sandbox import Limits, ProgramWorker

FOLDER = example_path("dp_benchmarks/svt1.json").parent
def program_of(name: str) -> tuple:
    """``(program file, function, arguments)`` of a shipped program, from its model file
    (``NAME`` or ``SUITE:MECHANISM``, such as ``gaussian_suite:gaussian_svt``)."""
    import json

    file, _, mechanism = name.partition(":")
    data = json.loads((FOLDER / f"{file}.json").read_text())
    mechanisms = data["mechanisms"]
    body = (mechanisms[mechanism] if mechanism else next(iter(mechanisms.values())))["program"]
    return str(FOLDER / body["file"]), body["function"], body.get("arguments", {})


def kept(program, arguments: dict, datasets: list, clear: bool) -> tuple[float, list]:
    """All laws in one forked process (memo shared unless ``clear``): seconds and laws."""
    read, write = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        laws = []
        for key in datasets:
            if clear:
                constraints.STEP_MEMO.clear()
                constraints._BELIEFS.clear()
            laws.append(dict(program_distribution(program, key, arguments).items()))
        data = pickle.dumps(laws)
        with os.fdopen(write, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as source:
        laws = pickle.loads(source.read())
    os.waitpid(pid, 0)
    return time.perf_counter() - start, laws


def fresh(program, arguments: dict, datasets: list, label: str) -> tuple[float, list]:
    """All laws through the shipped boundary: a zygote, a process forked per law."""
    start = time.perf_counter()
    worker = ProgramWorker(lambda: program, label, Limits(), arguments)
    laws = [dict(worker.law(key, None, label).items()) for key in datasets]
    worker.close()
    return time.perf_counter() - start, laws


def bare_forks(count: int) -> float:
    """Seconds per fork of this process that exits at once (and is waited for)."""
    start = time.perf_counter()
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return (time.perf_counter() - start) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--names", nargs="+", default=["svt1", "rnm1"])
    parser.add_argument("--m", type=int, default=4)
    parser.add_argument("--forks", type=int, default=200)
    args = parser.parse_args()
    datasets = list(itertools.product([0, 1, 2], repeat=args.m))
    print(f"{len(datasets)} datasets (m = {args.m}); seconds for all laws")
    print(f"{'program':<8} {'kept':>8} {'kept, memo cleared':>19} {'fresh':>8} "
          f"{'fresh/kept':>11} {'fresh/cleared':>14} {'per law (fresh - kept)':>23}")
    for name in args.names:
        file, function, arguments = program_of(name)
        program = load_program(file, function).function()
        program_distribution(program, datasets[0], arguments)  # imports and caches warmed
        t_kept, laws_kept = kept(program, arguments, datasets, clear=False)
        t_cleared, laws_cleared = kept(program, arguments, datasets, clear=True)
        t_fresh, laws_fresh = fresh(program, arguments, datasets, name)
        assert laws_kept == laws_cleared == laws_fresh, name
        per = (t_fresh - t_kept) / len(datasets) * 1000
        print(f"{name:<8} {t_kept:>8.2f} {t_cleared:>19.2f} {t_fresh:>8.2f} "
              f"{t_fresh / t_kept:>11.2f} {t_fresh / t_cleared:>14.2f} {per:>20.1f} ms")
    if args.forks:
        print(f"a bare fork of this process (toolkit loaded) that exits: "
              f"{bare_forks(args.forks) * 1000:.2f} ms (mean of {args.forks})")


if __name__ == "__main__":
    main()
