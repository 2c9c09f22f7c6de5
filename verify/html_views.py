"""HTML views of the main results, for notebooks: the levels, the budget verdicts and the worst
cases as tables (each result's ``_repr_html_`` calls the function for its type; every other
:class:`~pufferfish.verify.report.Explained` result shows its text report).

The views show the same exact values as ``explain()`` (the ``≈`` columns are for reading, as
there); every string is escaped (:func:`~pufferfish.verify.report.html_table`).

>>> from pufferfish.api import audit
>>> page = audit_html(audit("quickstart.json", epsilon="log(3)"))
>>> page.count("<table>"), "<td>log(12)</td>" in page, "budget ε = log(3): VIOLATED" in page
(2, True, True)
"""

from __future__ import annotations

import html
import math

from pufferfish.models.mechanisms import jsonable_output
from pufferfish.models.numbers import INFINITY, epsilon_float, epsilon_str, fraction_str
from pufferfish.verify.report import assuming, assumption_lines, html_table, html_view

__all__ = ["audit_html", "pufferfish_html", "dp_html", "composition_report_html"]

MAX_ROWS = 50
"""Rows shown of a long table (the rest are counted below it; ``to_dict()`` has them all)."""

_VERDICTS = {True: "holds", False: "VIOLATED", None: "UNDECIDED (a level is vacuous)"}


def _approx(ratio) -> str:
    value = epsilon_float(ratio)
    return "inf" if value == math.inf else f"{value:.4f}"


def _budget_cell(check) -> str:
    if check is None:
        return "-"
    return "undecided" if check.holds is None else ("ok" if check.holds else "VIOLATED")


def _witness_row(name: str, witness) -> list[str]:
    secrets = f"{witness.first} vs {witness.second}"
    if not witness.has_output:
        return [name, witness.prior, secrets, f"none possible under {witness.first}", "-", "-",
                fraction_str(witness.max_ratio)]
    return [name, witness.prior, secrets, repr(jsonable_output(witness.output)),
            fraction_str(witness.p_first), fraction_str(witness.p_second),
            fraction_str(witness.max_ratio)]


WITNESS_HEADERS = ["mechanism", "prior", "secrets", "output ω", "Pr[ω | first]",
                   "Pr[ω | second]", "ratio"]


def _limited(rows: list[list[str]]) -> tuple[list[list[str]], list[str]]:
    """At most :data:`MAX_ROWS` rows, and a line counting the others."""
    if len(rows) <= MAX_ROWS:
        return rows, []
    return rows[:MAX_ROWS], [f"… {len(rows) - MAX_ROWS} more rows (to_dict() has them all)"]


def audit_html(audit, source: str = "the model") -> str:
    """The HTML view of a :class:`~pufferfish.verify.privacy.audit.ModelAudit`: one row per
    mechanism (Pufferfish ε, ≈, the DP ε of each neighbour relation, leakage, the budget
    verdicts) and one for the joint release; the worst cases below; then the notes and the
    verdict of each budget (the module's example).  A DP-only audit shows its plain-text
    report."""
    if audit.dp_only:
        return html_view(f"Audit of {source}: {audit.summary()}",
                         f"<pre>{html.escape(audit.explain(source))}</pre>")
    relations: list[str] = []
    for m in audit.mechanisms:
        relations += [d.relation for d in m.dp if d.relation not in relations]
    headers = ["mechanism", "Pufferfish ε", "≈"] + [f"DP ε ({r})" for r in relations] + \
        ["leakage (max shift)", "budget"] + (["DP budget"] if audit.dp_budget is not None else [])
    rows, witnesses, notes = [], [], []
    for m in audit.mechanisms:
        p = m.pufferfish
        dp = {d.relation: d for d in m.dp}
        row = [m.name, "vacuous" if p.vacuous else p.epsilon,
               "-" if p.vacuous else _approx(p.level_ratio)]
        row += [dp[r].epsilon if r in dp else "-" for r in relations]
        row += ["zero" if m.leakage.zero_leakage else fraction_str(m.leakage.worst_shift),
                _budget_cell(p.budget)]
        if audit.dp_budget is not None:
            row.append("ok" if all(d.holds for d in m.dp) else "VIOLATED")
        rows.append(row)
        if p.witness is not None:
            witnesses.append(_witness_row(m.name, p.witness))
        if p.vacuous:
            notes.append(f"{m.name}: vacuous: no secret pair applies")
        notes += [f"{m.name}: skipped {a} under {b} ({c})" for a, b, c in p.skipped[:3]]
        if audit.dp_budget is not None:
            notes += [f"{m.name}: {d.relation} DP level {d.epsilon} exceeds "
                      f"{audit.dp_budget.text}: output {jsonable_output(d.output)!r} on "
                      f"{list(d.dataset)} vs {list(d.neighbour)}"
                      for d in m.dp if not d.holds and d.dataset is not None]
    composition = audit.composition
    if composition is not None:
        joint = composition.joint
        name = f"joint release ({', '.join(composition.mechanisms)})"
        rows.append([name, joint.epsilon, _approx(joint.level_ratio)]
                    + ["-"] * len(relations) + ["-", _budget_cell(composition.budget)]
                    + (["-"] if audit.dp_budget is not None else []))
        if joint.witness is not None:
            witnesses.append(_witness_row(name, joint.witness))
        notes.append(composition.explain())
    elif audit.composition_note:
        notes.append(audit.composition_note)
    if audit.budget is not None:
        notes.append(f"budget ε = {audit.budget.text}: "
                     f"{assuming(_VERDICTS[audit.pufferfish_holds], audit.assumptions)}")
    if audit.dp_budget is not None:
        labels = ", ".join(r.label for r in audit.relations) or "each relation"
        notes.append(f"DP budget ε = {audit.dp_budget.text} ({labels}): "
                     f"{assuming(_VERDICTS[audit.dp_holds], audit.assumptions)}")
    notes += assumption_lines(audit.assumptions)
    parts = [html_table(headers, rows)]
    if witnesses:
        parts += ["<p>Worst cases (Definition 5: the largest ratio of output probabilities "
                  "given the two secrets of a pair under one prior)</p>",
                  html_table(WITNESS_HEADERS, witnesses)]
    return html_view(f"Audit of {source}: {audit.summary()}", *parts, notes)


def pufferfish_html(result) -> str:
    """The HTML view of a :class:`~pufferfish.verify.privacy.pufferfish.PufferfishResult`: the
    level and budget verdict, then the worst ratio of every ordered secret pair and prior (the
    witness first).

    >>> from pufferfish.api import pufferfish_level
    >>> page = pufferfish_html(pufferfish_level("quickstart.json", "rr", epsilon="log(3)"))
    >>> page.count("<tr>"), "<td>log(12)</td>" in page          # header and 4 directions
    (5, True)
    """
    if result.vacuous:
        heading = f"{result.mechanism}: Pufferfish level vacuous (no secret pair applies)"
    else:
        heading = f"{result.mechanism}: Pufferfish level ε = {result.epsilon}"
        if result.level_ratio != INFINITY:
            heading += f" ≈ {epsilon_float(result.level_ratio):.6g}"
    if result.budget is not None:
        heading += f"; budget {result.budget.budget.text}: {result.budget.verdict}"
    levels = sorted(result.levels, key=lambda lv: lv is not result.witness)
    rows = [[lv.pair, lv.prior, f"{lv.first} vs {lv.second}", epsilon_str(lv.max_ratio),
             repr(jsonable_output(lv.output)) if lv.has_output else "none possible",
             fraction_str(lv.p_first) if lv.has_output else "-",
             fraction_str(lv.p_second) if lv.has_output else "-"] for lv in levels]
    rows, more = _limited(rows)
    notes = more + [f"skipped {a} under {b} ({c})" for a, b, c in result.skipped] + \
        list(result.notes)
    table = html_table(["pair", "prior", "direction", "ε of the direction", "worst output ω",
                        "Pr[ω | first]", "Pr[ω | second]"], rows) if rows else ""
    return html_view(heading, table, notes)


def dp_html(result) -> str:
    """The HTML view of a :class:`~pufferfish.verify.privacy.dp.DPResult`: the level, the
    neighbour relation, the pairs compared, the budget verdict and the worst pair.

    >>> from pufferfish.api import dp_level
    >>> page = dp_html(dp_level("quickstart.json", "rr", epsilon="log(2)"))
    >>> "<td>log(3)</td>" in page, "<td>VIOLATED</td>" in page
    (True, True)
    """
    rows = [["mechanism", result.mechanism], ["neighbours", result.relation],
            ["DP ε", result.epsilon], ["≈", _approx(result.max_ratio)],
            ["neighbouring pairs compared", f"{result.pairs_checked:,}"]]
    if result.budget is not None:
        rows.append([f"budget {result.budget.budget.text}", result.budget.verdict])
    if result.dataset is not None:
        rows += [["worst dataset D", str(list(result.dataset))],
                 ["its neighbour D′", str(list(result.neighbour))],
                 ["output ω", repr(jsonable_output(result.output))],
                 ["Pr[ω | D]", fraction_str(result.p_dataset)],
                 ["Pr[ω | D′]", fraction_str(result.p_neighbour)]]
    return html_view(f"{result.mechanism}: {result.relation} DP level ε = {result.epsilon}",
                     html_table(["", "value"], rows))


def composition_report_html(report) -> str:
    """The HTML view of a :class:`~pufferfish.verify.nfc.report.CompositionReport`: the
    certified NfC value and verdict, the worst program, the attack's releases, each mechanism's
    single-run level (the premise of Theorem 4) and the levels of repeated runs.

    >>> from pufferfish.api import composes
    >>> page = composition_report_html(composes("hidden_coin.json", "0", runs=2))
    >>> page.count("<table>"), "<td>log(4/3)</td>" in page
    (4, True)
    """
    result = report.result
    heading = (f"NfC value of {', '.join(result.mechanisms)} in [{result.lower!r}, "
               f"{result.upper!r}] (certified; {len(result.programs)} programs)")
    if result.verdict is not None:
        heading += f"; budget ε = {result.budget.text}: {result.verdict}"
    rows = []
    if result.witness is not None:
        w = result.witness
        rows += [["worst program", f"{w.first} -> {w.second}, D* = {list(w.d_star)}"],
                 ["priors", ", ".join(sorted({q for _, q in w.occurrences}))],
                 ["kind", "infinite: the outputs can rule the second secret out" if w.infinite
                  else "DP-style (one-hot β)" if w.one_hot else f"mixes {len(w.beta)} datasets"]]
        if not w.infinite:
            rows.append(["constraint (Equation 1)", w.describe_constraint()])
    if result.failures:
        rows.append(["solver failures", f"{len(result.failures)} programs (bounds from uniform "
                                        f"α, β)"])
    parts = [html_table(["", "value"], rows) if rows else ""]
    attack = result.attack
    if attack is not None:
        parts.append(f"<p>{html.escape(attack.explain())}</p>")
        if attack.found:
            parts.append("<p>The attack's releases</p>")
            parts.append(html_table(["mechanism", "output", "releases"],
                                    [[o[0], repr(jsonable_output(o[1])), c]
                                     for o, c in attack.counts]))
    if report.premise:
        parts.append("<p>Theorem 4's premise: each mechanism's single-run level</p>")
        parts.append(html_table(["mechanism", "single-run Pufferfish ε", "within ε"],
                                [[p.mechanism, p.epsilon, "yes" if p.within_budget else "NO"]
                                 for p in report.premise]))
    if report.repeated_runs:
        runs = [[levels.mechanism, k, epsilon_str(r), f"{epsilon_float(r):.6g}",
                 f"{epsilon_float(r) / k:.6g}"]
                for levels in report.repeated_runs
                for k, r in enumerate(levels.ratios, start=1)]
        parts.append("<p>Exact levels of r runs (ε_r / r tends to the largest program "
                     "value)</p>")
        parts.append(html_table(["mechanism", "runs r", "ε_r", "≈", "ε_r / r"], runs))
    notes = list(result.notes) + report.premise_notes
    return html_view(heading, *parts, notes)

