"""The checks (docs/certificates.md).  From the model file the checker derives what an audit
must contain and its own bounds on every law; every level and verdict is decided from those
bounds.  The certificate's numbers are claims compared with them, never taken as evidence."""

from __future__ import annotations

import hashlib
import math
import re
from fractions import Fraction
from pathlib import Path

from pufferfish_check.laws import (Mechanisms, chain_statistic, geometric_row, product,
                                   statistic)
from pufferfish_check.programs import DEFAULT_THRESHOLD, Program
from pufferfish_check.reader import (MAX_NUMBER_CHARS, BadInput, Model, Rejected, adjacent, key,
                                     number, read_bytes, read_json, relation)

INF, ZERO, ONE = "inf", Fraction(0), Fraction(1)
ENUMERATED = 2 ** 16  # universes listed; larger ones need a chain's forward recursion
PAIRS = 2 ** 26  # ordered pairs of datasets tested at most for a neighbour relation
_CANONICAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?")


def ratio(p: Fraction, q: Fraction):
    return INF if not q else p / q


def bigger(a, b) -> bool:
    return a != b and (a == INF or (b != INF and a > b))


def most(values, start=ZERO):
    for v in values:
        start = v if bigger(v, start) else start
    return start


def worst(l1: dict, l2: dict):
    """``max_ω l1(ω)/l2(ω)`` over the outputs with ``l1(ω) > 0`` (0 when there is none)."""
    return most(ratio(p, l2.get(k, ZERO)) for k, p in l1.items())


def bounds(first: tuple, second: tuple) -> tuple:
    """Bounds ``(low, high)`` on ``max_ω P1(ω)/P2(ω)`` over the outputs with ``P1(ω) > 0``, for
    laws known as enclosures ``(found, left, claimed)``: ``found(ω) <= P(ω) <= found(ω) + left``;
    and the ratio of the ``claimed`` laws, which a stated level must also equal.  ``low`` = max
    of ``found1/(found2 + left2)``; ``high`` = max of ``(found1 + left1)/found2``, infinite when
    ``left1 > 0`` (the mass left out may fall on an output ``P2`` gives 0).  Exact laws
    (``left = 0``, claimed = found) give ``low = high``.

    >>> half = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
    >>> bounds((half, 0, half), ({"a": Fraction(1, 4)}, Fraction(3, 4), half))
    (Fraction(1, 2), 'inf', Fraction(1, 1))
    """
    (f1, l1, c1), (f2, l2, c2) = first, second
    if not l1 and not l2:
        level = worst(f1, f2)
        return level, level, level
    low = most(ratio(p, f2.get(k, ZERO) + l2) for k, p in f1.items())
    return low, INF if l1 else worst(f1, f2), worst(c1, c2)


def text(value) -> str:
    return INF if value == INF else str(value)


def interval(low, high) -> str:
    return text(low) if low == high else f"[{text(low)}, {text(high)}]"


def epsilon_text(level) -> str:
    """The level ``log(level)`` as the toolkit writes it: ``"0"``, ``"log(9/2)"``, ``"inf"``."""
    return INF if level == INF else "0" if level == 1 else f"log({level})"


def parse(value, where: str):
    """A number of the certificate: ``"inf"`` or canonical ``"p/q"`` text of bounded size."""
    if value == INF:
        return INF
    if not isinstance(value, str) or len(value) > MAX_NUMBER_CHARS or not _CANONICAL.fullmatch(
            value) or str(Fraction(value)) != value:
        raise Rejected(f"{where}: {value!r:.60} is not an exact number in lowest terms (\"p/q\")")
    return Fraction(value)


def within(claimed, low, high, own, where: str) -> None:
    """A stated level must lie in the checker's bounds (be equal to it for exact laws), and be
    the level of the certificate's own laws ``own`` (``None``: checked otherwise)."""
    stated = parse(claimed, where)
    if bigger(low, stated) or bigger(stated, high):
        raise Rejected(f"{where}: the certificate says {claimed}, the checker derives "
                       f"{interval(low, high)}")
    if own is not None and stated != own:
        raise Rejected(f"{where}: {claimed} is not the level of the laws the certificate "
                       f"states ({text(own)})")


def fields(value, where: str, required, optional=()) -> dict:
    """An object of the certificate with exactly the fields the checker knows."""
    if not isinstance(value, dict):
        raise Rejected(f"{where}: not an object")
    missing = [f for f in required if f not in value]
    unknown = sorted(set(value) - set(required) - set(optional))
    if missing or unknown:
        raise Rejected(f"{where}: " + "; ".join(
            ([f"missing {', '.join(missing)}"] if missing else []) +
            ([f"unknown field {', '.join(unknown)} (the checker cannot re-derive it)"]
             if unknown else [])))
    return value


def listed(value, where: str, length=None) -> list:
    if isinstance(value, list) and length in (None, len(value)):
        return value
    raise Rejected(f"{where}: not a list" + (f" of {length}" if length else ""))


def unique(items, where: str) -> dict:
    """``{key(first): second}`` of a list of pairs, refusing a repeated first."""
    result = {}
    for item in listed(items, where):
        first, second = listed(item, where, 2)
        if key(first) in result:
            raise Rejected(f"{where}: {key(first)} is listed twice")
        result[key(first)] = second
    return result


def law_of(items, where: str) -> dict:
    law = {k: parse(p, f"{where}: output {k}") for k, p in unique(items, where).items()}
    if any(p == INF or p <= 0 for p in law.values()):
        raise Rejected(f"{where}: a probability that is not positive")
    return law


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


def budget_value(budget, where: str):
    """A budget text of the toolkit (``"inf"``, ``"log(q)"`` with ``q >= 1``, ``ε >= 0``) as
    ``(kind, number)``; ``None`` for no budget."""
    if budget is None or budget == INF:
        return budget and (INF, None)
    if not isinstance(budget, str):
        raise Rejected(f"{where}: {budget!r:.40} is not a budget text")
    log = budget[:4] == "log(" and budget[-1:] == ")"
    try:
        value = number(budget[4:-1] if log else budget, where)
    except BadInput as error:
        raise Rejected(str(error)) from None
    if value < (1 if log else 0):
        raise Rejected(f"{where}: {budget!r} is not a budget (ε >= 0)")
    return "log" if log else "epsilon", value


def holds(level, budget: tuple) -> bool:
    """``log(level) <= ε`` exactly (``ε = log q``: ``level <= q``; rational ε: :func:`within_exp`)."""
    kind, value = budget
    if kind == INF or level == INF:
        return kind == INF
    return level <= value if kind == "log" else within_exp(level, value)


class Checker:
    def __init__(self, certificate: dict, model_file=None, threshold=DEFAULT_THRESHOLD) -> None:
        if not isinstance(certificate, dict) or key(certificate.get("pufferfish_certificate")) != "1":
            raise BadInput("not a certificate (\"pufferfish_certificate\": 1)")
        reference = certificate.get("model")
        file = isinstance(reference, dict) and reference.get("file")
        if not model_file and not isinstance(file, str) or not (model_file or file):
            raise BadInput("the certificate names no model file: give it on the command line")
        path = Path(model_file or file)
        self.model = model_of(path)
        fields(reference, "model", ("file", "sha256"))
        digest = hashlib.sha256(read_bytes(path, "model file")).hexdigest()
        if reference["sha256"] != digest:
            raise Rejected(f"model.sha256: the model file {path} is not the one the certificate "
                           f"was made for (SHA-256 {digest[:12]}…, certificate "
                           f"{str(reference['sha256'])[:12]}…)")
        self.certificate, self.threshold, self.notes, self.verdicts = certificate, threshold, [], []
        self.mechanisms, self.laws, self.scaled = Mechanisms(self.model), {}, {}
        self.assumptions: list[str] = []

    # --- what the audit must contain, derived from the model file -----------------------------
    def run(self) -> list[str]:
        c = fields(self.certificate, "certificate", (
            "pufferfish_certificate", "model", "method", "neighbours", "budget", "dp_budget",
            "holds", "mechanisms"), ("requested_mechanisms", "assumptions"))
        if c["method"] not in ("enumeration", "structured"):
            raise Rejected(f"method: {c['method']!r:.40} is neither enumeration nor structured")
        structured = c["method"] == "structured"
        budgets = (budget_value(c["budget"], "budget"), budget_value(c["dp_budget"], "dp_budget"))
        self.chosen = self._chosen(c.get("requested_mechanisms"))
        self.relations = self._relations(c["neighbours"])
        expected = [(n, "mechanism") for n in self.chosen] + (
            [("+".join(self.chosen), "joint")] if len(self.chosen) >= 2 else [])
        entries = listed(c["mechanisms"], "mechanisms")
        if not entries:
            raise Rejected("mechanisms: the certificate has no mechanism: it certifies nothing")
        found = [(e.get("name"), e.get("kind")) if isinstance(e, dict) else None for e in entries]
        if found != expected:
            raise Rejected(f"mechanisms: the certificate lists {found}; the audit of the model "
                           f"file must hold exactly {expected} (each mechanism audited, then the "
                           f"joint release of all of them)")
        for entry in entries:
            self._entry(entry, structured, budgets)
        self._assumptions(c.get("assumptions"))
        overall = combine([v for kind, _, _, _, v in self.verdicts
                           if budgets[kind == "dp"] is not None])
        overall = overall if any(b is not None for b in budgets) else None
        if c["holds"] is not overall:
            raise Rejected(f"holds: the certificate says {c['holds']}, the checker derives {overall}")
        return self.notes

    def _assumptions(self, stated) -> None:
        """A certificate states one assumption per trusted program the audited mechanisms are
        built from (``"trusted": true`` in the model file), naming it — no more, no fewer."""
        specs, trusted, todo = self.model.mechanisms, [], list(self.chosen)
        while todo:
            spec = specs.get(todo.pop(0))
            program = isinstance(spec, dict) and spec.get("program")
            if isinstance(program, dict) and program.get("trusted") is True:
                trusted.append(next(n for n, s in specs.items() if s is spec))
            for kind in ("repeat", "postprocess"):
                part = isinstance(spec, dict) and spec.get(kind)
                todo += [part["mechanism"]] if isinstance(part, dict) else []
            todo += spec["compose"] if isinstance(spec, dict) and isinstance(
                spec.get("compose"), list) else []
        trusted = list(dict.fromkeys(trusted))
        texts = listed(stated, "assumptions") if stated is not None else []
        if len(texts) != len(trusted) or not all(
                isinstance(t, str) and f"program {n} " in t for t, n in zip(texts, trusted)):
            raise Rejected(f"assumptions: the certificate states {len(texts)}, the model file's "
                           f"trusted programs {trusted} need one each, naming it")

    def _chosen(self, requested) -> list[str]:
        """The mechanisms audited: the model's, or those requested (``--mechanism``), in the
        model's order, as the audit takes them."""
        names = list(self.model.mechanisms)
        if requested is None:
            return names
        listed(requested, "requested_mechanisms")
        if not requested or any(n not in names for n in requested) or requested != [
                n for n in names if n in requested]:
            raise Rejected(f"requested_mechanisms: {requested} are not distinct mechanisms of "
                           f"the model in its order ({names})")
        return list(requested)

    def _relations(self, given) -> list:
        """The relations of the DP levels: the model's default (its ``neighbours``, else entry
        and, when a record has several attributes, record) or those requested, at least one."""
        data, default = self.model.data, ["entry"] + (
            ["record"] if any(len(r) > 1 for r in self.model.records) else [])
        default = [data["neighbours"]] if "neighbours" in data else default
        parsed = [relation_of(r, "neighbours") for r in listed(given, "neighbours")]
        if not parsed or len(set(map(repr, parsed))) != len(parsed):
            raise Rejected(f"neighbours: {given} are not distinct relations (an audit takes DP "
                           f"levels under at least one)")
        self.default_relations = parsed == [relation(r) for r in default]
        return list(given)

    def _entry(self, entry: dict, structured: bool, budgets: tuple) -> None:
        name, joint = entry["name"], entry["kind"] == "joint"
        query = "query" in self.model.mechanisms.get(name, {})
        fields(entry, name, ("name", "kind", "pufferfish", "dp") + (
            ("parts",) if joint else ("rows",) if structured and query else
            () if structured else ("datasets",)))
        if joint:
            if entry["parts"] != self.chosen:
                raise Rejected(f"{name}.parts: {entry['parts']}, not {self.chosen}")
            parts = [self.laws[p] for p in self.chosen]
            self.laws[name] = None if None in parts else {
                d: joint_law([p[d] for p in parts]) for d in parts[0]}
        elif structured and self.model.size > ENUMERATED:
            self.laws[name] = None  # re-derived by forward recursion
        else:
            self.laws[name] = self._dataset_laws(name, entry.get("datasets"), structured)
        if structured and query:
            self._check_rows(name, entry["rows"])
        self._pufferfish(entry, budgets[0], structured)
        dps = listed(entry["dp"], f"{name}.dp")
        relations = [dp.get("neighbours") if isinstance(dp, dict) else None for dp in dps]
        if list(map(key, relations)) != list(map(key, [] if joint else self.relations)):
            raise Rejected(f"{name}.dp: the relations {relations} are not the audit's "
                           f"{[] if joint else self.relations} (no DP level of a joint release)")
        for k, dp in enumerate(dps):
            self._dp(name, dp, budgets[1], f"{name}.dp.{k}")

    def _check_rows(self, name: str, rows) -> None:
        stat = statistic(self.model, name)
        claimed = unique(rows, f"{name}.rows")
        span = [] if stat is None else (range(0, len(stat[0]) + 1) if stat[2] == "count" else range(
            sum(min(map(stat[1], self.model.domains[v])) for v in stat[0]),
            sum(max(map(stat[1], self.model.domains[v])) for v in stat[0]) + 1))
        if set(claimed) != {key(t) for t in span}:
            raise Rejected(f"{name}.rows: the statistic's values are not {span}")
        for t in span:
            same_law(law_of(claimed[key(t)], f"{name}.rows.{t}"), self._rows(name, t, t)[t],
                     f"{name}.rows.{t}")

    # --- per-dataset laws: (found, left, claimed) ---------------------------------------------
    def _dataset_laws(self, name: str, claimed, structured: bool) -> dict:
        datasets, spec = self.model.datasets(ENUMERATED), self.model.mechanisms.get(name)
        if structured:  # no dataset is listed: the laws are the checker's own
            return {key(d): exact(self.mechanisms.law(name, d)) for d in datasets}
        claimed_laws = {d: law_of(items, f"{name}.datasets.{d}")
                        for d, items in unique(claimed, f"{name}.datasets").items()}
        if set(claimed_laws) != {key(d) for d in datasets}:
            raise Rejected(f"{name}.datasets: the datasets listed are not the universe's")
        if "program" in spec:
            return self._program_laws(name, spec["program"], datasets, claimed_laws)
        for d in datasets:
            same_law(claimed_laws[key(d)], self.mechanisms.law(name, d), f"{name}: dataset {key(d)}")
        return {k: exact(law) for k, law in claimed_laws.items()}

    def _program_laws(self, name: str, spec: dict, datasets: list, claimed: dict) -> dict:
        if not isinstance(spec, dict) or not isinstance(spec.get("file"), str):
            raise BadInput(f"mechanisms.{name}.program: no program file")
        program = Program(self.model.path.parent, spec, self.threshold)
        if spec.get("trusted") is True:
            self.assumptions.append(f"assuming the program {name} is a deterministic function "
                                    f"of its draws")
        reads = [self.model.attributes.index(a) for a in spec.get("reads", self.model.attributes)]
        result, largest = {}, ZERO
        for d in datasets:
            found, left = program.law(tuple(d[i] for i in reads))
            law, largest = claimed[key(d)], max(largest, left)
            if sum(law.values()) != 1:
                raise Rejected(f"{name}: dataset {key(d)}: the law sums to "
                               f"{text(sum(law.values()))}, not 1")
            for k in set(law) | set(found):
                p, low = law.get(k, ZERO), found.get(k, ZERO)
                if not low <= p <= low + left:
                    raise Rejected(f"{name}: dataset {key(d)}: output {k}: {text(p)} is outside "
                                   f"[{text(low)}, {text(low + left)}] (the runs found, and "
                                   f"the mass left outside the noise window)")
            result[key(d)] = (found, left, law)
        self.notes.append(f"{name}: a program; each output's probability known within the mass "
                          f"left outside the noise window (at most {float(largest):.3g} per "
                          f"dataset); every level and verdict decided from those bounds")
        return result

    # --- Pufferfish ---------------------------------------------------------------------------
    def _secret_laws(self, name: str, structured: bool) -> dict:
        """Per prior, per secret of a pair: ``(mass, (found, left, claimed), statistic law)``."""
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
                mass, parts, codes = ZERO, [], {}
                for d, w in weights:
                    if w and model.holds(s, d):
                        mass += w
                        parts.append((w, laws[key(d)]))
                        if stat:
                            code = sum(stat[1](d[v]) for v in stat[0]) - low
                            codes[code] = codes.get(code, ZERO) + w
                per[s] = (mass, mixture(parts, mass), codes if stat else None)
        return result

    def _chain_secret(self, name: str, prior_name: str, secret: str):
        model, stat = self.model, statistic(self.model, name)
        if stat is None or not model.product or model.secrets[secret][0] != "where":
            raise Rejected(f"{name}: the universe has {model.size} datasets, and the checker "
                           f"re-derives only sum and count queries on a product universe with "
                           f"conditions as secrets there")
        positions, weight, _ = stat
        counts, scale = chain_statistic(model, model.priors[prior_name], positions, weight,
                                        model.secrets[secret][1])
        low = sum(min(map(weight, model.domains[v])) for v in positions)
        rows, denominator = self._rows(name, low, low + len(counts) - 1, True)
        mass, law = sum(counts), {}
        for code, m in enumerate(counts):
            for k, q in (rows[low + code].items() if m else ()):
                law[k] = law.get(k, 0) + m * q
        law = {k: Fraction(v, mass * denominator) for k, v in law.items() if v} if mass else {}
        return (Fraction(mass, scale), exact(law),
                {c: Fraction(m, scale) for c, m in enumerate(counts) if m})

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

    def _pufferfish(self, entry: dict, budget, structured: bool) -> None:
        name, where = entry["name"], f"{entry['name']}.pufferfish"
        claim = fields(entry["pufferfish"], where, ("max_ratio", "epsilon", "vacuous", "witness",
                                                    "levels", "skipped", "priors"), ("holds",))
        computed = self._secret_laws(name, structured)
        priors = fields(claim["priors"], f"{where}.priors", list(computed))
        for prior, per in computed.items():
            given = fields(priors[prior], f"{where}.priors.{prior}", list(per))
            for secret, (mass, law, codes) in per.items():
                at = f"{where}.priors.{prior}.{secret}"
                one = fields(given[secret], at, ("mass", "law") + (
                    ("statistic",) if codes is not None else ()))
                if parse(one["mass"], f"{at}.mass") != mass:
                    raise Rejected(f"{at}.mass: the certificate says {one['mass']}, "
                                   f"recomputed {mass}")
                same_law(law_of(one["law"], at), law[2], f"{at}.law")
                if codes is not None:
                    same_law({k: parse(p, at) for k, p in unique(one["statistic"], at).items()},
                             {key(k): p for k, p in codes.items()}, f"{at}.statistic")
        levels, skipped = {}, set()
        for prior, per in computed.items():
            for first, second in self.model.directions:
                (m1, l1, _), (m2, l2, _) = per[first], per[second]
                if not m1 or not m2:
                    skipped.add(key([f"{first} -> {second}", prior]))
                else:
                    levels[key([first, second, prior])] = (*bounds(l1, l2), l1, l2)
        claimed_skipped = unique([[s, 0] for s in listed(claim["skipped"], f"{where}.skipped")],
                                 f"{where}.skipped")
        if set(claimed_skipped) != skipped:
            raise Rejected(f"{where}.skipped: {sorted(claimed_skipped)}, not {sorted(skipped)}")
        claimed = {}
        for index, lv in enumerate(listed(claim["levels"], f"{where}.levels")):
            at = f"{where}.levels.{index}"
            triple = key([*listed(fields(lv, at, ("direction", "prior", "max_ratio"), (
                "output", "p_first", "p_second"))["direction"], at, 2), lv["prior"]])
            if triple in claimed or triple not in levels:
                raise Rejected(f"{at}: {triple} is repeated or not an ordered pair of the model "
                               f"with both secrets possible under the prior")
            claimed[triple] = self._direction(lv, levels[triple], at)
        if set(claimed) != set(levels):
            raise Rejected(f"{where}.levels: missing {sorted(set(levels) - set(claimed))}")
        low, high = (most((v[i] for v in levels.values()), ONE) for i in (0, 1))
        within(claim["max_ratio"], low, high, None, f"{where}.max_ratio")
        top = most(claimed.values())
        if parse(claim["max_ratio"], where) != most([top], ONE):
            raise Rejected(f"{where}.max_ratio: {claim['max_ratio']} is not the largest of the "
                           f"levels it lists ({text(top)})")
        if claim["epsilon"] != epsilon_text(parse(claim["max_ratio"], where)):
            raise Rejected(f"{where}.epsilon: {claim['epsilon']!r:.40} is not the level "
                           f"{claim['max_ratio']}")
        if claim["vacuous"] is not (not levels):
            raise Rejected(f"{where}.vacuous: the certificate says {claim['vacuous']}")
        witness = claim["witness"]
        if levels and (not isinstance(witness, dict) or key(witness) not in {
                key(lv) for lv in claim["levels"] if parse(lv["max_ratio"], where) == top}):
            raise Rejected(f"{where}.witness: not one of the levels listed that attains "
                           f"{text(top)}")
        if not levels and witness is not None:
            raise Rejected(f"{where}.witness: no ordered pair is constrained")
        decided = self._verdict(claim.get("holds"), (low, high) if levels else None, budget, where)
        label = f"joint release {name}" if entry["kind"] == "joint" else name
        self.verdicts.append(("pufferfish", label, None, shown(claim, low, high), decided))

    def _direction(self, claim: dict, computed, where: str):
        low, high, mine, l1, l2 = computed
        within(claim["max_ratio"], low, high, mine, f"{where}.max_ratio")
        stated = parse(claim["max_ratio"], where)
        if "output" not in claim or "p_first" not in claim or "p_second" not in claim:
            raise Rejected(f"{where}: the output attaining the ratio and its two probabilities "
                           f"are missing")
        k = key(claim["output"])
        p1, p2 = (enclosed(claim[p], law, k, f"{where}.{p}")
                  for p, law in (("p_first", l1), ("p_second", l2)))
        if not p1 or ratio(p1, p2) != stated:
            raise Rejected(f"{where}: output {k} does not attain the ratio")
        return stated

    def _verdict(self, claimed, bounded, budget, where: str):
        """The verdict on a level within ``bounded`` (``None``: no pair), which ``holds`` states."""
        if budget is None or bounded is None:
            verdict = None
        elif holds(bounded[1], budget):
            verdict = True
        elif not holds(bounded[0], budget):
            verdict = False
        else:
            raise Rejected(f"{where}.holds: cannot decide the budget: the checker bounds the "
                           f"level within {interval(*bounded)}; a wider noise window "
                           f"(--window-bits) narrows the bounds")
        if claimed is not verdict:
            raise Rejected(f"{where}.holds: the certificate says {claimed}, the checker derives "
                           f"{verdict}")
        return verdict

    # --- differential privacy -----------------------------------------------------------------
    def _dp(self, name: str, claim: dict, budget, where: str) -> None:
        fields(claim, where, ("neighbours", "max_ratio", "epsilon", "witness"), ("holds",))
        rel, laws, levels = relation_of(claim["neighbours"], where), self.laws[name], []
        if laws is None:
            levels = self._chain_entry_dp(name, rel)
        else:
            datasets, model = self.model.datasets(ENUMERATED), self.model
            if len(datasets) ** 2 > PAIRS and not (rel[0] == "entry" and model.product):
                raise Rejected(f"{where}: {len(datasets)} datasets: too many pairs to test")
            for d in datasets:  # entry neighbours on a product universe: d with one value changed
                for e in ([d[:i] + [x] + d[i + 1:] for i, dom in enumerate(model.domains)
                           for x in dom] if rel[0] == "entry" and model.product else datasets):
                    if adjacent(model, rel, d, e):
                        levels.append(bounds(laws[key(d)], laws[key(e)]))
        low, high, mine = (most(v[i] for v in levels) for i in (0, 1, 2))
        within(claim["max_ratio"], low, high, mine, f"{where}.max_ratio")
        stated = parse(claim["max_ratio"], where)
        if claim["epsilon"] != epsilon_text(stated):
            raise Rejected(f"{where}.epsilon: {claim['epsilon']!r:.40} is not the level "
                           f"{claim['max_ratio']}")
        w = claim["witness"]
        if (w is None) != (not levels):
            raise Rejected(f"{where}.witness: " + ("missing" if levels else "no neighbours"))
        if w is not None:
            fields(w, f"{where}.witness", ("dataset", "neighbour", "output", "p_dataset",
                                           "p_neighbour"))
            d, e, k = w["dataset"], w["neighbour"], key(w["output"])
            if not isinstance(d, list) or not isinstance(e, list) or not adjacent(
                    self.model, rel, d, e):
                raise Rejected(f"{where}.witness: {d} and {e} are not neighbours")
            p, q = (enclosed(w[f], self._law_at(name, x), k, f"{where}.witness.{f}")
                    for f, x in (("p_dataset", d), ("p_neighbour", e)))
            if not p or ratio(p, q) != stated:
                raise Rejected(f"{where}.witness: the output does not attain the level")
        decided = self._verdict(claim.get("holds"), (low, high), budget, where)
        self.verdicts.append(("dp", name, rel, shown(claim, low, high), decided))

    def _law_at(self, name: str, dataset: list) -> tuple:
        laws, model = self.laws[name], self.model
        if laws is not None and key(dataset) in laws:
            return laws[key(dataset)]
        if laws is not None or not model.product or len(dataset) != len(model.domains) or any(
                key(v) not in map(key, dom) for v, dom in zip(dataset, model.domains)):
            raise Rejected(f"{name}: {dataset} is not a dataset of the universe")
        return exact(self.mechanisms.law(name, dataset))

    def _chain_entry_dp(self, name: str, rel: tuple) -> list:
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
        rows = self._rows(name, min(values), max(values))
        return [(worst(rows[s], rows[t]),) * 3 for s, t in pairs]

    # --- what was certified -------------------------------------------------------------------
    def statement(self) -> str:
        """What the accepted certificate certifies, in one line: mechanisms, joint release,
        relations, budgets and each verdict."""
        c, names = self.certificate, list(self.chosen)
        names += [f"joint release {'+'.join(self.chosen)}"] if len(self.chosen) >= 2 else []
        if c.get("requested_mechanisms") is not None:
            names[0] = f"requested mechanisms {names[0]}"
        relations = ", ".join(map(str, self.relations)) + (
            " (the model's default)" if self.default_relations else " (requested)")
        parts = [", ".join(names)]
        for kind, budget, label in (("pufferfish", c["budget"], "Pufferfish"),
                                    ("dp", c["dp_budget"], f"DP under {relations}")):
            rows = [(n, r, level, v) for k, n, r, level, v in self.verdicts if k == kind]
            levels = ", ".join(f"{n}{'' if r is None else ' ' + str(r[0])} "
                               f"{level}" for n, r, level, v in rows
                               if budget is None or v is False)
            if budget is None:
                parts.append(f"{label}: no budget (levels {levels})")
            else:
                verdict = combine([v for *_, v in rows])
                parts.append(f"{label} budget {budget}: " + (
                    f"VIOLATED ({levels})" if verdict is False else
                    "HOLDS" if verdict else "vacuous (no constrained pair)"))
        return "; ".join(parts + self.assumptions)


def shown(claim: dict, low, high) -> str:
    """A stated level as the acceptance shows it, with the checker's bounds when not exact."""
    bounded = "" if low == high else f" (the checker bounds the ratio within {interval(low, high)})"
    return claim["epsilon"] + bounded


def relation_of(value, where: str) -> tuple:
    try:
        return relation(value)
    except BadInput as error:
        raise Rejected(f"{where}: {error}") from None


def model_of(path: Path) -> Model:
    try:
        return Model(path, read_json(path))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as error:
        raise BadInput(f"{path}: not a model file the checker reads ({error!r:.200})") from None


def exact(law: dict) -> tuple:
    """An exact law as an enclosure ``(found, left = 0, claimed = found)``."""
    return law, ZERO, law


def mixture(parts: list, mass: Fraction) -> tuple:
    """The enclosure of ``Σ w·P / mass`` from the parts' enclosures ``(w, (found, left,
    claimed))``: found and left mix alike; the claimed laws mix to the claimed conditional law."""
    if not mass:
        return {}, ZERO, {}
    found, claimed, left = {}, {}, ZERO
    for w, (f, l, c) in parts:
        left += w * l
        for target, law in ((found, f), (claimed, c)) if c is not f else ((found, f),):
            for k, p in law.items():
                target[k] = target.get(k, ZERO) + w * p
    found = {k: v / mass for k, v in found.items() if v}
    return found, left / mass, {k: v / mass for k, v in claimed.items() if v} if claimed else found


def joint_law(parts: list) -> tuple:
    """The enclosure of the product of independent laws: the product of the found masses, and
    ``1 − Π(1 − left)`` left (each output's excess is at most the total excess)."""
    found, claimed = product([p[0] for p in parts]), product([p[2] for p in parts])
    left = 1 - math.prod((1 - p[1] for p in parts), start=ONE)
    return found, left, found if not left else claimed


def enclosed(claimed, law: tuple, k: str, where: str) -> Fraction:
    """A stated probability of output ``k``: in the checker's enclosure, and the probability of
    the law the certificate states."""
    p, (found, left, own) = parse(claimed, where), law
    low = found.get(k, ZERO)
    if p == INF or not low <= p <= low + left or p != own.get(k, ZERO):
        raise Rejected(f"{where}: output {k}: the certificate says {claimed}, the checker "
                       f"derives {interval(low, low + left)} and its laws {own.get(k, ZERO)}")
    return p
