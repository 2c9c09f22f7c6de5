"""The block-split audit (:mod:`pufferfish.verify.privacy.blocks`, :mod:`~pufferfish.verify.
privacy.dp_blocks`) gives, bit for bit, what the one-by-one functions give on the whole universe —
on every example model, with blocks forced down to a few datasets, and on random product models
(several domain sizes, zero probabilities, infinite DP ratios that stop the scan early)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.examples import example_path
from pufferfish.models.errors import TooLargeError
from pufferfish.models.files.pufferfish_file import load_model, parse_model
from pufferfish.models.files.json_io import read_json_file
from pufferfish.models.priors import UniformPrior
from pufferfish.models.universe import Universe
from pufferfish.models.mechanisms import RandomizedResponse, TableMechanism
from pufferfish.models.distribution import Distribution
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy import blocks as blocks_module
from pufferfish.verify.privacy.blocks import block_plan
from pufferfish.models.neighbours import parse_neighbours
from pufferfish.verify.privacy.audit import MechanismAudit, ModelAudit, audit_model
from pufferfish.verify.privacy.composition import composition_audit
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.privacy.dp_blocks import dp_level_blocked
from pufferfish.verify.privacy.leakage import leakage
from pufferfish.verify.privacy.pufferfish import pufferfish_level

AUDITABLE = ["quickstart", "hidden_coin", "composable_rr", "collapse_interval",
             "collapse_interval_family", "collapse_parity", "collapse_resample", "design_chain6",
             "influence_chain", "influence_table"]


def _levels_and_witnesses(result) -> dict:
    """The audit's report without the note on how the priors were read (which says why
    a model is enumerated, and differs between a table and a structured prior)."""
    data = result.to_dict()
    data.pop("method")
    return data


def one_by_one(model, budget=None, group=None) -> dict:
    """The audit assembled from the reference functions, each scanning the whole universe."""
    relations = ["entry"]
    if any(len(record) > 1 for record in model.universe.records):
        relations.append("record")
    if group is not None:
        relations.append(f"group:{group}")
    audits = tuple(MechanismAudit(m.name, pufferfish_level(model, m, budget),
                                  tuple(dp_level(model.universe, m, r) for r in relations),
                                  leakage(model, m))
                   for m in model.mechanisms.values())
    composition, note = None, ""
    if len(model.mechanisms) >= 2:
        try:
            composition = composition_audit(model, list(model.mechanisms.values()), budget)
        except TooLargeError as error:
            note = f"joint release not computed: {error.reason}"
    return _levels_and_witnesses(ModelAudit(audits, composition, note, budget, None,
                                 tuple(parse_neighbours(r, model.universe) for r in relations)))


@pytest.fixture(params=[None, 2])
def block_size(request, monkeypatch):
    """Default blocks, and blocks of at most 2 datasets (many blocks per prior)."""
    if request.param is not None:
        monkeypatch.setattr(blocks_module, "BLOCK_DATASETS", request.param)
    return request.param


@pytest.mark.parametrize("name", AUDITABLE)
def test_every_example_audits_the_same_split_into_blocks(name, block_size):
    path = example_path(f"{name}.json")
    expected = one_by_one(load_model(path), parse_budget("log(3)"), group=2)
    audited = audit_model(load_model(path), parse_budget("log(3)"), group=2)
    assert _levels_and_witnesses(audited) == expected


def test_the_plan_cuts_independent_and_markov_priors_by_prefix(monkeypatch):
    monkeypatch.setattr(blocks_module, "BLOCK_DATASETS", 2)
    model = load_model(example_path("quickstart.json"))
    plan = blocks_module.block_plan(model, tasks_wanted=4)
    by_prior: dict = {}
    for prior, prefix, probability in plan:
        by_prior.setdefault(prior, []).append((prefix, probability))
    for name, prior in model.finite_priors.items():
        blocks = by_prior[name]
        assert len(blocks) >= 2
        assert sum(p for _, p in blocks) == 1
        rejoined = [item for prefix, p in blocks for item in prior.support_under(prefix, p)]
        assert rejoined == list(prior.support())


def product_model(domains, rows, keep, prior_weights):
    """A model over a product universe with a table mechanism (one row per dataset, some zero
    entries) and randomized response, under a table prior with some zero weights."""
    attributes = [f"a{k}" for k in range(len(domains))]
    universe = Universe.product(attributes, domains)
    datasets = list(universe.datasets())
    data = {
        "pufferfish_model": 1,
        "attributes": attributes,
        "domain": {a: list(d) for a, d in zip(attributes, domains)},
        "datasets": "all",
        "priors": {"table": {"table": [[list(d), str(w)] for d, w in zip(datasets, prior_weights)
                                       if w]},
                   "uniform": {"independent": {a: {str(v): f"1/{len(d)}" for v in d}
                                               for a, d in zip(attributes, domains)}}},
        "secrets": {"first": {"where": {attributes[0]: domains[0][0]}},
                    "other": {"where": {attributes[0]: domains[0][-1]}}},
        "pairs": [["first", "other"]],
        "mechanisms": {
            "table": {"table": [[list(d), [[out, str(p)] for out, p in row.items()]]
                                for d, row in zip(datasets, rows)]},
            "rr": {"per_entry": {"randomized_response": {"keep": str(keep)}}}},
    }
    return data


@st.composite
def product_models(draw):
    domains = draw(st.lists(st.integers(2, 3), min_size=1, max_size=3))
    domains = [list(range(size)) for size in domains]
    size = 1
    for d in domains:
        size *= len(d)
    rows = []
    for _ in range(size):
        masses = draw(st.lists(st.integers(0, 3), min_size=3, max_size=3).filter(any))
        total = sum(masses)
        rows.append({str(o): Fraction(m, total) for o, m in enumerate(masses) if m})
    weights = draw(st.lists(st.integers(0, 2), min_size=size, max_size=size).filter(any))
    total = sum(weights)
    keep = draw(st.sampled_from([Fraction(1, 2), Fraction(2, 3), Fraction(1)]))
    return product_model(domains, rows, keep, [Fraction(w, total) for w in weights])


@settings(max_examples=40, deadline=None)
@given(product_models())
def test_random_product_models_audit_the_same(data):
    expected = one_by_one(parse_model(data))
    assert _levels_and_witnesses(audit_model(parse_model(data))) == expected


@settings(max_examples=40, deadline=None)
@given(product_models())
def test_blocked_dp_scan_matches_the_one_by_one_scan(data):
    model = parse_model(data)
    for mechanism in model.mechanisms.values():
        blocked = dp_level_blocked(model.universe, mechanism, 10**6, tasks=3)
        assert blocked.to_dict() == dp_level(model.universe, mechanism).to_dict()


def test_an_infinite_dp_ratio_stops_the_count_where_the_scan_stops():
    universe = Universe.product(["x", "y"], [[0, 1, 2], [0, 1]])
    half = Fraction(1, 2)
    rows = {d: Distribution({"a": half, "b": half}) for d in universe.datasets()}
    rows[(1, 1)] = Distribution({"a": Fraction(1)})  # 'b' impossible: an infinite ratio
    mechanism = TableMechanism("t", rows)
    reference = dp_level(universe, mechanism)
    blocked = dp_level_blocked(universe, mechanism, 10**6, tasks=6)
    assert reference.epsilon == "inf" and 0 < reference.pairs_checked < universe.size * 3
    assert blocked.to_dict() == reference.to_dict()


def test_explicit_universes_fall_back_to_the_scan():
    universe = Universe.listed(["x", "y"], [[0, 1], [0, 1]], [(0, 0), (0, 1), (1, 1)])
    mechanism = RandomizedResponse("rr", universe, Fraction(3, 4))
    assert dp_level_blocked(universe, mechanism, 10**6) is None


@pytest.mark.parametrize("name", ["quickstart", "influence_chain", "hidden_coin", "design_chain6"])
def test_integer_weighted_blocks_are_the_prior_exactly(name):
    model = load_model(example_path(f"{name}.json"))
    for prior in model.finite_priors.values():
        for depth in (0, 1, 2):
            for prefix, probability in prior.prefix_blocks(depth):
                denominator, weighted = prior.scaled_support_under(prefix, probability)
                assert [(d, Fraction(w, denominator)) for d, w in weighted] == \
                    list(prior.support_under(prefix, probability))


def test_a_uniform_prior_on_a_product_universe_is_cut_into_blocks_in_its_order():
    universe = Universe.product(["x", "y", "z"], [[0, 1, 2], [0, 1], [5, 6]])
    prior = UniformPrior("u", universe)
    for depth in (0, 1, 2, 3):
        blocks = prior.prefix_blocks(depth)
        assert sum(probability for _, probability in blocks) == 1
        joined = [item for prefix, probability in blocks
                  for item in prior.support_under(prefix, probability)]
        assert joined == list(prior.support())
        assert max(len(list(prior.support_under(*block))) for block in blocks) == \
            prior.block_bound(depth)
    assert prior.values_within(universe.domains)
    listed = UniformPrior("v", Universe.listed(["x"], [[0, 1]], [(0,)]))
    assert listed.prefix_blocks(1) == [((), Fraction(1))] and not listed.values_within([[0, 1]])


def test_a_model_with_a_uniform_prior_audits_the_same_in_blocks():
    model = parse_model({**read_json_file(example_path("quickstart.json")),
                         "priors": {"u": {"uniform": True}}})
    assert model.universe.size == 8 and len(block_plan(model, 1, 2)) == 4
    assert _levels_and_witnesses(audit_model(model, max_datasets=2)) == one_by_one(model)
