"""The structured audit (sum-product on the prior's junction tree) against the enumerating
audit: the same Pufferfish levels, leakage, joint release and per-entry DP levels, exactly, on
random chains, product priors and mechanisms, and on the chain of the structured audit's
headline case at 12 and 16 attributes (enumerated) and 60 (structured only)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pufferfish
from pufferfish.examples import example_path
from pufferfish.cli.main import main
from pufferfish.models.bayesnet import BayesNetPrior
from pufferfish.models.errors import UnsupportedError
from pufferfish.models.universe import Universe
from pufferfish.verify.structured.audit import structured_leakage, structured_pufferfish
from pufferfish.verify.structured.laws import output_laws
from pufferfish.verify.structured.elimination import JunctionTree


def _law(draw, values) -> dict:
    weights = draw(st.lists(st.integers(0, 4), min_size=len(values), max_size=len(values))
                   .filter(any))
    return {str(v): str(Fraction(w, sum(weights))) for v, w in zip(values, weights)}


@st.composite
def structured_models(draw) -> dict:
    """Chains and product priors over 1–4 attributes with domains {0,1}, {0,1,2} or {1,2}; sums,
    counts, parities and attribute reads with clamped geometric noise (the clamp may cut the
    range on either side, or lie wholly below it), randomized response on a few attributes,
    repeats, post-processing."""
    width = draw(st.integers(1, 4))
    domain = draw(st.sampled_from([[0, 1], [0, 1, 2], [1, 2]]))
    attributes = [f"x{i + 1}" for i in range(width)]
    priors = {"chain": {"markov": {"initial": _law(draw, domain),
                                   "transition": {str(v): _law(draw, domain) for v in domain}}}}
    if draw(st.booleans()):
        priors["product"] = {"independent": {a: _law(draw, domain) for a in attributes}}
    top = width * max(domain)
    mechanisms = {}
    for k in range(draw(st.integers(1, 2))):
        kind = draw(st.sampled_from(["sum", "count", "parity", "attribute", "rr"]))
        read = sorted(draw(st.sets(st.sampled_from(attributes), min_size=1, max_size=2)))
        if kind == "rr":
            mechanisms[f"m{k}"] = {"per_entry": {"randomized_response": {
                "keep": draw(st.sampled_from(["3/4", "1/2", "1"])), "attributes": read}}}
            continue
        query = ({"attribute": read[0]} if kind == "attribute" else
                 {kind: {"attributes": read}})
        body = {"query": query}
        if kind in ("sum", "count") or draw(st.booleans()):
            low = draw(st.integers(-3, top))
            high = draw(st.integers(low, top + 1))
            body["noise"] = {"geometric": {"alpha": draw(st.sampled_from(["0", "1/3", "1/2"])),
                                           "min": low, "max": high}}
        mechanisms[f"m{k}"] = body
    if draw(st.booleans()):
        mechanisms["twice"] = {"repeat": {"mechanism": "m0", "times": 2}}
    secrets = {}
    for k, attribute in enumerate(draw(st.sets(st.sampled_from(attributes), min_size=1,
                                               max_size=2))):
        allowed = draw(st.sets(st.sampled_from(domain), min_size=1, max_size=len(domain) - 1))
        secrets[f"s{k}"] = {"where": {attribute: sorted(allowed)}}
        secrets[f"t{k}"] = {"where": {attribute: [v for v in domain if v not in allowed]}}
    pairs = [[f"s{k}", f"t{k}"] for k in range(len(secrets) // 2)]
    return {"pufferfish_model": 1, "attributes": attributes, "domain": domain,
            "datasets": "all", "priors": priors, "secrets": secrets, "pairs": pairs,
            "mechanisms": mechanisms}


def _levels(result) -> dict:
    return {"pufferfish": [m.pufferfish.max_ratio for m in result.mechanisms],
            "skipped": [len(m.pufferfish.skipped) for m in result.mechanisms],
            "leakage": [m.leakage.worst_shift for m in result.mechanisms],
            "dp": [[d.max_ratio for d in m.dp] for m in result.mechanisms],
            "joint": None if result.composition is None else result.composition.joint.max_ratio}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structured_models())
def test_structured_audit_equals_the_enumerating_audit(model):
    structured = pufferfish.audit(model, method="structured")
    enumerated = pufferfish.audit(model, method="enumeration")
    assert structured.method == "structured" and enumerated.method == "enumeration"
    assert _levels(structured) == _levels(enumerated)


def _chain(width: int) -> dict:
    """The shipped 60-attribute chain (``examples/chain_sum_T60.json``) cut to ``width``."""
    data = json.loads(example_path("chain_sum_T60.json").read_text())
    data["attributes"] = data["attributes"][:width]
    data["mechanisms"]["sum"]["noise"]["geometric"]["max"] = width
    return data


@pytest.mark.parametrize("width", [12, 16])
def test_the_binary_chain_sum_agrees_with_enumeration(width):
    structured = pufferfish.audit(_chain(width), method="structured")
    enumerated = pufferfish.audit(_chain(width), method="enumeration")
    assert _levels(structured) == _levels(enumerated)
    assert structured.mechanisms[0].pufferfish.witness.max_ratio > 1
    # a finite DP level scans every ordered neighbour pair: |U| · n of them
    assert (structured.mechanisms[0].dp[0].pairs_checked
            == enumerated.mechanisms[0].dp[0].pairs_checked == 2**width * width)


def test_sixty_attributes_are_audited_exactly_from_the_command_line(tmp_path, capsys):
    path = tmp_path / "chain60.json"
    path.write_text(json.dumps(_chain(60)))
    assert main(["audit", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["method"]["path"] == "structured"
    assert "audit plan: exact by the prior's structure" in captured.err
    level = report["mechanisms"][0]["pufferfish"]
    assert len(level["levels"]) == 2 * 60
    ratio = Fraction(level["max_ratio"])
    # a longer chain tells more about each entry: its level is at least the 16-attribute one,
    # and the geometric noise (alpha 1/2) keeps the sum's per-entry DP level at log 2
    sixteen = pufferfish.audit(_chain(16), method="structured").mechanisms[0].pufferfish
    assert ratio >= sixteen.max_ratio > 1
    assert report["mechanisms"][0]["dp"][0]["max_ratio"] == "2"


def test_auto_enumerates_a_small_universe_and_says_why_otherwise():
    small = pufferfish.audit(_chain(4))
    assert small.method == "enumeration" and "fits in one block" in small.method_note
    table = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
             "priors": {"t": {"table": [[[0], "1/2"], [[1], "1/2"]]}},
             "secrets": {"a": {"where": {"x": 0}}, "b": {"where": {"x": 1}}},
             "pairs": [["a", "b"]], "mechanisms": {"id": {"query": "sum"}}}
    with pytest.raises(UnsupportedError, match="no factored form"):
        pufferfish.audit(table, method="structured")
    assert "does not apply" in pufferfish.audit(table).method_note or \
        pufferfish.audit(table).method == "enumeration"


def test_a_network_law_equals_its_enumeration(four_node_network):
    net = four_node_network
    universe = Universe.product(list("abcd"), [[0, 1]] * 4)
    weights = [{0: 0, 1: 1}] * 4
    tree = JunctionTree.of_prior(BayesNetPrior("net", tuple("abcd"), net), universe, weights)
    for conditions in ({}, {0: frozenset([1])}, {3: frozenset([0])}, {0: frozenset([0]),
                       3: frozenset([1])}, {1: frozenset([1]), 2: frozenset([0])}):
        expected = [Fraction(0)] * 5
        for dataset in universe.datasets(100):
            if all(dataset[v] in allowed for v, allowed in conditions.items()):
                expected[sum(dataset)] += net.probability(dict(zip("abcd", dataset)))
        law = tree.law(conditions)
        got = [Fraction(int(c.p), int(c.q)) for c in law.coeffs()]
        assert got + [Fraction(0)] * (5 - len(got)) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structured_models())
def test_screening_with_balls_changes_no_level(model):
    """The same levels when every output is first bounded by certified balls (as on long chains)
    and only the outputs the balls cannot rule out are compared exactly."""
    loaded = pufferfish.load(model)
    for mechanism in loaded.mechanisms.values():
        plain = output_laws(loaded, mechanism)
        screened = output_laws(loaded, mechanism, screen_above=0)
        assert (structured_pufferfish(loaded, mechanism, screened).max_ratio
                == structured_pufferfish(loaded, mechanism, plain).max_ratio)
        assert ([level.max_ratio for level in
                 structured_pufferfish(loaded, mechanism, screened).levels]
                == [level.max_ratio for level in
                    structured_pufferfish(loaded, mechanism, plain).levels])
        assert (structured_leakage(loaded, mechanism, screened).worst_shift
                == structured_leakage(loaded, mechanism, plain).worst_shift)


@st.composite
def network_models(draw) -> dict:
    """Random Bayesian networks over 2–6 attributes (edges from earlier to later nodes of a
    random order, so moral graphs with cycles and several cliques), as inline model-file priors,
    with noisy sums and counts over some attributes and entry secrets."""
    n = draw(st.integers(2, 6))
    names = [f"v{i}" for i in range(n)]
    domain = draw(st.sampled_from([[0, 1], [0, 1, 2], [1, 2]]))
    order = draw(st.permutations(names))
    nodes = {}
    for i, v in enumerate(order):
        parents = [u for u in order[:i] if draw(st.booleans())]
        rows = {}
        for key in product(*([domain] * len(parents))):
            rows[",".join(map(str, key))] = _law(draw, domain)
        nodes[v] = {"parents": parents, "cpt": rows}
    read = sorted(draw(st.sets(st.sampled_from(names), min_size=1, max_size=n)))
    kind = draw(st.sampled_from(["sum", "count"]))
    top = len(read) * max(domain)
    low = draw(st.integers(0, top))
    mechanisms = {"m": {"query": {kind: {"attributes": read}},
                        "noise": {"geometric": {"alpha": draw(st.sampled_from(["1/3", "1/2"])),
                                                "min": low, "max": draw(st.integers(low, top))}}}}
    return {"pufferfish_model": 1, "attributes": names, "domain": domain, "datasets": "all",
            "priors": {"net": {"bayesnet": {"nodes": nodes}}}, "entry_pairs": True,
            "mechanisms": mechanisms}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network_models())
def test_structured_audit_of_networks_equals_the_enumerating_audit(model):
    structured = pufferfish.audit(model, method="structured")
    enumerated = pufferfish.audit(model, method="enumeration")
    assert _levels(structured) == _levels(enumerated)


def test_a_program_that_reads_two_attributes_follows_the_chain():
    """A program with ``reads`` is a values statistic: its law on every value pair, mixed by
    the chain's joint law of the secret and those two attributes."""
    from pufferfish.models.programs import coin
    from pufferfish.models.programs.mechanism import ProgramMechanism

    def noisy_or(values):
        first, last = values
        return (first or last) if coin("3/4") else 1 - (first or last)

    data = _chain(10)
    model = pufferfish.load(data)
    model.mechanisms = {"or": ProgramMechanism("or", noisy_or, reads=[0, 9])}
    structured = pufferfish.audit(model, method="structured")
    enumerated = pufferfish.audit(model, method="enumeration")
    assert _levels(structured) == _levels(enumerated)
    assert structured.mechanisms[0].pufferfish.max_ratio > 1
