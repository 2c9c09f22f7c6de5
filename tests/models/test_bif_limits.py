"""BIF rows off by more than rounding, byte-order marks and networks too large to build: each is
refused (or read) at the door, with the file, the line and the figure, before anything large is
built."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from pufferfish.cli.main import main
from pufferfish.models.bif import (MAX_BIF_ENTRIES, RENORMALISE_TOLERANCE, RenormalisedRow,
                                   load_bif, parse_bif)
from pufferfish.models.errors import ModelError, TooLargeError

TWO = "variable a { type discrete [2] { x, y }; }\nvariable b { type discrete [2] { x, y }; }\n"
ROOT_B = "probability ( b ) { table 0.5, 0.5; }\n"


def with_row(row: str) -> str:
    return TWO + ROOT_B + f"probability ( a | b ) {{\n  (x) 0.5, 0.5;\n  (y) {row};\n}}\n"


def test_the_tolerance_is_one_hundredth():
    assert RENORMALISE_TOLERANCE == Fraction(1, 100)


@pytest.mark.parametrize("row, total", [("0.33, 0.66", Fraction(99, 100)),
                                        ("0.5, 0.51", Fraction(101, 100)),
                                        ("0.3333333, 0.6666666", Fraction(9999999, 10**7))])
def test_a_row_within_the_tolerance_is_renormalised_with_the_note(row, total):
    net = parse_bif(with_row(row), renormalise=True)
    assert net.renormalised == (RenormalisedRow("a", ("y",), total),)
    assert sum(net.cpts["a"][("y",)].values()) == 1


@pytest.mark.parametrize("row, shown", [("0.3, 0.1", "2/5 (0.4)"), ("0.9, 0.9", "9/5 (1.8)"),
                                        ("0.5, 0.489", "989/1000 (0.989)")])
def test_a_row_beyond_the_tolerance_is_refused_with_file_line_and_sum(row, shown):
    for renormalise in (False, True):
        with pytest.raises(ModelError) as caught:
            parse_bif(with_row(row), renormalise=renormalise, source="net.bif")
        assert caught.value.path == "net.bif:6"
        assert caught.value.reason.startswith(f"the row of 'a' given b=y sums to {shown}, more "
                                              f"than 1/100 from 1")
        assert 'renormalise="any"' in caught.value.reason
    net = parse_bif(with_row(row), renormalise="any")
    assert [r.total for r in net.renormalised] == [sum(map(Fraction, row.split(", ")))]
    assert sum(net.cpts["a"][("y",)].values()) == 1


def test_renormalise_takes_only_true_false_or_any():
    with pytest.raises(ModelError, match="renormalise must be false, true or \"any\""):
        parse_bif(with_row("0.5, 0.5"), renormalise="yes")


def model_file(tmp_path, bif: str, attributes: dict, **bayesnet) -> str:
    (tmp_path / "net.bif").write_bytes(bif.encode("utf-8") if isinstance(bif, str) else bif)
    names = list(attributes)
    data = {"pufferfish_model": 1, "attributes": names, "domain": attributes,
            "datasets": "all", "priors": {"net": {"bayesnet": {"bif": "net.bif", **bayesnet}}},
            "secrets": {"a=x": {"where": {names[0]: "x"}}, "a=y": {"where": {names[0]: "y"}}},
            "pairs": [["a=x", "a=y"]], "mechanisms": {"q": {"query": "identity"}}}
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("key, status, phrase", [
    (None, 2, "net.bif:6: the row of 'a' given b=y sums to 2/5 (0.4), more than 1/100 from 1"),
    (True, 2, "more than 1/100 from 1"),
    ("any", 0, None),
    ("some", 2, "priors.net.bayesnet.renormalise: 'some' is not one of [True, False, 'any']"),
])
def test_the_model_file_key_asks_for_any_row_explicitly(tmp_path, capsys, key, status, phrase):
    extra = {} if key is None else {"renormalise": key}
    path = model_file(tmp_path, with_row("0.3, 0.1"), {"a": ["x", "y"], "b": ["x", "y"]}, **extra)
    code = main(["audit", path])
    err = capsys.readouterr().err
    assert code == status, err
    assert "Traceback" not in err
    if phrase is not None:
        assert phrase in err, err
    else:
        assert "note: prior 'net': 1 CPT row did not sum to 1 as written" in err, err


def test_a_file_starting_with_a_byte_order_mark_is_read(tmp_path):
    text = TWO + ROOT_B + "probability ( a | b ) { (x) 0.5, 0.5; (y) 0.25, 0.75; }\n"
    path = tmp_path / "bom.bif"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    plain = parse_bif(text)
    read = load_bif(path)
    assert read.cpts == plain.cpts and read.nodes == ("a", "b") and read.name == "bom"
    assert parse_bif("\ufeff" + text).cpts == plain.cpts
    gz = tmp_path / "bom.bif.gz"
    import gzip
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert load_bif(gz).cpts == plain.cpts


def wide_network(parents: int) -> str:
    """A BIF network of ``parents`` binary roots and one binary node ``x`` whose CPT is a single
    ``default`` row: a few KB of text for ``2^(parents + 1)`` probabilities."""
    names = [f"p{i}" for i in range(parents)]
    text = "network wide { }\n"
    text += "".join(f"variable {p} {{ type discrete [ 2 ] {{ 0, 1 }}; }}\n" for p in names)
    text += "variable x { type discrete [ 2 ] { 0, 1 }; }\n"
    text += "".join(f"probability ( {p} ) {{ table 0.5, 0.5; }}\n" for p in names)
    return text + f"probability ( x | {', '.join(names)} ) {{\n  default 0.5, 0.5;\n}}\n"


def test_a_node_with_24_parents_is_refused_before_its_rows_are_built():
    text = wide_network(24)
    assert len(text) < 2500
    with pytest.raises(TooLargeError) as caught:
        parse_bif(text, source="wide.bif")
    assert caught.value.path == "wide.bif:51"
    assert caught.value.reason == (
        f"the CPTs of this network hold 33,554,480 probabilities, more than the "
        f"{MAX_BIF_ENTRIES:,} that are built exactly in memory; the largest, of 'x', has "
        f"33,554,432 (2 values × 16,777,216 combinations of its 24 parents)")


def test_the_entry_limit_is_a_parameter_and_counts_every_cpt():
    text = wide_network(3)              # 3 roots of 2 entries, x of 2 × 8
    assert len(parse_bif(text, max_entries=22).cpts["x"]) == 8
    with pytest.raises(TooLargeError, match="hold 22 probabilities, more than the 21"):
        parse_bif(text, max_entries=21)

