"""Certificates of audits (``verify/privacy/certificate.py``) checked by the independent checker
``pufferfish_check``: every shipped example that ``audit`` reads is certified and accepted, the
others are refused with their reason, and tampered certificates are rejected."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

import pufferfish
from pufferfish.cli.main import main
from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish_check import BadInput, check_certificate

EXAMPLES = Path(example_path("quickstart.json")).parent
FILES = sorted(p.relative_to(EXAMPLES).as_posix() for p in [*EXAMPLES.glob("*.json"),
                                                            *EXAMPLES.glob("dp_benchmarks/*.json")])

NOT_AUDITED = {
    # files of other kinds: `pufferfish audit` reads Pufferfish models only
    "bayesnet_vstructure.json": "a Bayesian-network family file (read by quilts and mqm)",
    "dcp_three_secrets.json": "a DCP model (read by dcp)",
    "dcp_two_secrets.json": "a DCP model (read by dcp)",
    "dcp_xor.json": "a DCP model (read by dcp)",
    "multiuser_bernoulli.json": "a multi-user model (read by multiuser)",
    "multiuser_table3.json": "a multi-user model (read by multiuser)",
    "multiuser_values.json": "a multi-user model (read by multiuser)",
}
NO_MECHANISM = {  # models without mechanisms: the audit refuses them, there is no verdict
    "chain_binary_T100.json", "chain_family_T8.json", "flu.json", "wasserstein_chain.json",
    "wasserstein_xor.json"}
PARAMETRIC = {"geometric_parametric.json", "quickstart_parametric.json"}
INTERVAL_FAMILY = {"collapse_interval_family.json"}
TRANSCENDENTAL = {"dp_benchmarks/laplace_suite.json",  # laws in Q(e^(1/n)): no checker yet
                  "dp_benchmarks/sums_suite.json", "dp_benchmarks/checkdp_suite.json"}
ENCLOSED = {"dp_benchmarks/gaussian_suite.json"}  # Gaussian noise: certified intervals, not exact
DP_ONLY = {"first_yes.json", "survey_count.json"}  # no priors: no Pufferfish laws to re-derive
CERTIFIED = [f for f in FILES if f not in {*NOT_AUDITED, *NO_MECHANISM, *PARAMETRIC,
                                           *INTERVAL_FAMILY, *TRANSCENDENTAL, *DP_ONLY, *ENCLOSED}]


def certify(name: str, *args, **options) -> dict:
    """A certificate as written to and read back from JSON."""
    return json.loads(json.dumps(pufferfish.certificate(str(EXAMPLES / name), *args, **options)))


def test_every_example_is_classified():
    """No example is left out silently: each is certified or refused for a stated reason."""
    assert {"quickstart.json", "chain_sum_T60.json", "dp_benchmarks/svt6.json"} <= set(CERTIFIED)
    assert set(FILES) == {*CERTIFIED, *NOT_AUDITED, *NO_MECHANISM, *PARAMETRIC, *INTERVAL_FAMILY,
                          *TRANSCENDENTAL, *DP_ONLY, *ENCLOSED}


@pytest.mark.parametrize("name", sorted(DP_ONLY))
def test_dp_only_models_are_refused_with_the_reason(name):
    with pytest.raises(UnsupportedError, match="DP-only model"):
        certify(name)


@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL))
def test_laplace_type_laws_are_refused_with_the_reason(name):
    first = {"dp_benchmarks/laplace_suite.json": "svt5",
             "dp_benchmarks/sums_suite.json": "partial_sum",
             "dp_benchmarks/checkdp_suite.json": "bad_partial_sum"}[name]
    with pytest.raises(UnsupportedError, match="Q\\(e\\^\\(1/n\\)\\)"):
        certify(name, mechanisms=[first])


@pytest.mark.parametrize("name", sorted(ENCLOSED))
def test_gaussian_laws_are_refused_with_the_reason(name):
    with pytest.raises(UnsupportedError, match="certified intervals"):
        certify(name, mechanisms=["gaussian_svt"])


@pytest.mark.parametrize("name", CERTIFIED)
def test_each_certified_example_is_accepted(name):
    data = certify(name)
    result = check_certificate(data)
    assert result.accepted, result.reason
    programs = [m for m in data["mechanisms"] if "program" in json.loads(
        (EXAMPLES / name).read_text())["mechanisms"].get(m["name"], {})]
    # a program's laws are checked within the mass left outside the noise window: said in a note
    assert len(result.notes) == len(programs)


@pytest.mark.parametrize("name", sorted(NOT_AUDITED))
def test_files_of_other_kinds_are_not_audited(name):
    with pytest.raises(ModelError):
        pufferfish.certificate(str(EXAMPLES / name))


@pytest.mark.parametrize("name", sorted(NO_MECHANISM))
def test_models_without_mechanisms_have_nothing_to_certify(name):
    with pytest.raises(ModelError, match="no mechanisms"):
        pufferfish.certificate(str(EXAMPLES / name))


@pytest.mark.parametrize("name", sorted(PARAMETRIC))
def test_parametric_models_are_refused_by_both_sides(name, tmp_path, capsys):
    """The checker reads no parameters: `audit --set ... --certificate` is a usage error, and the
    checker refuses a parametric file as bad input."""
    code = main(["audit", str(EXAMPLES / name), "--set", "p=3/4", "--set", "q=9/10",
                 "--certificate", str(tmp_path / "c.json")])
    assert code == 2 and "checker reads no parameters" in capsys.readouterr().err
    data = certify("quickstart.json")
    with pytest.raises(BadInput, match="parametric"):
        check_certificate(data, EXAMPLES / name)


def test_interval_families_are_refused():
    with pytest.raises(UnsupportedError, match="infinite set of priors"):
        pufferfish.certificate(str(EXAMPLES / "collapse_interval_family.json"))


def test_budgets_and_structured_laws_are_rechecked():
    """Verdicts under a log budget, a rational budget (e^ε bounded by the checker) and a DP
    budget; the structured path on a small universe is recomputed by enumeration, the statistic's
    law included."""
    for options in ({"epsilon": "log(3)"}, {"epsilon": "5/2", "epsilon_dp": "1"},
                    {"epsilon": "2", "epsilon_dp": "log(3)", "method": "structured"},
                    {"neighbours": ["linf:1", "group:2"], "epsilon_dp": "3/2"}):
        data = certify("quickstart.json", **options)
        assert check_certificate(data).accepted, (options, check_certificate(data).reason)
    structured = certify("quickstart.json", method="structured")
    assert structured["method"] == "structured"
    assert "statistic" in structured["mechanisms"][1]["pufferfish"]["priors"]["sticky"]["x1=0"]


def tampered(data: dict, change) -> str:
    copied = copy.deepcopy(data)
    change(copied)
    result = check_certificate(copied)
    assert not result.accepted
    return result.reason


def test_tampered_certificates_are_rejected():
    data = certify("quickstart.json", "log(3)", epsilon_dp="log(2)")
    assert check_certificate(data).accepted
    rr = lambda d: d["mechanisms"][0]  # noqa: E731

    def probability(d):  # one changed probability of a dataset's law
        rr(d)["datasets"][0][1][0][1] = "1/2"
    assert "dataset" in tampered(data, probability)

    def prior_probability(d):
        law = rr(d)["pufferfish"]["priors"]["sticky"]["x1=0"]["law"]
        law[0][1] = str(Fraction(law[0][1]) + Fraction(1, 10**9))
    assert "x1=0.law" in tampered(data, prior_probability)

    def swapped_pair(d):
        witness = rr(d)["pufferfish"]["witness"]
        witness["direction"] = witness["direction"][::-1]
    assert "witness" in tampered(data, swapped_pair)

    def wrong_level(d):
        rr(d)["pufferfish"]["max_ratio"] = "3"
    assert "max_ratio" in tampered(data, wrong_level)

    def wrong_dp_level(d):
        rr(d)["dp"][0]["max_ratio"] = "2"
    assert "dp.0.max_ratio" in tampered(data, wrong_dp_level)

    def removed_output(d):
        del rr(d)["pufferfish"]["priors"]["fair"]["x1=1"]["law"][-1]
    assert "output" in tampered(data, removed_output)

    def removed_dataset(d):
        del rr(d)["datasets"][-1]
    assert "universe" in tampered(data, removed_dataset)

    def flipped_verdict(d):
        rr(d)["pufferfish"]["holds"] = True
    assert "holds" in tampered(data, flipped_verdict)

    def overall_verdict(d):
        d["holds"] = True
    assert "holds" in tampered(data, overall_verdict)

    def wrong_witness_output(d):
        rr(d)["dp"][0]["witness"]["output"] = [1, 1, 1]
    assert "witness" in tampered(data, wrong_witness_output)

    def no_mechanism(d):
        d["mechanisms"] = []
    assert "certifies nothing" in tampered(data, no_mechanism)


def test_tampered_structured_and_program_certificates_are_rejected():
    chain = certify("chain_sum_T60.json")
    assert chain["method"] == "structured" and "datasets" not in chain["mechanisms"][0]

    def statistic(d):
        d["mechanisms"][0]["pufferfish"]["priors"]["chain"]["x7=1"]["statistic"][3][1] = "0"
    assert "statistic" in tampered(chain, statistic)

    def dp_witness(d):
        d["mechanisms"][0]["dp"][0]["witness"]["p_dataset"] = "1/3"
    assert "p_dataset" in tampered(chain, dp_witness)

    program = certify("dp_benchmarks/rnm1.json")
    law = program["mechanisms"][0]["datasets"][5][1]

    def moved_mass(d):  # the law still sums to 1, but an output leaves its window bound
        moved = d["mechanisms"][0]["datasets"][5][1]
        moved[0][1] = str(Fraction(law[0][1]) - Fraction(1, 20))
        moved[1][1] = str(Fraction(law[1][1]) + Fraction(1, 20))
    assert "outside" in tampered(program, moved_mass)

    def tiny_change(d):  # far inside the window bound, but the law no longer sums to 1
        d["mechanisms"][0]["datasets"][5][1][0][1] = str(Fraction(law[0][1]) + Fraction(1, 10**12))
    assert "sums to" in tampered(program, tiny_change)

    def removed_output(d):
        del d["mechanisms"][0]["datasets"][5][1][0]
    assert tampered(program, removed_output)


def test_a_certificate_is_for_its_model_file(tmp_path):
    data = certify("hidden_coin.json")
    other = tmp_path / "hidden_coin.json"
    other.write_text((EXAMPLES / "hidden_coin.json").read_text().replace("1/2", "1/3", 1))
    result = check_certificate(data, other)
    assert not result.accepted and "not the one the certificate was made for" in result.reason


def test_every_neighbour_relation_is_rechecked(tmp_path):
    """Records, add/remove, l1 and a listed pairs file: the checker's own reading of each
    relation gives the audit's DP levels; a level taken under another relation is rejected."""
    model = {"pufferfish_model": 1, "attributes": ["a1", "a2", "b1"], "domain": [0, 1, 2],
             "datasets": "all", "records": [["a1", "a2"], ["b1"]],
             "priors": {"u": {"uniform": True},
                        "chain": {"markov": {"initial": {"0": "1/2", "1": "1/4", "2": "1/4"},
                                             "transition": {"0": {"0": "1/2", "1": "1/2"},
                                                            "1": {"1": "1/3", "2": "2/3"},
                                                            "2": {"0": "1"}}}}},
             "secrets": {"low": {"where": {"a1": [0, 1]}}, "high": {"where": {"a1": 2}}},
             "pairs": [{"pair": ["low", "high"], "directed": True}],
             "mechanisms": {"rr": {"per_entry": {"randomized_response": {"keep": "1/2"}}},
                            "count": {"query": {"count": {"value": 2}},
                                      "noise": {"geometric": {"alpha": "1/3", "min": 0,
                                                              "max": 2}}}}}
    path = tmp_path / "records.json"
    path.write_text(json.dumps(model))
    pairs = {"pairs": [[[0, 0, 0], [2, 2, 2]], [[1, 0, 0], [1, 0, 1]]]}
    data = json.loads(json.dumps(pufferfish.certificate(
        str(path), "1", neighbours=["entry", "record", "add_remove:0", "l1:2",
                                    {"pairs": pairs["pairs"]}], epsilon_dp="log(4)", group=2)))
    result = check_certificate(data)
    assert result.accepted, result.reason
    assert len(data["mechanisms"][0]["dp"]) == 6 and data["mechanisms"][2]["kind"] == "joint"
    relabelled = copy.deepcopy(data)
    relabelled["mechanisms"][0]["dp"][0]["neighbours"] = "group:3"
    assert not check_certificate(relabelled).accepted
    dropped = copy.deepcopy(data)
    del dropped["mechanisms"][1]["dp"][1]
    assert "relations" in check_certificate(dropped).reason


def test_the_rows_of_a_structured_certificate_are_rechecked():
    data = certify("chain_sum_T60.json")
    assert [t for t, _ in data["mechanisms"][0]["rows"]] == list(range(61))
    assert "statistic" in data["mechanisms"][0]["pufferfish"]["priors"]["chain"]["x1=0"]

    def row(d):
        d["mechanisms"][0]["rows"][7][1][0][1] = "1/2"
    assert "rows.7" in tampered(data, row)


def test_a_universe_the_checker_cannot_list_is_refused():
    """An enumerated audit's certificate lists every dataset: above the checker's 2^16 it is
    refused with the figure (the structured path certifies such chains without listing them)."""
    from pufferfish.models.errors import TooLargeError
    from pufferfish.verify.privacy.audit import audit_model
    from pufferfish.verify.privacy.certificate import LISTED_DATASETS, audit_certificate

    small = pufferfish.load("quickstart.json")
    data = json.loads((EXAMPLES / "chain_sum_T60.json").read_text())
    data["attributes"] = data["attributes"][:17]
    large = pufferfish.load(data)
    assert large.universe.size > LISTED_DATASETS
    with pytest.raises(TooLargeError, match="131,072|131072"):
        audit_certificate(large, audit_model(small))


PROGRAM = '''
from pufferfish.models.programs import (choice, coin, exponential_mechanism, geometric,
                                        one_sided_geometric, uniform)


def mixed(data, base):
    if coin("1/3"):
        return ["coin", data[0] + uniform([0, 1, 1])]
    picked = exponential_mechanism({"a": data[0], "b": data[1]}, base)
    shade = choice({"light": "1/4", "dark": "3/4"})
    noisy = data[1] + one_sided_geometric("1/3")
    return [picked, shade, min(noisy, 2), data[0] + geometric("1/5") >= 1]
'''


def test_every_primitive_of_programs_is_rechecked(tmp_path):
    """The checker's own coin, choice, uniform, exponential mechanism and both geometric noises
    bound the toolkit's exact laws; a probability moved by the size of the window's bound is
    caught."""
    (tmp_path / "mixed.py").write_text(PROGRAM)
    model = {"pufferfish_model": 1, "attributes": ["x", "y"], "domain": [0, 1], "datasets": "all",
             "priors": {"u": {"uniform": True}}, "entry_pairs": True,
             "mechanisms": {"mixed": {"program": {"file": "mixed.py", "function": "mixed",
                                                  "arguments": {"base": "2"}}}}}
    (tmp_path / "mixed.json").write_text(json.dumps(model))
    data = json.loads(json.dumps(pufferfish.certificate(str(tmp_path / "mixed.json"), "1")))
    result = check_certificate(data)
    assert result.accepted, result.reason
    law = data["mechanisms"][0]["datasets"][0][1]
    assert any(output[0] == "coin" for output, _ in law) and len(law) > 10

    def moved(d):
        moved_law = d["mechanisms"][0]["datasets"][0][1]
        moved_law[0][1] = str(Fraction(law[0][1]) + Fraction(1, 10))
        moved_law[-1][1] = str(Fraction(law[-1][1]) - Fraction(1, 10))
    assert "outside" in tampered(data, moved) or "recomputed" in tampered(data, moved)
