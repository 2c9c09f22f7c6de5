"""The notebook views of the main results: well-formed HTML (every tag closed, in order), real
tables holding the exact levels, and every string escaped; other results show their report."""

from __future__ import annotations

from html.parser import HTMLParser

import pufferfish
from pufferfish.verify.report import Explained, html_table

VOID = {"br", "hr", "img", "meta", "input", "col"}


class _Document(HTMLParser):
    """The text of an HTML fragment, its tables' cells, and its tag nesting checked."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.text: list[str] = []
        self.cells: list[str] = []
        self.tables = 0
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self.open.append(tag)
        self.tables += tag == "table"
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()
        if tag in ("td", "th"):
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parse(page: str) -> _Document:
    document = _Document()
    document.feed(page)
    document.close()
    assert document.open == [], f"unclosed tags {document.open}"
    return document


def test_the_audit_is_a_table_of_levels_with_its_witnesses():
    result = pufferfish.audit("quickstart.json", epsilon="log(3)", epsilon_dp="log(3)")
    page = parse(result._repr_html_())
    assert page.tables == 2
    for level in ("log(12)", "log(706/137)", "log(1194/31)", "log(3)", "log(2)", "11/26",
                  "VIOLATED", "ok", "DP ε (entry)", "[0, 0, 0]", "9/25", "3/100"):
        assert level in page.cells, level
    text = "".join(page.text)
    assert "budget ε = log(3): VIOLATED" in text and "DP budget ε = log(3) (entry): holds" in text
    # the text report and the one-line repr are unchanged
    assert repr(result).startswith("<ModelAudit: Pufferfish levels rr log(12)")
    assert result.explain().startswith("Audit of the model\n")


def test_one_dp_column_per_neighbour_relation():
    result = pufferfish.audit("quickstart.json", mechanisms=["sum"],
                              neighbours=["entry", "linf:1"])
    page = parse(result._repr_html_())
    assert {"DP ε (entry)", "DP ε (linf:1)"} <= set(page.cells)


def test_a_pufferfish_level_lists_every_direction_witness_first():
    level = pufferfish.pufferfish_level("quickstart.json", "rr", epsilon="log(3)")
    page = parse(level._repr_html_())
    assert page.tables == 1 and "log(12)" in page.cells and "log(3)" in page.cells
    assert "rr: Pufferfish level ε = log(12)" in "".join(page.text)
    first_row = page.cells[7:14]
    assert first_row[1] == "sticky" and first_row[3] == "log(12)"
    assert "x1=0 <-> x1=1" in page.cells           # escaped in the page, the text again here


def test_a_dp_level_shows_its_worst_pair():
    result = pufferfish.dp_level("quickstart.json", "rr", epsilon="log(2)")
    page = parse(result._repr_html_())
    assert {"log(3)", "VIOLATED", "27/64", "9/64", "[0, 0, 0]", "[1, 0, 0]"} <= set(page.cells)


def test_the_composes_report_shows_the_attack_premise_and_runs():
    report = pufferfish.composes("hidden_coin.json", epsilon="0", runs=2)
    page = parse(report._repr_html_())
    assert page.tables == 4
    assert {"log(4/3)", "DP-style (one-hot β)", "'b'", "2", "yes"} <= set(page.cells)
    assert "violated" in "".join(page.text)


def test_strings_are_escaped_and_long_cells_keep_their_text():
    page = html_table(["<h>"], [["<script>&"], ["x" * 100]])
    assert "<script>" not in page and "&lt;script&gt;&amp;" in page
    assert 'title="' + "x" * 100 + '"' in page
    parse(page)


def test_other_results_show_their_report():
    class Result(Explained):
        def explain(self) -> str:
            return "a < b"

    assert Result()._repr_html_() == "<pre>a &lt; b</pre>"
    leakage = pufferfish.leakage("quickstart.json", "rr")
    assert parse(leakage._repr_html_()).open == []
