"""Output laws recomputed by the checker: each dataset's law under a mechanism of the model file,
and, for long chains, a statistic's law by forward recursion.  A law is ``{output key: Fraction}``
(:func:`pufferfish_check.reader.key`)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

from pufferfish_check.reader import BadInput, Model, key, number


def geometric_row(answer: int, alpha: Fraction, low: int, high: int) -> dict:
    """``clamp(answer + Z, low, high)`` for two-sided geometric ``Z``:
    ``Pr[Z = z] = (1 − α)/(1 + α)·α^|z|``; ``Pr[Z ≥ t] = α^t/(1 + α)`` for ``t ≥ 1``."""
    if low == high or not alpha:
        return {key(min(max(answer, low), high)): Fraction(1)}
    at_least = lambda t: alpha ** t / (1 + alpha) if t >= 1 else 1 - alpha ** (1 - t) / (1 + alpha)  # noqa: E731
    law = {key(y): (1 - alpha) / (1 + alpha) * alpha ** abs(y - answer) for y in range(low + 1, high)}
    return {key(low): at_least(answer - low), key(high): at_least(high - answer), **law}


def query_spec(model: Model, spec) -> tuple[str, list[int], object]:
    """``(kind, positions, counted value)`` of a ``query``."""
    if isinstance(spec, str):
        return spec, list(range(len(model.attributes))), 1
    kind, body = next(iter(spec.items()))
    if kind == "attribute":
        return kind, [model.attributes.index(body)], None
    return (kind, [model.attributes.index(a) for a in body.get("attributes", model.attributes)],
            body.get("value", 1))


def statistic(model: Model, name: str):
    """``(positions, weight, kind)`` of a sum or count query (``S(D) = Σ weight(D_v)``), else
    ``None``."""
    spec = model.mechanisms.get(name, {})
    kind, positions, counted = query_spec(model, spec["query"]) if "query" in spec else (0, 0, 0)
    if kind == "sum":
        return positions, lambda x: x, kind
    return (positions, lambda x: int(key(x) == key(counted)), kind) if kind == "count" else None


def answer(kind: str, values: list, counted):
    if kind in ("sum", "parity"):
        return sum(values) % 2 if kind == "parity" else sum(values)
    if kind == "count":
        return sum(1 for v in values if key(v) == key(counted))
    return list(values) if kind == "identity" else values[0]


def product(laws: list[dict]) -> dict:
    """The law of the list of independent outputs."""
    joint = {"[]": Fraction(1)}
    for law in laws:
        joint = {key(json.loads(a) + [json.loads(b)]): p * q
                 for a, p in joint.items() for b, q in law.items()}
    return joint


class Mechanisms:
    """The laws of a model's mechanisms, dataset by dataset (cached per dataset)."""

    def __init__(self, model: Model) -> None:
        self.model, self.cache = model, {}

    def law(self, name: str, dataset: list) -> dict:
        if (name, key(dataset)) not in self.cache:
            self.cache[name, key(dataset)] = self._law(name, dataset)
        return self.cache[name, key(dataset)]

    def _law(self, name: str, dataset: list) -> dict:
        model, where = self.model, f"mechanisms.{name}"
        if name not in model.mechanisms:
            raise BadInput(f"the model has no mechanism {name!r}")
        kind, body = next(iter(model.mechanisms[name].items()))
        if kind == "table":
            rows = [row for d, row in body if key(d) == key(dataset)]
            if not rows:
                raise BadInput(f"{where}: no row for dataset {dataset}")
            return _add({}, [(key(o), number(p, where)) for o, p in rows[0]])
        if kind == "query":
            q, positions, counted = query_spec(model, body)
            value = answer(q, [dataset[i] for i in positions], counted)
            noise = model.mechanisms[name].get("noise")
            if noise is None:
                return {key(value): Fraction(1)}
            g = noise["geometric"]
            return geometric_row(value, number(g["alpha"], where), g["min"], g["max"])
        if kind == "per_entry":
            keep, laws = number(body["randomized_response"]["keep"], where), []
            for a in body["randomized_response"].get("attributes", model.attributes):
                i = model.attributes.index(a)
                others = [v for v in model.domains[i] if key(v) != key(dataset[i])]
                law = {key(v): (1 - keep) / len(others) for v in others}
                laws.append(_add({}, [(key(dataset[i]), keep if others else 1), *law.items()]))
            return product(laws)
        if kind in ("compose", "repeat"):
            parts = body if kind == "compose" else [body["mechanism"]] * body["times"]
            return product([self.law(part, dataset) for part in parts])
        if kind == "postprocess":
            mapping, result = {key(o): row for o, row in body["map"]}, {}
            for o, p in self.law(body["mechanism"], dataset).items():
                if o not in mapping:
                    raise BadInput(f"{where}.map: output {o} is not mapped")
                _add(result, [(key(new), p * number(q, where)) for new, q in mapping[o]])
            return result
        raise BadInput(f"{where}: the checker does not compute {kind!r} mechanisms")


def _add(law: dict, items) -> dict:
    for k, p in items:
        if p:
            law[k] = law.get(k, Fraction(0)) + p
    return law


def chain_statistic(model: Model, prior, positions: list[int], weight, conditions: dict
                    ) -> tuple[list[int], int]:
    """``(m, scale)``: ``m[k]/scale = Pr[s ∧ S − low = k | θ]`` for ``S = Σ_{v ∈ positions}
    weight(D_v)`` (integers, ``low`` its least value), ``s`` the conjunction ``conditions``
    (position -> allowed value keys) and ``θ`` a Markov chain, product or uniform prior on a
    product universe: a forward recursion over the attributes on integers, each step's kernel
    scaled by its common denominator."""
    kind, body = prior
    domains = model.domains
    if kind == "uniform":
        kind, body = "independent", [{key(v): Fraction(1, len(d)) for v in d} for d in domains]
    if kind == "independent":
        initial = body[0]
        kernels = [{key(a): body[i + 1] for a in domains[i]} for i in range(len(domains) - 1)]
    elif kind == "markov":
        initial, kernels = body
    else:
        raise BadInput(f"a {kind} prior has no forward recursion in the checker")
    offsets = [{key(x): weight(x) - min(map(weight, d)) if v in positions else 0 for x in d}
               for v, d in enumerate(domains)]
    allowed = lambda v, k: v not in conditions or k in conditions[v]  # noqa: E731

    def scaled(row: dict) -> tuple[dict, int]:
        scale = math.lcm(*(p.denominator for p in row.values()))
        return {k: int(p * scale) for k, p in row.items()}, scale

    row, total = scaled(initial)
    state = {(a, offsets[0][a]): m for a, m in row.items() if m and allowed(0, a)}
    for v in range(1, len(domains)):
        following: dict = {}
        scales = {a: scaled(r) for a, r in kernels[v - 1].items()}
        step = math.lcm(*(s for _, s in scales.values()))
        for (a, code), m in state.items():
            ints, s = scales[a]
            for b, t in ints.items():
                if t and allowed(v, b):
                    target = (b, code + offsets[v][b])
                    following[target] = following.get(target, 0) + m * t * (step // s)
        state, total = following, total * step
    law = [0] * (max((code for _, code in state), default=-1) + 1)
    for (_, code), m in state.items():
        law[code] += m
    return law, total
