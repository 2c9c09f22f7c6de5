"""Benchmark: the independent checker's cost against the audit's, on the shipped examples.

Run as ``.venv/bin/python benchmarks/bench_certificate.py [--repeats 3] [--threshold 16]`` from
the repository root (never run by CI).

For every shipped example that ``pufferfish audit`` certifies (the models with mechanisms, and
every ``examples/dp_benchmarks/*.json``), timed in this run on one core (``time.process_time``):

* **audit**: ``pufferfish.audit`` of the model file (the verdicts only, the toolkit's cost), its
  first run in this process (a program's laws are cached by the toolkit once computed, so later
  runs would time a warm audit);
* **write**: building the certificate from that audit (``audit_certificate``: every dataset's
  law, every secret's conditional law per prior), best of ``--repeats``;
* **check**, best of ``--repeats``: ``pufferfish_check.check_certificate`` on the certificate read back from JSON — the
  checker re-deriving every number from the model file (programs: each dataset's law bounded by
  a windowed enumeration of the noise down to paths of mass ``2^-threshold``).

It prints the three times, the ratios check / audit and check / (audit + write), the
certificate's size in bytes and, for programs, the largest mass left outside the noise window.
"""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction
from pathlib import Path

import pufferfish_check
from pufferfish.api import audit, load
from pufferfish.examples import example_path
from pufferfish.verify.privacy.certificate import audit_certificate

EXAMPLES = Path(example_path("quickstart.json")).parent
NAMES = ["quickstart.json", "hidden_coin.json", "composable_rr.json", "collapse_parity.json",
         "collapse_resample.json", "collapse_interval.json", "influence_table.json",
         "influence_chain.json", "design_chain6.json", "bayesnet_rain.json",
         "chain_sum_T60.json", *[f"dp_benchmarks/{n}.json" for n in
                                 ("rnm1", "rnm2", "rnm3", "rnm4", "svt1", "svt3", "svt4",
                                  "svt5", "svt6")]]


def best_of(repeats: int, work) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        started = time.process_time()
        result = work()
        times.append(time.process_time() - started)
    return min(times), result


def measure(name: str, repeats: int, threshold: Fraction) -> dict:
    path = EXAMPLES / name
    audit_seconds, result = best_of(1, lambda: audit(str(path)))  # cold: the first run
    model = load(str(path))
    write_seconds, data = best_of(repeats, lambda: audit_certificate(model, result, path))
    text = json.dumps(data)
    check_seconds, checked = best_of(repeats, lambda: pufferfish_check.check_certificate(
        json.loads(text), threshold=threshold))
    assert checked.accepted, (name, checked.reason)
    window = next((n.split("at most ")[1].split(" ")[0] for n in checked.notes
                   if "at most" in n), "")
    return {"name": name, "method": result.method, "audit": audit_seconds,
            "write": write_seconds, "check": check_seconds, "bytes": len(text),
            "window": window}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threshold", type=int, default=16,
                        help="programs: enumerate noise down to paths of mass 2^-N (default 16)")
    parser.add_argument("--names", nargs="*", default=NAMES)
    args = parser.parse_args()
    threshold = Fraction(1, 2 ** args.threshold)
    print(f"{'example':32} {'path':11} {'audit s':>8} {'write s':>8} {'check s':>8} "
          f"{'check/audit':>11} {'check/(a+w)':>11} {'bytes':>9}  left out")
    totals = [0.0, 0.0, 0.0]
    for name in args.names:
        row = measure(name, args.repeats, threshold)
        totals = [t + row[k] for t, k in zip(totals, ("audit", "write", "check"))]
        print(f"{name:32} {row['method']:11} {row['audit']:8.3f} {row['write']:8.3f} "
              f"{row['check']:8.3f} {row['check'] / max(row['audit'], 1e-6):11.1f} "
              f"{row['check'] / max(row['audit'] + row['write'], 1e-6):11.1f} "
              f"{row['bytes']:9,}  {row['window']}")
    print(f"{'total':32} {'':11} {totals[0]:8.3f} {totals[1]:8.3f} {totals[2]:8.3f} "
          f"{totals[2] / totals[0]:11.1f} {totals[2] / (totals[0] + totals[1]):11.1f}")


if __name__ == "__main__":
    main()
