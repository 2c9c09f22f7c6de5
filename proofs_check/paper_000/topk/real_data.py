"""Loaders for the two real datasets of the Top-K experiments, into :class:`SequenceData`.

Source: Bai et al., Composition for Pufferfish Privacy, §7.1.1, §7.1.4 and Appendix D.1/D.4.  The
files are not distributed with this project (licences; no download here): a user who has them passes
their paths.

**Foursquare global-scale check-ins** (Yang et al., "TIST2015" release), two tab-separated files
without header:

* check-ins: ``user_id  venue_id  utc_time  timezone_offset_minutes`` with ``utc_time`` like
  ``Tue Apr 03 18:00:09 +0000 2012``;
* POIs: ``venue_id  latitude  longitude  category_name  country_code``.

Each user is one sequence of venue categories in time order, grouped by the country where most of
the user's check-ins are.  As §7.1.1/D.4: categories are first mapped by ``label_map`` (raw →
common label; default: unchanged), the ``labels`` (77) most frequent common labels are kept and
all others become ``"Other"`` (78 states).  As §7.1.4: only the first ``days`` (500) days after the
first check-in are kept; check-ins in the first ``train_days`` (400) train the prior, the rest
form the test set.

**Capture24** (Chan Chang et al.): a directory with ``metadata.csv`` (columns ``pid``, ``age``
— the age band ``18-29``, ``30-37``, ``38-52`` or ``53+`` —, ...),
``annotation-label-dictionary.csv`` (column ``annotation`` and one column per scheme, e.g.
``label:WillettsMET2018``) and one file per participant ``P001.csv`` or ``P001.csv.gz`` with columns
``time, x, y, z, annotation`` at 100 Hz.  Every ``rows_per_epoch`` (3000 = 30 s) rows the
annotation of the epoch's first row is mapped through the scheme (unannotated rows are skipped),
giving one activity sequence per participant (11 states for WillettsMET2018).  As §7.1.4:
``held_out`` (8) participants per age group, chosen with a seeded generator, form the test set.

Errors (missing file, bad line) are :class:`ModelError` naming the file and line.  Cost: one pass
over the files, ``O(rows)``.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections import Counter, defaultdict
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

import numpy as np

from pufferfish.models.errors import ModelError
from pufferfish.models.files.json_io import open_regular_file
from pufferfish.proofs_check.paper_000.topk.sequences import AGE_BANDS, SequenceData

_TIME_FORMAT = "%a %b %d %H:%M:%S %z %Y"


def _open_text(path: Path):
    """``path`` opened as UTF-8 text (decompressed when it ends in ``.gz``) once it is known to
    be a regular file (:func:`~pufferfish.models.files.json_io.open_regular_file`: a named pipe
    or a device such as ``/dev/zero`` is refused, never read)."""
    handle = open_regular_file(path, "data file", text=path.suffix != ".gz")
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(handle, "rb"), encoding="utf-8")
    return handle


def load_foursquare(checkins: str | Path, pois: str | Path, labels: int = 77, days: int = 500,
                    train_days: int = 400, label_map: Mapping[str, str] | None = None
                    ) -> SequenceData:
    """The check-in data as :class:`SequenceData` (see the module docstring)."""
    checkins, pois = Path(checkins), Path(pois)
    venues: dict[str, tuple[str, str]] = {}
    with _open_text(pois) as handle:
        for n, line in enumerate(handle, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5:
                raise ModelError(f"line {n}: expected 5 tab-separated fields "
                                 "(venue, lat, lon, category, country)", f"{pois}:{n}")
            category = parts[3].strip()
            if label_map is not None:
                category = label_map.get(category, category)
            venues[parts[0]] = (category, parts[4].strip())
    events: dict[str, list[tuple[datetime, str, str]]] = defaultdict(list)
    with _open_text(checkins) as handle:
        for n, line in enumerate(handle, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                raise ModelError(f"line {n}: expected user, venue, UTC time, offset",
                                 f"{checkins}:{n}")
            try:
                when = datetime.strptime(parts[2].strip(), _TIME_FORMAT)
            except ValueError:
                raise ModelError(f"line {n}: cannot read the time {parts[2]!r} (expected e.g. "
                                 "'Tue Apr 03 18:00:09 +0000 2012')", f"{checkins}:{n}") from None
            venue = venues.get(parts[1])
            if venue is None:
                continue        # a venue without POI information cannot be labelled
            events[parts[0]].append((when, venue[0], venue[1]))
    if not events:
        raise ModelError("no check-in matches a venue of the POI file", str(checkins))
    start = min(e[0] for evs in events.values() for e in evs)
    frequency = Counter(e[1] for evs in events.values() for e in evs
                        if (e[0] - start).days < days)
    kept = [label for label, _ in sorted(frequency.items(), key=lambda x: (-x[1], x[0]))[:labels]]
    states = tuple(kept) + ("Other",)
    index = {label: j for j, label in enumerate(kept)}
    other = len(kept)
    train: dict[str, list] = defaultdict(list)
    test: dict[str, list] = defaultdict(list)
    for user in sorted(events):
        evs = sorted(e for e in events[user] if (e[0] - start).days < days)
        if not evs:
            continue
        country = Counter(e[2] for e in evs).most_common(1)[0][0]
        seq = [(index.get(e[1], other), (e[0] - start).days < train_days) for e in evs]
        head = np.array([s for s, is_train in seq if is_train], dtype=np.int64)
        tail = np.array([s for s, is_train in seq if not is_train], dtype=np.int64)
        if len(head):
            train[country].append(head)
        if len(tail):
            test[country].append(tail)
    groups = tuple(sorted(g for g in test if g in train))
    if not groups:
        raise ModelError("no country has both training and test check-ins", str(checkins))
    return SequenceData(states, groups, {g: tuple(train[g]) for g in groups},
                        {g: tuple(test[g]) for g in groups}, "time", f"foursquare:{checkins}")


def _read_csv(path: Path) -> list[dict]:
    if not path.exists():
        raise ModelError(f"missing file {path.name}", str(path))
    with _open_text(path) as handle:
        return list(csv.DictReader(handle))


def load_capture24(directory: str | Path, scheme: str = "label:WillettsMET2018",
                   rows_per_epoch: int = 3000, held_out: int = 8, seed: int = 0) -> SequenceData:
    """The Capture24 activity data as :class:`SequenceData` (see the module docstring)."""
    root = Path(directory)
    if not root.is_dir():
        raise ModelError("not a directory", str(root))
    if rows_per_epoch < 1:
        raise ModelError("rows_per_epoch must be >= 1", "rows_per_epoch")
    dictionary = _read_csv(root / "annotation-label-dictionary.csv")
    if not dictionary or scheme not in dictionary[0] or "annotation" not in dictionary[0]:
        raise ModelError(f"the label dictionary needs the columns 'annotation' and {scheme!r}",
                         str(root / "annotation-label-dictionary.csv"))
    mapping = {row["annotation"].strip(): row[scheme].strip() for row in dictionary}
    states = tuple(sorted(set(mapping.values())))
    index = {s: j for j, s in enumerate(states)}
    metadata = _read_csv(root / "metadata.csv")
    by_group: dict[str, list[tuple[str, np.ndarray]]] = defaultdict(list)
    for n, row in enumerate(metadata, 2):
        pid, age = row.get("pid", "").strip(), row.get("age", "").strip()
        if not pid or not age:
            raise ModelError(f"line {n}: needs 'pid' and 'age'", str(root / "metadata.csv"))
        files = [root / f"{pid}.csv", root / f"{pid}.csv.gz"]
        path = next((f for f in files if f.exists()), None)
        if path is None:
            continue
        labels = []
        with _open_text(path) as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames is None or "annotation" not in reader.fieldnames:
                raise ModelError("expected a column 'annotation'", str(path))
            for r, record in enumerate(reader):
                if r % rows_per_epoch:
                    continue
                raw = (record.get("annotation") or "").strip()
                if not raw or raw.lower() == "nan":
                    continue
                if raw not in mapping:
                    raise ModelError(f"row {r + 2}: annotation {raw!r} is not in the label "
                                     "dictionary", str(path))
                labels.append(index[mapping[raw]])
        if len(labels) >= 2:
            by_group[age].append((pid, np.array(labels, dtype=np.int64)))
    groups = tuple(g for g in AGE_BANDS if g in by_group) + tuple(
        sorted(g for g in by_group if g not in AGE_BANDS))
    rng = np.random.default_rng(seed)
    train, test = {}, {}
    for g in groups:
        people = sorted(by_group[g])
        if len(people) <= held_out:
            raise ModelError(f"age group {g!r} has {len(people)} participants; holding out "
                             f"{held_out} leaves none for training", "held_out")
        chosen = set(rng.choice(len(people), size=held_out, replace=False).tolist())
        test[g] = tuple(seq for j, (_, seq) in enumerate(people) if j in chosen)
        train[g] = tuple(seq for j, (_, seq) in enumerate(people) if j not in chosen)
    if not groups:
        raise ModelError("no participant file with at least two annotated epochs", str(root))
    return SequenceData(states, groups, train, test, "participant", f"capture24:{root}")
