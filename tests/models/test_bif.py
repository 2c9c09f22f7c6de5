"""Exact import of BIF networks (pufferfish.models.bif) on the Bayesian Network Repository's
networks (bnlearn) that pgmpy ships (tests/models/conftest.py): every network parses, exactly;
rows that do not sum to one as printed are refused at their file and line or renormalised and
listed; values agree with the file text read independently; variable elimination agrees with
enumeration; malformed input is refused with its line."""

from __future__ import annotations

import gzip
import re
from fractions import Fraction

import pytest

from pufferfish.models.bayesnet import BayesNet, RenormalisedRow
from pufferfish.models.bif import load_bif, parse_bif
from pufferfish.models.errors import ModelError

# Every network pgmpy 1.1.2 ships in BIF (a test checks the wheel holds exactly these).
SHIPPED = ("alarm", "andes", "asia", "barley", "cancer", "child", "diabetes", "earthquake",
           "hailfinder", "hepar2", "insurance", "link", "mildew", "munin", "munin1", "munin2",
           "munin3", "munin4", "pathfinder", "pigs", "sachs", "survey", "water", "win95pts")
# the networks whose printed tables all sum to one exactly
EXACT = {"andes", "asia", "cancer", "child", "earthquake", "hailfinder", "link", "pigs", "survey",
         "win95pts"}


def text_of(path) -> str:
    return gzip.decompress(path.read_bytes()).decode("utf-8")


def rows_from_text(text: str) -> dict:
    """An independent reading of the rows of a published file (one regular expression per line
    shape, numbers through Fraction(str)): {(node, parent values): [q, ...]} for row entries, and
    {(node, "table"): [q, ...]} for tables."""
    found = {}
    block = re.compile(r"probability \( (\S+?)(?: \| ([^)]*))? \) \{\n(.*?)\n\}", re.DOTALL)
    for node, parents, body in block.findall(text):
        for line in body.splitlines():
            line = line.strip().rstrip(";")
            if line.startswith("table"):
                found[(node, "table")] = [Fraction(x) for x in line[5:].split(",")]
            else:
                key, numbers = re.fullmatch(r"\((.*?)\) (.*)", line).groups()
                found[(node, tuple(k.strip() for k in key.split(",")))] = [
                    Fraction(x) for x in numbers.split(",")]
    return found


def test_the_wheel_ships_the_networks_listed(bnlearn):
    folder = bnlearn("asia").parent
    assert sorted(p.name.removesuffix(".bif.gz") for p in folder.glob("*.bif.gz")) == list(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_network_parses_exactly_or_is_refused_at_a_located_row(name, bnlearn):
    path = bnlearn(name)
    try:
        strict = load_bif(path)
    except ModelError as error:
        assert name not in EXACT
        assert re.fullmatch(rf".*{name}\.bif\.gz:\d+", error.path), error
        assert re.match(r"the row of '[^']+'( given [^ ]+=[^ ]+(, [^ ]+=[^ ]+)*)? sums to \d+/\d+ "
                        r"\(\d\.\d+\), not 1", error.reason), error.reason
        strict = None
    else:
        assert name in EXACT and strict.renormalised == ()
    net = load_bif(path, renormalise=True)
    assert net.name == name                       # bnlearn writes "network unknown"
    for node in net.nodes:
        for key, row in net.cpts[node].items():
            assert sum(row.values()) == 1
            assert all(isinstance(p, Fraction) and p > 0 for p in row.values())
    assert (len(net.renormalised) > 0) == (strict is None)
    for row in net.renormalised:
        assert isinstance(row, RenormalisedRow) and row.total != 1
        assert row.parent_values in net.cpts[row.variable]
    if strict is not None:
        assert strict.cpts == net.cpts


@pytest.mark.parametrize("name", ["asia", "sachs", "alarm", "child", "insurance"])
def test_values_agree_with_the_file_text(name, bnlearn):
    path = bnlearn(name)
    net = load_bif(path, renormalise=True)
    changed = {(r.variable, r.parent_values): r.total for r in net.renormalised}
    rows = rows_from_text(text_of(path))
    assert {node for node, _ in rows} == set(net.nodes)
    for (node, key), numbers in rows.items():
        values = net.domains[node]
        if key == "table":
            assert net.parents[node] == ()
            key = ()
        total = changed.get((node, key), Fraction(1))
        assert sum(numbers) == total
        row = net.cpts[node][key]
        assert [row.prob(v) for v in values] == [q / total for q in numbers]


def test_asia_spot_values(bnlearn):
    net = load_bif(bnlearn("asia"))
    assert net.nodes == ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")
    assert net.parents["either"] == ("lung", "tub")
    assert net.parents["dysp"] == ("bronc", "either")
    assert net.domains["asia"] == ("yes", "no")
    assert net.cpts["asia"][()].prob("yes") == Fraction(1, 100)          # table 0.01, 0.99
    assert net.cpts["xray"][("yes",)].prob("yes") == Fraction(49, 50)    # (yes) 0.98, 0.02
    assert net.cpts["either"][("no", "yes")].prob("yes") == 1            # (no, yes) 1.0, 0.0
    assert net.cpts["either"][("no", "no")].prob("yes") == 0             # (no, no) 0.0, 1.0
    assert net.cpts["dysp"][("no", "yes")].prob("no") == Fraction(3, 10)  # (no, yes) 0.7, 0.3


def test_sachs_scientific_notation_and_its_refusal(bnlearn):
    path = bnlearn("sachs")
    with pytest.raises(ModelError) as caught:
        load_bif(path)
    error = caught.value
    assert error.path == f"{path}:44"        # (AVG, HIGH) 9.483619e-01, 5.154733e-02, 9.075234e-05;
    assert "'Akt' given Erk=AVG, PKA=HIGH" in error.reason
    assert "sums to 49999999117/50000000000 (0.99999998234)" in error.reason
    net = load_bif(path, renormalise=True)
    total = Fraction("0.9483619") + Fraction("0.05154733") + Fraction("0.00009075234")
    assert RenormalisedRow("Akt", ("AVG", "HIGH"), total) in net.renormalised
    assert net.cpts["Akt"][("AVG", "HIGH")].prob("LOW") == Fraction("9.483619e-01") / total
    assert len(net.nodes) == 11 and net.parents["Akt"] == ("Erk", "PKA")


def test_alarm_shape_and_first_refused_row(bnlearn):
    path = bnlearn("alarm")
    with pytest.raises(ModelError, match=r"alarm\.bif\.gz:158: the row of 'HREKG' given "
                                         r"ERRCAUTER=TRUE, HR=LOW sums to 9999999/10000000"):
        load_bif(path)
    net = load_bif(path, renormalise=True)
    assert len(net.nodes) == 37 and sum(len(ps) for ps in net.parents.values()) == 46
    assert net.cpts["HYPOVOLEMIA"][()].prob("TRUE") == Fraction(1, 5)
    assert all(r.total in (Fraction(9999999, 10000000),) for r in net.renormalised
               if r.variable == "HREKG")


def test_marginals_by_elimination_equal_enumeration_on_asia(bnlearn):
    net = load_bif(bnlearn("asia"))
    for query in (["dysp"], ["xray"], ["either"], ["lung", "tub"], ["smoke", "dysp", "xray"],
                  list(net.nodes)):
        assert net.marginal(query) == net.marginal_by_enumeration(query)
    # the figure usually quoted for the network, P(dysp = yes) ≈ 0.436, exactly
    dysp = net.marginal(["dysp"])[("yes",)]
    assert dysp == Fraction(2179853, 5000000) and abs(dysp - Fraction(436, 1000)) < Fraction(1, 1000)
    evidence = net.conditional(["lung"], {"xray": "yes", "smoke": "yes"})
    joint = net.marginal_by_enumeration(["lung", "xray", "smoke"])
    given = sum(p for (l, x, s), p in joint.items() if x == s == "yes")
    assert evidence[("yes",)] == joint[("yes", "yes", "yes")] / given


# --------------------------------------------------------------------------------------------
# refusals, located
# --------------------------------------------------------------------------------------------

TWO = "variable a { type discrete [2] { x, y }; }\nvariable b { type discrete [2] { x, y }; }\n"
ROOT_B = "probability ( b ) { table 0.5, 0.5; }\n"


def test_a_row_that_does_not_sum_to_one_is_refused_with_its_location():
    text = TWO + ROOT_B + "probability ( a | b ) {\n  (x) 0.5, 0.5;\n  (y) 0.33, 0.66;\n}\n"
    with pytest.raises(ModelError) as caught:
        parse_bif(text, source="net.bif")
    assert caught.value.path == "net.bif:6"
    assert caught.value.reason.startswith("the row of 'a' given b=y sums to 99/100 (0.99), not 1")
    net = parse_bif(text, renormalise=True)
    assert net.renormalised == (RenormalisedRow("a", ("y",), Fraction(99, 100)),)
    assert dict(net.cpts["a"][("y",)]) == {"x": Fraction(1, 3), "y": Fraction(2, 3)}
    assert dict(net.cpts["a"][("x",)]) == {"x": Fraction(1, 2), "y": Fraction(1, 2)}


def test_a_zero_row_is_refused_even_when_renormalising():
    with pytest.raises(ModelError, match=r"^z.bif:2: the row of 'a' sums to 0"):
        parse_bif("variable a { type discrete [2] { x, y }; }\nprobability (a) { table 0, 0; }",
                  renormalise=True, source="z.bif")


MALFORMED = [
    ("variable a { type discrete [2] { x, y }; } /* open", 1, "never closed"),
    ('variable "a { type discrete [2] { x, y }; }', 1, "not closed on its line"),
    ("variable a { type discrete [3] { x, y }; }", 1, "declares [3] values but lists 2"),
    ("variable a { type discrete [2] { x, x }; }", 1, "lists the value 'x' twice"),
    ("variable a { type continuous; }", 1, "only discrete variables"),
    ("variable a { type discrete [2] { x, y }; }\nprobability ( a ) {\n table 0.5, abc; }", 3,
     "'abc' is not a probability"),
    ("variable a { type discrete [2] { x, y }; }\nprobability ( a ) {\n table 0.5, -0.5; }", 3,
     "'-0.5' is not a probability"),
    ("variable a { type discrete [2] { x, y }; }\nprobability ( a ) {\n table 0.5, 0.5 }", 3,
     "unexpected '}'"),
    ("variable a { type discrete [2] { x, y }; }\nprobability ( a ) {\n table 0.5, 0.5,; }", 3,
     "ends with a comma"),
    ("variable a { type discrete [2] { x, y }; }\nprobability ( a ) {\n table 1e-99999, 1; }", 3,
     "more than 4,000 digits"),
    ("variable a { type discrete [2] { x, y }; }\nprobability ( a ) {\n table 0.5; }", 3,
     "needs 2 probabilities"),
    ("variable a { type discrete [2] { x, y }; }\nprobability ( a | b ) {\n (x) 0.5, 0.5; }", 2,
     "the parent 'b' of 'a' is not a declared variable"),
    (TWO + ROOT_B + "probability ( a | b ) {\n (z) 0.5, 0.5; }", 5, "'z' is not a value of 'b'"),
    (TWO + ROOT_B + "probability ( a | b ) {\n (x) 0.5, 0.5; }", 4, "no row for b=y"),
    (TWO + ROOT_B + "probability ( a | b ) {\n (x) 0.5, 0.5;\n (x) 0.5, 0.5; }", 6,
     "two rows for b=x"),
    (TWO + ROOT_B + "probability ( a | b ) {\n (x, y) 0.5, 0.5; }", 5, "lists 2 parent values"),
    (TWO + ROOT_B + "probability ( a | b ) {\n (x) 0.5, 0.2, 0.3; }", 5, "has 3 probabilities"),
    (TWO + "probability ( b | a ) { table 0.5, 0.5, 0.5, 0.5; }\n"
     "probability ( a | b ) { table 0.5, 0.5, 0.5, 0.5; }", 4, "cycle a -> b -> a"),
    (TWO + ROOT_B, 1, "the variable 'a' has no probability block"),
    (TWO + ROOT_B + ROOT_B, 4, "a second probability block for 'b'"),
    (TWO + ROOT_B + "probability ( c ) { table 1; }", 4, "which no 'variable' declares"),
    ("network n { }\nvariable a { type discrete [2] { x, y }; }\nfoo", 3,
     "expected 'network', 'variable' or 'probability', found 'foo'"),
    ("variable a { type discrete [2] { x, y", 1, "the text ends"),
    ("", 1, "no variable is declared"),
]


@pytest.mark.parametrize("text, line, message", MALFORMED,
                         ids=[m for _, _, m in MALFORMED])
def test_malformed_input_is_refused_with_its_line(text, line, message):
    with pytest.raises(ModelError) as caught:
        parse_bif(text, source="bad.bif")
    assert caught.value.path == f"bad.bif:{line}", caught.value
    assert message in caught.value.reason


def test_the_rest_of_the_format():
    """Comments, properties, quoted names, old-style headers and tables without commas, default
    rows, and values with spaces."""
    net = parse_bif('''
        // the dog problem of the interchange format's documentation (abridged)
        network "Dog-Problem" { property "credal-set constant-density-bounded 1.1" ; }
        variable "family-out" { type discrete [ 2 ] { "true" "false" }; property "x = 1" ; }
        variable "light-on" { type discrete[2] { true, false }; }
        variable size { type discrete [2] { less than 5, 5 or more }; }
        probability ( "family-out" ) { /* a root */ table 0.15 0.85 ; }
        probability ( "light-on" "family-out" ) { table 0.6 0.05 0.4 0.95 ; }
        probability ( size | "light-on" ) { (true) 0.25, 0.75; default 1e-1, 9E-1; }
    ''')
    assert net.name == "Dog-Problem"
    assert net.parents["light-on"] == ("family-out",)
    assert net.cpts["light-on"][("true",)].prob("true") == Fraction(3, 5)
    assert net.cpts["light-on"][("false",)].prob("true") == Fraction(1, 20)
    assert net.domains["size"] == ("less than 5", "5 or more")
    assert net.cpts["size"][("false",)].prob("less than 5") == Fraction(1, 10)
    assert net.cpts["size"][("true",)].prob("5 or more") == Fraction(3, 4)


def test_load_bif_reads_plain_and_compressed_files_and_names_the_network(tmp_path, bnlearn):
    plain = tmp_path / "asia.bif"
    plain.write_text(text_of(bnlearn("asia")))
    assert load_bif(plain).cpts == load_bif(bnlearn("asia")).cpts
    assert load_bif(plain).name == "asia" and load_bif(plain, name="mine").name == "mine"
    with pytest.raises(ModelError, match="cannot read BIF file"):
        load_bif(tmp_path / "missing.bif")
    with pytest.raises(ModelError, match="not a regular file"):
        load_bif(tmp_path)
    (tmp_path / "latin.bif").write_bytes(b"variable \xe9 {}")
    with pytest.raises(ModelError, match="not UTF-8"):
        load_bif(tmp_path / "latin.bif")


def test_the_result_is_an_ordinary_network():
    net = parse_bif(TWO + ROOT_B + "probability ( a | b ) { (x) 0.5, 0.5; (y) 0.25, 0.75; }")
    assert isinstance(net, BayesNet) and net.nodes == ("a", "b")
    assert net.marginal(["a"]) == {("x",): Fraction(3, 8), ("y",): Fraction(5, 8)}
