"""Benchmark: a program audit and a structured audit on one process and on a local Dask cluster
of 2 worker processes (``--workers 2``), in the same run, with the answers checked equal (the
JSON of both audits, byte for byte).

Run as ``.venv/bin/python benchmarks/bench_cluster_programs.py [--attributes 300]
[--queries 5] [--repeat 1]`` from the repository root (never run by CI).

Instances:

* **program audit**: the shipped report-noisy-max program (``examples/dp_benchmarks/rnm1``) over
  ``--queries`` m answers in {0, 1, 2} (3^m datasets, each law an enumeration of up to 2^m
  paths), audited by enumeration; on the cluster the laws of the distinct datasets are tasks
  (:mod:`pufferfish.verify.program_laws`);
* **structured audit**: the binary chain of ``examples/chain_sum_T60.json`` (p0 = 9/10,
  p1 = 4/5) at ``--attributes`` T, releasing the sum with geometric noise clamped to [0, T],
  audited by the chain's structure (every entry a secret: 2T secrets, 4T ordered directions); on
  the cluster the (prior, directions), (prior, leakage) and DP pieces are tasks
  (:mod:`pufferfish.verify.structured.tasks`).

Printed: for each, the time on one process, on 2 workers, the ratio (one process / 2 workers:
above 1 the cluster is faster) and whether both JSON documents are equal.  Each is timed with
``time.perf_counter`` after the model is parsed (a fresh copy per run, so no law is cached) and,
for the cluster, after it has started and been warmed by a first small audit; the best of
``--repeat`` runs each way.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path


def chain(width: int) -> dict:
    """The shipped 60-attribute chain at ``width`` attributes."""
    from pufferfish.examples import example_path

    data = json.loads(example_path("chain_sum_T60.json").read_text())
    data["attributes"] = [f"x{t}" for t in range(1, width + 1)]
    data["mechanisms"]["sum"]["noise"]["geometric"]["max"] = width
    return data


def report_noisy_max(queries: int) -> Path:
    """The shipped report-noisy-max model (``examples/dp_benchmarks/rnm1.json``) over
    ``queries`` query answers in {0, 1, 2}, written with its program to a temporary folder."""
    from pufferfish.examples import example_path

    folder = Path(tempfile.mkdtemp(prefix="bench_rnm_"))
    data = json.loads(example_path("dp_benchmarks/rnm1.json").read_text())
    data["attributes"] = [f"q{i}" for i in range(1, queries + 1)]
    shutil.copy(example_path("dp_benchmarks/rnm1.py"), folder / "rnm1.py")
    (folder / "rnm1.json").write_text(json.dumps(data))
    return folder / "rnm1.json"


def timed(load, engine, method: str, repeat: int) -> tuple[float, str]:
    from pufferfish.verify.privacy.audit import audit_model

    best, text = None, None
    for _ in range(repeat):
        model = load()
        started = time.perf_counter()
        result = audit_model(model, engine=engine, method=method)
        took = time.perf_counter() - started
        best = took if best is None else min(best, took)
        text = json.dumps(result.to_dict())
    return best, text


def main() -> None:
    import pufferfish
    from pufferfish.examples import example_path
    from pufferfish.verify.execution import engine_from

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attributes", type=int, default=300)
    parser.add_argument("--queries", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    rnm = report_noisy_max(args.queries)
    jobs = [(f"program audit (report noisy max, {args.queries} queries)",
             lambda: pufferfish.load(rnm), "enumeration"),
            (f"structured audit (chain of {args.attributes}, sum)",
             lambda: pufferfish.load(chain(args.attributes)), "structured")]
    alone = [timed(load, None, method, args.repeat) for _, load, method in jobs]
    started = time.perf_counter()
    with engine_from(workers=2) as engine:
        print(f"local cluster of 2 workers started in {time.perf_counter() - started:.1f} s")
        timed(lambda: pufferfish.load(chain(20)), engine, "structured", 1)  # warm the workers
        timed(lambda: pufferfish.load(example_path("dp_benchmarks/rnm1.json")), engine,
              "enumeration", 1)
        clustered = [timed(load, engine, method, args.repeat) for _, load, method in jobs]
    print(f"{'job':<50} {'1 process s':>12} {'2 workers s':>12} {'ratio':>6}  equal")
    for (name, _, _), (one, text_one), (two, text_two) in zip(jobs, alone, clustered):
        print(f"{name:<50} {one:>12.2f} {two:>12.2f} {one / two:>6.2f}  {text_one == text_two}")


if __name__ == "__main__":
    main()
