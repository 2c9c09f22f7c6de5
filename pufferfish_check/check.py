"""The checks: every number of a certificate re-derived from the model file, then every level,
witness and verdict recomputed from those numbers (docs/certificates.md)."""

from __future__ import annotations

import hashlib
import json
import math
from fractions import Fraction
from pathlib import Path

from pufferfish_check.laws import Mechanisms, chain_statistic, geometric_row, query_spec
from pufferfish_check.programs import DEFAULT_THRESHOLD, Enumerator, load_program
from pufferfish_check.reader import BadInput, Model, adjacent, key, number, read_json, relation

INF = "inf"
ENUMERATED = 2 ** 16
"""Universes up to this size are enumerated; larger ones need a chain's forward recursion."""


class Rejected(Exception):
    """The certificate does not hold (exit 1); the message says which number and why."""


def ratio(p: Fraction, q: Fraction):
    return INF if not q else p / q


def bigger(a, b) -> bool:
    return a != b and (a == INF or (b != INF and a > b))


def text(value) -> str:
    if value == INF:
        return INF
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def parse(value, where: str):
    if value == INF:
        return INF
    try:
        return number(value, where)
    except BadInput as error:
        raise Rejected(str(error)) from None


def same(claimed, computed, where: str) -> None:
    if parse(claimed, where) != computed:
        raise Rejected(f"{where}: the certificate says {claimed}, recomputed {text(computed)}")


def law_of(items, where: str) -> dict:
    law = {}
    for output, p in items:
        law[key(output)] = parse(p, where)
    return law


def same_law(claimed: dict, computed: dict, where: str) -> None:
    for k in sorted(set(claimed) | set(computed)):
        c, r = claimed.get(k, Fraction(0)), computed.get(k, Fraction(0))
        if c != r:
            raise Rejected(f"{where}: output {k}: the certificate says {text(c)}, recomputed "
                           f"{text(r)}")


def within_exp(r: Fraction, epsilon: Fraction) -> bool:
    """``r <= e^ε`` for rational ``ε >= 0``, decided with rational bounds on ``e^ε`` (Taylor
    partial sums of ``e^(ε/2^m)``, ``ε/2^m <= 1``, tail ``<= 2x^(n+1)/(n+1)!``, raised to
    ``2^m``); equality needs ``ε = 0`` (Lindemann), handled exactly."""
    if not epsilon:
        return r <= 1
    m = 0
    while epsilon / 2 ** m > 1:
        m += 1
    x = epsilon / 2 ** m
    for n in range(4, 4000, 4):
        term, low = Fraction(1), Fraction(1)
        for i in range(1, n + 1):
            term = term * x / i
            low += term
        high = low + 2 * term * x / (n + 1)
        low, high = low ** (2 ** m), high ** (2 ** m)
        if r <= low:
            return True
        if r > high:
            return False
        low = high = None
    raise Rejected("a budget comparison did not settle")


def holds(level, budget: str):
    """``log(level) <= ε`` for the budget texts of the toolkit (``"inf"``, ``"log(q)"``, ``ε``)."""
    budget = budget.strip()
    if budget == INF:
        return True
    if level == INF:
        return False
    if budget.startswith("log(") and budget.endswith(")"):
        return level <= number(budget[4:-1], "budget")
    return within_exp(level, number(budget, "budget"))


class Checker:
    def __init__(self, certificate: dict, model_file=None, threshold=DEFAULT_THRESHOLD) -> None:
        if not isinstance(certificate, dict) or certificate.get("pufferfish_certificate") != 1:
            raise BadInput("not a certificate (\"pufferfish_certificate\": 1)")
        reference = certificate.get("model") or {}
        path = model_file or reference.get("file")
        if not path:
            raise BadInput("the certificate names no model file: give it on the command line")
        path = Path(path)
        if not path.is_file():
            raise BadInput(f"the model file {path} is not a regular file")
        self.model = Model(path, read_json(path))
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if reference.get("sha256") and reference["sha256"] != digest:
            raise Rejected(f"the model file {path} is not the one the certificate was made for "
                           f"(SHA-256 {digest[:12]}…, certificate {reference['sha256'][:12]}…)")
        self.certificate, self.threshold = certificate, threshold
        self.mechanisms = Mechanisms(self.model)
        self.notes: list[str] = []
        self.laws: dict = {}   # mechanism name -> {dataset key: law}
        self.scaled: dict = {}  # (mechanism, low, high) -> its rows over one denominator

    # --- the whole certificate ----------------------------------------------------------------
    def run(self) -> list[str]:
        c = self.certificate
        entries = c.get("mechanisms") or []
        if not entries:
            raise Rejected("the certificate has no mechanism: it certifies nothing")
        structured = c.get("method") == "structured"
        verdicts = []
        for entry in entries:
            name = entry["name"]
            if entry.get("kind") == "joint":
                self.laws[name] = self._joint_laws(entry["parts"], structured)
            elif structured:
                self.laws[name] = self._structured_laws(entry) if self._enumerable() else None
            else:
                self.laws[name] = self._dataset_laws(name, entry.get("datasets"))
            verdicts.append(self._pufferfish(entry, c.get("budget"), structured))
            for k, dp in enumerate(entry.get("dp", [])):
                verdicts.append(self._dp(name, dp, c.get("dp_budget"), f"{name}.dp.{k}"))
        if len(entries) >= 2 and not any(e.get("kind") == "joint" for e in entries):
            self.notes.append("no joint release in the certificate (not computed by the audit)")
        pufferfish = [v for kind, v in verdicts if kind == "pufferfish"]
        dp = [v for kind, v in verdicts if kind == "dp"]
        expected = []
        if c.get("budget") is not None:
            expected.append(False if False in pufferfish else None if None in pufferfish else True)
        if c.get("dp_budget") is not None:
            expected.append(all(dp))
        overall = (None if not expected else False if False in expected
                   else None if None in expected else True)
        if c.get("holds") != overall:
            raise Rejected(f"holds: the certificate says {c.get('holds')}, recomputed {overall}")
        return self.notes

    def _enumerable(self) -> bool:
        return self.model.size <= ENUMERATED

    # --- per-dataset laws ---------------------------------------------------------------------
    def _dataset_laws(self, name: str, claimed) -> dict:
        if claimed is None:
            raise Rejected(f"{name}: the certificate lists no dataset laws")
        claimed_laws = {key(d): law_of(items, f"{name}.datasets") for d, items in claimed}
        datasets = self.model.datasets(ENUMERATED)
        if set(claimed_laws) != {key(d) for d in datasets}:
            raise Rejected(f"{name}.datasets: the datasets listed are not the universe's")
        spec = self.model.mechanisms.get(name)
        if spec is None:
            raise Rejected(f"the model has no mechanism {name!r}")
        if "program" in spec:
            return self._program_laws(name, spec["program"], datasets, claimed_laws)
        for d in datasets:
            same_law(claimed_laws[key(d)], self.mechanisms.law(name, d),
                     f"{name}: dataset {key(d)}")
        return claimed_laws

    def _program_laws(self, name: str, spec: dict, datasets: list, claimed: dict) -> dict:
        program = load_program(self.model.path.parent / spec["file"], spec["function"])
        reads = [self.model.attributes.index(a) for a in spec.get("reads", self.model.attributes)]
        arguments, bounds, worst = dict(spec.get("arguments", {})), {}, Fraction(0)
        for d in datasets:
            read = tuple(d[i] for i in reads)
            if read not in bounds:
                bounds[read] = Enumerator(self.threshold).law(program, read, arguments)
            found, left_out, _ = bounds[read]
            worst = max(worst, left_out)
            law = claimed[key(d)]
            if sum(law.values()) != 1:
                raise Rejected(f"{name}: dataset {key(d)}: the law sums to "
                               f"{text(sum(law.values()))}, not 1")
            for k in set(law) | set(found):
                p, low = law.get(k, Fraction(0)), found.get(k, Fraction(0))
                if not low <= p <= low + left_out:
                    raise Rejected(f"{name}: dataset {key(d)}: output {k}: {text(p)} is outside "
                                   f"[{text(low)}, {text(low + left_out)}] (the runs found, and "
                                   f"the mass left outside the noise window)")
        self.notes.append(f"{name}: a program; each output's probability checked within the "
                          f"mass left outside the noise window (at most {float(worst):.3g} per "
                          f"dataset), the levels recomputed exactly from the certified laws")
        return claimed

    def _joint_laws(self, parts: list, structured: bool):
        if any(self.laws.get(p) is None for p in parts):
            if structured and not self._enumerable():
                raise Rejected("a joint release on a universe too large to enumerate cannot be "
                               "re-derived by the checker")
            raise Rejected("a joint release names parts the certificate does not certify")
        joint = {}
        for d in self.laws[parts[0]]:
            result = {"[]": Fraction(1)}
            for p in parts:
                result = {key(json.loads(a) + [json.loads(b)]): x * y
                          for a, x in result.items() for b, y in self.laws[p][d].items()}
            joint[d] = result
        return joint

    def _structured_laws(self, entry: dict) -> dict:
        name = entry["name"]
        return {key(d): self.mechanisms.law(name, d) for d in self.model.datasets(ENUMERATED)}

    # --- Pufferfish ---------------------------------------------------------------------------
    def _secret_laws(self, name: str, structured: bool) -> dict:
        """Per prior, per secret of a pair: ``(mass, conditional law, statistic law or None)``."""
        model, laws = self.model, self.laws[name]
        secrets = list(dict.fromkeys(s for pair in model.directions for s in pair))
        result = {}
        if laws is None:
            return {prior: {s: self._chain_secret(name, prior, s) for s in secrets}
                    for prior in model.priors}
        datasets = model.datasets(ENUMERATED)
        statistic = self._statistic(name) if structured else None
        for prior_name, prior in model.priors.items():
            per = result[prior_name] = {}
            weights = [(d, model.weight(prior, d)) for d in datasets]
            for s in secrets:
                mass, joint, codes = Fraction(0), {}, {}
                for d, w in weights:
                    if w and model.holds(s, d):
                        mass += w
                        for k, p in laws[key(d)].items():
                            joint[k] = joint.get(k, Fraction(0)) + w * p
                        if statistic:
                            code = statistic(d)
                            codes[code] = codes.get(code, Fraction(0)) + w
                law = {k: v / mass for k, v in joint.items() if v} if mass else {}
                per[s] = (mass, law, codes if statistic else None)
        return result

    def _statistic(self, name: str):
        """The code of a sum or count query (its value minus the least value), else ``None``."""
        spec = self.model.mechanisms.get(name, {})
        if "query" not in spec:
            return None
        kind, positions, counted = query_spec(self.model, spec["query"])
        if kind == "sum":
            low = sum(min(self.model.domains[i]) for i in positions)
            return lambda d: sum(d[i] for i in positions) - low
        if kind == "count":
            return lambda d: sum(1 for i in positions if key(d[i]) == key(counted))
        return None

    def _chain_secret(self, name: str, prior_name: str, secret: str):
        model = self.model
        spec = model.mechanisms.get(name, {})
        if "query" not in spec or not model.product:
            raise Rejected(f"{name}: the universe has {model.size} datasets and the mechanism is "
                           f"not a sum or count query on a product universe: the checker cannot "
                           f"re-derive its laws")
        kind, positions, counted = query_spec(model, spec["query"])
        if kind == "sum":
            weight = lambda v, x: x  # noqa: E731
        elif kind == "count":
            weight = lambda v, x: int(key(x) == key(counted))  # noqa: E731
        else:
            raise Rejected(f"{name}: a {kind} query on {model.size} datasets: no forward recursion")
        secret_kind, conditions = model.secrets[secret]
        if secret_kind != "where":
            raise Rejected(f"secret {secret}: a list of datasets on a universe too large to list")
        counts, scale = chain_statistic(model, model.priors[prior_name], positions, weight,
                                        conditions)
        low = sum(min(weight(v, x) for x in model.domains[v]) for v in positions)
        rows, denominator = self._scaled_rows(name, low, low + len(counts) - 1)
        mass, law = sum(counts), {}
        for code, m in enumerate(counts):
            if m:
                for k, q in rows[low + code].items():
                    law[k] = law.get(k, 0) + m * q
        law = {k: Fraction(v, mass * denominator) for k, v in law.items() if v} if mass else {}
        return (Fraction(mass, scale), law,
                {code: Fraction(m, scale) for code, m in enumerate(counts) if m})

    def _scaled_rows(self, name: str, low: int, high: int) -> tuple[dict, int]:
        """The rows of ``low..high`` as integers over one common denominator (cached)."""
        if (name, low, high) not in self.scaled:
            rows = self._rows(name, low, high)
            denominator = 1
            for row in rows.values():
                for p in row.values():
                    denominator = denominator * p.denominator // math.gcd(denominator,
                                                                          p.denominator)
            self.scaled[name, low, high] = ({t: {k: int(p * denominator) for k, p in row.items()}
                                             for t, row in rows.items()}, denominator)
        return self.scaled[name, low, high]

    def _rows(self, name: str, low: int, high: int) -> dict:
        spec = self.model.mechanisms[name]
        noise = spec.get("noise")
        if noise is None:
            return {t: {key(t): Fraction(1)} for t in range(low, high + 1)}
        g = noise["geometric"]
        alpha = number(g["alpha"], f"mechanisms.{name}")
        return {t: geometric_row(t, alpha, g["min"], g["max"]) for t in range(low, high + 1)}

    def _pufferfish(self, entry: dict, budget, structured: bool):
        name, claim = entry["name"], entry["pufferfish"]
        where = f"{name}.pufferfish"
        computed = self._secret_laws(name, structured)
        priors = claim.get("priors") or {}
        if set(priors) != set(computed):
            raise Rejected(f"{where}: the priors {sorted(priors)} are not the model's "
                           f"{sorted(computed)}")
        for prior, per in computed.items():
            for secret, (mass, law, codes) in per.items():
                given = priors[prior].get(secret)
                if given is None:
                    raise Rejected(f"{where}: no law for secret {secret} under {prior}")
                at = f"{where}.priors.{prior}.{secret}"
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
                    continue
                best = Fraction(0)
                for k, p in l1.items():
                    r = ratio(p, l2.get(k, Fraction(0)))
                    best = r if bigger(r, best) else best
                levels[first, second, prior] = (best, l1, l2)
        claimed_skipped = {tuple(s) for s in claim.get("skipped", [])}
        if claimed_skipped != skipped:
            raise Rejected(f"{where}.skipped: the certificate skips {sorted(claimed_skipped)}, "
                           f"the model {sorted(skipped)}")
        claimed_levels = {(*lv["direction"], lv["prior"]): lv for lv in claim.get("levels", [])}
        if set(claimed_levels) != set(levels):
            raise Rejected(f"{where}.levels: the ordered pairs and priors listed are not the "
                           f"model's")
        for index, (triple, lv) in enumerate(claimed_levels.items()):
            self._direction(lv, levels[triple], f"{where}.levels.{index}")
        top = max((lv[0] for lv in levels.values()), key=lambda r: (r == INF, 0 if r == INF else r),
                  default=Fraction(0))
        level = top if top == INF else max(Fraction(1), top)
        same(claim["max_ratio"], level, f"{where}.max_ratio")
        if bool(claim.get("vacuous")) != (not levels):
            raise Rejected(f"{where}.vacuous: the certificate says {claim.get('vacuous')}")
        witness = claim.get("witness")
        if levels:
            if witness is None:
                raise Rejected(f"{where}.witness: missing")
            triple = (*witness["direction"], witness["prior"])
            if triple not in levels or levels[triple][0] != top:
                raise Rejected(f"{where}.witness: {triple} does not attain the level")
            self._direction(witness, levels[triple], f"{where}.witness")
        verdict = None if budget is None or not levels else holds(level, budget)
        if budget is not None and claim.get("holds") != verdict:
            raise Rejected(f"{where}.holds: the certificate says {claim.get('holds')}, "
                           f"recomputed {verdict} for budget {budget}")
        return "pufferfish", verdict

    def _direction(self, claim: dict, computed, where: str) -> None:
        best, l1, l2 = computed
        same(claim["max_ratio"], best, f"{where}.max_ratio")
        if "output" not in claim:
            if l1:
                raise Rejected(f"{where}: no output given, but outputs are possible")
            return
        k = key(claim["output"])
        p1, p2 = l1.get(k, Fraction(0)), l2.get(k, Fraction(0))
        same(claim["p_first"], p1, f"{where}.p_first")
        same(claim["p_second"], p2, f"{where}.p_second")
        if not p1 or ratio(p1, p2) != best:
            raise Rejected(f"{where}: output {k} does not attain the ratio")

    # --- differential privacy -----------------------------------------------------------------
    def _dp(self, name: str, claim: dict, budget, where: str):
        rel = relation(claim["neighbours"])
        laws = self.laws[name]
        if laws is None:
            best, witness = self._chain_entry_dp(name, rel)
        else:
            best, witness = Fraction(0), None
            datasets = self.model.datasets(ENUMERATED)
            for d in datasets:
                for e in datasets:
                    if adjacent(self.model, rel, d, e):
                        first, second = laws[key(d)], laws[key(e)]
                        for k, p in first.items():
                            r = ratio(p, second.get(k, Fraction(0)))
                            if witness is None or bigger(r, best):
                                best, witness = r, (d, e)
        same(claim["max_ratio"], best, f"{where}.max_ratio")
        w = claim.get("witness")
        if w is not None:
            d, e = w["dataset"], w["neighbour"]
            if not adjacent(self.model, rel, d, e):
                raise Rejected(f"{where}.witness: {d} and {e} are not neighbours")
            k = key(w["output"])
            p, q = (self._probability(name, x, k) for x in (d, e))
            same(w["p_dataset"], p, f"{where}.witness.p_dataset")
            same(w["p_neighbour"], q, f"{where}.witness.p_neighbour")
            if ratio(p, q) != best:
                raise Rejected(f"{where}.witness: the output does not attain the level")
        elif witness is not None:
            raise Rejected(f"{where}.witness: missing")
        verdict = None if budget is None else holds(best if best == INF else max(best, Fraction(1)),
                                                    budget)
        if budget is not None and claim.get("holds") != verdict:
            raise Rejected(f"{where}.holds: the certificate says {claim.get('holds')}, "
                           f"recomputed {verdict} for budget {budget}")
        return "dp", verdict

    def _probability(self, name: str, dataset: list, k: str) -> Fraction:
        laws = self.laws[name]
        if laws is not None:
            if key(dataset) not in laws:
                raise Rejected(f"{name}: {dataset} is not a dataset of the universe")
            return laws[key(dataset)].get(k, Fraction(0))
        if len(dataset) != len(self.model.attributes) or any(
                key(v) not in {key(x) for x in dom} for v, dom in zip(dataset, self.model.domains)):
            raise Rejected(f"{name}: {dataset} is not a dataset of the universe")
        return self.mechanisms.law(name, dataset).get(k, Fraction(0))

    def _chain_entry_dp(self, name: str, rel: tuple):
        """Per-entry DP of a sum or count query on a product universe too large to list: the
        neighbouring pairs of statistic values ``(a + w_v(x), a + w_v(y))``, ``a`` in the sumset
        of the other attributes' weights."""
        if rel[0] != "entry":
            raise Rejected(f"{name}: DP under {rel[0]} on {self.model.size} datasets: the "
                           f"checker re-derives per-entry DP only on such universes")
        kind, positions, counted = query_spec(self.model, self.model.mechanisms[name]["query"])
        weights = [sorted({(x if kind == "sum" else int(key(x) == key(counted)))
                           if v in positions else 0 for x in dom})
                   for v, dom in enumerate(self.model.domains)]
        sums = [{0}]
        for w in weights:
            sums.append({a + b for a in sums[-1] for b in w})
        pairs = set()
        for v, w in enumerate(weights):
            rest = {0}
            for u, other in enumerate(weights):
                if u != v:
                    rest = {a + b for a in rest for b in other}
            pairs |= {(a + x, a + y) for a in rest for x in w for y in w if x != y}
        values = sums[-1]
        rows = self._rows(name, min(values), max(values))
        best, witness = Fraction(0), None
        for s, t in sorted(pairs):
            for k, p in rows[s].items():
                r = ratio(p, rows[t].get(k, Fraction(0)))
                if witness is None or bigger(r, best):
                    best, witness = r, (s, t)
        return best, witness
