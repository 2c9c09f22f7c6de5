"""The price of the Markov Quilt Mechanism: the table's pieces, the command, and the documentation
page's numbers against the command at T = 100."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import pufferfish
from pufferfish.cli.main import main
from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.quilts.chain_search import mqm_chain_exact
from pufferfish.verify.structured.mqm_price import (MQMPriceTable, corner_model, mqm_price,
                                                    price_memory, price_query, price_steps)
from pufferfish.verify.structured.noise_level import NoiseLevels

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "price_of_mqm.md"
DATA = ROOT / "docs" / "price_of_mqm"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def small():
    return mqm_price(lengths=[8, 12], epsilons=["1/2", "2"], lows=["1/10", "2/5"],
                     tolerance="1/200", exact_up_to=8, ends_up_to=12)


def test_each_column_is_what_it_claims(small):
    rows = small.rows
    assert len(rows) == 2 * 2 * 2
    for row in rows:
        for query in ("sum", "count"):
            cell = row.cells[query]
            if row.length == 8:       # laws built: a certified bracket and W
                assert not cell.lower_bound_only and cell.fail < cell.ok
                assert cell.ok <= row.wasserstein(query) * (1 + Fraction(1, 100))
                alpha_fail, alpha_ok, low, high = cell.geometric
                assert alpha_fail < alpha_ok and low <= float(cell.ok) and float(cell.fail) <= high
            else:                     # ends only: a lower bound
                assert cell.lower_bound_only and cell.ok is None and cell.w is None
                assert cell.text().startswith("> ")
            # MQM covers every 1-Lipschitz query: never below the least scale of one query
            assert cell.fail < row.mqm_exact[1] <= row.mqm_approx[1] * (1 + 1e-9)
    # the family's corners: the least scale is that of the corner needing the most noise
    row = next(r for r in rows if r.length == 8 and r.epsilon == "2" and r.low == Fraction(1, 10))
    budget = parse_budget("2")
    ok, fail = row.sum.ok, row.sum.fail
    relations = []
    for p0, p1 in [(Fraction(1, 10),) * 2, (Fraction(1, 10), Fraction(9, 10)), (Fraction(9, 10),) * 2]:
        model = corner_model(8, p0, p1)
        levels = NoiseLevels(model, price_query("sum", model.universe))
        assert levels.laplace(ok).relation(budget) in ("below", "tight")
        relations.append(levels.laplace(fail).relation(budget))
    assert "above" in relations


def test_the_table_round_trips_and_renders(small):
    again = MQMPriceTable.from_dict(json.loads(json.dumps(small.to_dict())))
    assert again.to_dict() == small.to_dict()
    assert again.markdown() == small.markdown()
    assert small.markdown().count("\n") == len(small.rows) + 2
    assert "MQMExact σ" in small.explain()
    figure = pufferfish.plot_mqm_price(small)
    assert [axis.get_title() for axis in figure.axes] == ["ε = 1/2", "ε = 2"]


def test_sizes_and_steps():
    assert price_steps([10, 20], ["1"], ["1/4"], ends_up_to=10) == 7 + 1
    assert price_memory(10**4, Fraction(1, 10)) < 2**31 < price_memory(10**4, Fraction(1, 10),
                                                                         exact_up_to=10**4)


def test_the_command_writes_its_three_files(capsys, tmp_path):
    code, out, err = run(capsys, "mqm-price", "--lengths", "6", "--epsilons", "1", "--lows",
                         "1/4", "--tolerance", "1/50", "--out", tmp_path, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["command"] == "mqm-price" and len(document["rows"]) == 1
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["mqm_price.json", "mqm_price.md", "mqm_price.png"]
    table = MQMPriceTable.from_dict(json.loads((tmp_path / "mqm_price.json").read_text()))
    assert (tmp_path / "mqm_price.md").read_text() == table.markdown()
    assert all(f"wrote {tmp_path / name}" in err for name in names)


@pytest.mark.parametrize("options, phrase", [
    (["--lengths", "a,3"], "--lengths"), (["--lows", "1/2"], "--lows"),
    (["--epsilons", "0"], "--epsilons"), (["--epsilons", "1,x"], "--epsilons"),
    (["--tolerance", "2"], "--tolerance"), (["--queries", "parity"], "--queries"),
    (["--lengths", "20000", "--exact-up-to", "20000"], "--exact-up-to")])
def test_bad_input_is_refused_before_any_work(options, phrase, capsys, tmp_path):
    code, out, err = run(capsys, "mqm-price", "--lows", "1/4", "--epsilons", "1",
                         "--out", tmp_path / "never", *options)
    assert code == 2 and out == "" and phrase in err and "Traceback" not in err
    assert not (tmp_path / "never").exists()


# -- the documentation page ---------------------------------------------------------------------

def page_table() -> MQMPriceTable:
    return MQMPriceTable.from_dict(json.loads((DATA / "mqm_price.json").read_text()))


def test_the_page_shows_the_commands_files():
    text = PAGE.read_text(encoding="utf-8")
    assert "pufferfish mqm-price --out docs/price_of_mqm" in text
    assert "price_of_mqm/mqm_price.md" in text and "price_of_mqm/mqm_price.png" in text
    table = page_table()
    assert (DATA / "mqm_price.md").read_text(encoding="utf-8") == table.markdown()
    assert (DATA / "mqm_price.png").stat().st_size > 10_000
    for number in ("1,000", "10,000"):
        assert number in (DATA / "mqm_price.md").read_text(encoding="utf-8")
    for seconds in table.seconds.values():      # the times the page states are the JSON's
        assert f"{seconds} s" in " ".join(text.split())


@pytest.mark.parametrize("low, epsilon", [("2/5", "1"), ("1/10", "1/2")])
def test_the_pages_numbers_at_t_100_are_the_commands(low, epsilon):
    table = page_table()
    settings = table.settings
    row = next(r for r in table.rows if r.length == 100 and r.epsilon == epsilon
               and r.low == Fraction(low))
    again = mqm_price(lengths=[100], epsilons=[epsilon], lows=[low],
                      tolerance=settings["tolerance"], exact_up_to=settings["exact_up_to"],
                      ends_up_to=settings["ends_up_to"], geometric=False).rows[0]
    assert again.mqm_exact == row.mqm_exact and again.mqm_approx == row.mqm_approx
    budget = parse_budget(epsilon)
    high = 1 - Fraction(low)
    corners = [(Fraction(low), Fraction(low)), (Fraction(low), high), (high, high)]
    for query in ("sum", "count"):
        mine, page = again.cells[query], row.cells[query]
        assert mine.w == page.w
        assert mine.fail < page.ok and page.fail < mine.ok          # the brackets overlap
        fails = []
        for p0, p1 in corners:  # the page's ends are certified for every corner / some corner
            model = corner_model(100, p0, p1)
            levels = NoiseLevels(model, price_query(query, model.universe))
            assert levels.laplace(page.ok).relation(budget) in ("below", "tight")
            fails.append(levels.laplace(page.fail).relation(budget) == "above")
        assert any(fails)


def test_mqm_exact_of_the_corners_is_the_library_call():
    members = tuple(MarkovChain.binary(a, b, 20, [Fraction(1, 2)] * 2)
                    for a, b in [("1/4", "1/4"), ("1/4", "3/4"), ("3/4", "3/4"), ("3/4", "1/4")])
    sigma = mqm_chain_exact(ChainFamily(members, "any"), "1").sigma
    row = mqm_price(lengths=[20], epsilons=["1"], lows=["1/4"], tolerance="1/20",
                    geometric=False).rows[0]
    assert row.mqm_exact == tuple(sigma)


def test_the_pages_reading_holds_on_its_table():
    table = page_table()
    rows = table.rows
    by = {(r.length, r.epsilon, r.low): r for r in rows}
    tolerance = Fraction(table.settings["tolerance"])
    for r in rows:
        sum_cell, count_cell = r.sum, r.count
        if sum_cell.ok is not None:                       # laws built
            assert 1.5 <= r.mqm_exact[1] / float(sum_cell.ok) <= 5
            assert 1 <= r.wasserstein("sum") / float(sum_cell.ok) <= 1.6
            assert count_cell.ok <= sum_cell.ok * (1 + tolerance)
            for cell in (sum_cell, count_cell):
                for name, (_, _, unordered) in cell.corners.items():
                    out_of_order = {100: 8, 1000: 6}[r.length] if name == "(1/10, 1/10)" else 0
                    assert unordered == out_of_order, (r.length, name)
        assert 1.5 <= r.mqm_approx[1] / r.mqm_exact[1] <= 4.5
        assert by[(100, r.epsilon, r.low)].mqm_exact == r.mqm_exact
        assert by[(100, r.epsilon, r.low)].mqm_approx == r.mqm_approx
        if r.length == 10_000:
            thousand = by[(1000, r.epsilon, r.low)].sum
            assert sum_cell.lower_bound_only and sum_cell.fail >= thousand.fail * (1 - tolerance)
            assert sum_cell.fail < thousand.ok
        if r.length == 1000:
            hundred = by[(100, r.epsilon, r.low)].sum
            assert hundred.ok == sum_cell.ok
            assert abs(hundred.fail - sum_cell.fail) <= tolerance * sum_cell.ok
    differing = {(r.length, r.low) for r in rows if r.count.ok is not None
                 and r.count.ok != r.sum.ok}
    assert differing <= {(100, Fraction(1, 10))}
