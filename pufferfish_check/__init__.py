"""An independent checker of the toolkit's audit certificates (docs/certificates.md).

It imports only the Python standard library — nothing of ``pufferfish`` — and reads the model
file with its own reader, so a reviewer trusts about a thousand lines instead of the toolkit.
From the model file it re-derives every number of a certificate: each dataset's output law
(enumerating the universe), each prior's mass of each secret and the conditional law of every
output given it, each ordered secret pair's worst ratio with its output and two probabilities,
the Pufferfish level, and each DP level over the neighbouring pairs of its relation; then it
decides every budget verdict again (``log r <= ε`` exactly for ``ε = log q``, by rational bounds
on ``e^ε`` for a rational ``ε``).  On the structured path (a universe too large to list) the law
of a sum or count statistic given each secret is recomputed by a forward recursion over the
chain, and per-entry DP from the sumsets of the other attributes' values.  Programs are run with
the checker's own primitives, geometric noise enumerated in a window whose outside mass is an
exact bound: each certified probability must lie within it.

>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> model = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
...          "priors": {"u": {"uniform": True}}, "secrets": {}, "entry_pairs": True,
...          "mechanisms": {"id": {"query": {"attribute": "x"}}}}
>>> _ = (folder / "m.json").write_text(json.dumps(model))
>>> certificate = {"pufferfish_certificate": 1, "model": {"file": str(folder / "m.json")},
...   "method": "enumeration", "budget": None, "dp_budget": None, "holds": None,
...   "mechanisms": [{"name": "id", "kind": "mechanism",
...     "datasets": [[[0], [[0, "1"]]], [[1], [[1, "1"]]]],
...     "pufferfish": {"max_ratio": "inf", "vacuous": False, "holds": None, "skipped": [],
...       "witness": {"direction": ["x=0", "x=1"], "prior": "u", "max_ratio": "inf",
...                   "output": 0, "p_first": "1", "p_second": "0"},
...       "levels": [{"direction": ["x=0", "x=1"], "prior": "u", "max_ratio": "inf",
...                   "output": 0, "p_first": "1", "p_second": "0"},
...                  {"direction": ["x=1", "x=0"], "prior": "u", "max_ratio": "inf",
...                   "output": 1, "p_first": "1", "p_second": "0"}],
...       "priors": {"u": {"x=0": {"mass": "1/2", "law": [[0, "1"]]},
...                        "x=1": {"mass": "1/2", "law": [[1, "1"]]}}}},
...     "dp": []}]}
>>> check_certificate(certificate).accepted
True
>>> certificate["mechanisms"][0]["pufferfish"]["priors"]["u"]["x=0"]["mass"] = "1/3"
>>> print(check_certificate(certificate).reason)
id.pufferfish.priors.u.x=0.mass: the certificate says 1/3, recomputed 1/2
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pufferfish_check.check import Checker, Rejected
from pufferfish_check.programs import DEFAULT_THRESHOLD
from pufferfish_check.reader import BadInput

__all__ = ["check_certificate", "CheckResult", "BadInput"]


@dataclass(frozen=True)
class CheckResult:
    """``accepted``; ``reason`` (why it was rejected); ``notes`` (what was checked how)."""

    accepted: bool
    reason: str = ""
    notes: tuple[str, ...] = ()


def check_certificate(certificate: dict, model_file=None,
                      threshold: Fraction = DEFAULT_THRESHOLD) -> CheckResult:
    """Check a certificate (the parsed JSON) against its model file (``model_file``, else the
    file the certificate names).  Raises :class:`BadInput` for files that cannot be read."""
    try:
        notes = Checker(certificate, model_file, threshold).run()
    except Rejected as error:
        return CheckResult(False, str(error))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        return CheckResult(False, f"malformed certificate ({type(error).__name__}: {error})")
    return CheckResult(True, "", tuple(notes))
