"""Benchmark: the exact audit and the claim sweep on one process and on a local Dask cluster of 2
worker processes (``--workers 2``), in the same run, with the answers checked equal.

Run as ``.venv/bin/python benchmarks/bench_cluster.py [--attributes 20] [--sweep-paper 004]
[--repeat 2] [--largest SECONDS]`` from the repository root (never run by CI).

Instance (the scalable audit instance): n binary attributes, the quickstart's ``fair`` (independent)
and ``sticky`` (Markov) priors, secrets ``x1 = 0`` / ``x1 = 1``, randomized response (keep 3/4) on
x1..x3 and a geometric sum (α = 1/2) clamped to [0, n]; the sweep is every registered claim (or one
paper's with ``--sweep-paper``).  Printed, each timed with ``time.perf_counter`` after the model
is parsed and (for the cluster) after the cluster has started:

* the audit on 2^n datasets: one process, 2 workers (the best of ``--repeat`` runs each, 2 by
  default: a single run on 2 workers varies by about ±5%), speed-up, and whether both are equal;
* the claim sweep: one process, 2 workers, speed-up, equal;
* the scaling note: per-block task cost and scheduler overhead per task (measured on trivial
  tasks), and the resulting estimate ``blocks × per-block cost / W + blocks × overhead`` for
  16 and 64 workers;
* with ``--largest S [--largest-from N]``: the largest 2^n audited within S seconds each way (n
  up by one while the next size's predicted time, from the growth so far, is within S);
* for every audit run, its time and the plan it announced (blocks, memory and time estimates);
* the peak resident size (``VmHWM``) of each worker after the cluster's audits, and of this
  process (which ran the one-process audits and sweep) at the end.

The start-up of the local cluster (about 1–4 s) is printed separately: it is paid once per run;
so is warming its workers with an audit of 2^8 datasets (they import the audit's modules on their
first tasks, as this process did before its timed run).  The sweep runs on a cluster of its own,
started after the audits.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_audit_model import model_dict  # noqa: E402  (the same instance as bench_audit_model)

from pufferfish.models.files.pufferfish_file import parse_model  # noqa: E402
from pufferfish.proofs_check.registry import all_claims, claims_for  # noqa: E402
from pufferfish.proofs_check.runner import run_claims  # noqa: E402
from pufferfish.verify.execution import InProcessEngine, engine_from  # noqa: E402
from pufferfish.verify.privacy.audit import audit_model  # noqa: E402
from pufferfish.verify.privacy.blocks import block_plan  # noqa: E402


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def audit(attributes: int, engine):
    """The audit with the default ``--block-datasets`` (it bounds a block, not the universe); the
    plan it announces (with its time estimate) is printed with the time taken."""
    model = parse_model(model_dict(attributes))
    plans = []
    elapsed, result = timed(lambda: audit_model(model, engine=engine,
                                                announce=plans.append).to_dict())
    print(f"  2^{attributes} on {engine.workers} worker(s): {elapsed:.1f} s; "
          f"{plans[0].explain(engine.workers)}", flush=True)
    return elapsed, result


def best_of(times: int, run):
    """The fastest of ``times`` runs of ``run()`` (each ``(seconds, result)``; results equal)."""
    runs = [run() for _ in range(max(1, times))]
    assert all(result == runs[0][1] for _, result in runs)
    return min(runs, key=lambda found: found[0])


def peak_megabytes() -> int:
    """This process's peak resident size in MB: ``VmHWM`` of ``/proc/self/status`` (Linux), else
    ``ru_maxrss``.  Not ``ru_maxrss`` on Linux: it survives ``execve``, so a worker started by
    fork and exec would report this process's size when it started the cluster."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def largest(seconds: float, engine, start: int) -> tuple[int, float, float, bool]:
    """``(n, its time, time of n + 1, whether that time was measured)``: the largest 2^n (from ``start``, one attribute
    more each time) whose audit finished within ``seconds``.  Time doubles with each attribute, so
    the next size is run only while its predicted time — the last time times the last growth
    factor, at least 2 — is within ``seconds``; the prediction that stopped the search is
    returned, not run."""
    best, previous, n = (start - 1, 0.0), None, start
    while True:
        elapsed, _ = audit(n, engine)
        if elapsed > seconds:
            return best[0], best[1], elapsed, True
        best = (n, elapsed)
        growth = max(2.0, elapsed / previous) if previous else 2.0
        if elapsed * growth > seconds:
            return n, elapsed, elapsed * growth, False
        previous, n = elapsed, n + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attributes", type=int, default=20)
    parser.add_argument("--sweep-paper", default=None, help="only this paper's claims")
    parser.add_argument("--repeat", type=int, default=2,
                        help="time the 2^n audit this many times each way and keep the best")
    parser.add_argument("--largest", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--largest-from", type=int, default=None, metavar="N",
                        help="first n tried by --largest (default: --attributes)")
    args = parser.parse_args()
    claims = claims_for(paper=args.sweep_paper) if args.sweep_paper else all_claims()
    alone = InProcessEngine()
    first = args.largest_from or args.attributes

    one_time, one = best_of(args.repeat, lambda: audit(args.attributes, alone))
    sweep_one_time, sweep_one = timed(lambda: run_claims(claims).to_dict())
    start_time, cluster = timed(lambda: engine_from(workers=2))
    with cluster:
        # the workers import the audit's modules on their first tasks (the driver already has)
        warm_time, _ = timed(lambda: audit_model(parse_model(model_dict(8)), engine=cluster))
        two_time, two = best_of(args.repeat, lambda: audit(args.attributes, cluster))
        overhead_time, _ = timed(lambda: cluster.map(abs, [(k,) for k in range(400)]))
        largest_two = largest(args.largest, cluster, first) if args.largest else None
        worker_peaks = sorted(cluster.client.run(peak_megabytes).values())
    with engine_from(workers=2) as cluster:  # a fresh cluster: no state left by the audits
        sweep_two_time, sweep_two = timed(lambda: run_claims(claims, engine=cluster).to_dict())
    largest_one = largest(args.largest, alone, first) if args.largest else None

    blocks = len(block_plan(parse_model(model_dict(args.attributes)), 8))
    per_task = overhead_time / 400
    print(f"local cluster start-up: {start_time:.1f} s, then {warm_time:.1f} s warming the "
          f"workers (an audit of 2^8 datasets)")
    print(f"{'job':<28} {'1 process s':>11} {'2 workers s':>11} {'speed-up':>8}  equal")
    print(f"{'audit 2^' + str(args.attributes) + ' datasets':<28} {one_time:>11.1f} "
          f"{two_time:>11.1f} {one_time / two_time:>7.2f}x  {one == two}")
    print(f"{'claim sweep (' + str(len(claims)) + ' claims)':<28} {sweep_one_time:>11.1f} "
          f"{sweep_two_time:>11.1f} {sweep_one_time / sweep_two_time:>7.2f}x  "
          f"{sweep_one == sweep_two}")
    per_block = one_time / blocks
    print(f"scaling note: {blocks} prior blocks, {per_block * 1000:.0f} ms per block on one "
          f"process, scheduler overhead {per_task * 1000:.1f} ms per task")
    for workers in (16, 64):
        estimate = blocks * per_block / workers + blocks * per_task
        print(f"  estimate on {workers} workers: {estimate:.1f} s for 2^{args.attributes}, "
              f"{estimate * 16:.0f} s for 2^{args.attributes + 4}")
    print(f"peak resident size: {worker_peaks} MB per worker after the cluster's audits, "
          f"{peak_megabytes()} MB in this process")
    if args.largest:
        for label, (n, elapsed, following, measured) in (("one process", largest_one),
                                                          ("2 workers", largest_two)):
            verb = "took" if measured else "would take about"
            print(f"largest universe audited within {args.largest:.0f} s, {label}: 2^{n} "
                  f"({elapsed:.0f} s; 2^{n + 1} {verb} {following:.0f} s)")


if __name__ == "__main__":
    main()
