"""Each subcommand on the shipped examples: exit statuses, plain text and ``--json`` (moved here
from the library tests of each concept; the library results themselves are tested there)."""

from __future__ import annotations

import csv
import json
from fractions import Fraction

import pytest

from pufferfish.cli.main import main
from pufferfish.examples import example_path

EXAMPLES = example_path("quickstart.json").parent


# --- dcp, dcp-design (004_acc5641f8e5f8c79.txt) -------------------------------------------------

def test_dcp_prints_levels_and_exit_codes(cli):
    code, out, _ = cli("dcp", EXAMPLES / "dcp_two_secrets.json")
    assert code == 0 and "log(31/7)" in out and "log(121/25)" in out
    code, out, _ = cli("dcp", EXAMPLES / "dcp_xor.json", "--epsilon", "1", "--delta", "1/10")
    assert code == 1 and "VIOLATED" in out
    code, out, _ = cli("dcp", EXAMPLES / "dcp_two_secrets.json", "--epsilon", "log(31/7)",
                       "--delta", "0", "--json")
    assert code == 0 and json.loads(out)["verdict"]["holds"] is True


def test_dcp_design(cli):
    code, out, _ = cli("dcp-design", EXAMPLES / "dcp_two_secrets.json", "--target-epsilon",
                       "log(5)", "--target-delta", "0", "--iterations", "2", "--json")
    data = json.loads(out)
    assert data["task2"]["epsilon"] == "log(31/7)" and data["task2"]["verified"] is True
    assert code == (0 if data["task1"]["verified"] else 1)


# --- multiuser (001_3a97785a86d61e37.txt §4) ---------------------------------------------------

def test_multiuser_prints_table_and_json(cli, tmp_path):
    code, out, _ = cli("multiuser", EXAMPLES / "multiuser_table3.json", "--pairs", "PQ",
                       "--epsilon", "1", "--no-minimal")
    assert code == 0 and "theorem4" in out and "2/ε = 2" in out
    target = tmp_path / "out.json"
    code, out, _ = cli("multiuser", EXAMPLES / "multiuser_bernoulli.json", "--pairs", "PQ",
                       "--epsilon", "1/2", "--json", "--output", target)
    data = json.loads(out)
    assert code == 0 and data == json.loads(target.read_text())
    assert {c["calibrator"] for c in data["calibrations"]} >= {"lemma1", "lemma2", "theorem4"}
    assert data["minimal_theta"]["upper_float"] < 2


def test_multiuser_bad_pairs_and_file(cli, tmp_path):
    code, out, err = cli("multiuser", EXAMPLES / "multiuser_table3.json", "--pairs", "xy",
                         "--epsilon", "1")
    assert code == 2 and "--pairs" in err and out == ""
    bad = tmp_path / "bad.json"
    bad.write_text('{"multiuser_model": 1, "users": [{"name": "a", "distribution": {"1": 0.5}}]}')
    code, out, err = cli("multiuser", bad, "--pairs", "ab", "--epsilon", "1")
    assert code == 2 and "error" in err and out == ""


# --- wasserstein (002_e1f2e9a9937b8cda.txt §3) -------------------------------------------------

def test_wasserstein_flu(cli):
    code, out, _ = cli("wasserstein", EXAMPLES / "flu.json", "--query", "sum", "--epsilon", "1")
    assert code == 0
    assert "W = 2" in out and "σ = W/ε = 2" in out and "holds (below)" in out
    code, out, _ = cli("wasserstein", EXAMPLES / "flu.json", "--query", "sum", "--epsilon", "1",
                       "--json")
    data = json.loads(out)
    assert data["W"]["W"] == "2" and data["holds"] is True


def test_wasserstein_delta_and_bad_input(cli):
    code, out, _ = cli("wasserstein", EXAMPLES / "wasserstein_chain.json", "--query", "sum",
                       "--epsilon", "1/2", "--delta", "1/10")
    assert code == 0 and "Theorem A.8" in out
    code, _, err = cli("wasserstein", EXAMPLES / "flu.json", "--query", "sum", "--epsilon", "-1")
    assert code == 2 and "--epsilon" in err
    code, _, err = cli("wasserstein", EXAMPLES / "flu.json", "--query", "sum", "--epsilon", "1",
                       "--delta", "2")
    assert code == 2 and "error" in err


# --- quilts, mqm, mqm-figures (002_e1f2e9a9937b8cda.txt §4–5) -----------------------------------

def test_quilts_vstructure(cli):
    code, out, _ = cli("quilts", EXAMPLES / "bayesnet_vstructure.json", "--node", "A",
                       "--epsilon", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["quilts"][0]["quilt"] == [] and data["quilts"][0]["score"][1] >= 1.5


def test_mqm_chain_methods(cli):
    code, out, _ = cli("mqm", EXAMPLES / "chain_binary_T100.json", "--epsilon", "1", "--json")
    exact = json.loads(out)
    assert code == 0 and exact["method"] == "exact" and exact["worst_node"]["quilt"]["a"] == 9
    for method in ("approx", "fast"):
        code, out, _ = cli("mqm", EXAMPLES / "chain_binary_T100.json", "--epsilon", "1",
                           "--method", method, "--json")
        assert json.loads(out)["sigma_max"][0] >= exact["sigma_max"][1]


def test_quilts_mqm_bad_input_names_the_option(cli):
    code, _, err = cli("mqm", EXAMPLES / "chain_binary_T100.json", "--epsilon", "0")
    assert code == 2 and "--epsilon" in err
    code, _, err = cli("quilts", EXAMPLES / "chain_binary_T100.json", "--node", "101")
    assert code == 2 and "chain 1..100" in err


@pytest.mark.parametrize("options, phrase", [
    (["--pi", "abc"], "--g"),                      # --pi alone is refused, not ignored
    (["--g", "1/2"], "--pi"),
    (["--pi", "abc", "--g", "1/2"], "--pi"),
    (["--pi", "2", "--g", "1/2"], "--pi"),         # π_Θ outside (0, 1]
    (["--pi", "1/2", "--g", "0"], "--g"),
])
def test_mqm_pi_and_g_are_validated(cli, options, phrase):
    code, out, err = cli("mqm", EXAMPLES / "chain_binary_T100.json", "--epsilon", "1",
                         "--method", "approx", *options)
    assert code == 2 and phrase in err and out == "" and "Traceback" not in err


def test_mqm_pi_and_g_given_together_are_used(cli):
    code, out, _ = cli("mqm", EXAMPLES / "chain_binary_T100.json", "--epsilon", "1",
                       "--method", "approx", "--pi", "1/2", "--g", "1/2", "--json")
    assert code == 0 and json.loads(out)["method"] == "approx"


def test_mqm_figures_small(cli, tmp_path, monkeypatch):
    import pufferfish.proofs_check.paper_002.figures as figs
    original = figs.figure1_data
    monkeypatch.setattr(figs, "figure1_data", lambda **kw: original(
        runs=2, seed=kw.get("seed", 0), lows=[Fraction(1, 10), Fraction(2, 5)], grid=2))
    folder = tmp_path / "new" / "figs"                      # created when missing
    code, out, err = cli("mqm-figures", "--out", folder, "--grid", "3")
    assert code == 0 and (folder / "figure_1.png").stat().st_size > 1000
    assert (folder / "figure_3.png").exists()
    assert f"wrote {folder / 'figure_1.png'}" in err and f"wrote {folder / 'figure_3.png'}" in err


def test_mqm_figure_4(cli, tmp_path):
    code, out, err = cli("mqm-figures", "--out", tmp_path, "--figure", "4", "--repetitions",
                         "3", "--length", "150", "--lengths", "120,240", "--epsilons", "1,5",
                         "--json")
    assert code == 0
    assert json.loads(out)["figures"] == [str(tmp_path / "figure_4.png"),
                                          str(tmp_path / "figure_4.json")]
    assert "figure_4.json" in err                            # says it writes the data file
    assert (tmp_path / "figure_4.png").stat().st_size > 1000
    assert not (tmp_path / "figure_1.png").exists()
    data = json.loads((tmp_path / "figure_4.json").read_text())
    assert data["repetitions"] == 3 and [line["T"] for line in data["panels"]["T"]] == [120, 240]
    code, _, err = cli("mqm-figures", "--out", tmp_path, "--figure", "4", "--lengths", "a,b")
    assert code == 2 and "--lengths" in err


# --- influence, translate (000_65109fe28ca61d17.txt §6) -----------------------------------------

def test_influence_and_translate(cli, tmp_path):
    folder = tmp_path / "curve"
    code, out, err = cli("influence", "examples/influence_chain.json", "--out", folder,
                         "--max-b", "7")
    assert code == 0 and "log(64)" in out
    curve_file = folder / "influence_curve.json"
    assert (folder / "influence_curve.png").stat().st_size > 0 and str(curve_file) in err
    code, out, _ = cli("translate", "--curve", curve_file, "--epsilon-puffer", "2")
    assert code == 0 and "2/7" in out
    code, out, _ = cli("translate", "--curve", curve_file, "--epsilon-dp", "1/2", "--json")
    assert code == 0 and json.loads(out)["epsilon_puffer"]["value"] == "7/2"
    code, out, _ = cli("influence", "examples/influence_table.json", "--secret-pair",
                       "x2=0,x2=1", "--json")
    assert code == 0 and json.loads(out)["points"][1]["a"] == "log(2)"


def test_influence_earlier_file_options_still_work(cli, tmp_path):
    curve_file, plot = tmp_path / "c.json", tmp_path / "c.png"
    code, _, _ = cli("influence", "examples/influence_chain.json", "--save-curve", curve_file,
                     "--plot", plot, "--max-b", "3")
    assert code == 0 and plot.stat().st_size > 0 and json.loads(curve_file.read_text())


# --- experiment topk (000_65109fe28ca61d17.txt §7) ----------------------------------------------

def test_experiment_writes_csv_and_plot(cli, tmp_path, monkeypatch):
    from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES

    monkeypatch.setitem(SHAPES, "activities", SHAPES["activities"].scaled(0.1))
    code, out, err = cli("experiment", "topk", "--shape", "activities", "--trials", "3",
                         "--out", tmp_path)
    assert code == 0
    assert "Majority baseline" in out and "Ours-Exp ≥ MQM" in out
    with open(tmp_path / "topk_activities_K3.csv") as handle:
        assert len(list(csv.DictReader(handle))) == 6 * 4 * 6
    assert (tmp_path / "topk_activities_K3.png").stat().st_size > 1000
    assert "topk_activities_K3.csv" in err and "\r" not in err


def test_experiment_refuses_an_existing_file_as_out_before_the_trials(cli, tmp_path):
    existing = tmp_path / "file"
    existing.write_text("x")
    code, out, err = cli("experiment", "topk", "--out", existing, "--trials", "100000")
    assert code == 2 and "--out" in err and out == ""


# --- collapse (000_65109fe28ca61d17.txt §4) ------------------------------------------------------

def test_collapse_size_option_and_its_earlier_spellings(cli):
    assert cli("collapse", "parity", "--size", "4", "--json")[1] == \
        cli("collapse", "parity", "--n", "4", "--json")[1]
    assert cli("collapse", "resample", "--size", "3", "--json")[1] == \
        cli("collapse", "resample", "--bits", "3", "--json")[1]
    code, _, err = cli("collapse", "interval", "--size", "3")
    assert code == 2 and "--size" in err


# --- postprocess (000_65109fe28ca61d17.txt §5.2) -------------------------------------------------

def test_postprocess_construction_goes_to_out(cli, tmp_path):
    from pufferfish.models.files.pufferfish_file import load_model

    constraints = tmp_path / "c.json"
    constraints.write_text(json.dumps({"nfc_constraints": 1, "epsilon": "1/2", "constraints": [
        {"name": "mixed", "left": [0], "beta": [[[1], "1/2"], [[2], "1/2"]]},
        {"name": "dp", "left": [1], "pair": ["s2", "s1"], "beta": [[[0], "1"]]}]}))
    code, out, err = cli("postprocess", "--constraints", constraints, "--out", tmp_path / "o")
    assert code == 0 and "NOT invariant" in out
    written = tmp_path / "o" / "construction.json"
    assert str(written) in err
    assert set(load_model(written).mechanisms) == {"M_hat", "A_of_M_hat"}


# --- audit: neighbour relations, chosen mechanisms, DP budgets (000_65109fe28ca61d17.txt §2.1) ------

ANSWERS = {"pufferfish_model": 1, "attributes": ["q1", "q2", "q3"], "domain": [0, 1, 2],
           "datasets": "all", "priors": {"uniform": {"uniform": True}}, "entry_pairs": True,
           "mechanisms": {
               "sum": {"query": "sum", "noise": {"geometric": {"alpha": "1/2", "min": 0, "max": 6}}},
               "rr": {"per_entry": {"randomized_response": {"keep": "1/2"}}}}}
"""Three query answers in {0, 1, 2}: the noisy sum costs 2^Δ for a change Δ of the sum,
randomized response keeping 1/2 costs 2 per changed answer."""


def answers_path(tmp_path, **extra):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({**ANSWERS, **extra}))
    return path


def test_audit_neighbours_and_dp_budget(cli, tmp_path):
    path = answers_path(tmp_path)
    code, out, _ = cli("audit", path, "--neighbours", "linf:1", "--epsilon-dp", "log(8)")
    assert code == 0 and "linf:1 log(8)" in out and "DP budget ε = log(8) (linf:1): holds" in out
    code, out, _ = cli("audit", path, "--neighbours", "linf:1", "--neighbours", "l1:1",
                       "--epsilon-dp", "2")                                  # log 8 > 2 > log 2
    assert code == 1 and "DP budget ε = 2 (linf:1, l1:1): VIOLATED" in out
    assert "sum: linf:1 DP level log(8) exceeds 2: output 0 on [0, 0, 0] vs [1, 1, 1]" in out
    code, out, _ = cli("audit", path, "--neighbours", "linf:1", "--epsilon-dp", "2", "--json")
    data = json.loads(out)
    assert code == 1 and data["neighbours"] == ["linf:1"] and data["dp_budget"] == "2"
    assert data["dp_holds"] is False and data["holds"] is False and "budget" not in data
    sum_dp = data["mechanisms"][0]["dp"][0]
    assert (sum_dp["neighbours"], sum_dp["epsilon"], sum_dp["pairs_checked"]) == ("linf:1",
                                                                                 "log(8)", 316)
    assert sum_dp["witness"]["dataset"] == [0, 0, 0] and sum_dp["holds"] is False


def test_audit_takes_the_model_relation_unless_told(cli, tmp_path):
    path = answers_path(tmp_path, neighbours={"add_remove": {"absent": 0}})
    code, out, _ = cli("audit", path, "--json")
    data = json.loads(out)
    assert data["neighbours"] == [{"add_remove": {"absent": 0}}]
    # removing a record (its answer becomes 0) moves the sum by up to 2
    assert [d["epsilon"] for d in data["mechanisms"][0]["dp"]] == ["log(4)"]
    code, out, _ = cli("audit", path, "--neighbours", "entry", "--group", "2", "--json")
    assert json.loads(out)["neighbours"] == ["entry", "group:2"]


def test_audit_listed_pairs_from_a_file(cli, tmp_path):
    pairs = tmp_path / "pairs.json"
    pairs.write_text(json.dumps({"pairs": [[[0, 0, 0], [1, 2, 0]]]}))
    code, out, _ = cli("audit", answers_path(tmp_path), "--neighbours", f"pairs:{pairs}",
                       "--mechanism", "rr", "--json")
    dp = json.loads(out)["mechanisms"][0]["dp"][0]
    # two answers change: (1/2 · 1/2) / (1/4 · 1/4) = 4 on the output [0, 0, *]
    assert code == 0 and dp["neighbours"] == "listed pairs (1)" and dp["epsilon"] == "log(4)"
    assert dp["pairs_checked"] == 2
    assert json.loads(out)["neighbours"] == [{"pairs": [[[0, 0, 0], [1, 2, 0]]]}]


def test_audit_only_the_named_mechanisms(cli, tmp_path):
    path = answers_path(tmp_path)
    code, out, _ = cli("audit", path, "--mechanism", "rr")
    assert code == 0 and "rr " in out and "sum " not in out and "joint release" not in out
    code, out, _ = cli("audit", path, "--mechanism", "rr", "--mechanism", "sum", "--json")
    data = json.loads(out)
    assert [m["mechanism"] for m in data["mechanisms"]] == ["sum", "rr"]
    assert data["composition"] is not None


@pytest.mark.parametrize("options, phrase", [
    (["--mechanism", "noise"], "--mechanism: unknown mechanism 'noise'; the model's mechanisms "
                               "are 'sum', 'rr'"),
    (["--neighbours", "hamming:1"], "--neighbours: unknown neighbour relation 'hamming:1'"),
    (["--neighbours", "add_remove:x"], "--neighbours: no attribute's domain holds the value 'x'"),
    (["--epsilon-dp", "-1"], "--epsilon-dp"),
    (["--neighbours", "linf:1", "--max-pairs", "300"],
     "316 ordered pairs of datasets to examine in this universe, more than the limit of 300"),
    (["--neighbours", "linf:1/2"], "linf:1/2 relates no two datasets of this universe"),
    (["--symbolic", "--neighbours", "linf:1"], "--symbolic")])
def test_audit_bad_new_options_exit_2(cli, tmp_path, options, phrase):
    code, out, err = cli("audit", answers_path(tmp_path), *options)
    assert code == 2 and out == "" and phrase in err, err


def test_audit_bad_pairs_file_is_located(cli, tmp_path):
    pairs = tmp_path / "pairs.json"
    pairs.write_text(json.dumps({"pairs": [[[0, 0, 0], [0, 0, 5]]]}))
    code, out, err = cli("audit", answers_path(tmp_path), "--neighbours", f"pairs:{pairs}")
    assert code == 2 and out == ""
    assert f"--neighbours {pairs}: pairs.0.1: value 5 of attribute 'q3'" in err
    code, _, err = cli("audit", answers_path(tmp_path), "--neighbours",
                       f"pairs:{tmp_path / 'missing.json'}")
    assert code == 2 and "missing.json" in err
    strings = tmp_path / "strings.json"
    strings.write_text(json.dumps({**ANSWERS, "domain": ["a", "b"], "mechanisms": {
        "rr": {"per_entry": {"randomized_response": {"keep": "1/2"}}}}}))
    code, _, err = cli("audit", strings, "--neighbours", "linf:1")
    assert code == 2 and "compares numeric query answers" in err


def test_symbolic_audit_refuses_a_model_relation_it_cannot_compute(cli, tmp_path):
    data = json.loads((EXAMPLES / "quickstart_parametric.json").read_text())
    data["neighbours"] = "linf:1"
    path = tmp_path / "parametric.json"
    path.write_text(json.dumps(data))
    code, out, err = cli("audit", path, "--symbolic", "--set", "q=9/10")
    assert code == 2 and out == "" and "'linf:1'" in err and "--set" in err
    code, out, _ = cli("audit", path, "--set", "q=9/10", "--set", "p=3/4", "--json")
    assert code == 0 and json.loads(out)["neighbours"] == ["linf:1"]


def test_audit_help_names_the_new_options(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option in ("--neighbours RELATION", "--mechanism NAME", "--epsilon-dp", "--max-pairs",
                   "linf:K, l1:K", "add_remove:VALUE", "pairs:FILE"):
        assert option in text, option


# --- conventions in action ------------------------------------------------------------------------

def test_quiet_suppresses_the_notes_and_json_keeps_stdout_pure(cli, tmp_path):
    code, out, err = cli("influence", "examples/influence_chain.json", "--out", tmp_path,
                         "--max-b", "2", "--quiet", "--json", "--output", tmp_path / "r.json")
    assert code == 0 and err == ""
    assert json.loads(out) == json.loads((tmp_path / "r.json").read_text())
    assert (tmp_path / "influence_curve.json").exists()


def test_no_mechanisms_is_not_a_pass(cli, tmp_path):
    data = json.loads((EXAMPLES / "quickstart.json").read_text())
    data["mechanisms"] = {}
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(data))
    code, out, err = cli("audit", path, "--epsilon", "1")
    assert code == 2 and "mechanisms" in err and out == ""


def test_multiuser_with_no_pair_to_check_is_not_a_pass(cli, tmp_path):
    data = json.loads((EXAMPLES / "multiuser_bernoulli.json").read_text())
    del data["users"][3]["alternative"]
    path = tmp_path / "no_alternative.json"
    path.write_text(json.dumps(data))
    code, out, err = cli("multiuser", path, "--pairs", "PQ", "--epsilon", "1")
    assert code == 2 and "error" in err and out == ""
