"""Program laws as tasks of a local Dask cluster of 2 workers
(:mod:`pufferfish.verify.program_laws`): the laws computed on the workers are the in-process laws
(exact rationals and exact numbers of ``Q(e^(1/n))`` after pickling), the audit's JSON is the
same, and a program refused on a worker is refused in this process with the in-process message."""

from __future__ import annotations

import json

import pytest

import pufferfish
from pufferfish.examples import example_path
from pufferfish.models.programs import ProgramError
from pufferfish.models.programs.exp_numbers import ExpNumber
from pufferfish.verify.privacy.audit import audit_model
from pufferfish.verify.program_laws import program_laws, universe_keys

SUITE = example_path("dp_benchmarks/laplace_suite.json")


def test_laws_computed_on_workers_are_the_in_process_laws(cluster):
    model = pufferfish.load(SUITE)
    alone = pufferfish.load(SUITE)
    names = ["svt1", "noisy_histogram"]
    mechanisms = [model.mechanisms[n] for n in names]
    keys = {m.name: universe_keys(m, model.universe) for m in mechanisms}
    assert program_laws(cluster, mechanisms, lambda m: keys[m.name]) == sum(map(len, keys.values()))
    exp_numbers = 0
    for name in names:
        for key in keys[name]:
            on_worker = model.mechanisms[name].key_distribution(key)
            here = alone.mechanisms[name].key_distribution(key)
            assert list(on_worker.items()) == list(here.items())
            exp_numbers += sum(isinstance(p, ExpNumber) for p in on_worker.values())
    assert exp_numbers  # svt1's Laplace noise: probabilities in Q(e^(1/n)), not rationals
    # known laws are not asked again; the in-process engine computes nothing ahead
    assert program_laws(cluster, mechanisms, lambda m: keys[m.name]) == 0
    assert program_laws(None, [alone.mechanisms["svt3"]], lambda m: [(0, 0, 0)]) == 0


def test_a_program_audit_on_two_workers_is_the_in_process_audit(cluster):
    model = example_path("dp_benchmarks/rnm1.json")
    alone = audit_model(pufferfish.load(model)).to_dict()
    clustered = audit_model(pufferfish.load(model), engine=cluster).to_dict()
    assert json.dumps(clustered) == json.dumps(alone)


def test_a_program_refused_on_a_worker_is_refused_here_with_the_same_message(cluster, tmp_path):
    (tmp_path / "bad.py").write_text(
        "import random\n\n"
        "def bad(data):\n"
        "    if data[0] == 1:\n"
        "        return random.random() < 0.5\n"
        "    return data[0]\n")
    (tmp_path / "bad.json").write_text(json.dumps({
        "pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1, 2], "datasets": "all",
        "priors": {"u": {"uniform": True}}, "secrets": {}, "entry_pairs": True,
        "mechanisms": {"bad": {"program": {"file": "bad.py", "function": "bad",
                                           "trusted": True}}}}))  # the run-time refusal
    model = pufferfish.load(tmp_path / "bad.json")
    assert program_laws(cluster, model.mechanisms.values(),
                        lambda m: universe_keys(m, model.universe)) == 2  # not the refused one
    messages = []
    for engine in (None, cluster):
        with pytest.raises(ProgramError) as refused:
            audit_model(pufferfish.load(tmp_path / "bad.json"), engine=engine)
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "random" in messages[0]
