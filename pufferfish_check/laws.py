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

    def at_least(t: int) -> Fraction:
        return alpha ** t / (1 + alpha) if t >= 1 else 1 - alpha ** (1 - t) / (1 + alpha)

    law = {key(low): at_least(answer - low), key(high): at_least(high - answer)}
    for y in range(low + 1, high):
        law[key(y)] = (1 - alpha) / (1 + alpha) * alpha ** abs(y - answer)
    return law


def query_spec(model: Model, spec) -> tuple[str, list[int], object]:
    """``(kind, positions, counted value)`` of a ``query``."""
    if isinstance(spec, str):
        return spec, list(range(len(model.attributes))), 1
    kind, body = next(iter(spec.items()))
    if kind == "attribute":
        return kind, [model.attributes.index(body)], None
    names = body.get("attributes", model.attributes)
    return kind, [model.attributes.index(a) for a in names], body.get("value", 1)


def answer(kind: str, values: list, counted):
    if kind == "sum":
        return sum(values)
    if kind == "count":
        return sum(1 for v in values if key(v) == key(counted))
    if kind == "parity":
        return sum(values) % 2
    if kind == "identity":
        return list(values)
    return values[0]


def product(laws: list[dict]) -> dict:
    """The law of the list of independent outputs."""
    joint = {"[]": Fraction(1)}
    for law in laws:
        joint = {key(json.loads(a) + [json.loads(b)]): p * q
                 for a, p in joint.items() for b, q in law.items()}
    return joint


class Mechanisms:
    """The laws of a model's mechanisms, dataset by dataset (cached per dataset)."""

    def __init__(self, model: Model, programs=None) -> None:
        self.model, self.programs, self.cache = model, programs, {}

    def law(self, name: str, dataset: list) -> dict:
        cached = self.cache.get((name, key(dataset)))
        if cached is None:
            cached = self.cache[name, key(dataset)] = self._law(name, dataset)
        return cached

    def _law(self, name: str, dataset: list) -> dict:
        model = self.model
        if name not in model.mechanisms:
            raise BadInput(f"the model has no mechanism {name!r}")
        kind, body = next(iter(model.mechanisms[name].items()))
        where = f"mechanisms.{name}"
        if kind == "table":
            for d, row in body:
                if key(d) == key(dataset):
                    return _add({}, [(key(o), number(p, where)) for o, p in row])
            raise BadInput(f"{where}: no row for dataset {dataset}")
        if kind == "query":
            q, positions, counted = query_spec(model, body)
            value = answer(q, [dataset[i] for i in positions], counted)
            noise = model.mechanisms[name].get("noise")
            if noise is None:
                return {key(value): Fraction(1)}
            g = noise["geometric"]
            return geometric_row(value, number(g["alpha"], where), g["min"], g["max"])
        if kind == "per_entry":
            rr = body["randomized_response"]
            keep = number(rr["keep"], where)
            names = rr.get("attributes", model.attributes)
            laws = []
            for a in names:
                i = model.attributes.index(a)
                others = [v for v in model.domains[i] if key(v) != key(dataset[i])]
                law = {key(dataset[i]): keep if others else Fraction(1)}
                law.update({key(v): (1 - keep) / len(others) for v in others})
                laws.append({k: p for k, p in law.items() if p})
            return product(laws)
        if kind == "compose":
            return product([self.law(part, dataset) for part in body])
        if kind == "repeat":
            return product([self.law(body["mechanism"], dataset)] * body["times"])
        if kind == "postprocess":
            mapping = {key(o): row for o, row in body["map"]}
            result: dict = {}
            for o, p in self.law(body["mechanism"], dataset).items():
                if o not in mapping:
                    raise BadInput(f"{where}.map: output {o} is not mapped")
                _add(result, [(key(new), p * number(q, where)) for new, q in mapping[o]])
            return result
        if kind == "program":
            raise BadInput(f"{where}: a program's laws are bounded, not recomputed")
        raise BadInput(f"{where}: the checker does not read {kind!r} mechanisms")


def _add(law: dict, items) -> dict:
    for k, p in items:
        if p:
            law[k] = law.get(k, Fraction(0)) + p
    return law


def chain_statistic(model: Model, prior, positions: list[int], weight, conditions: dict
                    ) -> tuple[list[int], int]:
    """``(m, scale)`` with ``m[k]/scale = Pr[s ∧ S = low + k | θ]`` for ``k = 0, 1, ...`` where ``S = Σ_{v ∈ positions}
    weight(v, D_v)`` (integers), ``s`` the conjunction ``conditions`` (position -> allowed value
    keys) and ``θ`` a Markov chain, product or uniform prior on a product universe: a forward
    recursion over the attributes on integers scaled by each step's common denominator."""
    kind, body = prior
    n = len(model.attributes)
    if kind == "uniform":
        rows = [{key(v): Fraction(1, len(d)) for v in d} for d in model.domains]
        kind, body = "independent", rows
    if kind == "independent":
        initial, kernels = body[0], [{key(a): body[i + 1] for a in model.domains[i]} for i in range(n - 1)]
    elif kind == "markov":
        initial, kernels = body
    else:
        raise BadInput(f"a {kind} prior has no forward recursion in the checker")
    offsets = [{key(x): (weight(v, x) - min(weight(v, y) for y in d)) if v in positions else 0
                for x in d} for v, d in enumerate(model.domains)]

    def step_weight(v: int, value_key: str) -> int:
        return offsets[v][value_key]

    def allowed(v: int, value_key: str) -> bool:
        return v not in conditions or value_key in conditions[v]

    def scaled(row: dict) -> tuple[dict, int]:
        scale = 1
        for p in row.values():
            scale = scale * p.denominator // math.gcd(scale, p.denominator)
        return {k: int(p * scale) for k, p in row.items()}, scale

    row, total_scale = scaled(initial)
    state = {}  # (value key, statistic code) -> scaled mass
    for value_key, m in row.items():
        if m and allowed(0, value_key):
            state[value_key, step_weight(0, value_key)] = m
    for v in range(1, n):
        following: dict = {}
        scales = {a: scaled(r) for a, r in kernels[v - 1].items()}
        step_scale = 1
        for _, s in scales.values():
            step_scale = step_scale * s // math.gcd(step_scale, s)
        for (a, code), m in state.items():
            ints, s = scales[a]
            for b, t in ints.items():
                if t and allowed(v, b):
                    target = (b, code + step_weight(v, b))
                    following[target] = following.get(target, 0) + m * t * (step_scale // s)
        state, total_scale = following, total_scale * step_scale
    top = max((code for _, code in state), default=-1)
    law = [0] * (top + 1)
    for (_, code), m in state.items():
        law[code] += m
    return law, total_scale
