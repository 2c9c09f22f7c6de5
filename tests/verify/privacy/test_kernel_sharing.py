"""Datasets with the same kernel key share one distribution and one kernel row
(:meth:`pufferfish.models.mechanisms.Mechanism.kernel_key`); the audit must give exactly what it
gives when every dataset has its own copy (no sharing at all)."""

from __future__ import annotations

import json

import pytest

from pufferfish.examples import example_path
from pufferfish.models.distribution import Distribution
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import FunctionMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.audit import audit_model


def _levels_and_witnesses(result) -> dict:
    """The audit's report without the note on how the priors were read (which says why
    a model is enumerated, and differs between a table and a structured prior)."""
    data = result.to_dict()
    data.pop("method")
    return data


def model_dict(attributes: int) -> dict:
    data = json.loads(example_path("quickstart.json").read_text())
    names = [f"x{i}" for i in range(1, attributes + 1)]
    data["attributes"] = names
    data["priors"]["fair"] = {"independent": {a: {"0": "1/3", "1": "2/3"} for a in names}}
    data["secrets"]["x2=1"] = {"where": {"x2": 1}}
    data["pairs"].append(["x1=1", "x2=1"])
    data["mechanisms"] = {
        "rr": {"per_entry": {"randomized_response": {"keep": "3/4", "attributes": ["x1", "x3"]}}},
        "sum": {"query": "sum", "noise": {"geometric": {"alpha": "1/2", "min": 0,
                                                        "max": attributes - 1}}},
        "rr2": {"repeat": {"mechanism": "rr", "times": 2}},
        "coarse": {"postprocess": {"mechanism": "sum", "map": [
            [k, [[min(k, 2), "1"]]] for k in range(attributes)]}},
    }
    return data


def unshared(data: dict) -> PufferfishModel:
    """The model of ``data`` with every mechanism replaced by one whose distribution on each
    dataset comes from a freshly parsed model (empty caches, so computed for that dataset alone)
    and is copied: nothing is shared between datasets."""
    model = parse_model(data)

    def fresh(name: str) -> FunctionMechanism:
        return FunctionMechanism(name, lambda d: Distribution(
            dict(parse_model(data).mechanisms[name].distribution(d).items())))
    return PufferfishModel(model.universe, model.priors, model.secrets, model.pairs,
                           {name: fresh(name) for name in model.mechanisms})


@pytest.mark.parametrize("attributes", [3, 5])
@pytest.mark.parametrize("budget", [None, "log(3)"])
def test_the_audit_is_the_same_with_and_without_sharing(attributes, budget):
    data = model_dict(attributes)
    check = None if budget is None else parse_budget(budget)
    shared = _levels_and_witnesses(audit_model(parse_model(data), check, group=2))
    plain = _levels_and_witnesses(audit_model(unshared(data), check, group=2))
    assert shared == plain


def test_rows_are_shared_exactly_between_datasets_with_one_key():
    model = parse_model(model_dict(5))
    datasets = list(model.universe.datasets())
    for mechanism in model.mechanisms.values():
        table = KernelTable.build(mechanism, datasets)
        by_key: dict = {}
        for dataset, row in zip(datasets, table.rows):
            by_key.setdefault(mechanism.kernel_key(dataset), set()).add(id(row))
        assert all(len(ids) == 1 for ids in by_key.values())
        assert len({id(row) for row in table.rows}) == len(by_key) < len(datasets)
