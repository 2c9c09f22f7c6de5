"""Random single-field changes of the shipped examples' certificates (seeded): every change of
what a certificate claims is rejected.

The certificates: every example for which ``audit --certificate`` writes one, at no budget, and
the quickstart model at budgets that hold and that are violated, with extra neighbour relations,
a requested subset of mechanisms and the structured path; a program at a budget it violates.
For each certificate, every kind of field (its path with list indices as ``*``) is changed once
at a random place: a number by ±1 in its numerator or denominator, a boolean flipped, a string
changed, a list entry deleted or duplicated, an object's key deleted or its value nulled.

A change the checker accepts must provably change no claim.  Two kinds are allowed, and the test
says which each accepted one is:

* **null and absent are the same**: a field whose value is ``null`` deleted (or an absent one
  nulled) — the checker reads an optional field's absence and ``null`` alike, so the certificate
  means the same (``requested_mechanisms``, a ``holds`` without a budget);
* **a budget is an input, not a derived claim**: ``budget`` and ``dp_budget`` are what the audit
  was asked, which no model file determines; a changed budget whose verdicts the checker still
  derives is a different, true certificate, and the acceptance statement names the new budget
  (the test checks it), so no reader is told the old one.

Each check reuses the certificates (a module-scoped fixture) and the checker's cache of program
laws, through the Python API; the run stays within about a minute of CPU.
"""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest

import pufferfish
from pufferfish.examples import example_path
from pufferfish_check import BadInput, check_certificate

EXAMPLES = Path(example_path("quickstart.json")).parent
SEED = 20261201
EXPENSIVE = {"chain_sum_T60.json", "influence_chain.json"}  # ~2 s a check: fewer changes
NUMBER = re.compile(r"-?\d+(/\d+)?")
PER_CERTIFICATE = 25  # kinds of fields changed per certificate (all of its top three levels)


def certified_examples() -> list[str]:
    """Every example that ``audit --certificate`` certifies (tests/certificates/test_certificates.py
    classifies the others: other kinds of files, no mechanism, parameters, interval families,
    Laplace-type or Gaussian laws, DP-only models)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_certified_examples", Path(__file__).with_name("test_certificates.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CERTIFIED


def certify(name: str, *args, **options) -> dict:
    return json.loads(json.dumps(pufferfish.certificate(str(EXAMPLES / name), *args, **options)))


@pytest.fixture(scope="module")
def certificates() -> dict:
    made = {name: certify(name) for name in certified_examples()}
    quick = "quickstart.json"
    made |= {
        "quickstart holds": certify(quick, "log(40)", epsilon_dp="log(3)"),
        "quickstart violated": certify(quick, "log(12)", epsilon_dp="log(2)"),
        "quickstart rational": certify(quick, "4", epsilon_dp="1", neighbours=["entry", "linf:1"],
                                       group=2),
        "quickstart subset": certify(quick, "log(13)", mechanisms=["rr"]),
        "quickstart structured": certify(quick, "2", method="structured"),
        "svt5 violated": certify("dp_benchmarks/svt5.json", epsilon_dp="log(100)"),
    }
    return made


def paths(value, at=()):
    """Every path of a JSON value, the root excluded."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(
        value, list) else ()
    for k, v in items:
        yield at + (k,)
        yield from paths(v, at + (k,))


def kind(path) -> str:
    return ".".join("*" if isinstance(k, int) else k for k in path)


def changes(value, rng: random.Random) -> list:
    """The changes applicable to a value: ``(description, new value)``; ``DELETE`` removes it."""
    if isinstance(value, bool):
        return [("flipped", not value)]
    if isinstance(value, int):
        return [("+1", value + 1), ("-1", value - 1)]
    if isinstance(value, str) and (value == "inf" or NUMBER.fullmatch(value)):
        if value == "inf":
            return [("inf -> 1", "1")]
        q = Fraction(value)
        options = [(f"{value} -> {q.numerator + d}/{q.denominator}",
                    str(Fraction(q.numerator + d, q.denominator))) for d in (1, -1)]
        options += [(f"{value} -> {q.numerator}/{q.denominator + 1}",
                     str(Fraction(q.numerator, q.denominator + 1)))]
        return options
    if isinstance(value, str):
        return [("string changed", value + "_"), ("string changed", value[:-1] or "x")]
    if isinstance(value, list) and value:
        return [("entry deleted", ("delete", rng.randrange(len(value)))),
                ("entry duplicated", ("duplicate", rng.randrange(len(value))))]
    if isinstance(value, dict) and value:
        k = rng.choice(sorted(value))
        return [(f"key {k} deleted", ("delete", k)), (f"key {k} nulled", ("null", k))]
    return [("null -> 0", 0)] if value is None else []


def apply(data, path, change):
    """Apply ``change`` at ``path`` in place; returns the undo."""
    parent = data
    for k in path[:-1]:
        parent = parent[k]
    last = path[-1]
    old = parent[last]
    if isinstance(change, tuple) and len(change) == 2 and change[0] in ("delete", "duplicate",
                                                                        "null"):
        op, k = change
        target = old
        saved = json.loads(json.dumps(target))
        if op == "delete":
            del target[k]
        elif op == "duplicate":
            target.insert(k, json.loads(json.dumps(target[k])))
        else:
            target[k] = None

        def undo():
            parent[last] = saved
        return undo
    parent[last] = change

    def restore():
        parent[last] = old
    return restore


def true_witness(name: str, data: dict, path: tuple, certificates: dict) -> bool:
    """A changed witness the checker accepted is another true witness of the same level: its
    output's probabilities are those of the toolkit's exact laws, as the unchanged certificate
    lists them (a DP witness: the two datasets' laws; a Pufferfish one: the two secrets' laws
    under the prior).  The level itself is unchanged: the checker derived it."""
    original = certificates_original(certificates)[name]["mechanisms"][path[1]]
    entry, table = data["mechanisms"][path[1]], lambda law: {  # noqa: E731
        json.dumps(o): p for o, p in law}
    if path[2] == "dp" and "datasets" in original:
        laws = {json.dumps(d): table(law) for d, law in original["datasets"]}
        w = entry["dp"][path[3]]["witness"]
        pairs = (("dataset", "p_dataset"), ("neighbour", "p_neighbour"))
        return all(laws[json.dumps(w[d])].get(json.dumps(w["output"]), "0") == w[p]
                   for d, p in pairs)
    if path[2] == "pufferfish" and path[3] in ("levels", "witness"):
        level = entry["pufferfish"][path[3]]
        level = level[path[4]] if path[3] == "levels" else level
        priors = original["pufferfish"]["priors"][level["prior"]]
        return all(table(priors[s]["law"]).get(json.dumps(level["output"]), "0") == level[p]
                   for s, p in zip(level["direction"], ("p_first", "p_second")))
    return False


_ORIGINALS: dict = {}


def certificates_original(certificates: dict) -> dict:
    """Unchanged copies of the certificates (taken before any change)."""
    if not _ORIGINALS:
        _ORIGINALS.update(json.loads(json.dumps(certificates)))
    return _ORIGINALS


def normalised(value):
    """The certificate as the checker reads it: a ``null`` field is an absent one."""
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


def test_every_change_of_a_claim_is_rejected(certificates):
    rng = random.Random(SEED)
    certificates_original(certificates)
    tried, rejected, neutral, inputs, witnesses, wrong = 0, 0, [], [], [], []
    for name, data in certificates.items():
        baseline = check_certificate(data)
        assert baseline.accepted, (name, baseline.reason)
        original = json.dumps(normalised(data), sort_keys=True)
        groups: dict = {}
        for path in paths(data):
            groups.setdefault(kind(path), []).append(path)
        shallow = sorted(g for g in groups if g.count(".") < 3)  # the certificate's structure
        deep = sorted(set(groups) - set(shallow))
        chosen = shallow + rng.sample(deep, min(len(deep), PER_CERTIFICATE - len(shallow)))
        if name in EXPENSIVE:
            chosen = rng.sample(chosen, 6)
        for group in chosen:
            path = rng.choice(groups[group])
            value = data
            for k in path:
                value = value[k]
            options = changes(value, rng)
            for description, change in rng.sample(options, min(len(options), 1)):
                undo = apply(data, path, change)
                try:
                    try:
                        result = check_certificate(data)
                    except BadInput as error:  # a path to a file that is not there: refused
                        result = type(baseline)(False, str(error))
                    tried += 1
                    where = f"{name}: {'.'.join(map(str, path))}: {description}"
                    if not result.accepted:
                        rejected += 1
                    elif json.dumps(normalised(data), sort_keys=True) == original:
                        neutral.append(where)
                    elif ("witness" in path or "levels" in path) and true_witness(name, data, path, certificates):
                        witnesses.append(where)
                    elif path[0] in ("budget", "dp_budget") and len(path) == 1 and isinstance(
                            data[path[0]], str) and f"budget {data[path[0]]}:" in result.statement:
                        inputs.append(where)
                    else:
                        wrong.append(f"{where}: accepted: {result.statement}")
                finally:
                    undo()
        assert check_certificate(data).accepted, f"{name}: a change was not undone"
    print(f"{tried} changes: {rejected} rejected, {len(neutral)} accepted as null = absent, "
          f"{len(inputs)} as a changed budget stated in the acceptance, {len(witnesses)} as "
          f"another true witness of the same level")
    assert not wrong, "\n".join(wrong)
    assert tried >= 500 and rejected == tried - len(neutral) - len(inputs) - len(witnesses)
    assert rejected >= 0.98 * tried
