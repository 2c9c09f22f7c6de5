"""``audit --block-datasets`` bounds one block of an audit, not the universe
(:mod:`pufferfish.verify.privacy.audit_plan`): a universe larger than the limit is audited in
blocks below it with the same result; a block that cannot be cut below the limit, a scan of the
whole universe above it, and a run whose memory estimate exceeds the machine are refused before
any work, with located errors."""

from __future__ import annotations

import json
import re
import pytest

from pufferfish.cli.main import main
from pufferfish.examples import example_path, quickstart_over
from pufferfish.models.errors import TooLargeError
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.verify.privacy import audit_plan
from pufferfish.verify.privacy.audit import audit_model
from pufferfish.verify.privacy.audit_plan import plan_audit


def enumerating_audit(*args, **options):
    """The audit by enumeration, whose plan, blocks and time estimate these tests check
    (``auto`` would audit these product and chain priors by their structure)."""
    return audit_model(*args, method="enumeration", **options)


def product_model(attributes: int) -> dict:
    """The quickstart on ``attributes`` binary attributes (fair and sticky priors)."""
    return quickstart_over(attributes, randomized=2)


def test_a_universe_above_the_limit_is_audited_in_blocks_with_the_same_result():
    model = parse_model(product_model(10))
    plan = plan_audit(model, max_datasets=50)
    assert plan.datasets == 1024 and plan.largest_block <= 50
    assert plan.prior_blocks >= 2 * 1024 // 50 and plan.dp_blocks >= 1024 // 50
    assert enumerating_audit(model, max_datasets=50).to_dict() == enumerating_audit(model).to_dict()


def test_a_prior_that_cannot_be_cut_below_the_limit_is_refused_at_the_prior():
    data = product_model(6)
    data["priors"]["listed"] = {"table": [[[v >> k & 1 for k in range(6)], "1/64"]
                                          for v in range(64)]}
    model = parse_model(data)
    with pytest.raises(TooLargeError) as error:
        enumerating_audit(model, max_datasets=40)
    assert "prior 'listed'" in error.value.reason and "per block" in error.value.reason
    assert error.value.path == "priors.listed"
    assert enumerating_audit(model, max_datasets=64).mechanisms  # the table fits one block of 64


def test_scans_of_the_whole_universe_keep_the_universe_limit():
    model = parse_model(product_model(8))
    enumerating_audit(model, max_datasets=100)  # entry DP and priors are cut into blocks
    with pytest.raises(TooLargeError, match="256 datasets"):
        enumerating_audit(model, group=2, max_datasets=100)  # group DP scans every pair


def test_a_run_needing_more_memory_than_the_machine_is_refused_before_it_starts(monkeypatch):
    model = parse_model(product_model(8))
    plan = plan_audit(model)
    assert plan.memory_bytes > plan.worker_memory_bytes > audit_plan.BASE_BYTES
    monkeypatch.setattr(audit_plan, "physical_memory", lambda: plan.memory_bytes - 1)
    with pytest.raises(TooLargeError, match="memory"):
        enumerating_audit(model)


def test_the_memory_estimate_grows_with_the_universe_and_the_mechanisms():
    small, large = (plan_audit(parse_model(product_model(n))) for n in (8, 12))
    extra = 8 * (2**12 - 2**8) * 2  # an int64 key number per dataset and mechanism (two)
    assert large.memory_bytes - small.memory_bytes >= extra


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_states_the_plan_of_a_split_audit(capsys, tmp_path, monkeypatch):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(product_model(16)), encoding="utf-8")
    code, out, err = run(capsys, "audit", str(path), "--block-datasets", "5000", "--json",
                          "--method", "enumeration")
    assert code == 0 and json.loads(out)["mechanisms"]
    assert "audit plan: 65,536 datasets in 32 prior blocks, 16 DP blocks and 14 DP columns" in err
    assert re.search(r"; memory about \d+ MB; time about \d+ s on 1 process \(from one block of "
                     r"each kind, run first\)", err)
    largest = int(re.search(r"of at most ([\d,]+) datasets each", err)[1].replace(",", ""))
    assert 4096 <= largest <= 5000
    assert "audit plan" not in run(capsys, "audit", str(path), "--quiet", "--method", "enumeration")[2]
    monkeypatch.setattr(audit_plan, "physical_memory", lambda: 2**20)
    code, out, err = run(capsys, "audit", str(path), "--method", "enumeration")
    assert code == 2 and "memory" in err and "Traceback" not in err and not out


def test_small_models_print_no_plan(capsys):
    code, _, err = run(capsys, "audit", str(example_path("quickstart.json")))
    assert code == 0 and "audit plan" not in err


def test_the_time_estimate_reuses_the_blocks_it_timed():
    """The blocks timed for the estimate are part of the result: the audit with an announced plan
    equals the audit without, and each timed block is computed once."""
    model = parse_model(product_model(16))
    plans = []
    timed = enumerating_audit(model, max_datasets=5000, announce=plans.append)
    assert timed.to_dict() == enumerating_audit(model, max_datasets=5000).to_dict()
    assert len(plans) == 1 and plans[0].is_split and plans[0].seconds > 0
    small = []
    enumerating_audit(parse_model(product_model(8)), announce=small.append)
    assert not small[0].is_split and small[0].seconds is None  # one block: nothing to estimate


def test_every_block_runs_once_when_the_time_is_estimated(monkeypatch):
    from pufferfish.verify.privacy import audit as audit_module, dp_blocks

    calls = {"prior": 0, "row": 0}
    prior_task, row_task = audit_module.support_block_sums, dp_blocks.block_keys_and_pairs

    def counted_prior(*args):
        calls["prior"] += 1
        return prior_task(*args)

    def counted_row(*args):
        calls["row"] += 1
        return row_task(*args)
    monkeypatch.setattr(audit_module, "support_block_sums", counted_prior)
    monkeypatch.setattr(dp_blocks, "block_keys_and_pairs", counted_row)
    plans = []
    enumerating_audit(parse_model(product_model(16)), max_datasets=5000, announce=plans.append)
    assert calls == {"prior": plans[0].prior_blocks, "row": plans[0].dp_blocks}
