"""Time and peak memory of a long chain's exact laws: checkpointed messages against all of them.

The binary chain of ``bench_structured.py`` (stay probabilities 9/10 and 4/5, uniform start) with
the sum of its T attributes as the code: the calibrated junction tree
(:class:`pufferfish.verify.structured.elimination.JunctionTree`) and the exact law
``Pr[x_t = 1 ∧ sum = k]`` of every position t, read in the chain's order (as an audit of entry
pairs reads them; ``x_t = 0`` is the total minus it).  Each case runs in a child process under
``/usr/bin/time -v`` (peak resident memory); the children print a digest of the laws (their sum
at z = 1/3, exact), and the script asserts that the digests agree.

Variants: ``new`` (this checkout), ``all`` (this checkout keeping every message:
``CHECKPOINT_ABOVE`` raised), and ``before`` (another checkout's Python, ``--before``, e.g. the
main branch's ``/work/main/.venv/bin/python``, run from outside the checkout)::

    .venv/bin/python benchmarks/bench_chain_memory.py 300 1000 3000 \\
        --before /work/main/.venv/bin/python

A case that its code refuses (its memory estimate above three quarters of the usable memory)
prints ``refused``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import sys, time
from flint import fmpq
from pufferfish.models.errors import TooLargeError
from pufferfish.models.priors import MarkovPrior
from pufferfish.models.universe import Universe
import pufferfish.verify.structured.elimination as elimination
T, keep_all = int(sys.argv[1]), sys.argv[2] == "all"
if keep_all:
    elimination.CHECKPOINT_ABOVE = 10**30
u = Universe.product([f"x{t}" for t in range(T)], [[0, 1]] * T)
chain = MarkovPrior.homogeneous("c", u, {0: "1/2", 1: "1/2"},
                                {0: {0: "9/10", 1: "1/10"}, 1: {0: "1/5", 1: "4/5"}})
start = time.process_time()
try:
    tree = elimination.JunctionTree.of_prior(chain, u, [{0: 0, 1: 1}] * T)
except TooLargeError as error:
    print("refused", error)
    sys.exit(0)
built = time.process_time() - start
digest, third = fmpq(0), fmpq(1, 3)
for t in range(T):
    digest += tree.law({t: frozenset([1])})(third)
print("ok", built, time.process_time() - start, hash(digest))
"""


def run(python: str, width: int, variant: str, cwd: str) -> dict:
    """One case in a child process: CPU seconds, peak RSS, digest (or refusal)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(CHILD)
    done = subprocess.run(["/usr/bin/time", "-v", python, script.name, str(width), variant],
                          capture_output=True, text=True, cwd=cwd)
    Path(script.name).unlink()
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    if line.startswith("ok"):
        _, built, total, digest = line.split()
        return {"built": float(built), "total": float(total), "peak": peak, "digest": digest}
    return {"refused": line, "peak": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("widths", nargs="*", type=int, default=[300, 1000, 3000])
    parser.add_argument("--before", help="the Python of another checkout (today's code)")
    parser.add_argument("--variants", default="before,all,new")
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parents[1])
    print("| T | variant | tree s | tree + laws s | peak RSS MB |")
    print("|---:|---|---:|---:|---:|")
    for width in args.widths:
        digests = set()
        for variant in args.variants.split(","):
            if variant == "before":
                if not args.before:
                    continue
                result = run(args.before, width, "new", tempfile.gettempdir())
            else:
                result = run(sys.executable, width, variant, here)
            if "refused" in result:
                print(f"| {width} | {variant} | refused | {result['refused'][:90]} | "
                      f"{result['peak'] / 1024:.0f} |", flush=True)
                continue
            digests.add(result["digest"])
            print(f"| {width} | {variant} | {result['built']:.2f} | {result['total']:.2f} | "
                  f"{result['peak'] / 1024:.0f} |", flush=True)
        assert len(digests) <= 1, (width, digests)


if __name__ == "__main__":
    main()
