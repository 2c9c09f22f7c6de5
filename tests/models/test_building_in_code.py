"""Building a model in code: the short constructors give the priors and models a model file
gives, a model file written from them reads back the same, and the model shows in one line (and
as a summary table in notebooks)."""

from __future__ import annotations

from fractions import Fraction
from html.parser import HTMLParser

import pytest

import pufferfish
from pufferfish.models import (Distribution, IndependentPrior, MarkovPrior, ModelError,
                               PufferfishModel, RandomizedResponse, Universe, entry_pairs)
from pufferfish.models.files.pufferfish_file import dump_model, load_model

U = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
STICKY = {0: {0: "9/10", 1: "1/10"}, 1: {0: "1/10", 1: "9/10"}}
HALF = {0: "1/2", 1: "1/2"}


def test_a_homogeneous_chain_is_the_chain_a_model_file_gives():
    quickstart = pufferfish.load("quickstart.json")
    built = MarkovPrior.homogeneous("sticky", U.attributes, HALF, STICKY)
    assert built.to_dict() == quickstart.priors["sticky"].to_dict()
    for dataset in U.datasets():
        assert built.probability(dataset) == quickstart.priors["sticky"].probability(dataset)
    assert built.homogeneous and len(built.transitions) == 2


def test_a_one_attribute_chain_has_no_step():
    chain = MarkovPrior.homogeneous("one", ["x"], HALF, STICKY)
    assert chain.transitions == () and chain.probability((1,)) == Fraction(1, 2)


def test_the_laws_may_be_distributions():
    chain = MarkovPrior.homogeneous("sticky", U, Distribution(HALF),
                                    {v: Distribution(row) for v, row in STICKY.items()})
    assert chain.probability((1, 1, 0)) == Fraction(9, 200)


@pytest.mark.parametrize("initial, transition, phrase", [
    ({0: "1/2", 2: "1/2"}, STICKY, "has no transition row"),
    (HALF, {0: {0: "9/10", 2: "1/10"}, 1: {1: 1}}, "not in the domain"),
    (HALF, {0: {0: "9/10", 1: "2/10"}, 1: {1: 1}}, "sum to 11/10"),
    (HALF, {0: {0: 0.9, 1: "1/10"}, 1: {1: 1}}, "float"),
])
def test_bad_chains_are_refused_with_their_location(initial, transition, phrase):
    with pytest.raises(ModelError) as error:
        MarkovPrior.homogeneous("bad", U, initial, transition)
    assert phrase in str(error.value) and "priors.bad.markov" in str(error.value)


def test_an_iid_prior_repeats_its_marginal():
    fair = IndependentPrior.iid("fair", U, HALF)
    assert fair.to_dict() == pufferfish.load("quickstart.json").priors["fair"].to_dict()


def _model() -> PufferfishModel:
    return PufferfishModel.build(
        U, [IndependentPrior.iid("fair", U, HALF), MarkovPrior.homogeneous("sticky", U, HALF, STICKY)],
        entry_pairs(U)[:1], [RandomizedResponse("rr", U, Fraction(3, 4))], neighbours="entry")


def test_a_built_model_is_written_and_read_back(tmp_path):
    model = _model()
    dump_model(model, tmp_path / "model.json")
    again = load_model(tmp_path / "model.json")
    assert again.priors["sticky"].to_dict()["markov"]["transition"] == {
        "0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}}
    assert [p.label for p in again.pairs] == ["x1=0 <-> x1=1"]
    first, second = (pufferfish.audit(m, epsilon="log(3)") for m in (model, again))
    assert first.to_dict() == second.to_dict()
    assert first.mechanisms[0].pufferfish.epsilon == "log(12)"


def test_build_refuses_two_parts_of_one_name():
    fair = IndependentPrior.iid("fair", U, HALF)
    with pytest.raises(ModelError, match="two priors are called 'fair'"):
        PufferfishModel.build(U, [fair, fair], entry_pairs(U))
    rr = RandomizedResponse("rr", U, Fraction(3, 4))
    with pytest.raises(ModelError, match="two mechanisms are called 'rr'"):
        PufferfishModel.build(U, [fair], entry_pairs(U), [rr, rr])


def test_a_model_shows_in_one_line():
    assert repr(pufferfish.load("quickstart.json")) == (
        "<PufferfishModel: 3 attributes, 8 datasets, priors fair, sticky; 1 secret pair; "
        "mechanisms rr, sum>")
    assert repr(pufferfish.load("chain_binary_T100.json")) == (
        "<PufferfishModel: 100 attributes, about 1.3·10^30 datasets, priors sticky; "
        "100 secret pairs; no mechanisms>")
    many = PufferfishModel.build(U, [IndependentPrior.iid(f"p{k}", U, HALF) for k in range(6)],
                                 entry_pairs(U))
    assert "priors p0, p1, p2, p3, … (6); 3 secret pairs" in repr(many)


def test_a_model_shows_as_a_summary_table():
    page = _model()._repr_html_()
    cells: list[str] = []

    class Cells(HTMLParser):
        def handle_data(self, data):
            cells.append(data)

    Cells().feed(page)
    assert page.startswith("<table>") and page.endswith("</table>")
    assert "fair (independent), sticky (Markov chain)" in cells
    assert "x1=0 <-> x1=1" in cells and "entry" in cells
