"""The influence-curve file, written by ``pufferfish influence --out DIR`` and read by
``pufferfish translate --curve FILE`` (Bai et al., Composition for Pufferfish Privacy, §6,
Theorem 6).

**Curve file** (JSON, version 1)::

    {"influence_curve": 1,
     "entries": 5,                       # |I|, optional (needed by --rule algorithm)
     "numerical": false,                 # true when the a values are numerical estimates
     "description": "...",               # optional
     "points": [{"b": 0, "a": "inf"}, {"b": 1, "a": "log(9/2)"}, {"b": 2, "a": "0.25"}]}

``a`` is ``"inf"``, ``"log(r)"`` with ``r >= 1`` rational, or a non-negative rational written as
an integer, ``"3/8"`` or ``"0.125"`` (exact); floats are refused.  ``b`` are distinct integers
``>= 0``, at most ``entries`` when it is given.  Errors name the JSON path.

>>> points, entries, numerical = parse_curve({"influence_curve": 1,
...     "points": [{"b": 0, "a": "inf"}, {"b": 1, "a": "log(3)"}]})
>>> [p.b for p in points], entries, numerical
([0, 1], None, False)
"""

from __future__ import annotations

import os

from pufferfish.models.errors import ModelError
from pufferfish.verify.influence.translation import CurvePoint, LogValue

CURVE_FILE_VERSION = 1
"""The version key of the curve file (``"influence_curve": 1``); another version is refused."""


def read_curve_file(path: str | os.PathLike) -> tuple[list[CurvePoint], int | None, bool]:
    """Read and validate a curve file: ``(points, entries or None, numerical)``."""
    from pufferfish.models.files.pufferfish_file import read_json_file

    return parse_curve(read_json_file(path, "curve file"))


def parse_curve(data: object) -> tuple[list[CurvePoint], int | None, bool]:
    """Validate a curve document (see the module) with JSON paths in every error."""
    if not isinstance(data, dict):
        raise ModelError("a curve file is a JSON object", "$")
    version = data.get("influence_curve")
    if version != CURVE_FILE_VERSION:
        raise ModelError(f"expected \"influence_curve\": {CURVE_FILE_VERSION}, got {version!r}",
                         "influence_curve")
    unknown = set(data) - {"influence_curve", "entries", "numerical", "description", "points"}
    if unknown:
        raise ModelError(f"unknown key(s) {sorted(unknown)}", sorted(unknown)[0])
    entries = data.get("entries")
    if entries is not None and (not isinstance(entries, int) or isinstance(entries, bool)
                                or entries < 1):
        raise ModelError("entries must be a positive integer", "entries")
    numerical = data.get("numerical", False)
    if not isinstance(numerical, bool):
        raise ModelError("numerical must be true or false", "numerical")
    raw = data.get("points")
    if not isinstance(raw, list) or not raw:
        raise ModelError("points must be a non-empty list", "points")
    points, seen = [], set()
    for k, item in enumerate(raw):
        path = f"points.{k}"
        if not isinstance(item, dict) or set(item) != {"b", "a"}:
            raise ModelError("a point is an object with exactly the keys \"b\" and \"a\"", path)
        b = item["b"]
        if not isinstance(b, int) or isinstance(b, bool) or b < 0:
            raise ModelError(f"b must be an integer >= 0, got {b!r}", f"{path}.b")
        if entries is not None and b > entries:
            raise ModelError(f"b = {b:,} is more than the {entries:,} entries of the curve "
                             f"(a(b) is defined for b = 0..{entries:,})", f"{path}.b")
        if b in seen:
            raise ModelError(f"b = {b} is listed twice", f"{path}.b")
        seen.add(b)
        a = LogValue.parse(item["a"], f"{path}.a")
        if numerical:
            a = LogValue(a.q, a.r, a.d, True)
        points.append(CurvePoint(b, a))
    return points, entries, numerical


def curve_document(curve, description: str = "") -> dict:
    """The curve file of an :class:`pufferfish.verify.influence.curves.InfluenceCurve` (exact
    values)."""
    return {"influence_curve": CURVE_FILE_VERSION, "entries": curve.entries, "numerical": False,
            "description": description or f"a(b)-influence curve ({curve.method})",
            "points": [{"b": p.b, "a": p.epsilon} for p in curve.points]}


__all__ = ["CURVE_FILE_VERSION", "read_curve_file", "parse_curve", "curve_document"]
