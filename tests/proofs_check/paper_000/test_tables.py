"""The orderings §7.2, §7.3 and Appendix D.3 draw from Tables 2–5 and 7–8: registered as
statistical checks on synthetic data, each cell decided by a Hoeffding bound (``tables.py``)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

import pytest

from pufferfish.proofs_check.paper_000 import tables
from pufferfish.proofs_check.paper_000.topk.experiment import build_setup
from pufferfish.proofs_check.paper_000.topk.ordering import collect_samples
from pufferfish.proofs_check.paper_000.topk.sequences import SHAPES, generate
from pufferfish.proofs_check.registry import claims_for


def test_six_table_claims_say_they_are_statistical_on_synthetic_data():
    claims = {c.id: c for c in claims_for(paper="000") if c.id.endswith(".ordering")}
    assert set(claims) == {f"000.table{n}.ordering" for n in (2, 3, 4, 5, 7, 8)}
    for claim in claims.values():
        assert "STATISTICAL" in claim.statement and "SYNTHETIC" in claim.statement
        assert claim.mutants
    assert "on par" in claims["000.table4.ordering"].statement
    assert "on par" not in claims["000.table2.ordering"].statement
    assert len(list(claims["000.table7.ordering"].generate())) == 6 * 5 * 3
    assert len(list(claims["000.table3.ordering"].generate())) == 6 * 3 * 3


@lru_cache(maxsize=None)
def _small(shape: str, K: int):
    """A small experiment (a tenth of the data, 40 trials) instead of the registered one."""
    setup = build_setup(generate(SHAPES[shape].scaled(0.25 if shape == "activities" else 0.1),
                                 seed=0), K)
    return collect_samples(setup, 40, 0)


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setattr(tables, "table_samples", _small)


def test_cells_report_means_bound_and_verdict(small):
    outcomes = [tables.check_cell(i) for i in tables.table_instances("table5")]
    assert len(outcomes) == 54
    for outcome in outcomes:
        assert "statistical check on synthetic data" in outcome.detail
        assert "Hoeffding" in outcome.detail and "on par within" in outcome.detail
        assert outcome.verdict in ("holds", "undecided", "violated")


def test_the_reversed_ordering_is_rejected_where_a_cell_is_decided(small, monkeypatch):
    """On samples where Ours-Exp always hits and the baselines never do, every HR cell holds;
    with the ordering reversed (the registered mutant) it is a violation."""
    samples = _small("checkins", 3)
    values = np.zeros_like(samples.values)
    values[:, :, 0, :, samples.metric_index("hr")] = 1.0
    monkeypatch.setattr(tables, "table_samples",
                        lambda shape, K: replace(samples, values=values))
    hr_cells = [i for i in tables.table_instances("table3") if i.params["metric"] == "hr"]
    assert all(tables.check_cell(i).holds for i in hr_cells)
    monkeypatch.setattr(tables, "compared", lambda baseline: (baseline, tables.OURS))
    outcome = tables.check_cell(hr_cells[0])
    assert outcome.violated and "beats" in outcome.detail
