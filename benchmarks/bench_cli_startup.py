"""The CPU time of ``pufferfish --help`` and ``pufferfish audit --help``: interpreter start, the
imports and the parser, measured in child processes (user + system CPU seconds, which a loaded
machine does not stretch as it stretches wall-clock time), and the heavy packages each loads.

Run: ``python benchmarks/bench_cli_startup.py [--repeat N]``; it prints the median of N runs of
each command and of ``python -c pass`` (the interpreter alone), and which of numpy, networkx,
sympy, scipy, matplotlib, dask, cvxpy and flint the command imports.  It also times the command
itself, ``python -m pufferfish --version``, under ``PYTHONHASHSEED=0`` and under another seed,
where it re-executes itself with the seed 0 before it imports the toolkit
(``pufferfish.cli.main.fix_hash_seed``): the difference is the price of that re-execution."""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys

HEAVY = ("numpy", "networkx", "sympy", "scipy", "matplotlib", "dask", "distributed", "cvxpy",
         "flint", "jsonschema", "mpmath")
PROBE = ("import sys, json, io, contextlib\n"
         "from pufferfish.cli.main import main\n"
         "with contextlib.redirect_stdout(io.StringIO()):\n"
         "    try:\n        main(sys.argv[1:])\n    except SystemExit:\n        pass\n"
         f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)), file=sys.stderr)")


def cpu_seconds(argv: list[str], seed: str | None = None) -> tuple[float, str]:
    """The CPU time (user + system) of one child process running ``argv`` (with
    ``PYTHONHASHSEED=seed`` when given), and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ) if seed is None else dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used, done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    cases = {"python -c pass": [sys.executable, "-c", "pass"],
             "pufferfish --help": [sys.executable, "-c", PROBE, "--help"],
             "pufferfish audit --help": [sys.executable, "-c", PROBE, "audit", "--help"]}
    for name, argv in cases.items():
        runs = [cpu_seconds(argv) for _ in range(repeat)]
        median = statistics.median(seconds for seconds, _ in runs)
        imported = runs[-1][1].strip().splitlines()[-1] if name != "python -c pass" else "[]"
        print(f"{name:26s} {median:6.3f} s CPU (median of {repeat}); heavy imports: "
              f"{', '.join(json.loads(imported)) or 'none'}")
    command = [sys.executable, "-m", "pufferfish", "--version"]
    seeds = {"0": [], "1": []}
    for _ in range(3 * repeat):  # alternating, so that a change of load touches both alike
        for seed, runs in seeds.items():
            runs.append(cpu_seconds(command, seed)[0])
    for seed, what in (("0", "no re-execution"), ("1", "re-executed with the seed 0")):
        print(f"pufferfish --version, PYTHONHASHSEED={seed} ({what}): "
              f"{statistics.median(seeds[seed]):6.3f} s CPU (median of {3 * repeat}; least "
              f"{min(seeds[seed]):.3f} s)")


if __name__ == "__main__":
    main()
