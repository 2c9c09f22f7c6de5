"""The checks: every number of a certificate re-derived from the model file, then every level,
witness and verdict recomputed from those numbers (docs/certificates.md)."""

from __future__ import annotations

import hashlib
import math
from fractions import Fraction
from pathlib import Path

from pufferfish_check.laws import (Mechanisms, chain_statistic, geometric_row, product,
                                   statistic)
from pufferfish_check.programs import DEFAULT_THRESHOLD, Enumerator, load_program
from pufferfish_check.reader import BadInput, Model, adjacent, key, number, read_json, relation

INF, ZERO = "inf", Fraction(0)
ENUMERATED = 2 ** 16  # universes listed; larger ones need a chain's forward recursion
PAIRS = 2 ** 26  # ordered pairs of datasets tested at most for a neighbour relation


class Rejected(Exception):
    """The certificate does not hold (exit 1); the message says which number and why."""


def ratio(p: Fraction, q: Fraction):
    return INF if not q else p / q


def bigger(a, b) -> bool:
    return a != b and (a == INF or (b != INF and a > b))


def worst(l1: dict, l2: dict, best=ZERO):
    """``max_ω l1(ω)/l2(ω)`` over the outputs with ``l1(ω) > 0`` (0 when there is none)."""
    for r in (ratio(p, l2.get(k, ZERO)) for k, p in l1.items()):
        best = r if bigger(r, best) else best
    return best


def text(value) -> str:
    return INF if value == INF else str(value)


def parse(value, where: str):  # a number of the certificate: a wrong one rejects it
    try:
        return INF if value == INF else number(value, where)
    except BadInput as error:
        raise Rejected(str(error)) from None


def same(claimed, computed, where: str) -> None:
    if parse(claimed, where) != computed:
        raise Rejected(f"{where}: the certificate says {claimed}, recomputed {text(computed)}")


def law_of(items, where: str) -> dict:
    return {key(output): parse(p, where) for output, p in items}


def same_law(claimed: dict, computed: dict, where: str) -> None:
    for k in sorted(set(claimed) | set(computed)):
        if claimed.get(k, ZERO) != computed.get(k, ZERO):
            raise Rejected(f"{where}: output {k}: the certificate says "
                           f"{text(claimed.get(k, ZERO))}, recomputed {text(computed.get(k, ZERO))}")


def within_exp(r: Fraction, epsilon: Fraction) -> bool:
    """``r <= e^ε`` for rational ``ε >= 0``, decided with rational bounds on ``e^ε``: Taylor
    partial sums of ``e^x``, ``x = ε/2^m <= 1``, tail ``<= 2x^(n+1)/(n+1)!``, raised to ``2^m``;
    equality would need ``ε = 0`` (Lindemann), decided exactly."""
    if epsilon >= r.numerator.bit_length():  # r < 2^ε <= e^ε
        return True
    m = max(0, epsilon.numerator.bit_length() - epsilon.denominator.bit_length() + 1)
    x, term, low = epsilon / 2 ** m, Fraction(1), Fraction(1)
    for n in range(1, 4000):
        term = term * x / n
        low += term
        if r <= low ** 2 ** m or not epsilon:
            return r <= low ** 2 ** m
        if n % 4 == 0 and r > (low + 2 * term * x / (n + 1)) ** 2 ** m:
            return False
    raise Rejected("a budget comparison did not settle")


def combine(verdicts: list):
    """All verdicts: ``False`` if one fails, else ``None`` if one is undecided, else ``True``."""
    return False if False in verdicts else None if None in verdicts else True


def holds(level, budget: str):
    """``log(level) <= ε`` for the budget texts of the toolkit (``"inf"``, ``"log(q)"``, ``ε``)."""
    budget = budget.strip()
    if budget == INF or level == INF:
        return budget == INF
    if budget.startswith("log(") and budget.endswith(")"):
        return level <= number(budget[4:-1], "budget")
    return within_exp(level, number(budget, "budget"))


class Checker:
    def __init__(self, certificate: dict, model_file=None, threshold=DEFAULT_THRESHOLD) -> None:
        if not isinstance(certificate, dict) or certificate.get("pufferfish_certificate") != 1:
            raise BadInput("not a certificate (\"pufferfish_certificate\": 1)")
        reference = certificate.get("model") or {}
        path = Path(model_file or reference.get("file") or "")
        if not path.name or not path.is_file():
            raise BadInput(f"the model file {path} is not a regular file" if path.name else
                           "the certificate names no model file: give it on the command line")
        try:
            self.model = Model(path, read_json(path))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            raise BadInput(f"{path}: not a model file the checker reads ({error!r})") from None
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if reference.get("sha256") not in (None, digest):
            raise Rejected(f"the model file {path} is not the one the certificate was made for "
                           f"(SHA-256 {digest[:12]}…, certificate {reference['sha256'][:12]}…)")
        self.certificate, self.threshold, self.notes = certificate, threshold, []
        self.mechanisms, self.laws, self.scaled = Mechanisms(self.model), {}, {}

    def run(self) -> list[str]:
        c, verdicts = self.certificate, []
        structured = c.get("method") == "structured"
        if not c.get("mechanisms"):
            raise Rejected("the certificate has no mechanism: it certifies nothing")
        for entry in c["mechanisms"]:
            name = entry["name"]
            if entry.get("kind") == "joint":
                if any(self.laws.get(p) is None for p in entry["parts"]):
                    raise Rejected(f"{name}: a joint release of parts whose laws are not listed")
                self.laws[name] = {d: product([self.laws[p][d] for p in entry["parts"]])
                                   for d in self.laws[entry["parts"][0]]}
            elif structured and self.model.size > ENUMERATED:
                self.laws[name] = None  # re-derived by forward recursion
            else:
                self.laws[name] = self._dataset_laws(name, entry.get("datasets"), structured)
            for t, law in entry.get("rows", []):  # structured: each statistic value's law
                same_law(law_of(law, name), self._rows(name, t, t)[t], f"{name}.rows.{t}")
            verdicts.append(self._pufferfish(entry, c.get("budget"), structured))
            relations = [dp["neighbours"] for dp in entry["dp"]]
            if entry.get("kind") != "joint" and relations != c.get("neighbours"):
                raise Rejected(f"{name}.dp: the relations {relations} are not the audit's "
                               f"{c.get('neighbours')}")
            for k, dp in enumerate(entry["dp"]):
                verdicts.append(self._dp(name, dp, c.get("dp_budget"), f"{name}.dp.{k}"))
        expected = [combine([v for k, v in verdicts if k == kind]) for kind, budget in
                    (("pufferfish", "budget"), ("dp", "dp_budget")) if c.get(budget) is not None]
        overall = combine(expected) if expected else None
        if c.get("holds") != overall:
            raise Rejected(f"holds: the certificate says {c.get('holds')}, recomputed {overall}")
        return self.notes

    # --- per-dataset laws ---------------------------------------------------------------------
    def _dataset_laws(self, name: str, claimed, structured: bool) -> dict:
        datasets, spec = self.model.datasets(ENUMERATED), self.model.mechanisms.get(name)
        if spec is None:
            raise Rejected(f"the model has no mechanism {name!r}")
        if structured:  # no dataset is listed: the laws are the checker's own
            return {key(d): self.mechanisms.law(name, d) for d in datasets}
        claimed_laws = {key(d): law_of(items, f"{name}.datasets") for d, items in claimed or []}
        if set(claimed_laws) != {key(d) for d in datasets}:
            raise Rejected(f"{name}.datasets: the datasets listed are not the universe's")
        if "program" in spec:
            return self._program_laws(name, spec["program"], datasets, claimed_laws)
        for d in datasets:
            same_law(claimed_laws[key(d)], self.mechanisms.law(name, d), f"{name}: dataset {key(d)}")
        return claimed_laws

    def _program_laws(self, name: str, spec: dict, datasets: list, claimed: dict) -> dict:
        program = load_program(self.model.path.parent / spec["file"], spec["function"])
        reads = [self.model.attributes.index(a) for a in spec.get("reads", self.model.attributes)]
        arguments, bounds, most = dict(spec.get("arguments", {})), {}, ZERO
        for d in datasets:
            read = tuple(d[i] for i in reads)
            if read not in bounds:
                bounds[read] = Enumerator(self.threshold).law(program, read, arguments)
            (found, left_out, _), law = bounds[read], claimed[key(d)]
            most = max(most, left_out)
            if sum(law.values()) != 1:
                raise Rejected(f"{name}: dataset {key(d)}: the law sums to "
                               f"{text(sum(law.values()))}, not 1")
            for k in set(law) | set(found):
                p, low = law.get(k, ZERO), found.get(k, ZERO)
                if not low <= p <= low + left_out:
                    raise Rejected(f"{name}: dataset {key(d)}: output {k}: {text(p)} is outside "
                                   f"[{text(low)}, {text(low + left_out)}] (the runs found, and "
                                   f"the mass left outside the noise window)")
        self.notes.append(f"{name}: a program; each output's probability checked within the "
                          f"mass left outside the noise window (at most {float(most):.3g} per "
                          f"dataset), the levels recomputed exactly from the certified laws")
        return claimed

    # --- Pufferfish ---------------------------------------------------------------------------
    def _secret_laws(self, name: str, structured: bool) -> dict:
        """Per prior, per secret of a pair: ``(mass, conditional law, statistic law or None)``."""
        model, laws = self.model, self.laws[name]
        secrets = list(dict.fromkeys(s for pair in model.directions for s in pair))
        if laws is None:
            return {prior: {s: self._chain_secret(name, prior, s) for s in secrets}
                    for prior in model.priors}
        stat, result = statistic(model, name) if structured else None, {}
        low = stat and sum(min(map(stat[1], model.domains[v])) for v in stat[0])
        for prior_name, prior in model.priors.items():
            per = result[prior_name] = {}
            weights = [(d, model.weight(prior, d)) for d in model.datasets(ENUMERATED)]
            for s in secrets:
                mass, joint, codes = ZERO, {}, {}
                for d, w in weights:
                    if w and model.holds(s, d):
                        mass += w
                        for k, p in laws[key(d)].items():
                            joint[k] = joint.get(k, ZERO) + w * p
                        if stat:
                            code = sum(stat[1](d[v]) for v in stat[0]) - low
                            codes[code] = codes.get(code, ZERO) + w
                law = {k: v / mass for k, v in joint.items() if v} if mass else {}
                per[s] = (mass, law, codes if stat else None)
        return result

    def _chain_secret(self, name: str, prior_name: str, secret: str):
        model, stat = self.model, statistic(self.model, name)
        if stat is None or not model.product or model.secrets[secret][0] != "where":
            raise Rejected(f"{name}: the universe has {model.size} datasets, and the checker "
                           f"re-derives only sum and count queries on a product universe with "
                           f"conditions as secrets there")
        positions, weight = stat
        counts, scale = chain_statistic(model, model.priors[prior_name], positions, weight,
                                        model.secrets[secret][1])
        low = sum(min(map(weight, model.domains[v])) for v in positions)
        rows, denominator = self._rows(name, low, low + len(counts) - 1, True)
        mass, law = sum(counts), {}
        for code, m in enumerate(counts):
            for k, q in (rows[low + code].items() if m else ()):
                law[k] = law.get(k, 0) + m * q
        law = {k: Fraction(v, mass * denominator) for k, v in law.items() if v} if mass else {}
        return Fraction(mass, scale), law, {c: Fraction(m, scale) for c, m in enumerate(counts) if m}

    def _rows(self, name: str, low: int, high: int, scaled: bool = False):
        """The output law of each statistic value in ``low..high``; ``scaled``: as integers over
        one common denominator, with it (cached)."""
        if (name, low, high) not in self.scaled:
            noise = self.model.mechanisms[name].get("noise")
            g = noise and noise["geometric"]
            rows = {t: geometric_row(t, number(g["alpha"], name), g["min"], g["max"]) if g
                    else {key(t): Fraction(1)} for t in range(low, high + 1)}
            scale = math.lcm(*(p.denominator for row in rows.values() for p in row.values()))
            self.scaled[name, low, high] = rows, ({t: {k: int(p * scale) for k, p in row.items()}
                                                   for t, row in rows.items()}, scale)
        return self.scaled[name, low, high][1 if scaled else 0]

    def _pufferfish(self, entry: dict, budget, structured: bool):
        name, claim = entry["name"], entry["pufferfish"]
        where, computed = f"{name}.pufferfish", self._secret_laws(name, structured)
        priors = claim.get("priors") or {}
        if set(priors) != set(computed):
            raise Rejected(f"{where}: the priors {sorted(priors)} are not {sorted(computed)}")
        for prior, per in computed.items():
            for secret, (mass, law, codes) in per.items():
                given, at = priors[prior].get(secret), f"{where}.priors.{prior}.{secret}"
                if given is None:
                    raise Rejected(f"{at}: missing")
                same(given["mass"], mass, f"{at}.mass")
                same_law(law_of(given["law"], at), law, f"{at}.law")
                if codes is not None and "statistic" in given:
                    same_law({str(k): parse(p, at) for k, p in given["statistic"]},
                             {str(k): p for k, p in codes.items()}, f"{at}.statistic")
        levels, skipped = {}, set()
        for prior, per in computed.items():
            for first, second in self.model.directions:
                (m1, l1, _), (m2, l2, _) = per[first], per[second]
                if not m1 or not m2:
                    skipped.add((f"{first} -> {second}", prior))
                else:
                    levels[first, second, prior] = (worst(l1, l2), l1, l2)
        claimed_skipped = {tuple(s) for s in claim.get("skipped", [])}
        if claimed_skipped != skipped:
            raise Rejected(f"{where}.skipped: {sorted(claimed_skipped)}, not {sorted(skipped)}")
        claimed_levels = {(*lv["direction"], lv["prior"]): lv for lv in claim.get("levels", [])}
        if set(claimed_levels) != set(levels):
            raise Rejected(f"{where}.levels: the ordered pairs and priors are not the model's")
        for index, (triple, lv) in enumerate(claimed_levels.items()):
            self._direction(lv, levels[triple], f"{where}.levels.{index}")
        top = ZERO
        for best, _, _ in levels.values():
            top = best if bigger(best, top) else top
        level = top if top == INF else max(Fraction(1), top)
        same(claim["max_ratio"], level, f"{where}.max_ratio")
        if bool(claim.get("vacuous")) != (not levels):
            raise Rejected(f"{where}.vacuous: the certificate says {claim.get('vacuous')}")
        witness = claim.get("witness")
        if levels:
            triple = witness and (*witness["direction"], witness["prior"])
            if triple not in levels or levels[triple][0] != top:
                raise Rejected(f"{where}.witness: {triple} does not attain the level")
            self._direction(witness, levels[triple], f"{where}.witness")
        verdict = None if budget is None or not levels else holds(level, budget)
        return "pufferfish", self._verdict(claim, budget, verdict, where)

    def _direction(self, claim: dict, computed, where: str) -> None:
        best, l1, l2 = computed
        same(claim["max_ratio"], best, f"{where}.max_ratio")
        if "output" not in claim and l1:
            raise Rejected(f"{where}: no output given, but outputs are possible")
        if "output" in claim:
            k = key(claim["output"])
            p1, p2 = l1.get(k, ZERO), l2.get(k, ZERO)
            same(claim["p_first"], p1, f"{where}.p_first")
            same(claim["p_second"], p2, f"{where}.p_second")
            if not p1 or ratio(p1, p2) != best:
                raise Rejected(f"{where}: output {k} does not attain the ratio")

    def _verdict(self, claim: dict, budget, verdict, where: str):
        if budget is not None and claim.get("holds") != verdict:
            raise Rejected(f"{where}.holds: the certificate says {claim.get('holds')}, "
                           f"recomputed {verdict} for budget {budget}")
        return verdict

    # --- differential privacy -----------------------------------------------------------------
    def _dp(self, name: str, claim: dict, budget, where: str):
        rel, laws, best, found = relation(claim["neighbours"]), self.laws[name], ZERO, False
        if laws is None:
            best, found = self._chain_entry_dp(name, rel)
        else:
            datasets, model = self.model.datasets(ENUMERATED), self.model
            if len(datasets) ** 2 > PAIRS and not (rel[0] == "entry" and model.product):
                raise Rejected(f"{where}: {len(datasets)} datasets: too many pairs to test")
            for d in datasets:  # entry neighbours on a product universe: d with one value changed
                for e in ([d[:i] + [x] + d[i + 1:] for i, dom in enumerate(model.domains)
                           for x in dom] if rel[0] == "entry" and model.product else datasets):
                    if adjacent(model, rel, d, e):
                        r, found = worst(laws[key(d)], laws[key(e)]), True
                        best = r if bigger(r, best) else best
        same(claim["max_ratio"], best, f"{where}.max_ratio")
        w = claim.get("witness")
        if w is None and found:
            raise Rejected(f"{where}.witness: missing")
        if w is not None:
            d, e, k = w["dataset"], w["neighbour"], key(w["output"])
            if not adjacent(self.model, rel, d, e):
                raise Rejected(f"{where}.witness: {d} and {e} are not neighbours")
            p, q = (self._probability(name, x, k) for x in (d, e))
            same(w["p_dataset"], p, f"{where}.witness.p_dataset")
            same(w["p_neighbour"], q, f"{where}.witness.p_neighbour")
            if ratio(p, q) != best:
                raise Rejected(f"{where}.witness: the output does not attain the level")
        return "dp", self._verdict(claim, budget, None if budget is None else holds(best, budget),
                                   where)

    def _probability(self, name: str, dataset: list, k: str) -> Fraction:
        laws, model = self.laws[name], self.model
        if laws is not None and key(dataset) in laws:
            return laws[key(dataset)].get(k, ZERO)
        if laws is not None or not model.product or len(dataset) != len(model.domains) or any(
                key(v) not in map(key, dom) for v, dom in zip(dataset, model.domains)):
            raise Rejected(f"{name}: {dataset} is not a dataset of the universe")
        return self.mechanisms.law(name, dataset).get(k, ZERO)

    def _chain_entry_dp(self, name: str, rel: tuple):
        """Per-entry DP of a sum or count query on a product universe too large to list: the
        neighbouring pairs of statistic values are ``(a + w(x), a + w(y))`` for an attribute
        ``v``, two of its values ``x != y``, ``a`` in the sumset of the other attributes'."""
        stat = statistic(self.model, name)
        if rel[0] != "entry" or stat is None:
            raise Rejected(f"{name}: DP under {rel[0]} on {self.model.size} datasets: on such "
                           f"universes the checker re-derives per-entry DP of queries only")
        weights = [sorted({stat[1](x) if v in stat[0] else 0 for x in dom})
                   for v, dom in enumerate(self.model.domains)]
        pairs, values = set(), {0}
        for w in weights:
            values = {a + b for a in values for b in w}
        for v, w in enumerate(weights):
            rest = {0}
            for other in weights[:v] + weights[v + 1:]:
                rest = {a + b for a in rest for b in other}
            pairs |= {(a + x, a + y) for a in rest for x in w for y in w if x != y}
        rows, best = self._rows(name, min(values), max(values)), ZERO
        for s, t in pairs:
            r = worst(rows[s], rows[t])
            best = r if bigger(r, best) else best
        return best, bool(pairs)
