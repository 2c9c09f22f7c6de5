"""Output identity: outputs are one output exactly when their JSON texts are one value.

Python says ``True == 1`` (and ``False == 0``, also inside lists); JSON does not, and a mechanism
that answers ``true`` on one dataset and ``1`` on its neighbour reveals which one it ran on.  The
audit is checked here against a brute force that knows nothing of the toolkit's canonical values:
it keys every output by its canonical JSON text (``json.dumps(..., sort_keys=True)``) and
recomputes Definition 5's Pufferfish level, the entry-DP level and Definition 4's leakage from
the model file's own numbers (Bai et al., Composition for Pufferfish Privacy, §2).
"""

from __future__ import annotations

import json
import pickle
from fractions import Fraction
from itertools import product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pufferfish
from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import FunctionMechanism, PostProcessed, TableMechanism
from pufferfish.models.values import FALSE, TRUE, canonical_value
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.privacy.pufferfish import pufferfish_level

INF = float("inf")

# JSON values that Python's equality merges in pairs: true/1, false/0, [true]/[1], ...
OUTPUT_POOL = [True, False, 1, 0, 2, "1", "true", None, [1], [True], [0, None], [False, None],
               [[False]], [[0]], [], ""]


def _text(output) -> str:
    return json.dumps(output, sort_keys=True)


def _brute_force(model: dict) -> dict:
    """Pufferfish level, entry-DP level and worst leakage shift, from the raw JSON model."""
    width = len(model["attributes"])
    datasets = [tuple(d) for d in product(model["domain"], repeat=width)]
    kernels = {}
    for dataset, rows in model["mechanisms"]["m"]["table"]:
        kernel: dict[str, Fraction] = {}
        for output, p in rows:
            kernel[_text(output)] = kernel.get(_text(output), Fraction(0)) + Fraction(p)
        kernels[tuple(dataset)] = kernel
    outputs = sorted({o for k in kernels.values() for o in k})
    prior = {tuple(d): Fraction(p) for d, p in model["priors"]["t"]["table"]}

    def holds(secret, dataset):
        return all(dataset[model["attributes"].index(a)] == v
                   for a, v in model["secrets"][secret]["where"].items())

    def conditional(secret, output):
        mass = sum((prior.get(d, 0) for d in datasets if holds(secret, d)), Fraction(0))
        joint = sum((prior.get(d, 0) * kernels[d].get(output, 0) for d in datasets
                     if holds(secret, d)), Fraction(0))
        return mass, (joint / mass if mass else None)

    worst = Fraction(0)
    for first, second in model["pairs"]:
        for a, b in ((first, second), (second, first)):
            for output in outputs:
                mass_a, pa = conditional(a, output)
                mass_b, pb = conditional(b, output)
                if not mass_a or not mass_b or not pa:
                    continue
                ratio = INF if not pb else pa / pb
                worst = max(worst, ratio)
    pufferfish_ratio = INF if worst == INF else max(Fraction(1), worst)

    dp = Fraction(0)
    for d in datasets:
        for e in datasets:
            if sum(x != y for x, y in zip(d, e)) != 1:
                continue
            for output, p in kernels[d].items():
                q = kernels[e].get(output, 0)
                dp = max(dp, INF if not q else p / q)

    shift = Fraction(0)
    total = sum(prior.values(), Fraction(0))
    for secret in model["secrets"]:
        mass = sum((prior.get(d, 0) for d in datasets if holds(secret, d)), Fraction(0))
        for output in outputs:
            out_mass = sum((prior.get(d, 0) * kernels[d].get(output, 0) for d in datasets),
                           Fraction(0))
            if not out_mass:
                continue
            joint = sum((prior.get(d, 0) * kernels[d].get(output, 0) for d in datasets
                         if holds(secret, d)), Fraction(0))
            shift = max(shift, abs(joint / out_mass - mass / total))
    return {"pufferfish": pufferfish_ratio, "dp": dp, "leakage": shift}


@st.composite
def mixed_output_models(draw) -> dict:
    width = draw(st.integers(1, 2))
    domain = [0, 1]
    datasets = list(product(domain, repeat=width))
    weights = draw(st.lists(st.integers(0, 3), min_size=len(datasets), max_size=len(datasets))
                   .filter(lambda w: any(w[:len(w) // 2]) and any(w[len(w) // 2:])))
    total = sum(weights)
    table = []
    for dataset in datasets:
        chosen = draw(st.lists(st.sampled_from(range(len(OUTPUT_POOL))), min_size=1, max_size=3,
                               unique=True))
        shares = draw(st.lists(st.integers(1, 3), min_size=len(chosen), max_size=len(chosen)))
        rows = [[OUTPUT_POOL[k], str(Fraction(s, sum(shares)))] for k, s in zip(chosen, shares)]
        table.append([list(dataset), rows])
    return {"pufferfish_model": 1, "attributes": [f"x{i + 1}" for i in range(width)],
            "domain": domain, "datasets": "all",
            "priors": {"t": {"table": [[list(d), str(Fraction(w, total))]
                                       for d, w in zip(datasets, weights) if w]}},
            "secrets": {"x1=0": {"where": {"x1": 0}}, "x1=1": {"where": {"x1": 1}}},
            "pairs": [["x1=0", "x1=1"]],
            "mechanisms": {"m": {"table": table}}}


def _as_number(ratio):
    return INF if ratio == pufferfish.models.numbers.INFINITY else ratio


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_output_models())
def test_audit_agrees_with_a_brute_force_keyed_by_json_text(model):
    expected = _brute_force(model)
    result = pufferfish.audit(model).mechanisms[0]
    assert _as_number(result.pufferfish.level_ratio) == expected["pufferfish"]
    assert _as_number(result.dp[0].max_ratio) == expected["dp"]
    assert result.leakage.worst_shift == expected["leakage"]


def test_true_and_one_are_two_outputs_and_the_leak_is_infinite():
    model = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
             "priors": {"u": {"uniform": True}},
             "secrets": {"a": {"where": {"x": 0}}, "b": {"where": {"x": 1}}},
             "pairs": [["a", "b"]],
             "mechanisms": {"m": {"table": [[[0], [[True, "1"]]], [[1], [[1, "1"]]]]},
                            "n": {"table": [[[0], [[[False], "1"]]], [[1], [[[0], "1"]]]]}}}
    result = pufferfish.audit(model, epsilon="10")
    assert result.holds is False
    for audit in result.mechanisms:
        assert audit.pufferfish.epsilon == "inf"
        assert audit.dp[0].epsilon == "inf"
        assert not audit.leakage.zero_leakage
    witness = result.mechanisms[0].pufferfish.witness.to_dict()
    assert json.dumps(witness["output"]) in ("true", "1")


def test_a_postprocess_map_may_map_true_and_one():
    model = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
             "priors": {"u": {"uniform": True}},
             "secrets": {"a": {"where": {"x": 0}}, "b": {"where": {"x": 1}}},
             "pairs": [["a", "b"]],
             "mechanisms": {"m": {"table": [[[0], [[True, "1"]]], [[1], [[1, "1"]]]]},
                            "p": {"postprocess": {"mechanism": "m",
                                                  "map": [[True, [["same", "1"]]],
                                                          [1, [["same", "1"]]]]}}}}
    result = pufferfish.audit(model)
    post = {m.name: m for m in result.mechanisms}["p"]
    assert post.pufferfish.epsilon == "0"
    assert post.leakage.zero_leakage


def test_python_outputs_follow_the_same_identity():
    assert Distribution([(True, "1/2"), (1, "1/2")]).support == (TRUE, 1)
    assert Distribution.point([False, 0]).support == ((FALSE, 0),)
    d = Distribution([(True, "1/4"), (1, "3/4")])
    assert d.prob(True) == Fraction(1, 4) and d.prob(1) == Fraction(3, 4) and d.prob(0) == 0
    assert True in d and False not in d
    # (a Python dict literal {True: ..., 1: ...} has one key: Python merges them before we see it)
    mapping = PostProcessed("p", TableMechanism("m", {}), {TRUE: Distribution.point("t"),
                                                           1: {"one": 1}})
    assert mapping.apply(True).support == ("t",) and mapping.apply(1).support == ("one",)
    assert pickle.loads(pickle.dumps(TRUE)) is TRUE
    assert canonical_value([True, [1, False]]) == (TRUE, (1, FALSE))


def test_function_mechanism_outputs_and_plain_mappings():
    model = pufferfish.load({"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1],
                             "datasets": "all", "priors": {"u": {"uniform": True}},
                             "secrets": {"a": {"where": {"x": 0}}, "b": {"where": {"x": 1}}},
                             "pairs": [["a", "b"]], "mechanisms": {}})
    reveal = FunctionMechanism("reveal", lambda d: {True if d[0] == 0 else 1: 1})
    assert pufferfish_level(model, reveal).epsilon == "inf"
    assert dp_level(model.universe, reveal, "entry").epsilon == "inf"


def test_a_null_output_witness_carries_its_output_and_probabilities():
    model = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
             "priors": {"u": {"uniform": True}},
             "secrets": {"a": {"where": {"x": 0}}, "b": {"where": {"x": 1}}},
             "pairs": [["a", "b"]],
             "mechanisms": {"m": {"table": [[[0], [[None, "3/4"], ["x", "1/4"]]],
                                            [[1], [[None, "1/4"], ["x", "3/4"]]]]}}}
    level = pufferfish.pufferfish_level(model, "m")
    witness = level.witness.to_dict()
    assert witness["output"] is None and "output" in witness
    assert witness["p_output_given_first"] in ("3/4", "1/4")
    text = level.witness.explain()
    assert text.startswith("output None: ") or text.startswith("output 'x': "), text
    null_first = [lv for lv in level.levels if lv.output is None and lv.first == "a"][0]
    assert null_first.explain().startswith("output None: Pr[ω|a, u] = 3/4 vs Pr[ω|b, u] = 1/4")
