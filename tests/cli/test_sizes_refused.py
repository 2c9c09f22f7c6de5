"""Sizes checked before anything is built: hostile inputs that used to reach gigabytes, abort in
GMP (SIGABRT) or run for minutes are refused up front with the figure (exit 2), and budgets the
searches cannot take are refused naming the valid range.  The subprocess cases run under an
address-space limit (deterministic: the estimates compare with the memory the process may use),
never against a clock."""

from __future__ import annotations

import json

import pytest

from pufferfish.examples import example_path

MEMORY = 2 << 30        # the address-space limit of the subprocess cases


def assert_refused(result, *phrases: str) -> None:
    code, out, err = result
    assert code == 2, f"exit {code}; stderr: {err[-2000:]}"
    assert "Traceback" not in err and "\nerror: " in "\n" + err, err[-2000:]
    for phrase in phrases:
        assert phrase in err, (phrase, err)


def bif_model(tmp_path, bif: str, domains: dict, mechanism: dict) -> str:
    (tmp_path / "net.bif").write_text(bif, encoding="utf-8")
    names = list(domains)
    data = {"pufferfish_model": 1, "attributes": names, "domain": domains, "datasets": "all",
            "priors": {"net": {"bayesnet": {"bif": "net.bif"}}},
            "secrets": {"s0": {"where": {names[-1]: domains[names[-1]][0]}},
                        "s1": {"where": {names[-1]: domains[names[-1]][1]}}},
            "pairs": [["s0", "s1"]], "mechanisms": {"m": mechanism}}
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_2_kb_bif_with_a_24_parent_node_is_refused_from_its_cpt_size(tmp_path,
                                                                       pufferfish_process):
    """It reached 3.7 GB, then exit 4; the CPT is counted from the declarations instead."""
    parents = [f"p{i}" for i in range(24)]
    text = "".join(f"variable {p} {{ type discrete [ 2 ] {{ x, y }}; }}\n" for p in parents)
    text += "variable c { type discrete [ 2 ] { x, y }; }\n"
    text += "".join(f"probability ( {p} ) {{ table 0.5, 0.5; }}\n" for p in parents)
    text += f"probability ( c | {', '.join(parents)} ) {{\n  default 0.5, 0.5;\n}}\n"
    assert len(text) < 2500
    path = bif_model(tmp_path, text, {n: ["x", "y"] for n in parents + ["c"]},
                     {"query": "identity"})
    assert_refused(pufferfish_process(["audit", path], memory=MEMORY, timeout=600),
                   "net.bif:50: the CPTs of this network hold 33,554,480 probabilities, more "
                   "than the 4,194,304",
                   "of 'c', has 33,554,432 (2 values × 16,777,216 combinations of its 24 "
                   "parents)")


def test_a_bif_variable_of_100_000_states_is_refused_before_the_potentials(tmp_path,
                                                                           pufferfish_process):
    """The structured path aborted in GMP (SIGABRT, no message); the potentials are estimated
    from the cliques' sizes and the code's degree before any is built."""
    n = 100_000
    values = [f"v{i}" for i in range(n)]
    text = f"variable a {{ type discrete [{n}] {{ {', '.join(values)} }}; }}\n"
    text += "variable b { type discrete [2] { x, y }; }\n"
    text += f"probability ( a ) {{ table {', '.join(['1e-05'] * n)}; }}\n"
    text += "probability ( b | a ) { default 0.5, 0.5; }\n"
    path = bif_model(tmp_path, text, {"a": values, "b": ["x", "y"]}, {"query": "identity"})
    assert_refused(pufferfish_process(["audit", path, "--method", "structured"], memory=MEMORY,
                                      timeout=600),
                   "the exact sum-product over this prior's junction tree (1 cliques of up to "
                   "2 attributes, codes up to 199,999) needs about 298.0 GB for its potentials, "
                   "more than three quarters of the 2.0 GB this process may use")


def chain_file(tmp_path, width: int) -> str:
    data = json.loads(example_path("chain_sum_T60.json").read_text())
    data["attributes"] = [f"x{t}" for t in range(1, width + 1)]
    data["mechanisms"]["sum"]["noise"]["geometric"]["max"] = width
    path = tmp_path / f"chain{width}.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_least_noise_on_a_100_000_attribute_chain_is_refused_from_the_law_sizes(
        tmp_path, pufferfish_process):
    """--ends-only aborted in GMP after 176 s and the default refused only after 175 s: both are
    now refused from estimates, the first from the exact masses, the second from the messages."""
    path = chain_file(tmp_path, 100_000)
    assert_refused(pufferfish_process(["least-noise", path, "--epsilon", "1", "--ends-only"],
                                      memory=MEMORY, timeout=600),
                   "the secrets' masses of prior 'chain' at the two ends (100,000 secret pairs, "
                   "100,000 attributes) need about 23.3 GB of exact integers")
    assert_refused(pufferfish_process(["least-noise", path, "--epsilon", "1"], memory=MEMORY,
                                      timeout=600),
                   "(99999 cliques of up to 2 attributes, codes up to 100,000) needs about",
                   "GB for its messages", "--ends-only needs no polynomials")


def test_ends_only_exact_levels_are_refused_at_a_noise_they_would_not_fit(
        tmp_path, pufferfish_process):
    """At 10,000 attributes the masses fit, and so do the Laplace levels (balls), but the exact
    end values grow with the bits of α: refused with the figure before the α that would not fit
    (the run aborted in GMP under 4 GB)."""
    path = chain_file(tmp_path, 10_000)
    assert_refused(pufferfish_process(["least-noise", path, "--epsilon", "1", "--ends-only",
                                       "--noise", "geometric"], memory=MEMORY, timeout=900),
                   "the exact levels at α = ", "of prior 'chain' at the two ends (10,000 "
                   "secret pairs, 10,000 attributes) need about", "GB of exact integers",
                   "Laplace levels (balls of fixed precision) need far less")
    code, out, err = pufferfish_process(["least-noise", path, "--epsilon", "1", "--ends-only",
                                         "--noise", "laplace"], memory=MEMORY, timeout=900)
    assert code == 0, err[-2000:]
    assert "laplace noise, ε = 1: b_fail = 266/45" in out, out


@pytest.mark.parametrize("argv, where, phrase", [
    (["least-noise", "{quickstart}", "--epsilon", "1e-30"], "--epsilon",
     "ε must be in [1e-9, 100] for the least-noise searches, got 1e-30"),
    (["least-noise", "{quickstart}", "--epsilon", "1000000"], "--epsilon",
     "ε must be in [1e-9, 100] for the least-noise searches, got 1000000"),
    (["least-noise", "{quickstart}", "--epsilon", f"log(1{'0' * 44})"], "--epsilon",
     "ε must be in [1e-9, 100]"),
    (["mqm-price", "--lengths", "6", "--epsilons", "1e-30", "--lows", "1/4"], "--epsilons",
     "ε must be in [1e-9, 100] for the least-noise searches, got 1e-30"),
    (["mqm-price", "--lengths", "6", "--epsilons", "1", "--lows", "1e-1000"], "--lows",
     "ℓ must be in [1/1000000, 1/2), got 1e-1000"),
    (["mqm-price", "--lengths", "6", "--epsilons", "1", "--lows", "1/10^1000"], "--lows",
     "is not a number"),
])
def test_budgets_the_searches_cannot_take_are_refused_naming_the_range(capsys, argv, where,
                                                                       phrase):
    from pufferfish.cli.main import main

    argv = [a.replace("{quickstart}", str(example_path("quickstart.json"))) for a in argv]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"error: {where}: ") and phrase in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("epsilon", ["1e-9", "100"])
def test_the_ends_of_the_range_are_searched(epsilon):
    from fractions import Fraction

    from pufferfish.api import load
    from pufferfish.verify.structured.least_noise import least_noise

    report = least_noise(load("quickstart.json"), epsilon, tolerance=Fraction(1, 100))
    for result in (report.geometric, report.laplace):
        assert result.least and result.ok is not None and result.fail is not None


def test_a_multiuser_calibration_over_100_000_values_is_refused_from_its_lattice(tmp_path,
                                                                                capsys):
    """It ran for minutes before answering (about 25–60 ms per pair point); the pairs × lattice
    points are counted first and refused above 2,000."""
    from pufferfish.cli.main import main

    data = json.loads(example_path("multiuser_bernoulli.json").read_text())
    data["users"][0]["distribution"] = {str(i): "1/100000" for i in range(1, 100_001)}
    path = tmp_path / "many.json"
    path.write_text(json.dumps(data))
    code = main(["multiuser", str(path), "--pairs", "PQ", "--epsilon", "1"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: --pairs: calibrating PQ would compare 1 pair for user 'u4', "
                          "each over distributions of up to 100,010 points"), err
    assert "limit of 2,000" in err and "Traceback" not in err
