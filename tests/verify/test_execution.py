"""The execution layer (:mod:`pufferfish.verify.execution`): a local Dask cluster of 2 worker
processes gives exactly the in-process answers for an audit and a claim sweep, also when a worker
is killed in the middle of the run; the options pick the engine they name."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pytest

from pufferfish.examples import example_path, quickstart_over
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.models.mechanisms import RandomizedResponse
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.registry import claims_for
from pufferfish.proofs_check.runner import run_claims, run_vacuity
from pufferfish.verify.execution import (SCHEDULER_VARIABLE, DaskEngine,
                                         InProcessEngine, engine_from)
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy import blocks as blocks_module
from pufferfish.verify.privacy.audit import audit_model
from pufferfish.verify.privacy.dp_blocks import dp_levels_blocked


def enumerating_audit(*args, **options):
    """The audit by enumeration, whose plan, blocks and time estimate these tests check
    (``auto`` would audit these product and chain priors by their structure)."""
    return audit_model(*args, method="enumeration", **options)


def chain_model(attributes: int) -> dict:
    """The quickstart over more binary attributes (the audit benchmark's instance)."""
    return quickstart_over(attributes, fair_one="2/3", randomized=2)


def test_no_option_runs_in_process_and_both_options_are_refused(monkeypatch):
    monkeypatch.delenv(SCHEDULER_VARIABLE, raising=False)
    with engine_from() as engine:
        assert isinstance(engine, InProcessEngine) and engine.workers == 1
        assert engine.map(divmod, [(7, 2), (9, 4)]) == [(3, 1), (2, 1)]
        assert engine.map(lambda shared, x: shared + x, [(1,), (2,)], shared=10) == [11, 12]
    with pytest.raises(ValueError):
        engine_from("tcp://127.0.0.1:8786", 2)


def test_the_environment_variable_names_a_scheduler(cluster, monkeypatch):
    monkeypatch.setenv(SCHEDULER_VARIABLE, cluster.client.scheduler.address)
    with engine_from() as engine:
        assert isinstance(engine, DaskEngine) and "scheduler at" in engine.description
        assert engine.map(divmod, [(7, 2)]) == [(3, 1)]


def test_a_local_cluster_keeps_the_input_order(cluster):
    assert cluster.workers == 2
    assert cluster.map(pow, [(2, k) for k in range(20)]) == [2**k for k in range(20)]


def test_an_audit_on_two_workers_is_the_in_process_audit(cluster, monkeypatch):
    monkeypatch.setattr(blocks_module, "BLOCK_DATASETS", 16)
    data, budget = chain_model(9), parse_budget("log(4)")
    alone = enumerating_audit(parse_model(data), budget, group=2).to_dict()
    assert enumerating_audit(parse_model(data), budget, group=2, engine=cluster).to_dict() == alone


def test_an_audit_survives_a_killed_worker(monkeypatch, killing_engine):
    monkeypatch.setattr(blocks_module, "BLOCK_DATASETS", 8)
    data = chain_model(10)
    alone = enumerating_audit(parse_model(data)).to_dict()
    with killing_engine(after=5) as engine:
        assert enumerating_audit(parse_model(data), engine=engine).to_dict() == alone
        assert engine.killed is not None


SWEEP = claims_for(paper="004")[:12]
"""The claims of the cluster sweeps: a dozen of the cheapest paper's, with their shared caches."""


def test_a_claim_sweep_on_two_workers_is_the_in_process_sweep(cluster, claim_results):
    claims = SWEEP
    alone = claim_results(claims).to_dict()
    assert run_claims(claims, engine=cluster).to_dict() == alone
    assert run_vacuity(claims[:4], engine=cluster).to_dict() == run_vacuity(claims[:4]).to_dict()


def test_a_claim_sweep_survives_a_killed_worker(killing_engine, claim_results):
    claims = SWEEP
    alone = claim_results(claims).to_dict()
    with killing_engine(after=3) as engine:
        assert run_claims(claims, engine=engine).to_dict() == alone
        assert engine.killed is not None


def test_the_loss_figure_budgets_on_two_workers_are_the_in_process_curves(cluster):
    from pufferfish.models.files.pufferfish_file import load_model
    from pufferfish.verify.design.figure import loss_curves

    model = load_model(example_path("quickstart.json"))
    budgets = [parse_budget(b) for b in ("log(2)", "log(3)", "1/2")]
    assert loss_curves(model, "attribute:x1", budgets, cluster) == \
        loss_curves(model, "attribute:x1", budgets)


def test_a_few_claims_are_split_across_the_workers_with_the_same_report(cluster, claim_results):
    claims = claims_for(claim_id="004.lemma2") + claims_for(claim_id="004.fig1.targets")
    assert len(claims) < 4 * cluster.workers  # so each claim is split into one part per worker
    assert run_claims(claims, engine=cluster).to_dict() == claim_results(claims).to_dict()


def test_top_k_trials_on_two_workers_are_the_in_process_trials(cluster):
    import numpy as np

    from pufferfish.proofs_check.paper_000.topk.experiment import build_setup, run_trials
    from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate

    setup = build_setup(generate(SHAPES["activities"].scaled(0.1), seed=1), K=3,
                        epsilons=("0.5", "5"))
    assert np.array_equal(run_trials(setup, 9, seed=4, engine=cluster), run_trials(setup, 9, seed=4))


def test_top_k_trials_survive_a_killed_worker(killing_engine):
    import numpy as np

    from pufferfish.proofs_check.paper_000.topk.experiment import build_setup, run_trials
    from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate

    setup = build_setup(generate(SHAPES["activities"].scaled(0.1), seed=1), K=3,
                        epsilons=("0.5", "5"))
    alone = run_trials(setup, 24, seed=5)
    with killing_engine(after=2) as engine:
        assert np.array_equal(run_trials(setup, 24, seed=5, engine=engine), alone)
        assert engine.killed is not None


class MadeOnDemand(Sequence):
    """The arguments ``(2, k)`` for ``k < count``, counting how many have been made."""

    def __init__(self, count: int) -> None:
        self.count, self.made = count, 0

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k):
        if not 0 <= k < self.count:
            raise IndexError(k)
        self.made += 1
        return (2, k)


@pytest.mark.parametrize("in_flight", [1, 3])
def test_tasks_in_flight_take_their_arguments_as_earlier_tasks_finish(cluster, in_flight):
    for engine, window in ((InProcessEngine(), 1), (cluster, in_flight)):
        arguments, seen = MadeOnDemand(12), []

        def made_so_far(done: int, total: int) -> None:
            seen.append(arguments.made - done)
        results = engine.map(pow, arguments, made_so_far, in_flight=in_flight)
        assert results == [2**k for k in range(12)] and len(seen) == 12
        assert max(seen) <= window and arguments.made == 12


def test_dp_columns_survive_a_killed_worker(killing_engine):
    universe = Universe.product([f"x{k}" for k in range(8)], [[0, 1]] * 8)
    mechanisms = [RandomizedResponse("rr", universe, Fraction(3, 4), ["x0", "x7"]),
                  RandomizedResponse("all", universe, Fraction(2, 3))]
    alone = [r.to_dict() for r in dp_levels_blocked(universe, mechanisms, 10**6, max_block=16)]
    with killing_engine(after=3, task="prefix_pairs") as engine:
        found = dp_levels_blocked(universe, mechanisms, 10**6, engine, max_block=16)
        assert [r.to_dict() for r in found] == alone and engine.killed is not None
        assert engine.tasks > engine.after     # the worker died in the middle of the run


def test_the_time_estimate_on_two_workers_announces_once_and_changes_nothing(cluster):
    model = parse_model(chain_model(16))
    plans = []
    found = enumerating_audit(model, engine=cluster, max_datasets=5000, announce=plans.append)
    assert found.to_dict() == enumerating_audit(model, max_datasets=5000).to_dict()
    assert len(plans) == 1 and plans[0].seconds > 0 and plans[0].is_split
