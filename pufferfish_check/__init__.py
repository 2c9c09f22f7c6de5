"""An independent checker of the toolkit's audit certificates (docs/certificates.md).

It imports only the Python standard library — nothing of ``pufferfish`` — and reads the model
file with its own reader.  From the model file it derives what the audit must contain (the
mechanisms, their joint release, the neighbour relations, the priors and secret pairs) and its
own bounds on every law: exact for table, query, randomized-response, compose, repeat and
postprocess mechanisms and for sum and count queries on chains (a forward recursion), an
enclosure for programs (run with the checker's own primitives, geometric noise enumerated in a
window whose outside mass is exact).  Every level, witness and verdict is decided from those
bounds; the certificate's numbers are claims compared with them, never trusted.

Usage: ``check_certificate(json.load(open("audit.cert.json"))).accepted``, or the command line
``pufferfish check-certificate CERT [MODEL]`` / ``python -m pufferfish_check CERT [MODEL]``.

>>> check_certificate({"pufferfish_certificate": 1, "model": {"file": None}})
Traceback (most recent call last):
...
pufferfish_check.reader.BadInput: the certificate names no model file: give it on the command line
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pufferfish_check.check import Checker
from pufferfish_check.programs import DEFAULT_THRESHOLD, WINDOW_BITS
from pufferfish_check.reader import BadInput, Rejected

__all__ = ["check_certificate", "CheckResult", "BadInput"]


@dataclass(frozen=True)
class CheckResult:
    """``accepted``; ``reason`` (why it was rejected); ``statement`` (what an accepted certificate
    certifies: mechanisms, joint release, relations, budgets and verdicts); ``notes`` (how)."""

    accepted: bool
    reason: str = ""
    notes: tuple[str, ...] = ()
    statement: str = ""


def check_certificate(certificate: dict, model_file=None, threshold=DEFAULT_THRESHOLD) -> CheckResult:
    """Check a certificate (the parsed JSON) against its model file (``model_file``, else the
    file the certificate names); programs' noise is enumerated down to paths of mass
    ``threshold`` (``2^-N`` for ``N`` in 16..64).  Raises :class:`BadInput` for files that
    cannot be read and for a threshold out of range."""
    if not isinstance(threshold, Fraction) or threshold.numerator != 1 or \
            threshold.denominator not in {2 ** n for n in WINDOW_BITS}:
        raise BadInput(f"the noise window must be 2^-N for N in {WINDOW_BITS.start}.."
                       f"{WINDOW_BITS.stop - 1}, not {threshold}")
    try:
        checker = Checker(certificate, model_file, threshold)
        notes = checker.run()
    except Rejected as error:
        return CheckResult(False, str(error))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as error:
        return CheckResult(False, f"malformed certificate ({type(error).__name__}: {error})"[:500])
    return CheckResult(True, "", tuple(notes), checker.statement())
