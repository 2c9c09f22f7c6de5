"""``--workers`` / ``--scheduler`` (:func:`pufferfish.cli.common.add_execution_options`): the same
JSON on a local cluster as in this process; a bad choice is a clear error with exit 2."""

from __future__ import annotations

import json

import pytest

from pufferfish.examples import example_path


def test_audit_on_a_local_cluster_prints_the_in_process_json(cli):
    model = str(example_path("quickstart.json"))
    code, alone, _ = cli("audit", model, "--epsilon", "log(4)", "--json")
    code_cluster, clustered, err = cli("audit", model, "--epsilon", "log(4)", "--json",
                                       "--workers", "2")
    assert code == code_cluster == 1
    assert json.loads(clustered) == json.loads(alone)


def test_scheduler_and_workers_together_are_refused(cli):
    code, out, err = cli("audit", str(example_path("quickstart.json")), "--workers", "2",
                         "--scheduler", "tcp://127.0.0.1:8786")
    assert code == 2 and "not allowed with" in err and not out


def test_an_unreachable_scheduler_is_a_located_error(cli):
    code, out, err = cli("theorems", "--claim", "004.lemma2", "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in err
    assert "Traceback" not in err and not out


def test_symbolic_audits_refuse_a_cluster(cli):
    code, _, err = cli("audit", str(example_path("quickstart_parametric.json")), "--symbolic",
                       "--workers", "2")
    assert code == 2 and "--symbolic runs in this process" in err


@pytest.mark.parametrize("command", [
    ("audit", "dp_benchmarks/rnm1.json"),
    ("audit", "chain_sum_T60.json", "--method", "structured", "--epsilon", "log(3)"),
    ("approximate-dp", "dp_benchmarks/rnm1.json", "--epsilon", "log(3)"),
    ("epsilon-range", "dp_benchmarks/laplace_suite.json", "--mechanism", "noisy_histogram",
     "--neighbours", "linf:1", "--factor", "2", "--low", "1/10", "--high", "2")])
def test_programs_and_structured_audits_on_a_cluster_print_the_same_bytes(cli, command):
    name, model, *options = command
    code, alone, _ = cli(name, str(example_path(model)), *options, "--json")
    code_cluster, clustered, err = cli(name, str(example_path(model)), *options, "--json",
                                       "--workers", "2")
    assert code == code_cluster and clustered == alone and "local Dask cluster" in err
