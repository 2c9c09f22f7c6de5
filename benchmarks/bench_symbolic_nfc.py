"""Benchmark: certified NfC regions of parametric models against grids of point NfC computations.

Run as ``.venv/bin/python benchmarks/bench_symbolic_nfc.py`` from the repository root (never run
by CI).  The model is the parametric quickstart (randomized response with keep ``p``, the sticky
chain with stay ``q``, both in [1/2, 1]) and the budget log(3); the mechanisms are ``rr`` and
``sum`` together (Bai et al., Composition for Pufferfish Privacy, §5.1, Theorem 4).  Each instance
is measured with time.process_time in the same run as its baseline (CPU time of the process,
time.process_time):

* **one parameter** (``q = 9/10``): ``composes --region`` with boundary boxes narrower than
  ``w = 1/128`` and ``1/512`` against the grid of point computations (``nfc_programs`` on the
  instantiated model, as ``composes --set`` runs it) with spacing ``w`` (65 and 257 points); the
  grid's verdicts are checked against the region at every grid point it decides;
* **two parameters**: the certified map with width 1/32 against the grid of 17 x 17 point
  computations with spacing 1/32.

The region proves its verdict on whole intervals/boxes; the grid only at its points.
"""

from __future__ import annotations

import time
from fractions import Fraction

from pufferfish.examples import example_path
from pufferfish.models.parametric import load_parametric_model
from pufferfish.verify.nfc.programs import nfc_programs
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.symbolic.nfc_region import nfc_region

MECHANISMS = ["rr", "sum"]
BUDGET = "log(3)"


def timed(function):
    """``(CPU seconds of this process, value)``: time.process_time, so that other jobs on a
    shared machine do not count (wall-clock time is printed with the totals)."""
    start = time.process_time()
    value = function()
    return time.process_time() - start, value


def point_verdict(model, point: dict) -> str:
    instance = model.instantiate(point)
    return nfc_programs(instance, [instance.mechanism(m) for m in MECHANISMS],
                        parse_budget(BUDGET)).verdict


def one_parameter(width: Fraction) -> None:
    model = load_parametric_model(example_path("quickstart_parametric.json")).restrict(
        {"q": "9/10"})
    seconds, region = timed(lambda: nfc_region(model, BUDGET, MECHANISMS, width))
    shown = "; ".join(f"{kind} " + ", ".join(f"[{a}, {b}]" for a, b in region.intervals(kind))
                      for kind in ("holds", "fails", "boundary"))
    print(f"one parameter (q = 9/10), width {width}: certified region in {seconds:.2f} s "
          f"({region.solves} LP points): {shown}")
    low, high = model.box.low[0], model.box.high[0]
    n = int((high - low) / width)
    points = [low + k * width for k in range(n + 1)]
    grid_seconds, verdicts = timed(lambda: [point_verdict(model, {"p": x}) for x in points])
    expected = {"holds": "holds", "fails": "violated"}
    agree = all(v == expected[kind] for v, x in zip(verdicts, points)
                for kind in expected
                if any(a <= x <= b for a, b in region.intervals(kind)))
    print(f"  grid of {len(points)} point computations (spacing {width}): {grid_seconds:.2f} s, "
          f"ratio grid/region {grid_seconds / seconds:.1f}x, agrees with the region: {agree}")


def two_parameters(width: Fraction) -> None:
    model = load_parametric_model(example_path("quickstart_parametric.json"))
    seconds, region = timed(lambda: nfc_region(model, BUDGET, MECHANISMS, width))
    data = region.to_dict()["area"]
    print(f"two parameters, width {width}: certified map in {seconds:.2f} s ({region.solves} LP "
          f"points; areas holds {data['holds']}, fails {data['fails']}, boundary "
          f"{data['boundary']} of 1/4)")
    n = int((model.box.high[0] - model.box.low[0]) / width)
    points = [(model.box.low[0] + k * width, model.box.low[1] + j * width)
              for k in range(n + 1) for j in range(n + 1)]
    grid_seconds, _ = timed(lambda: [point_verdict(model, {"p": p, "q": q}) for p, q in points])
    print(f"  grid of {len(points)} point computations with spacing {width}: "
          f"{grid_seconds:.2f} s, ratio grid/map {grid_seconds / seconds:.1f}x")


def main() -> None:
    for width in (Fraction(1, 128), Fraction(1, 512)):
        one_parameter(width)
    two_parameters(Fraction(1, 32))


if __name__ == "__main__":
    main()
