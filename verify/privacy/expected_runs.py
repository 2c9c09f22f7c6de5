"""Expected number of runs until repeated outputs reveal the dataset or the secret (§4 of
Bai et al., Composition for Pufferfish Privacy: Theorems 1–3 bound or state this number for
Examples 4.1–4.3).

Setting.  The true dataset ``D`` is drawn from a prior θ; the mechanism is run again and again on
``D`` (independent runs); after each run the attacker knows the set ``B`` of distinct outputs seen
so far.  A dataset ``D'`` in the prior's support is *consistent* with ``B`` when every output in
``B`` has positive probability under ``M(D')``.  The target is *revealed* when every consistent
dataset belongs to the true dataset's class — its own singleton (``reveal = "dataset"``), or the
side of a secret pair (``reveal = "secret"``): the posterior then puts probability 1 on the truth.
``T`` is the first run after which the target is revealed; we compute ``E[T]`` exactly.

Algorithm.  Given ``D`` with output distribution ``p`` on its support ``S_D``, whether ``B ⊆ S_D``
is revealing depends only on ``B``, and once revealing it stays so (consistency only shrinks).  With
``h(B)`` the expected number of further runs from a non-revealing ``B``,

    h(B) = (1 + Σ_{ω ∉ B} p(ω) h(B ∪ {ω})) / (1 − p(B)),   h(revealing) = 0,

(a run either repeats an output of ``B`` — probability ``p(B)`` — or adds a new one).  If the full
support ``S_D`` is not revealing, ``T = ∞`` with probability 1 and ``E[T] = ∞`` when ``θ(D) > 0``.
``E[T] = Σ_D θ(D)·h_D(∅)`` exactly in rationals.  Non-revealing sets are exactly the subsets of the
*consistency masks* ``{ω ∈ S_D : P(ω|D') > 0}`` of other-class datasets ``D'``, so only those are
visited.  Cost: ``O(|supp θ|²·|Ω|)`` for the masks plus the number of non-revealing sets visited,
which is bounded by ``max_states`` (a clear error beyond it).

:func:`monte_carlo_runs_to_reveal` is an independent cross-check by simulation (used in tests).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.numbers import INFINITY, Ratio, fraction_str
from pufferfish.models.secrets import SecretPair
from pufferfish.models.universe import Dataset
from pufferfish.verify.report import Explained

DEFAULT_MAX_STATES = 10**6
"""The most non-revealing sets of outputs the exact computation may visit (refused above)."""

ClassOf = Callable[[Dataset], Hashable]
"""A function naming the class of a dataset: what the runs must reveal (the dataset itself, or
the secret of a pair)."""


@dataclass(repr=False, frozen=True)
class ExpectedRunsResult(Explained):
    """``E[T]`` exactly (a Fraction or infinity) and the per-dataset contributions."""

    mechanism: str
    target: str
    expected_runs: Ratio
    per_dataset: tuple[tuple[Dataset, Fraction, Ratio], ...]

    def to_dict(self) -> dict:
        return {"check": "expected_runs", "mechanism": self.mechanism, "target": self.target,
                "expected_runs": fraction_str(self.expected_runs),
                "per_dataset": [{"dataset": list(d) if isinstance(d, tuple) else d,
                                 "prior": fraction_str(p), "expected_runs": fraction_str(e)}
                                for d, p, e in self.per_dataset]}

    def explain(self) -> str:
        return (f"{self.mechanism}: expected runs until the {self.target} is revealed = "
                f"{fraction_str(self.expected_runs)}")


def dataset_classes() -> ClassOf:
    """Each dataset is its own class: the target is the dataset itself."""
    return lambda dataset: dataset


def pair_classes(pair: SecretPair) -> ClassOf:
    """The class of a dataset is the side of ``pair`` it satisfies (it must satisfy exactly one)."""
    def side(dataset: Dataset) -> Hashable:
        first, second = pair.first.holds(dataset), pair.second.holds(dataset)
        if first == second:
            raise ModelError(f"dataset {list(dataset)} satisfies {'both' if first else 'neither'} "
                             f"of the secrets {pair.label}; restrict the prior to s1 or s2")
        return pair.first.name if first else pair.second.name
    return side


def expected_runs_to_reveal(mechanism: Mechanism, prior: Distribution, classes: ClassOf,
                            target: str = "dataset",
                            max_states: int = DEFAULT_MAX_STATES) -> ExpectedRunsResult:
    """Exact ``E[T]`` for the true dataset drawn from ``prior`` (a distribution over datasets)."""
    support = list(prior.items())
    label = {d: classes(d) for d, _ in support}
    per_dataset = []
    total: Ratio = Fraction(0)
    budget = [max_states]
    for dataset, weight in support:
        value = _expected_given(mechanism, dataset, support, label, budget)
        per_dataset.append((dataset, weight, value))
        total = INFINITY if value == INFINITY or total == INFINITY else total + weight * value
    return ExpectedRunsResult(mechanism.name, target, total, tuple(per_dataset))


def _expected_given(mechanism: Mechanism, dataset: Dataset, support: Sequence[tuple[Dataset, Fraction]],
                    label: dict, budget: list[int]) -> Ratio:
    dist = mechanism.distribution(dataset)
    outputs = list(dist.support)
    probs = [dist.prob(o) for o in outputs]
    full = (1 << len(outputs)) - 1
    masks = set()
    for other, _ in support:
        if label[other] == label[dataset]:
            continue
        other_dist = mechanism.distribution(other)
        mask = 0
        for k, output in enumerate(outputs):
            if other_dist.prob(output):
                mask |= 1 << k
        masks.add(mask)
    if not masks:
        return Fraction(0)                      # the prior's support is all of one class
    maximal = [m for m in masks if not any(m != n and m & n == m for n in masks)]
    if any(m == full for m in maximal):
        return INFINITY                         # every output is compatible with another class

    def non_revealing(observed: int) -> bool:
        return any(observed & m == observed for m in maximal)

    memo: dict[int, Fraction] = {}

    def h(observed: int) -> Fraction:
        if observed in memo:
            return memo[observed]
        budget[0] -= 1
        if budget[0] < 0:
            raise TooLargeError("the expected-runs recursion visits more than the limit of "
                                "observation sets; raise --max-states")
        seen_mass = sum((probs[k] for k in range(len(outputs)) if observed >> k & 1), Fraction(0))
        acc = Fraction(1)
        for k in range(len(outputs)):
            bit = 1 << k
            if observed & bit:
                continue
            after = observed | bit
            if non_revealing(after):
                acc += probs[k] * h(after)
        value = acc / (1 - seen_mass)
        memo[observed] = value
        return value

    return h(0)


def monte_carlo_runs_to_reveal(mechanism: Mechanism, prior: Distribution, classes: ClassOf,
                               trials: int, rng: random.Random,
                               cap: int = 10_000) -> list[int]:
    """Independent cross-check: simulate ``trials`` attacks, returning each ``T`` (capped at ``cap``).

    Sampling draws from exact distributions with ``rng.random()``; floats here only pick samples,
    they never decide a verdict.
    """
    support = list(prior.items())
    datasets = [d for d, _ in support]
    samples = []
    for _ in range(trials):
        truth = _draw(support, rng)
        consistent = [d for d in datasets]
        runs = 0
        truth_class = classes(truth)
        while runs < cap:
            if all(classes(d) == truth_class for d in consistent):
                break
            output = _draw(list(mechanism.distribution(truth).items()), rng)
            runs += 1
            consistent = [d for d in consistent if mechanism.distribution(d).prob(output)]
        samples.append(runs)
    return samples


def _draw(items: Sequence[tuple[object, Fraction]], rng: random.Random):
    u = Fraction(rng.getrandbits(53), 1 << 53)
    acc = Fraction(0)
    for value, p in items:
        acc += p
        if u < acc:
            return value
    return items[-1][0]
