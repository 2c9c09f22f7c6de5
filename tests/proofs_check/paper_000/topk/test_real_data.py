"""Loaders of the real datasets (``000_65109fe28ca61d17.txt`` §7.1.1, §7.1.4, Appendix D.1) on
tiny fixture files in the public formats."""

from pathlib import Path

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.proofs_check.paper_000.topk.real_data import load_capture24, load_foursquare

FIX = Path(__file__).parent / "fixtures"


def test_foursquare_split_labels_and_countries():
    d = load_foursquare(FIX / "foursquare/checkins.txt", FIX / "foursquare/pois.txt",
                        days=15, train_days=5)
    assert d.states[-1] == "Other" and d.states[0] == "Hotel" and d.groups == ("JP", "US")
    s = d.states.index
    # u1 (US): days 0, 0, 1 train; days 5, 6 test; day 17 beyond the 15 days kept
    assert d.train["US"][0].tolist() == [s("Cocktail Bar"), s("Hotel"), s("Cocktail Bar")]
    assert d.test["US"][0].tolist() == [s("Sushi Restaurant"), s("Hotel")]
    # u2 (JP): sorted by time; the unknown venue vX is dropped
    assert d.train["JP"][0].tolist() == [s("Hotel"), s("Ramen / Noodle House"), s("Hotel")]


def test_foursquare_top_labels_and_map():
    d = load_foursquare(FIX / "foursquare/checkins.txt", FIX / "foursquare/pois.txt", labels=1, days=15, train_days=5,
                        label_map={"Ramen / Noodle House": "Restaurant",
                                   "Sushi Restaurant": "Restaurant"})
    assert d.states == ("Hotel", "Other")


def test_capture24_epochs_scheme_and_held_out():
    d = load_capture24(FIX / "capture24", rows_per_epoch=2, held_out=1, seed=0)
    assert d.states == ("sitstand+activity", "sitting", "sleep", "walking")
    assert d.groups == ("18-29", "53+")
    all_seqs = {tuple(x.tolist()) for g in d.groups for x in d.train[g] + d.test[g]}
    # P001: 3 sleep, 2 sitting, one unannotated epoch (skipped), 2 walking
    assert (2, 2, 2, 1, 1, 3, 3) in all_seqs
    assert (2, 2, 3, 3, 3) in all_seqs                         # P004 read from .csv.gz
    assert all(len(d.test[g]) == 1 and len(d.train[g]) == 1 for g in d.groups)


def test_loader_errors_name_the_file():
    with pytest.raises(ModelError, match="missing"):
        load_capture24(FIX / "foursquare")
    with pytest.raises(ModelError):
        load_capture24(FIX / "capture24", rows_per_epoch=2, held_out=2)
    with pytest.raises(ModelError):
        load_foursquare(FIX / "capture24/metadata.csv", FIX / "foursquare/pois.txt")
