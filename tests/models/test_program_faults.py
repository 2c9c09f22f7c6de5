"""Faults at the door of the program engine: a failure of the engine's own code is an
``EngineError`` (never "the program raised"), a clamp of a continuous noisy value is refused with
the reason, noise parameters whose computation would not fit are refused up front with the
figure, and exact numbers of any size are written out."""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.models.programs import (EngineError, ProgramError, ProgramMechanism, coin,
                                        exponential_mechanism, laplace, load_program,
                                        program_distribution)
from pufferfish.models.programs import noise
from pufferfish.models.programs.exp_numbers import ExpNumber
from pufferfish.models.programs.gaussian import (MAX_DISCRETE_CELLS, discrete_gaussian,
                                                 gaussian)
from pufferfish.models.programs.sandbox import Limits

# What stands behind the program language: these programs (module-level state, sleeps, signals,
# exceptions that cannot print) are outside it on purpose, so they run trusted.
load_program = functools.partial(load_program, trusted=True)
ProgramMechanism = functools.partial(ProgramMechanism, trusted=True)

FAST = Limits(cpu_seconds=2, grace_seconds=1)


def _clamped(data, n=5):
    x = laplace(2) + data[0]
    return max(0, min(x, n))


def test_a_clamped_continuous_value_is_refused_with_the_reason():
    """It was a TypeError inside the engine (``range`` of Fraction bounds) reported as the
    program's."""
    with pytest.raises(ProgramError, match=r"continuous noisy value .* bound on both sides.* atoms "
                                           r"at the ends and a density between.*discrete_laplace"):
        program_distribution(_clamped, (0,))
    with pytest.raises(ProgramError, match="atoms at the ends"):  # behind the boundary too
        ProgramMechanism("m", _clamped, limits=FAST).distribution((1,))


def test_an_unbounded_continuous_output_keeps_its_reason():
    with pytest.raises(ProgramError, match="its law has a density, not exact point masses"):
        program_distribution(lambda data: laplace(1), (0,))


def test_a_failure_of_the_engines_own_code_is_an_engine_error(monkeypatch):
    monkeypatch.setattr(noise, "_has_difference", None)  # output_law now fails inside the engine
    with pytest.raises(EngineError, match=r"on dataset \[0\]: TypeError: 'NoneType' object is not "
                                          r"callable \(in the engine's noise.py, line \d+, in "
                                          r"output_law\)") as caught:
        program_distribution(lambda data: coin(), (0,))
    assert not isinstance(caught.value, ModelError)


def test_a_failure_of_the_engine_in_the_worker_is_an_engine_error_with_its_traceback(
        monkeypatch):
    monkeypatch.setattr(noise, "_has_difference", None)  # inherited by the worker
    with pytest.raises(EngineError, match="in the engine's noise.py") as caught:
        ProgramMechanism("m", lambda data: coin(), limits=FAST).distribution((0,))
    assert "Traceback" in caught.value.details and "output_law" in caught.value.details


def test_refusals_of_primitives_and_errors_in_libraries_stay_the_programs():
    with pytest.raises(ProgramError, match="raised TypeError: a noisy value has no truth value"):
        program_distribution(lambda data: bool(laplace(1)), (0,))
    with pytest.raises(ProgramError, match="raised ValueError"):  # Fraction("x") in fractions.py
        program_distribution(lambda data: coin("x"), (0,))
    with pytest.raises(ProgramError, match="raised ZeroDivisionError"):
        program_distribution(lambda data: 1 // 0, (0,))


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message")


def test_an_exception_whose_message_cannot_be_printed_is_a_located_program_error():
    def broken(data):
        raise _Unprintable()

    with pytest.raises(ProgramError, match=r"raised _Unprintable: \(a message that cannot be "
                                           r"printed\) at test_program_faults.py, line \d+"):
        program_distribution(broken, (0,))
    with pytest.raises(ProgramError, match="raised _Unprintable"):
        ProgramMechanism("m", broken, limits=FAST).distribution((0,))


def test_a_discrete_gaussian_too_wide_is_refused_up_front_with_the_figure():
    with pytest.raises(ProgramError, match=r"discrete_gaussian\(1000000\) would need .* "
                                           r"26,000,003 points \(about 4.7 GB\), more than the "
                                           r"limit of 4,194,304 points"):
        program_distribution(lambda data: discrete_gaussian(10**6) >= 1, (0,))
    with pytest.raises(ProgramError, match=r"discrete_gaussian\(10000000000000000000…"
                                           r"\(401 characters\)\) would need .* about 10\^40\d "
                                           r"points"):
        program_distribution(lambda data: discrete_gaussian(10**400) >= 1, (0,))
    assert MAX_DISCRETE_CELLS == 1 << 22


def test_a_tiny_gaussian_is_computed_without_an_exact_end_of_a_huge_power():
    """``gaussian(10^-300) ≥ 1`` has the mass ``e^(−10^600)`` (an arb ball): its exact ends were
    a Fraction of ``10^600`` bits (30 s, 2.5 GB, then MemoryError); now rounded outward."""
    law = program_distribution(lambda data: gaussian(Fraction(1, 10**300)) >= 1, (0,))
    above = law.prob(True)
    assert above.lower == 0 and 0 < above.upper <= Fraction(1, 2**1100)
    assert law.prob(False).contains(1)
    law = program_distribution(lambda data: gaussian(Fraction(1, 10**400)) >= 0, (0,))
    assert law.prob(True).contains(Fraction(1, 2))  # σ below any float: ⌊log2 σ⌋ is exact
    assert "0.000000" in str(above.upper) or str(law)  # printing a tiny bound needs no float


def test_exact_numbers_of_more_than_4300_digits_are_written_out():
    """``approximate-dp --epsilon 1`` on an exponential mechanism with scores spread over 15,000
    (weights of 4,516 digits) stopped at Python's conversion limit of 4,300 digits (exit 4)."""
    number = ExpNumber.of(Fraction(3**10000, 7)) - ExpNumber.exp(1)
    text = str(number)
    assert len(text) > 4771 and text.startswith("-e + ") and text.endswith("/7")


def test_exponential_mechanism_weights_too_large_are_refused_up_front():
    """A score of 4,300 digits: the weight ``2^(10^4299)`` failed inside python-flint's power."""
    with pytest.raises(ProgramError, match=r"weights would be integers of about 10\^4299 bits "
                                           r"\(scores spread over 10\^4299, base 2\), more than "
                                           r"the limit of 67,108,864 bits"):
        program_distribution(lambda data: exponential_mechanism({"a": 10**4299, "b": 0}, 2),
                             (0,))


def test_an_unprintable_exception_at_import_is_a_located_error(tmp_path):
    (tmp_path / "prog.py").write_text("class Odd(Exception):\n"
                                      "    def __str__(self):\n        raise ValueError\n"
                                      "raise Odd()\n")
    with pytest.raises(ModelError, match=r"raised Odd: \(a message that cannot be printed\) "
                                         r"while loading at prog.py, line 4"):
        load_program("prog.py", "f", tmp_path, limits=FAST)
