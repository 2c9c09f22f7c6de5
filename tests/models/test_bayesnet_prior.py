"""The ``bayesnet`` prior (pufferfish.models.bayesnet.BayesNetPrior, the model file's
``{"bayesnet": ...}``): the chain rule against BayesNet.probability and the support on random
networks; the blocks of an audit; the model-file forms and their refusals; and an end-to-end
audit of the asia network (bnlearn, through pgmpy's wheel: tests/models/conftest.py) from the
command line, equal to the audit of the same prior written as a table."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.cli.main import main
from pufferfish.models import BayesNetPrior
from pufferfish.models.bayesnet import BayesNet, RenormalisedRow
from pufferfish.models.bif import load_bif
from pufferfish.models.errors import ModelError
from pufferfish.models.files.pufferfish_file import load_model, model_to_dict, parse_model

ASIA = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]


@st.composite
def networks(draw):
    """A random network of 1–4 nodes with 1–3 values each (integers or strings), edges only
    from earlier to later nodes of a random order, rows of small positive and zero weights; and
    the attributes, a random order of its nodes."""
    n = draw(st.integers(1, 4))
    names = [f"v{i}" for i in range(n)]
    strings = draw(st.booleans())
    domains = {v: tuple((f"s{k}" if strings else k) for k in range(draw(st.integers(1, 3))))
               for v in names}
    parents = {v: [u for u in names[:i] if draw(st.booleans())] for i, v in enumerate(names)}
    cpts = {}
    for v in names:
        rows = {}
        for key in product(*(domains[p] for p in parents[v])):
            weights = draw(st.lists(st.integers(0, 3), min_size=len(domains[v]),
                                    max_size=len(domains[v])).filter(any))
            rows[key] = {x: Fraction(w, sum(weights)) for x, w in zip(domains[v], weights) if w}
        cpts[v] = rows
    net = BayesNet.from_cpts(parents, domains, cpts, "random")
    attributes = tuple(draw(st.permutations(names)))
    return net, attributes


@settings(max_examples=60, deadline=None)
@given(networks())
def test_the_prior_is_the_network_chain_rule_and_its_support_sums_to_one(drawn):
    net, attributes = drawn
    prior = BayesNetPrior("theta", attributes, net)
    support = list(prior.support())
    assert sum(p for _, p in support) == 1 and all(p > 0 for _, p in support)
    assert len(support) <= prior.support_bound()
    listed = dict(support)
    domains = [net.domains[a] for a in attributes]
    for dataset in product(*domains):
        expected = net.probability(dict(zip(attributes, dataset)))
        assert prior.probability(dataset) == expected == listed.get(dataset, 0)
    ranks = [{v: k for k, v in enumerate(d)} for d in domains]
    keys = [tuple(r[v] for r, v in zip(ranks, d)) for d, _ in support]
    assert keys == sorted(keys)
    assert prior.values_within(domains)
    for depth in range(len(attributes) + 1):
        blocks = prior.prefix_blocks(depth)
        joined, scaled = [], []
        for prefix, mass in blocks:
            part = list(prior.support_under(prefix, mass))
            assert len(prefix) == depth and sum(p for _, p in part) == mass
            assert len(part) <= prior.block_bound(depth)
            joined += part
            denominator, weights = prior.scaled_support_under(prefix, mass)
            scaled += [(d, Fraction(w, denominator)) for d, w in weights]
        assert joined == support == scaled


@settings(max_examples=30, deadline=None)
@given(networks())
def test_the_inline_form_round_trips_through_a_model_file(drawn):
    net, attributes = drawn
    prior = BayesNetPrior("theta", attributes, net)
    data = {"pufferfish_model": 1, "attributes": list(attributes),
            "domain": {a: list(net.domains[a]) for a in attributes}, "datasets": "all",
            "priors": {"theta": prior.to_dict()}, "entry_pairs": True}
    if all(len(d) == 1 for d in net.domains.values()):
        return  # no secret pair to write
    read = parse_model(data).priors["theta"]
    assert isinstance(read, BayesNetPrior) and read.attributes == attributes
    assert list(read.support()) == list(prior.support())
    assert read.to_dict() == prior.to_dict()


def test_the_nodes_must_be_the_attributes():
    net = BayesNet.from_cpts({"a": []}, {"a": (0, 1)}, {"a": {(): {0: "1/2", 1: "1/2"}}})
    with pytest.raises(ModelError, match=r"no node for \['b'\]"):
        BayesNetPrior("p", ("a", "b"), net)


# --------------------------------------------------------------------------------------------
# the model-file forms
# --------------------------------------------------------------------------------------------

def model(prior: dict, attributes=("a", "b"), domain=(0, 1)) -> dict:
    return {"pufferfish_model": 1, "attributes": list(attributes), "domain": list(domain),
            "datasets": "all", "priors": {"net": prior}, "entry_pairs": True}


INLINE = {"bayesnet": {"nodes": {
    "a": {"parents": [], "cpt": {"": {"0": "1/2", "1": "1/2"}}},
    "b": {"parents": ["a"], "cpt": {"0": {"0": "3/4", "1": "1/4"}, "1": {"1": "1"}}}}}}


def with_node(node: str, body: dict) -> dict:
    return {"bayesnet": {"nodes": {**INLINE["bayesnet"]["nodes"], node: body}}}


INLINE_ERRORS = [
    ({"bayesnet": {"renormalise": True}}, "priors.net.bayesnet", "exactly one of 'bif'"),
    ({"bayesnet": {**INLINE["bayesnet"], "renormalise": True}}, "priors.net.bayesnet.renormalise",
     "applies to a BIF file"),
    (with_node("c", {"parents": [], "cpt": {"": {"0": "1"}}}), "priors.net.bayesnet.nodes.c",
     "'c' is not an attribute"),
    ({"bayesnet": {"nodes": {"a": INLINE["bayesnet"]["nodes"]["a"]}}}, "priors.net.bayesnet.nodes",
     "no node for attribute 'b'"),
    (with_node("b", {"parents": ["z"], "cpt": {"": {"0": "1"}}}),
     "priors.net.bayesnet.nodes.b.parents.0", "the parent 'z' is not an attribute"),
    (with_node("a", {"parents": ["b"], "cpt": {"0": {"0": "1"}, "1": {"0": "1"}}}),
     "priors.net.bayesnet.nodes", "cycle"),
    (with_node("b", {"parents": ["a"], "cpt": {"0": {"0": "1"}}}), "priors.net.bayesnet.nodes.b.cpt",
     "no row for the parent values [1]"),
    (with_node("b", {"parents": ["a"], "cpt": {"0,1": {"0": "1"}}}),
     "priors.net.bayesnet.nodes.b.cpt.0,1", "needs 1 comma-separated values"),
    (with_node("b", {"parents": ["a"], "cpt": {"0": {"0": "1"}, "2": {"0": "1"}}}),
     "priors.net.bayesnet.nodes.b.cpt.2", "unknown value '2'"),
    (with_node("b", {"parents": ["a"], "cpt": {"0": {"0": "1/2"}, "1": {"0": "1"}}}),
     "priors.net.bayesnet.nodes.b.cpt.0", "sum to 1/2, must sum to 1"),
    (with_node("b", {"parents": ["a"], "cpt": {"0": {"0": 0.5}, "1": {"0": "1"}}}),
     "priors.net.bayesnet.nodes.b.cpt.0.0", "float"),
    ({"bayesnet": {"bif": "x.bif", "nodes": {}}}, "priors.net.bayesnet.nodes", "empty"),
]


@pytest.mark.parametrize("prior, path, message", INLINE_ERRORS, ids=[m for *_, m in INLINE_ERRORS])
def test_a_bad_inline_network_is_refused_at_its_json_path(prior, path, message):
    with pytest.raises(ModelError) as caught:
        parse_model(model(prior))
    assert caught.value.path == path, caught.value
    assert message in caught.value.reason


def test_the_inline_form_reads_values_through_the_domain():
    prior = parse_model(model(INLINE)).priors["net"]
    assert prior.probability((0, 0)) == Fraction(3, 8) and prior.probability((1, 0)) == 0
    assert list(prior.support()) == [((0, 0), Fraction(3, 8)), ((0, 1), Fraction(1, 8)),
                                     ((1, 1), Fraction(1, 2))]


def write_asia(folder, bnlearn) -> str:
    """asia.bif, uncompressed, in ``folder/networks``; its path relative to ``folder``."""
    (folder / "networks").mkdir(parents=True, exist_ok=True)
    shutil.copy(bnlearn("asia"), folder / "networks" / "asia.bif.gz")
    return "networks/asia.bif.gz"


def test_a_bif_prior_is_read_relative_to_the_model_file(tmp_path, bnlearn, monkeypatch):
    relative = write_asia(tmp_path, bnlearn)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model({"bayesnet": {"bif": relative}}, ASIA, ["yes", "no"])))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    prior = load_model(path).priors["net"]
    assert isinstance(prior, BayesNetPrior) and prior.attributes == tuple(ASIA)
    assert prior.network.cpts == load_bif(bnlearn("asia")).cpts and prior.notes == ()
    # the model's value order is kept: the network is re-keyed, not the domain
    reordered = load_model_data(tmp_path, {"bayesnet": {"bif": relative}}, ASIA, ["no", "yes"])
    assert reordered.priors["net"].network.domains["asia"] == ("no", "yes")
    assert reordered.priors["net"].probability(("no",) * 8) == prior.probability(("no",) * 8)


def load_model_data(folder, prior, attributes, domain):
    path = folder / "other.json"
    path.write_text(json.dumps(model(prior, attributes, domain)))
    return load_model(path)


def test_a_bif_prior_must_match_the_attributes_and_their_domains(tmp_path, bnlearn):
    relative = write_asia(tmp_path, bnlearn)
    prior = {"bayesnet": {"bif": relative}}
    with pytest.raises(ModelError) as caught:
        load_model_data(tmp_path, prior, ASIA, [0, 1])
    assert caught.value.path == "priors.net.bayesnet.bif"
    assert ("node 'asia' of 'networks/asia.bif.gz' takes the values ['yes', 'no'], but attribute "
            "'asia' has the domain [0, 1]; BIF values are strings") in caught.value.reason
    with pytest.raises(ModelError, match=r"the nodes \['dysp'\] are not attributes"):
        load_model_data(tmp_path, prior, ASIA[:-1], ["yes", "no"])
    with pytest.raises(ModelError, match=r"no node for the attributes \['x'\]"):
        load_model_data(tmp_path, prior, ASIA + ["x"], ["yes", "no"])
    with pytest.raises(ModelError) as caught:
        load_model_data(tmp_path, {"bayesnet": {"bif": "networks/none.bif"}}, ASIA, ["yes", "no"])
    assert caught.value.path == "priors.net.bayesnet.bif"
    assert "cannot read BIF file" in caught.value.reason


def test_renormalised_rows_are_refused_or_reported_and_survive_a_round_trip(tmp_path, bnlearn):
    (tmp_path / "sachs.bif.gz").write_bytes(bnlearn("sachs").read_bytes())
    nodes = list(load_bif(bnlearn("sachs"), renormalise=True).nodes)
    domain = ["LOW", "AVG", "HIGH"]
    with pytest.raises(ModelError) as caught:
        load_model_data(tmp_path, {"bayesnet": {"bif": "sachs.bif.gz"}}, nodes, domain)
    assert caught.value.path == "priors.net.bayesnet.bif"
    assert caught.value.reason.startswith(f"{tmp_path / 'sachs.bif.gz'}:44: the row of 'Akt' "
                                          f"given Erk=AVG, PKA=HIGH sums to 49999999117/")
    read = load_model_data(tmp_path, {"bayesnet": {"bif": "sachs.bif.gz", "renormalise": True}},
                           nodes, domain)
    prior = read.priors["net"]
    assert len(prior.renormalised) == 35 and prior.renormalised == prior.network.renormalised
    assert prior.notes[0].startswith("prior 'net': 35 CPT rows did not sum to 1 as "
                                     "written and were each divided by its sum exactly: ")
    assert "Akt | Erk=AVG, PKA=HIGH (sum 49999999117/50000000000)" in prior.notes[0]
    again = parse_model(model_to_dict(read)).priors["net"]
    assert again.renormalised == prior.renormalised and again.notes == prior.notes
    assert again.network.cpts == prior.network.cpts
    assert RenormalisedRow("Akt", ("AVG", "HIGH"), Fraction(49999999117, 50000000000)) \
        in again.renormalised


# --------------------------------------------------------------------------------------------
# the audit of asia, end to end, against the same prior as a table
# --------------------------------------------------------------------------------------------

def audit_json(path, capsys, *options) -> dict:
    code = main(["audit", str(path), "--json", "--quiet", *options])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_auditing_asia_from_the_command_line_equals_auditing_its_table(tmp_path, bnlearn, capsys):
    relative = write_asia(tmp_path, bnlearn)
    data = model({"bayesnet": {"bif": relative}}, ASIA, ["yes", "no"])
    data["mechanisms"] = {"count": {"query": {"count": {"value": "yes"}},
                                    "noise": {"geometric": {"alpha": "1/2", "min": 0, "max": 8}}}}
    network_model = tmp_path / "asia.json"
    network_model.write_text(json.dumps(data))
    prior = load_model(network_model).priors["net"]
    assert prior.support_bound() == 2**7          # either = lung or tub: half of the 2^8 datasets
    table = [[list(d), f"{p.numerator}/{p.denominator}"] for d, p in prior.support()]
    assert len(table) == 128
    (tmp_path / "table.json").write_text(json.dumps({**data, "priors": {"net": {"table": table}}}))

    by_network = audit_json(network_model, capsys)
    by_table = audit_json(tmp_path / "table.json", capsys)
    # the same audit; only the note on how the priors were read differs (a table has no
    # structure to follow)
    assert by_network.pop("method")["path"] == by_table.pop("method")["path"] == "enumeration"
    assert by_network == by_table
    # by the network's junction tree instead of its support: the same levels
    structured = audit_json(network_model, capsys, "--method", "structured")
    assert structured.pop("method")["path"] == "structured"
    assert [m["pufferfish"]["max_ratio"] for m in structured["mechanisms"]] == \
        [m["pufferfish"]["max_ratio"] for m in by_network["mechanisms"]]
    assert [m["leakage"]["worst_shift"] for m in structured["mechanisms"]] == \
        [m["leakage"]["worst_shift"] for m in by_network["mechanisms"]]
    assert [[d["max_ratio"] for d in m["dp"]] for m in structured["mechanisms"]] == \
        [[d["max_ratio"] for d in m["dp"]] for m in by_network["mechanisms"]]
    level = by_network["mechanisms"][0]["pufferfish"]
    assert level["max_ratio"] == "5566158686/334555053"
    assert level["witness"]["pair"] == "lung=yes <-> lung=no"
    # cut into blocks by the first attributes (16 datasets a block at most): the same audit
    blocked = audit_json(network_model, capsys, "--block-datasets", "16")
    blocked.pop("method")
    assert blocked == by_network


def test_the_shipped_example_audits(capsys):
    from pufferfish.examples import example_path

    result = audit_json(example_path("bayesnet_rain.json"), capsys)
    assert result["mechanisms"][0]["pufferfish"]["vacuous"] is False


@pytest.mark.parametrize("argv", [["mqm", "--epsilon", "1"], ["quilts", "--node", "wet"],
                                  ["wasserstein", "--query", "count", "--epsilon", "1"],
                                  ["composes", "--epsilon", "1", "--runs", "2"],
                                  ["influence", "--method", "brute", "--max-b", "1"]],
                         ids=lambda argv: argv[0])
def test_every_command_finds_the_bif_file_beside_the_model(argv, tmp_path, monkeypatch, capsys):
    from pufferfish.examples import example_path

    monkeypatch.chdir(tmp_path)                 # the BIF path is relative to the model file
    code = main([argv[0], str(example_path("bayesnet_rain.json")), *argv[1:], "--quiet"])
    assert code in (0, 1, 3), capsys.readouterr().err


def test_the_audit_notes_renormalised_rows(tmp_path, bnlearn, capsys):
    (tmp_path / "sachs.bif.gz").write_bytes(bnlearn("sachs").read_bytes())
    nodes = list(load_bif(bnlearn("sachs"), renormalise=True).nodes)
    data = model({"bayesnet": {"bif": "sachs.bif.gz", "renormalise": True}}, nodes,
                 ["LOW", "AVG", "HIGH"])
    data["entry_pairs"] = False
    data["secrets"] = {"low": {"where": {"Akt": "LOW"}}, "high": {"where": {"Akt": "HIGH"}}}
    data["pairs"] = [["low", "high"]]
    data["mechanisms"] = {"akt": {"query": {"attribute": "Akt"}}}
    (tmp_path / "sachs.json").write_text(json.dumps(data))
    code = main(["audit", str(tmp_path / "sachs.json"), "--mechanism", "akt"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "note: prior 'net': 35 CPT rows did not sum to 1 as written" in err


def test_the_examples_of_the_model_file_reference_run(capsys, monkeypatch):
    """docs/design.md, "Bayesian-network priors": the inline network parses, and the audit of
    the shipped example prints what the page shows."""
    import re
    from pathlib import Path

    from pufferfish.examples import example_path

    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "design.md").read_text(encoding="utf-8")
    section = page[page.index("#### Bayesian-network priors"):
                   page.index("### Bayesian-network family")]
    snippet = re.search(r"```json\n(.*?)```", section, re.DOTALL).group(1)
    priors = json.loads("{" + re.sub(r"^\s+", "", snippet, flags=re.MULTILINE) + "}")["priors"]
    prior = parse_model(model(priors["net"], ["x1", "x2", "x3"])).priors["net"]
    assert prior.probability((1, 1, 0)) == Fraction(3, 8)
    shown = re.search(r"```console\n\$ pufferfish audit (\S+)\n(.*?)\.\.\.\n```", section,
                      re.DOTALL)
    assert shown.group(1) == "examples/bayesnet_rain.json"
    monkeypatch.chdir(example_path("bayesnet_rain.json").parent.parent)
    assert main(["audit", "examples/bayesnet_rain.json"]) == 0
    assert capsys.readouterr().out.startswith(shown.group(2))
