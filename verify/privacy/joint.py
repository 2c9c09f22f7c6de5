"""Joint masses ``Pr[s ∧ M(Data) = ω | θ]`` for every secret and output, in one pass per prior.

Definition 5 (Bai et al., Composition for Pufferfish Privacy, §2.2) compares
``Pr[M(Data) = ω | s, θ]`` across secrets, and Definition 4 compares posteriors ``Pr[s | ω, θ]``
with priors.  Both need, for one prior θ, the masses ``Pr[s | θ]`` and ``Pr[s ∧ ω | θ]``.  They are
accumulated in one pass over the prior's support: each dataset adds its weighted kernel row once to
the bucket of its *signature* (the set of secrets it satisfies), and the buckets are then summed per
secret.  The cost is ``O(|supp θ| + R·|Ω| + #signatures·#secrets·|Ω|)`` for the ``R`` distinct
(signature, kernel row) pairs (``R <= |supp θ|``; datasets with the same kernel key share a row, so
a query mechanism has few), independent of the number of secret pairs.

Everything is integer arithmetic: the prior's weights are scaled to integers over their common
denominator and the kernel is a :class:`~pufferfish.models.kernel.KernelTable`; conditional ratios are ratios
of these integers because the scale factors cancel.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.kernel import KernelTable, integer_weights
from pufferfish.models.secrets import Secret
from pufferfish.models.numbers import exact_ratio
from pufferfish.models.universe import Dataset


@dataclass(frozen=True)
class SecretJoint:
    """Integer-scaled masses for one prior and one mechanism.

    ``mass[s] / scale_prior = Pr[s | θ]``; ``joint[s][o] / (scale_prior·table.denominator) =
    Pr[s ∧ M = outputs[o] | θ]``; ``total_joint[o]`` is the same without the secret.
    """

    prior_name: str
    mass: Mapping[str, int]
    joint: Mapping[str, Sequence[int]]
    total_mass: int
    total_joint: Sequence[int]
    table: KernelTable

    def conditional(self, secret: str, output_position: int) -> Fraction:
        """``Pr[M = ω | s, θ]`` as an exact Fraction (for witnesses and display)."""
        return exact_ratio(self.joint[secret][output_position],
                           self.mass[secret] * self.table.denominator)


def accumulate(prior_name: str, support: Sequence[tuple[Dataset, Fraction]],
               table: KernelTable, secrets: Sequence[Secret]) -> SecretJoint:
    """One pass over ``support`` (``(D, θ(D))`` pairs) accumulating every secret's joint vector."""
    weights, _ = integer_weights([p for _, p in support])
    # First the prior mass of each (signature, kernel row) — datasets with the same kernel key
    # share one row object — then each distinct row is weighted once: Σ_D θ(D)·row(D) regrouped.
    row_mass: dict[tuple[tuple[int, ...], int], list] = {}
    for (dataset, _), weight in zip(support, weights):
        signature = tuple(k for k, s in enumerate(secrets) if s.holds(dataset))
        row = table.rows[table.dataset_index[dataset]]
        entry = row_mass.get((signature, id(row)))
        if entry is None:
            row_mass[(signature, id(row))] = [weight, row]
        else:
            entry[0] += weight
    names = [s.name for s in secrets]
    groups = (([names[k] for k in signature], weight, row)
              for (signature, _), (weight, row) in row_mass.items())
    return joint_from_groups(prior_name, groups, table, names)


def joint_from_groups(prior_name: str, groups: Iterable[tuple[Sequence[str], int, Sequence[int]]],
                      table: KernelTable, secret_names: Sequence[str]) -> SecretJoint:
    """The :class:`SecretJoint` of integer-weighted kernel rows grouped by signature.

    Each group is ``(names of the secrets its datasets satisfy, Σ weight, kernel row)``: the prior
    mass (integer-scaled, one scale for all groups) of datasets with that signature and that row.
    Secrets outside ``secret_names`` are ignored.  Cost ``O(#groups·|Ω| + #signatures·#secrets·|Ω|)``.
    """
    width = len(table.outputs)
    wanted = set(secret_names)
    buckets: dict[tuple[str, ...], list] = {}
    total = [0] * width
    total_mass = 0
    for signature, weight, row in groups:
        signature = tuple(name for name in signature if name in wanted)
        bucket = buckets.get(signature)
        if bucket is None:
            bucket = buckets[signature] = [0, [0] * width]
        bucket[0] += weight
        vector = bucket[1]
        for o, value in enumerate(row):
            if value:
                vector[o] += weight * value
        total_mass += weight
    mass = {name: 0 for name in secret_names}
    joint = {name: [0] * width for name in secret_names}
    for signature, (bucket_mass, vector) in buckets.items():
        for o, value in enumerate(vector):
            total[o] += value
        for name in signature:
            mass[name] += bucket_mass
            target = joint[name]
            for o, value in enumerate(vector):
                target[o] += value
    return SecretJoint(prior_name, mass, joint, total_mass, total, table)


def constrained_directions(model, prior_name: str, mass, skipped: list):
    """The ordered secret pairs ``(pair, first, second)`` that Definition 5 constrains under one
    prior: both secrets of positive probability (``mass[name]``, any positive scale); the others
    are appended to ``skipped`` as ``(direction, prior, reason)``."""
    for pair in model.pairs:
        for first, second in pair.directions():
            if not mass[first.name] or not mass[second.name]:
                zero = first.name if not mass[first.name] else second.name
                skipped.append((f"{first.name} -> {second.name}", prior_name,
                                f"Pr[{zero} | {prior_name}] = 0"))
                continue
            yield pair, first, second
