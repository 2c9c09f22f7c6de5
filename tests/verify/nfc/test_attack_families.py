"""NfC repeated-run levels and composition attacks over a whole interval family (000 §5.1,
Theorem 4; the family of §4 Example 4.3) against dense sampling of the family on a grid that holds
every extreme member, with zero lower bounds."""

from __future__ import annotations

from fractions import Fraction as Q
from itertools import product

from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.verify.nfc.attack import repeated_run_levels

MECHANISM = {"table": [[[0], [["a", "1/2"], ["b", "1/2"]]], [[1], [["a", "1/4"], ["b", "3/4"]]],
                       [[2], [["a", "3/4"], ["b", "1/4"]]], [[3], [["a", "1"]]]]}
BLOCKS = {"s": [([0], "1/4", "3/4"), ([1], "1/4", "3/4")],
          "t": [([2], "0", "1/2"), ([3], "1/2", "1")]}
GRID = 4


def model(priors):
    return parse_model({"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1, 2, 3],
                        "datasets": "all", "priors": priors,
                        "secrets": {"s": {"where": {"x": [0, 1]}}, "t": {"where": {"x": [2, 3]}}},
                        "pairs": [["s", "t"]], "mechanisms": {"m": MECHANISM}})


def family_priors():
    return {"fam": {"interval": {secret: [{"datasets": [[x] for x in xs], "mass": [lo, hi]}
                                          for xs, lo, hi in blocks]
                                 for secret, blocks in BLOCKS.items()}}}


def grid_priors():
    def members(blocks):
        xs = [x for block in blocks for x in block[0]]
        for weights in product(range(GRID + 1), repeat=len(xs)):
            q = dict(zip(xs, (Q(w, GRID) for w in weights)))
            if sum(weights) == GRID and all(Q(lo) <= sum(q[x] for x in b) <= Q(hi)
                                            for b, lo, hi in blocks):
                yield q
    priors = {}
    for i, qs in enumerate(members(BLOCKS["s"])):
        for j, qt in enumerate(members(BLOCKS["t"])):
            table = [[[x], str(p / 2)] for x, p in (qs | qt).items() if p]
            priors[f"g{i}_{j}"] = {"table": table}
    return priors


def test_repeated_run_levels_over_the_family_equal_dense_sampling():
    exact, dense = model(family_priors()), model(grid_priors())
    runs_exact = repeated_run_levels(exact, exact.mechanism("m"), 4)
    runs_dense = repeated_run_levels(dense, dense.mechanism("m"), 4)
    assert runs_exact.ratios == runs_dense.ratios
    assert runs_exact.witnesses[0][1] == "fam"
