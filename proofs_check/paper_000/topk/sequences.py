"""Synthetic categorical Markov-chain sequences shaped like the Top-K experiments' data.

Source: Bai et al., Composition for Pufferfish Privacy, §7.1.1 (datasets), §7.1.4 (train/test
splits) and Appendix D.1.  The paper's data — Foursquare check-ins (78 location labels, users
grouped by country, the first 400 of 500 days for training and the last 100 for testing) and
Capture24 (11 WillettsMET2018 activities, 151 participants in four age bands, 8 participants per
band held out for testing) — are not redistributable, so the experiments run on sequences drawn from
known Markov chains of the same shape.  :mod:`pufferfish.proofs_check.paper_000.topk.real_data`
reads the real files into the same :class:`SequenceData`.

**Generator.**  A base transition matrix over ``k`` states: each row keeps the current state with
probability ``stickiness`` and otherwise jumps according to a Dirichlet draw centred on a Zipf
popularity vector (``π0(j) ∝ (j+1)^−zipf``), with a fraction ``sparsity`` of each row's smallest
entries set to zero (so fitted matrices have zeros and the smoothing of Appendix D.2 matters).
Each group (country, age band) mixes the base matrix with its own random matrix
(``P_g = (1−h) P + h Q_g``, ``h = heterogeneity``), so the groups' Top-K answers differ.  Every
user's chain starts from the group's stationary law.  All randomness comes from one seeded numpy
``Generator``; sampling is vectorised over users (``O(users · length · k)``).

>>> data = generate(SHAPES["activities"].scaled(0.1), seed=1)
>>> len(data.states), data.groups
(11, ('18-29', '30-37', '38-52', '53+'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from pufferfish.models.errors import ModelError

CHECKIN_LABELS = tuple(f"loc{j:02d}" for j in range(1, 78)) + ("Other",)
"""78 check-in states: 77 common labels and "Other" (§7.1.1; Appendix D.4)."""

ACTIVITY_LABELS = ("bicycling", "gym", "sitstand+activity", "sitstand+lowactivity", "sitting",
                   "sleep", "sports", "standing", "vehicle", "walking", "walking+activity")
"""The 11 WillettsMET2018 activity categories (Appendix D.1)."""

AGE_BANDS = ("18-29", "30-37", "38-52", "53+")
"""Capture24's age groups (§7.1.1)."""


@dataclass(frozen=True)
class SequenceData:
    """Categorical sequences per group, split into training and test parts.

    ``train[g]`` and ``test[g]`` are lists of integer arrays (state indices into ``states``), one
    per user/participant.  ``split`` says how the split was made (``"time"``: each user's prefix
    trains and suffix tests — check-ins; ``"participant"``: held-out participants — Capture24).
    """

    states: tuple[str, ...]
    groups: tuple[str, ...]
    train: Mapping[str, tuple[np.ndarray, ...]]
    test: Mapping[str, tuple[np.ndarray, ...]]
    split: str
    source: str

    @property
    def k(self) -> int:
        return len(self.states)

    def counts(self, part: str = "test") -> dict[str, np.ndarray]:
        """Per group, the count of every state over all sequences of ``part`` (the Top-K query's
        input)."""
        data = self.test if part == "test" else self.train
        return {g: _histogram(data[g], self.k) for g in self.groups}

    def max_length(self, part: str = "test") -> int:
        """Longest sequence of ``part`` (the group size of group DP, §7.1.3)."""
        data = self.test if part == "test" else self.train
        return max((len(s) for g in self.groups for s in data[g]), default=0)

    def train_sequences(self) -> list[np.ndarray]:
        return [s for g in self.groups for s in self.train[g]]

    def summary(self) -> dict:
        return {"source": self.source, "split": self.split, "states": len(self.states),
                "groups": len(self.groups),
                "train_sequences": sum(len(self.train[g]) for g in self.groups),
                "test_sequences": sum(len(self.test[g]) for g in self.groups),
                "train_entries": int(sum(len(s) for g in self.groups for s in self.train[g])),
                "test_entries": int(sum(len(s) for g in self.groups for s in self.test[g])),
                "test_max_length": self.max_length("test")}


def _histogram(sequences: Sequence[np.ndarray], k: int) -> np.ndarray:
    total = np.zeros(k, dtype=np.int64)
    for s in sequences:
        total += np.bincount(np.asarray(s, dtype=np.int64), minlength=k)
    return total


@dataclass(frozen=True)
class SequenceShape:
    """The size and correlation of a synthetic data set (see the module docstring).

    ``split="time"``: every user has ``train_length + test_length`` steps, the prefix trains.
    ``split="participant"``: each group has ``users`` participants of ``test_length`` steps, of
    which ``held_out`` are the test set.  ``drift``: the test part comes from
    ``(1−drift) P_g + drift Q'_g`` (a new random matrix), so the training Top-K is not the test
    Top-K for free (the paper's Majority baseline gets 17–19%).  ``length_spread > 0``: each test
    sequence is cut to ``test_length · exp(−|N(0, spread)|)`` steps (at least 2), so lengths vary
    and ``test_length`` is the longest (the group size of group DP).
    """

    name: str
    states: tuple[str, ...]
    groups: tuple[str, ...]
    users: int
    test_length: int
    train_length: int = 0
    held_out: int = 0
    split: str = "time"
    stickiness: float = 0.5
    zipf: float = 1.0
    sparsity: float = 0.3
    heterogeneity: float = 0.3
    concentration: float = 5.0
    drift: float = 0.0
    length_spread: float = 0.0

    def scaled(self, factor: float) -> "SequenceShape":
        """A smaller (or larger) copy: users and lengths times ``factor`` (at least 2 / 2 / 1)."""
        return replace(self, users=max(2 + self.held_out if self.split == "participant" else 2,
                                       int(self.users * factor)),
                       test_length=max(2, int(self.test_length * factor)),
                       train_length=max(2, int(self.train_length * factor)) if self.train_length
                       else 0)


SHAPES: dict[str, SequenceShape] = {
    # 78 labels, users grouped by country; each user's first 4/5 trains (400 of 500 days)
    "checkins": SequenceShape("checkins", CHECKIN_LABELS, tuple(f"country{c:02d}" for c in range(1, 13)),
                              users=150, train_length=120, test_length=40, split="time",
                              stickiness=0.35, zipf=1.1, sparsity=0.4, heterogeneity=0.35,
                              drift=0.5, length_spread=0.6),
    # 11 activities, 4 age bands of ~38 participants (151 in all), 8 per band held out
    "activities": SequenceShape("activities", ACTIVITY_LABELS, AGE_BANDS, users=38, held_out=8,
                                test_length=240, split="participant", stickiness=0.85, zipf=0.6,
                                sparsity=0.2, heterogeneity=0.3, drift=0.5, length_spread=0.3),
}
"""The two shapes of §7.1.1, at sizes that keep the default experiment within minutes."""


def random_transition_matrix(k: int, rng: np.random.Generator, stickiness: float, zipf: float,
                             sparsity: float, concentration: float) -> np.ndarray:
    """A row-stochastic ``k×k`` float matrix: self-loop ``stickiness`` plus a Dirichlet jump row
    centred on a Zipf popularity vector, the smallest ``sparsity`` fraction of jump entries zeroed."""
    if k < 2:
        raise ModelError("need at least two states", "states")
    if not (0 <= stickiness < 1 and 0 <= sparsity < 1 and zipf >= 0 and concentration > 0):
        raise ModelError("stickiness and sparsity must lie in [0, 1), zipf >= 0, "
                         "concentration > 0", "shape")
    popularity = 1.0 / np.arange(1, k + 1) ** zipf
    popularity /= popularity.sum()
    rows = rng.dirichlet(concentration * k * popularity, size=k)
    drop = int(sparsity * k)
    if drop:
        order = np.argsort(rows, axis=1)[:, :drop]
        np.put_along_axis(rows, order, 0.0, axis=1)
        rows /= rows.sum(axis=1, keepdims=True)
    matrix = (1 - stickiness) * rows + stickiness * np.eye(k)
    return matrix / matrix.sum(axis=1, keepdims=True)


def stationary_float(matrix: np.ndarray) -> np.ndarray:
    """The stationary law of a float transition matrix (power iteration from uniform; for
    starting synthetic chains only — exact stationary laws come from pufferfish.models.bayesnet)."""
    pi = np.full(len(matrix), 1.0 / len(matrix))
    for _ in range(10_000):
        new = pi @ matrix
        if np.abs(new - pi).sum() < 1e-13:
            break
        pi = new
    return new / new.sum()


def _cut(sequence: np.ndarray, shape: SequenceShape, rng: np.random.Generator) -> np.ndarray:
    if not shape.length_spread:
        return sequence.copy()
    keep = int(round(len(sequence) * np.exp(-abs(rng.normal(0.0, shape.length_spread)))))
    return sequence[:max(2, keep)].copy()


def sample_chains(matrix, initial: np.ndarray, users: int, length: int,
                  rng: np.random.Generator, start: np.ndarray | None = None) -> np.ndarray:
    """``users`` independent chains of ``length`` steps: an int array ``(users, length)``
    (``start``: given first states instead of draws from ``initial``).

    ``matrix`` is one row-stochastic matrix (a homogeneous chain) or ``length − 1`` per-step
    kernels (a 3-d array or a sequence of matrices; ``matrix[t]`` takes step ``t`` to ``t + 1``:
    the non-homogeneous chain of a model file's ``transitions``, ``models/priors.py``).  The
    uniforms are drawn in the same order either way, so equal kernels give the same chains as
    the one matrix for the same generator state.  ``O(users · length · k)``.
    """
    per_step = np.ndim(matrix[0]) == 2
    kernels = [np.asarray(kernel, dtype=float) for kernel in matrix] if per_step else [matrix]
    if per_step and len(kernels) != length - 1:
        raise ValueError(f"a chain of length {length} needs {length - 1} per-step kernels, got "
                         f"{len(kernels)}")
    cumulatives = []
    for kernel in kernels:
        cumulative = np.cumsum(kernel, axis=1)
        cumulative[:, -1] = 1.0
        cumulatives.append(cumulative)
    cdf = np.cumsum(initial)
    cdf[-1] = 1.0
    out = np.empty((users, length), dtype=np.int64)
    out[:, 0] = (np.searchsorted(cdf, rng.random(users), side="right") if start is None
                 else start)
    for t in range(1, length):
        u = rng.random(users)
        cumulative = cumulatives[t - 1] if per_step else cumulatives[0]
        out[:, t] = np.minimum((cumulative[out[:, t - 1]] <= u[:, None]).sum(axis=1),
                               cumulative.shape[1] - 1)
    if not per_step:
        return np.minimum(out, len(matrix) - 1)
    return out


@dataclass(frozen=True)
class GeneratedData:
    """Synthetic data with the chains that generated it: ``matrices[g] = (training matrix, test
    matrix)`` (equal unless ``drift``)."""

    data: SequenceData
    matrices: Mapping[str, np.ndarray]
    shape: SequenceShape
    seed: int


def generate(shape: SequenceShape, seed: int = 0) -> SequenceData:
    """Synthetic :class:`SequenceData` of ``shape`` from ``numpy.random.default_rng(seed)``."""
    return generate_with_truth(shape, seed).data


def generate_with_truth(shape: SequenceShape, seed: int = 0) -> GeneratedData:
    """As :func:`generate`, also returning each group's generating matrix."""
    if shape.split not in ("time", "participant"):
        raise ModelError(f"unknown split {shape.split!r}", "shape.split")
    if shape.split == "participant" and not 0 < shape.held_out < shape.users:
        raise ModelError("held_out must be between 1 and users - 1", "shape.held_out")
    rng = np.random.default_rng(seed)
    k = len(shape.states)
    base = random_transition_matrix(k, rng, shape.stickiness, shape.zipf, shape.sparsity,
                                    shape.concentration)
    train, test, matrices = {}, {}, {}
    for group in shape.groups:
        own = random_transition_matrix(k, rng, shape.stickiness, shape.zipf, shape.sparsity,
                                       shape.concentration)
        # a group-specific relabelling of the popular states shifts the group's favourites
        perm = np.arange(k)
        top = min(k, 8)
        perm[:top] = rng.permutation(top)
        own = own[np.ix_(perm, perm)]
        matrix = (1 - shape.heterogeneity) * base + shape.heterogeneity * own
        matrix /= matrix.sum(axis=1, keepdims=True)
        initial = stationary_float(matrix)
        later = matrix
        if shape.drift:
            fresh = random_transition_matrix(k, rng, shape.stickiness, shape.zipf, shape.sparsity,
                                             shape.concentration)
            perm = np.arange(k)
            perm[:min(k, 8)] = rng.permutation(min(k, 8))
            later = (1 - shape.drift) * matrix + shape.drift * fresh[np.ix_(perm, perm)]
            later /= later.sum(axis=1, keepdims=True)
        if shape.split == "time":
            seqs = sample_chains(matrix, initial, shape.users, shape.train_length, rng)
            ends = seqs[:, -1]
            tails = sample_chains(later, initial, shape.users, shape.test_length + 1, rng,
                                  start=ends)[:, 1:]
            train[group] = tuple(s.copy() for s in seqs)
            test[group] = tuple(_cut(s, shape, rng) for s in tails)
        else:
            train_seqs = sample_chains(matrix, initial, shape.users - shape.held_out,
                                       shape.test_length, rng)
            test_seqs = sample_chains(later, stationary_float(later), shape.held_out,
                                      shape.test_length, rng)
            train[group] = tuple(s.copy() for s in train_seqs)
            test[group] = tuple(_cut(s, shape, rng) for s in test_seqs)
        matrices[group] = (matrix, later)
    data = SequenceData(tuple(shape.states), tuple(shape.groups), train, test, shape.split,
                        f"synthetic:{shape.name}:seed={seed}")
    return GeneratedData(data, matrices, shape, seed)
