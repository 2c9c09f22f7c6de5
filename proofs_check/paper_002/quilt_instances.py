"""Paper instances for the claims of Wang et al., Privacy-Preserving Analysis of Correlated Data, §4
and Appendix B (Markov quilts and the Markov Quilt Mechanism): the v-structure network of
``examples/bayesnet_vstructure.json``, random networks and reversible chains, the grid of binary
chains, and their conversion to model files (for counterexamples).

>>> family = vstructure_family()
>>> [str(n) for n in family.nodes], len(family.members)
(['A', 'B', 'C', 'D', 'E'], 2)
>>> random_reversible(0, 3, 4).k
3
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import paper
from pufferfish.models.bayesnet import BayesNet, BayesNetFamily, MarkovChain, reversible_chain
from pufferfish.models.distribution import Distribution
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import MarkovPrior, TablePrior
from pufferfish.models.secrets import entry_pairs, entry_secrets
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register, violation

PAPER = paper("002").key


def fail(claim_id: str, instance: Instance, detail: str, model: PufferfishModel | None) -> ClaimOutcome:
    """The claim's violation on ``instance`` (with ``model`` as the counterexample file)."""
    return violation(claim_id, PAPER, instance, detail, model)


def claim(claim_id: str, section: str, statement: str, generate, check,
          observation: bool = False, mutants: tuple[Mutant, ...] = ()) -> None:
    """Register one claim of the paper with its mutants."""
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation, mutants))


# ------------------------------------------------------------------------------------------------
# models for counterexamples
# ------------------------------------------------------------------------------------------------

def chain_model(chains: tuple[MarkovChain, ...], description: str = "") -> PufferfishModel:
    """The chains as a model file: ``markov`` priors over ``x1..xT``, every entry pair.

    A chain whose initial distribution is "any" is written with the uniform initial distribution.
    """
    first = chains[0]
    T, states = first.length, first.states
    universe = Universe.product([f"x{t}" for t in range(1, T + 1)], [list(states)] * T)
    priors = {}
    for m in chains:
        init = m.initial or tuple(Fraction(1, m.k) for _ in states)
        kernel = {s: Distribution._trusted({t: p for t, p in zip(states, m.matrix[i]) if p})
                  for i, s in enumerate(states)}
        name = m.name.replace(" ", "_")
        priors[name] = MarkovPrior(name, universe.attributes,
                                   Distribution._trusted({s: p for s, p in zip(states, init) if p}),
                                   tuple([kernel] * (T - 1)), homogeneous=True)
    secrets = entry_secrets(universe)
    return PufferfishModel(universe, priors, secrets, entry_pairs(universe, secrets),
                           description=description)


def bayesnet_model(family: BayesNetFamily) -> PufferfishModel:
    """A Bayesian-network family as a model file: one ``table`` prior per member, entry pairs."""
    nodes = family.nodes
    universe = Universe.product([str(n) for n in nodes], [list(family.domains[n]) for n in nodes])
    priors = {}
    for net in family.members:
        table = {}
        for dataset in universe.datasets():
            p = net.probability(dict(zip(nodes, dataset)))
            if p:
                table[dataset] = p
        priors[net.name] = TablePrior(net.name, Distribution._trusted(table))
    secrets = entry_secrets(universe)
    return PufferfishModel(universe, priors, secrets, entry_pairs(universe, secrets))



# ------------------------------------------------------------------------------------------------
# instance generators
# ------------------------------------------------------------------------------------------------

def vstructure_family() -> BayesNetFamily:
    """The 5-node network of ``examples/bayesnet_vstructure.json`` (A → C ← B, C → D, B → E)."""
    parents = {"A": [], "B": [], "C": ["A", "B"], "D": ["C"], "E": ["B"]}
    domains = {n: (0, 1) for n in parents}
    members = []
    for name, pa, pb, pc, pd, pe in (
            ("theta1", "1/2", "2/5", ("1/10", "1/2", "7/10", "9/10"), ("1/5", "3/4"), ("3/10", "4/5")),
            ("theta2", "2/3", "1/2", ("1/5", "2/5", "3/5", "4/5"), ("1/10", "9/10"), ("2/5", "3/5"))):
        def row(p1: str) -> dict:
            return {0: 1 - Fraction(p1), 1: Fraction(p1)}
        cpts = {"A": {(): row(pa)}, "B": {(): row(pb)},
                "C": {k: row(p) for k, p in zip(((0, 0), (0, 1), (1, 0), (1, 1)), pc)},
                "D": {(0,): row(pd[0]), (1,): row(pd[1])},
                "E": {(0,): row(pe[0]), (1,): row(pe[1])}}
        members.append(BayesNet.from_cpts(parents, domains, cpts, name))
    return BayesNetFamily(tuple(members))


def random_network(seed: int, n: int = 5, zeros: bool = False) -> BayesNet:
    """A random DAG on ``n`` nodes (edges i→j, i<j, with probability 1/2) and random CPTs."""
    rng = random.Random(seed)
    parents = {f"V{j}": [f"V{i}" for i in range(j) if rng.random() < 0.5] for j in range(n)}
    domains = {v: (0, 1) for v in parents}
    cpts = {}
    for v, ps in parents.items():
        rows = {}
        for key in _keys(len(ps)):
            p = Fraction(rng.randint(0 if zeros else 1, 9), 10 if not zeros else 9)
            rows[key] = {0: p, 1: 1 - p}
        cpts[v] = rows
    return BayesNet.from_cpts(parents, domains, cpts, f"random{seed}")


def _keys(m: int) -> list[tuple]:
    return [tuple((k >> j) & 1 for j in range(m)) for k in range(2 ** m)]


def random_reversible(seed: int, k: int, length: int, initial: str = "random") -> MarkovChain:
    """A random reversible chain: random symmetric integer weights (diagonal boosted)."""
    rng = random.Random(seed)
    W = [[0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i, k):
            W[i][j] = W[j][i] = rng.randint(1, 6) + (rng.randint(0, 12) if i == j else 0)
    init = None
    if initial == "random":
        w = [rng.randint(1, 5) for _ in range(k)]
        init = [Fraction(x, sum(w)) for x in w]
    elif initial == "point":
        init = [Fraction(int(s == 0)) for s in range(k)]
    c = reversible_chain(W, length, init, f"rev{seed}")
    return c.stationary_start() if initial == "stationary" else c


BINARY_GRID = [("1/10", "1/10"), ("1/2", "1/2"), ("9/10", "4/5"), ("3/10", "7/10"),
                ("19/20", "19/20"), ("1/5", "9/10"), ("3/5", "2/5"), ("99/100", "1/2")]


def binary_chains(length: int) -> Iterator[tuple[str, MarkovChain]]:
    inits = [("uniform", ["1/2", "1/2"]), ("skewed", ["1/5", "4/5"]), ("point 0", ["1", "0"])]
    for p0, p1 in BINARY_GRID:
        for label, init in inits:
            yield f"p0={p0}, p1={p1}, start {label}", MarkovChain.binary(p0, p1, length, init)



__all__ = ["PAPER", "fail", "claim", "chain_model", "bayesnet_model", "vstructure_family",
           "random_network", "random_reversible", "BINARY_GRID", "binary_chains"]
