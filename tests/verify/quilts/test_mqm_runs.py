"""MQMExact's node search cut into runs of nodes as engine tasks
(:mod:`pufferfish.verify.quilts.chain_runs`): for every cut, the quilts, σ values and σ_max are
those of the search in one process — cuts where the next node reuses its lead's answer or starts
from it, a family whose candidate quilts tie exactly, and leads answered differently (then the
driver searches the run again)."""

from __future__ import annotations

import pytest

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.quilts import chain_runs, chain_search
from pufferfish.verify.quilts.chain_runs import cut_runs, search_in_runs
from pufferfish.verify.quilts.chain_search import mqm_chain_exact


class RecordingEngine(Engine):
    """Runs the tasks in this process, poses as ``workers`` workers (so the search is cut into
    runs) and records each map's argument tuples ``(T, ε, lead, run)``."""

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self.tasks: list[tuple] = []

    @property
    def workers(self) -> int:
        return self._workers

    def map(self, function, argument_tuples, progress=None, shared=None, in_flight=None,
            on_result=None):
        arguments = list(argument_tuples)
        self.tasks += arguments
        return InProcessEngine().map(function, arguments, progress, shared, in_flight, on_result)


def family(kind: str, length: int) -> ChainFamily:
    if kind == "ties":
        # a symmetric kernel started uniform: e(a, b) = e(b, a) bit for bit, so the quilts
        # {X_{i−a}, X_{i+a+1}} and {X_{i−a−1}, X_{i+a}} tie in score and cardinality (the
        # search meets them from different first candidates in a run and in one process)
        return ChainFamily((MarkovChain.binary("3/4", "3/4", length, ["1/2", "1/2"]),), "given")
    given = ["1/2", "1/2"] if kind == "given" else None
    return ChainFamily((MarkovChain.binary("9/10", "4/5", length, given),
                        MarkovChain.binary("7/10", "3/5", length, given)), kind)


def quilts(result) -> list:
    return [(c.node, c.quilt) for c in result.choices]


@pytest.mark.parametrize("kind,epsilon", [("given", "1"), ("stationary", "1/2"), ("any", "2"),
                                          ("ties", "1")])
def test_every_cut_gives_the_one_process_quilts_and_sigma(monkeypatch, kind, epsilon):
    chains = family(kind, 60)
    alone = mqm_chain_exact(chains, epsilon)
    for cut in range(1, 60):
        monkeypatch.setattr(chain_runs, "cut_runs",
                            lambda nodes, costs, count: [nodes[:cut], nodes[cut:]])
        engine = RecordingEngine(2)
        clustered = mqm_chain_exact(chains, epsilon, engine=engine)
        assert clustered.to_dict() == alone.to_dict()
        assert quilts(clustered) == quilts(alone)
        assert [lead for _, _, lead, _ in engine.tasks] == [None, cut]


@pytest.mark.parametrize("workers", [1, 2, 3, 5, 8, 13])
def test_runs_cover_the_nodes_in_order_each_led_by_its_predecessor(workers):
    chains = family("given", 90)
    engine = RecordingEngine(workers)
    assert (mqm_chain_exact(chains, "1", engine=engine).to_dict()
            == mqm_chain_exact(chains, "1").to_dict())
    runs = [run for _, _, _, run in engine.tasks]
    assert [i for run in runs for i in run] == list(range(1, 91))
    assert [lead for _, _, lead, _ in engine.tasks] == [None] + [run[-1] for run in runs[:-1]]


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_chosen_nodes_are_cut_into_runs_led_by_the_previous_chosen_node(workers):
    chains = family("given", 120)
    for nodes in ([3, 4, 5, 40, 41, 42, 43, 90, 118, 119, 120], [60]):
        engine = RecordingEngine(workers)
        clustered = mqm_chain_exact(chains, "1", nodes=nodes, engine=engine)
        assert clustered.to_dict() == mqm_chain_exact(chains, "1", nodes=nodes).to_dict()
        runs = [run for _, _, _, run in engine.tasks]
        assert [i for run in runs for i in run] == nodes
        assert [lead for _, _, lead, _ in engine.tasks] == [None] + [run[-1] for run in runs[:-1]]


def test_a_cut_where_the_next_node_reuses_its_leads_answer(monkeypatch):
    """Stationary family: away from the ends every node's float inputs are equal and the search
    reuses the previous answer, so a run's first node there takes its lead's answer as is."""
    chains = family("stationary", 200)
    alone = mqm_chain_exact(chains, "1")
    middle = [c for c in alone.choices if 60 <= c.node <= 140]
    assert len({(c.quilt.a, c.quilt.b) for c in middle}) == 1
    monkeypatch.setattr(chain_runs, "cut_runs",
                        lambda nodes, costs, count: [nodes[:99], nodes[99:]])
    assert mqm_chain_exact(chains, "1", engine=RecordingEngine(2)).to_dict() == alone.to_dict()


def test_runs_are_cut_by_cost_not_by_count():
    """A chain that does not start stationary: its first nodes (float marginals still changing)
    are all searched, the middle ones reuse; the runs there are short, the middle run long."""
    chains = family("given", 400)
    engine = RecordingEngine(2)
    assert (mqm_chain_exact(chains, "1", engine=engine).to_dict()
            == mqm_chain_exact(chains, "1").to_dict())
    lengths = [len(run) for _, _, _, run in engine.tasks]
    assert len(lengths) >= 6 and min(lengths[:3]) * 5 < max(lengths)


def test_a_lead_answered_differently_makes_the_driver_search_its_run_again(monkeypatch):
    """A lead searched from another first candidate may resolve a tie differently: simulated by
    leads searched cold whose influence is moved by 2^-30; every run is then searched again from
    the final answer at its lead, and the answer is still the one-process answer."""
    real_best = chain_search.__dict__["_best_for_node"]

    def start_sensitive(ev, i, T, eps, start, *rest):
        s, a, b, e = real_best(ev, i, T, eps, start, *rest)
        return (s, a, b, e if start is not None or i == 1 else e + 2.0 ** -30)

    redone = []

    def spying(engine, ev, T, eps, nodes, run_task, search, progress=None):
        def counted(ev, T, eps, run, **options):
            redone.append(run[0])
            return search(ev, T, eps, run, **options)
        return search_in_runs(engine, ev, T, eps, nodes, run_task, counted, progress)

    chains = family("given", 80)
    alone = mqm_chain_exact(chains, "1").to_dict()
    monkeypatch.setattr(chain_search, "_best_for_node", start_sensitive)
    monkeypatch.setattr(chain_search, "line_candidate", lambda ev, i, eps: None)
    monkeypatch.setattr(chain_search, "search_in_runs", spying)
    engine = RecordingEngine(2)
    assert mqm_chain_exact(chains, "1", engine=engine).to_dict() == alone
    assert redone == [run[0] for _, _, _, run in engine.tasks[1:]]


def test_cut_runs_balances_cost_with_one_for_each_lead():
    nodes = list(range(1, 101))
    costs = [1.0] * 30 + [0.001] * 60 + [1.0] * 10
    runs = cut_runs(nodes, costs, 8)
    assert [i for run in runs for i in run] == nodes
    spent = [sum(costs[i - 1] for i in run) + (k > 0) for k, run in enumerate(runs)]
    assert 7 <= len(runs) <= 9 and max(spent) - min(spent) <= 2
    assert cut_runs([5], [1.0], 4) == [[5]]
