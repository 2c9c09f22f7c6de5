"""The structured audit of a Bayesian network too large to enumerate: the bnlearn repository's
alarm network (37 variables, about 1.7·10^16 datasets), a noisy count over three of its
variables, checked against the network's own variable elimination
(:meth:`pufferfish.models.bayesnet.BayesNet.marginal`, a separate implementation)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pufferfish
from pufferfish.models.bif import load_bif
from pufferfish.models.mechanisms import GeometricNoise
from tests.models.conftest import bnlearn_path

READ = ["CVP", "PCWP", "LVEDVOLUME"]
SECRETS = ["HYPOVOLEMIA", "LVFAILURE"]


def _alarm_model() -> tuple[dict, object]:
    path = bnlearn_path("alarm")
    network = load_bif(path, renormalise=True)
    model = {"pufferfish_model": 1, "attributes": list(network.nodes),
             "domain": {node: list(network.domains[node]) for node in network.nodes},
             "datasets": "all",
             "priors": {"alarm": {"bayesnet": {"bif": str(path), "renormalise": True}}},
             "secrets": {f"{v}={x}": {"where": {v: x}} for v in SECRETS for x in ("TRUE", "FALSE")},
             "pairs": [[f"{v}=TRUE", f"{v}=FALSE"] for v in SECRETS],
             "mechanisms": {"high": {"query": {"count": {"attributes": READ, "value": "HIGH"}},
                                     "noise": {"geometric": {"alpha": "1/2", "min": 0,
                                                             "max": len(READ)}}}}}
    return model, network


def _level_by_marginals(network) -> Fraction:
    """The level from ``P(secret variable, read variables)`` by the network's own elimination."""
    noise = GeometricNoise(Fraction(1, 2), 0, len(READ))
    worst = Fraction(0)
    for variable in SECRETS:
        joint = network.marginal([variable, *READ])
        laws = {}
        for value in ("TRUE", "FALSE"):
            law: dict[int, Fraction] = {}
            mass = Fraction(0)
            for values in product(*(network.domains[v] for v in READ)):
                p = joint.get((value, *values), Fraction(0))
                mass += p
                for output, q in noise.around(sum(v == "HIGH" for v in values)).items():
                    law[output] = law.get(output, Fraction(0)) + p * q
            laws[value] = {output: p / mass for output, p in law.items()}
        for first, second in (("TRUE", "FALSE"), ("FALSE", "TRUE")):
            for output, p in laws[first].items():
                worst = max(worst, p / laws[second][output])
    return worst


def test_alarm_is_audited_exactly_without_enumeration():
    model, network = _alarm_model()
    result = pufferfish.audit(model)
    assert result.method == "structured"
    assert pufferfish.load(model).universe.size > 10**16
    audit = result.mechanisms[0]
    assert audit.pufferfish.max_ratio == _level_by_marginals(network)
    assert audit.pufferfish.max_ratio > 1
    assert {level.pair for level in audit.pufferfish.levels} == {
        f"{v}=TRUE <-> {v}=FALSE" for v in SECRETS}
    # the count moves by at most 1 when one entry changes: per-entry DP is exactly log 2
    assert audit.dp[0].max_ratio == 2


def test_the_renormalised_rows_are_reported_by_the_audit():
    model, network = _alarm_model()
    assert network.renormalised            # alarm's published tables do not all sum to 1
    result = pufferfish.audit(model)
    assert result.notes and "divided by its sum" in result.notes[0]
    assert result.to_dict()["notes"] == list(result.notes)
    assert "note: " + result.notes[0] in result.explain("alarm")
