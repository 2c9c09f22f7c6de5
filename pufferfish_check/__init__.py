"""An independent checker of the toolkit's audit certificates (docs/certificates.md).

It imports only the Python standard library — nothing of ``pufferfish`` — and reads the model
file with its own reader.  From the model file it re-derives every number of a certificate: each
dataset's output law, each prior's mass of each secret and the law of every output given it,
each ordered secret pair's worst ratio with its output and probabilities, the Pufferfish level,
each DP level over the neighbouring pairs of its relation, and every budget verdict (exactly for
``ε = log q``, by rational bounds on ``e^ε`` for a rational ``ε``).  On a universe too large to
list, a sum or count statistic's law given each secret comes from a forward recursion over the
chain, per-entry DP from sumsets.  Programs run with the checker's own primitives, geometric
noise enumerated in a window whose outside mass is an exact bound on each probability.

Usage: ``check_certificate(json.load(open("audit.cert.json"))).accepted``, or the command line
``pufferfish check-certificate CERT [MODEL]`` / ``python -m pufferfish_check CERT [MODEL]``.

>>> check_certificate({"pufferfish_certificate": 1, "model": {"file": None}})
Traceback (most recent call last):
...
pufferfish_check.reader.BadInput: the certificate names no model file: give it on the command line
"""

from __future__ import annotations

from dataclasses import dataclass

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


def check_certificate(certificate: dict, model_file=None, threshold=DEFAULT_THRESHOLD) -> CheckResult:
    """Check a certificate (the parsed JSON) against its model file (``model_file``, else the
    file the certificate names).  Raises :class:`BadInput` for files that cannot be read."""
    try:
        notes = Checker(certificate, model_file, threshold).run()
    except Rejected as error:
        return CheckResult(False, str(error))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        return CheckResult(False, f"malformed certificate ({type(error).__name__}: {error})")
    return CheckResult(True, "", tuple(notes))
