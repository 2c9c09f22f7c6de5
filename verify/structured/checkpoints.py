"""Calibrated messages of a long path kept at checkpoints and recomputed a block at a time.

A chain's junction tree is a path of ``m + 1`` cliques; its exact messages grow with their
position (a polynomial of degree up to ``m`` with coefficients of ``O(m)`` bits), so keeping all
``2m`` of them costs ``O(m³)`` bits.  :class:`PathMessages` keeps ``O(√m)`` of them and
recomputes the others from the checkpoint before them, which is the classical checkpointing of a
forward-backward pass (Binder, Murphy & Russell, Space-efficient inference in dynamic
probabilistic networks).

>>> from pufferfish.models.priors import MarkovPrior
>>> from pufferfish.models.universe import Universe
>>> from pufferfish.verify.structured import elimination
>>> u = Universe.product([f"x{t}" for t in range(30)], [[0, 1]] * 30)
>>> chain = MarkovPrior.homogeneous("c", u, {0: "1/2", 1: "1/2"},
...                                 {0: {0: "9/10", 1: "1/10"}, 1: {0: "1/5", 1: "4/5"}})
>>> weights = [{0: 0, 1: 1}] * 30
>>> full = elimination.JunctionTree.of_prior(chain, u, weights)
>>> saved, elimination.CHECKPOINT_ABOVE = elimination.CHECKPOINT_ABOVE, -1
>>> kept = elimination.JunctionTree.of_prior(chain, u, weights)
>>> elimination.CHECKPOINT_ABOVE = saved
>>> type(kept.messages).__name__, kept.messages.step, len(kept.messages.kept)
('PathMessages', 6, 12)
>>> all(kept.law({t: frozenset([1])}) == full.law({t: frozenset([1])}) for t in range(30))
True
"""

from __future__ import annotations

import math

CHECKPOINT_ABOVE = 256 * 2**20
"""Bytes of calibrated messages above which a path keeps checkpoints only."""


class PathMessages:
    """The calibrated messages of a path ``0 — 1 — … — m`` kept in ``O(√m)`` of them: in each
    direction the messages across every ``step``-th separator (``step = ⌈√m⌉``) and the last one;
    any other is recomputed from the checkpoint before it in its direction, together with the
    rest of its block of ``step`` messages (kept until another block of that direction is
    needed).  Checkpointed two-pass calibration (Griewank, Achieving logarithmic growth of
    temporal and spatial complexity in reverse automatic differentiation; Binder, Murphy &
    Russell, Space-efficient inference in dynamic probabilistic networks): reading the
    separators in the path's order recomputes each message once, so all laws cost about one
    more calibration, and memory holds ``2(m/step + step)`` messages instead of ``2m``.

    A message ``k → k+1`` (``up``, index ``k``) needs ``k−1 → k``; a message ``k+1 → k``
    (``down``, index ``k``) needs ``k+2 → k+1``; index ``m−1`` down and ``0`` up need none."""

    def __init__(self, tree, edges: int) -> None:
        """``tree``: the :class:`~pufferfish.verify.structured.elimination.JunctionTree` whose
        messages these are (it recomputes them); ``edges``: its ``m`` separators."""
        self.tree, self.edges = tree, edges
        self.step = max(1, math.isqrt(edges - 1) + 1) if edges > 1 else 1
        self.kept: dict[tuple[int, int], dict] = {}
        self.last: dict[bool, tuple] = {}            # up? -> the message set last
        self.block: dict[bool, dict] = {True: {}, False: {}}

    def _checkpoint(self, index: int) -> bool:
        return index % self.step == 0 or index == self.edges - 1

    def __setitem__(self, key: tuple[int, int], value: dict) -> None:
        a, b = key
        self.last[a < b] = (key, value)
        if self._checkpoint(min(a, b)):
            self.kept[key] = value

    def __getitem__(self, key: tuple[int, int]) -> dict:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: tuple[int, int], default=None):
        a, b = key
        if abs(a - b) != 1 or not 0 <= min(a, b) < self.edges:
            return default
        if key in self.kept:
            return self.kept[key]
        up = a < b
        last = self.last.get(up)
        if last is not None and last[0] == key:
            return last[1]
        block = self.block[up]
        if key not in block:
            block = self._recompute(up, min(a, b))
        return block[key]

    def _recompute(self, up: bool, index: int) -> dict:
        base = index // self.step * self.step
        top = min(base + self.step, self.edges - 1)
        block = self.block[up] = {}
        indices = range(base + 1, top) if up else range(top - 1, base, -1)
        tree = self.tree
        with tree.ring.precision():
            for i in indices:
                key = (i, i + 1) if up else (i + 1, i)
                block[key] = tree._message(*key)
        return block

    def kept_bytes(self, sizes: dict[tuple[int, int], int]) -> int:
        """The estimated bytes kept: the checkpoints, the last message and the largest block
        of each direction."""
        total = sum(size for (a, b), size in sizes.items() if self._checkpoint(min(a, b)))
        for up in (True, False):
            sides = [sizes.get((i, i + 1) if up else (i + 1, i), 0) for i in range(self.edges)]
            total += max(sides, default=0)
            total += max((sum(sides[base + 1:base + self.step])
                          for base in range(0, self.edges, self.step)), default=0)
        return total



__all__ = ["PathMessages", "CHECKPOINT_ABOVE"]
