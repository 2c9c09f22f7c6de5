"""Claim ``004.C3.pufferfish`` of Zhang et al., Differential Confounding Privacy and Inverse
Composition, App. C.3: when the secret is a function of the dataset, (ε, 0)-DCP is ε-Pufferfish
privacy with the single prior P_θ(x) and the secrets {x : G(x) = s}.  The least DCP level
(:mod:`pufferfish.verify.dcp.levels`) is compared with the level of the toolkit's Pufferfish audit
of the reduction (:func:`pufferfish.verify.dcp.composition.pufferfish_cross_check`), an independent
code path.

Instances: seeded models whose datasets each belong to one secret (2–3 secrets, up to 6 datasets,
zero-probability datasets, adjacency "all" or a path).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

import networkx as nx

from pufferfish.models.dcp import DCPModel
from pufferfish.models.files.dcp_file import dcp_model_to_dict
from pufferfish.models.numbers import INFINITY, epsilon_str
from pufferfish.proofs_check.paper_004.composition import PAPER, random_row
from pufferfish.proofs_check.registry import (Claim, ClaimOutcome, Instance, Mutant, register,
                                              violation)


def reduction_instances() -> Iterator[Instance]:
    """Models whose secret is a function of the dataset (several datasets per secret)."""
    for seed in range(12):
        rng = random.Random(100 + seed)
        n_secrets = 2 + seed % 2
        datasets = [f"x{j}" for j in range(rng.randint(n_secrets, 6))]
        owner = {x: f"s{k % n_secrets}" for k, x in enumerate(datasets)}
        joint: dict = {}
        for x in datasets:
            joint.setdefault(owner[x], {})[x] = Fraction(rng.randint(0 if seed % 3 else 1, 4))
        for s in list(joint):
            joint[s] = {x: p for x, p in joint[s].items() if p} or {next(iter(joint[s])): Fraction(1)}
        total = sum(p for row in joint.values() for p in row.values())
        joint = {s: {x: p / total for x, p in row.items()} for s, row in joint.items()}
        mechanisms = {"m": {x: random_row(rng, 2 + seed % 3) for x in datasets}}
        adjacency: object = "all" if seed % 2 else nx.path_graph(sorted(joint))
        yield Instance(f"S = G(X), seed {seed}: {len(joint)} secrets, {len(datasets)} datasets",
                       {"model": DCPModel.build(joint, adjacency, mechanisms,
                                                secrets=sorted(joint), datasets=datasets)})


def reduction_check(squared: bool = False):
    """App. C.3: least DCP e^ε = Pufferfish level (``squared``: = its square, a mutant)."""
    return lambda instance: _check_pufferfish_reduction(instance, squared)


def _check_pufferfish_reduction(instance: Instance, squared: bool = False) -> ClaimOutcome:
    from pufferfish.verify.dcp.composition import pufferfish_cross_check

    model = instance.params["model"]
    dcp, puffer = pufferfish_cross_check(model, "m")
    expected = puffer if not squared or puffer == INFINITY else puffer * puffer
    detail = (f"(ε, 0)-DCP least e^ε = {epsilon_str(dcp)}, Pufferfish level of the reduction "
              f"e^ε = {epsilon_str(puffer)}")
    if dcp == expected:
        return ClaimOutcome(True, detail)
    return violation("004.C3.pufferfish", PAPER, instance, detail, model, dcp_model_to_dict)


register(Claim(
    "004.C3.pufferfish", PAPER, "App. C.3",
    "When the secret is a function of the dataset, (ε, 0)-DCP is ε-Pufferfish privacy with the "
    "single prior P_θ(x) and secrets {x : G(x) = s}: the least DCP ε equals the Pufferfish "
    "level computed independently by the toolkit's Pufferfish audit.",
    reduction_instances, reduction_check(), False,
    (Mutant.checking("the DCP level claimed to be twice the Pufferfish ε", reduction_check(True),
                     reduction_instances),)))
