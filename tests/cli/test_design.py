"""``pufferfish design``: the designed model file passes ``audit`` and ``composes``; the JSON
result; bad input exits 2 with a located message."""

from __future__ import annotations

import json

import pytest

from pufferfish.examples import example_path

QUICKSTART = str(example_path("quickstart.json"))


def test_design_writes_a_model_that_audit_accepts(cli, tmp_path):
    code, out, err = cli("design", QUICKSTART, "--query", "sum", "--epsilon", "log(3)",
                         "--out", tmp_path)
    assert code == 0, err
    assert "gap             0: proved optimal" in out and "designed and verified" in out
    model = tmp_path / "designed.json"
    assert f"wrote {model}" in err
    code, out, _ = cli("audit", model, "--epsilon", "log(3)")
    assert code == 0 and "designed" in out


def test_dp_style_design_composes(cli, tmp_path):
    code, _, err = cli("design", QUICKSTART, "--query", "sum", "--epsilon", "log(3)",
                       "--composable", "dp-style", "--out", tmp_path, "--quiet")
    assert code == 0, err
    code, out, _ = cli("composes", tmp_path / "designed.json", "--epsilon", "log(3)")
    assert code == 0, out


def test_json_result(cli):
    code, out, _ = cli("design", QUICKSTART, "--query", "sum", "--epsilon", "log(3)", "--json")
    document = json.loads(out)
    assert code == 0 and document["command"] == "design"
    assert (document["loss"], document["lower_bound"], document["optimal"]) == ("3/16", "3/16",
                                                                                 True)
    assert document["audit"]["holds"] is True


def test_compare_and_figure(cli, tmp_path):
    code, out, err = cli("design", QUICKSTART, "--query", "sum", "--epsilon", "log(3)",
                         "--compare", "--epsilons", "log(2),log(3)", "--out", tmp_path)
    assert code == 0, err
    assert "price of composability (DP-style − Pufferfish optimum): 43/144" in out
    assert (tmp_path / "design_loss.png").stat().st_size > 0


def test_nfc_mode_exit_statuses(cli):
    code, out, _ = cli("design", QUICKSTART, "--query", "attribute:x1", "--epsilon", "log(2)",
                       "--composable", "nfc")
    assert code == 0 and "necessary condition holds" in out
    code, out, _ = cli("design", QUICKSTART, "--query", "sum", "--epsilon", "log(2)",
                       "--composable", "nfc", "--quiet")
    assert code == 3 and "undecided" in out


def _table(tmp_path, body) -> str:
    path = tmp_path / "loss.json"
    path.write_text(json.dumps(body) if not isinstance(body, str) else body)
    return str(path)


BAD = {
    "unknown query": (["--query", "median"], "--query"),
    "unknown prior": (["--data", "nobody"], "--data"),
    "negative epsilon": (["--epsilon", "-1"], "--epsilon"),
    "float in loss table": (["--loss-table", {"design_loss": 1, "loss": {"0": {"0": 0.5}}}],
                            "loss.0.0"),
    "negative loss": (["--loss-table", {"design_loss": 1, "loss": {"0": {"0": "-1"}}}],
                      "loss.0.0"),
    "loss table missing a row": (["--loss-table", {"design_loss": 1,
                                                   "loss": {"0": {"0": "0"}}}], "loss.0.1"),
    "loss table of the wrong kind": (["--loss-table", {"pufferfish_model": 1}], "design_loss"),
    "loss and loss table": (["--loss", "l1", "--loss-table", {"design_loss": 1, "loss": {}}],
                            "not both"),
    "epsilon-dp without dp-style": (["--epsilon-dp", "1"], "--epsilon-dp"),
    "unknown neighbours": (["--composable", "dp-style", "--neighbours", "cousins"],
                           "--neighbours"),
    "empty output": (["--output-values", "1,,2"], "--output-values"),
    "epsilons without out": (["--compare", "--epsilons", "1,2"], "--out"),
    "unknown composable": (["--composable", "sometimes"], "--composable"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_exits_2_located(cli, tmp_path, name):
    extra, located = BAD[name]
    argv = ["design", QUICKSTART, "--query", "sum", "--epsilon", "log(3)"]
    for item in extra:
        argv.append(_table(tmp_path, item) if isinstance(item, dict) else item)
    if "--query" in extra:
        argv[2:4] = []
    if "--epsilon" in extra:
        argv[4:6] = []
    code, out, err = cli(*argv)
    assert code == 2, (argv, out, err)
    assert located in err and "Traceback" not in err and out == ""
