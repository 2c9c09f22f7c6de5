"""Programs run with the checker's own primitives: finite draws exactly, geometric noise in a
window whose outside mass is exact.  A program file is loaded with a stand-in module in place of
``pufferfish.models.programs`` (in ``sys.modules`` only while the file loads).  Runs are replayed
by prefixes of choices; a new draw of noise on a path of mass ``w`` offers ``|z| <= r`` for the
largest ``r`` with ``w·Pr[Z = ±r] >= threshold`` and leaves out ``w·Pr[|Z| > r]`` (all of ``w``
below the threshold, the run stopping).  Every run is found or left out, so for each output
``ω``: ``found(ω) <= Pr[ω] <= found(ω) + left_out``.

A program is code: the language check (``pufferfish_check.language``) runs before it is imported
unless the model marks it ``"trusted"``; while it runs, fds 1 and 2 and ``sys.stdout``/``stderr``
point to ``os.devnull``, and anything it raises (``SystemExit`` included) rejects the certificate
with its line.  The stand-in offers every primitive of ``pufferfish.models.programs``; drawing one
whose laws are not rational (Laplace-type, exponential, Gaussian) rejects the certificate.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import math
import os
import sys
import traceback
import types
from fractions import Fraction
from pathlib import Path

from pufferfish_check.language import Refusal, check_file
from pufferfish_check.reader import BadInput, Rejected, key, number, read_text

DEFAULT_THRESHOLD = Fraction(1, 2 ** 16)
WINDOW_BITS = range(16, 65)  # the noise window 2^-N: a wider one would run for hours
_LAWS: dict = {}  # (program digest, function, arguments, values read, threshold) -> law bounds


class _Stop(Exception):
    """The run's remaining mass fell below the threshold; it is counted as left out."""


class Enumerator:
    """Replay enumeration of one program on one dataset (module docstring).  A run replays the
    choices ``prefix``, then takes the first option of every new draw; ``taken``/``options``
    record each draw's choice and number of options, so the runs still to do are known."""

    current: "Enumerator | None" = None
    stopped, refused = False, None

    def __init__(self, threshold: Fraction = DEFAULT_THRESHOLD, max_runs: int = 2_000_000) -> None:
        self.threshold, self.max_runs, self.left_out, self.runs = threshold, max_runs, Fraction(0), 0

    def decide(self, count: int) -> tuple[int, bool]:
        """The option taken at the next draw, and whether the draw is new (not replayed).  After
        a stop the run is over, even if the program caught the stop: every draw stops it."""
        if self.stopped:
            raise _Stop
        position = len(self.taken)
        index = self.prefix[position] if position < len(self.prefix) else 0
        self.taken.append(index)
        self.options.append(count)
        return index, position >= len(self.prefix)

    def choose(self, options: list[tuple[object, Fraction]]) -> object:
        options = [(v, Fraction(p)) for v, p in options if p]
        if sum(p for _, p in options) != 1:
            raise ValueError("a choice whose probabilities do not sum to 1")
        value, p = options[self.decide(len(options))[0]] if len(options) > 1 else options[0]
        self.weight *= p
        return value

    def noise(self, alpha: Fraction, two_sided: bool) -> int:
        pmf, outside, log_pmf = _noise_table(alpha, two_sided)
        # the radius is chosen in floating point; the mass left outside it is exact
        radius, budget = -1, (math.log2(float(self.weight)) - math.log2(float(self.threshold))
                              if self.weight >= self.threshold else -1)  # both >= 2^-64
        while radius + 1 < len(log_pmf) and budget + log_pmf[radius + 1] >= 0:
            radius += 1
        values = ([] if radius < 0 else [0] + [z for r in range(1, radius + 1) for z in (r, -r)]
                  if two_sided else list(range(radius + 1)))
        index, fresh = self.decide(max(1, len(values)))
        if fresh:
            self.left_out += self.weight * (outside[radius] if values else 1)
        if not values:
            self.stopped = True
            raise _Stop
        self.weight *= pmf[abs(values[index])]
        return values[index]

    def law(self, program, dataset: tuple, arguments: dict) -> tuple[dict, Fraction, int]:
        """``(found, left_out, runs)``: the mass found per output key and the mass left out."""
        found: dict = {}
        pending: list[list[int]] = [[]]
        previous, Enumerator.current = Enumerator.current, self
        try:
            while pending:
                self.runs += 1
                if self.runs > self.max_runs:
                    raise Rejected(f"cannot check: more than {self.max_runs} runs of the program "
                                   f"on dataset {list(dataset)}")
                self.prefix, self.taken, self.options = pending.pop(), [], []
                self.weight, self.stopped, self.refused = Fraction(1), False, None
                try:
                    output = program(dataset, **arguments)
                except _Stop:
                    pass
                except BaseException as error:  # SystemExit, KeyboardInterrupt, GeneratorExit...
                    raise Rejected(self.refused or failure(error, f"on dataset {list(dataset)}"))
                if self.refused:  # a refusal the program caught is still one
                    raise Rejected(self.refused)
                output = _Stop if self.stopped else output
                for position in range(len(self.prefix), len(self.taken)):
                    pending += [self.taken[:position] + [k] for k in range(1, self.options[position])]
                if output is not _Stop:
                    try:
                        k = key(output)
                    except (TypeError, ValueError, RecursionError):
                        raise Rejected(f"a program returned {output!r:.60}, not a JSON value "
                                       f"(on dataset {list(dataset)})") from None
                    found[k] = found.get(k, Fraction(0)) + self.weight
        finally:
            Enumerator.current = previous
        if sum(found.values()) + self.left_out != 1:  # every run is found or left out, exactly
            raise RuntimeError("the checker's enumeration lost mass: a defect of the checker")
        return found, self.left_out, self.runs


@functools.lru_cache(maxsize=64)
def _noise_table(alpha: Fraction, two_sided: bool, radii: int = 400):
    """``Pr[Z = ±r]`` (one value), ``Pr[|Z| > r]`` exactly, and ``log2 Pr[Z = r]`` (a float, to
    choose radii) for ``r < radii``: two-sided ``(1 − α)/(1 + α)·α^|z|``, tail ``2α^(r+1)/(1 + α)``;
    one-sided ``(1 − α)·α^z``, tail ``α^(r+1)``."""
    scale = (1 - alpha) / (1 + alpha) if two_sided else 1 - alpha
    pmf = [scale * alpha ** r for r in range(radii)]
    outside = [(2 / (1 + alpha) if two_sided else 1) * alpha ** (r + 1) for r in range(radii)]
    log2 = lambda q: math.log2(q.numerator) - math.log2(q.denominator)  # noqa: E731
    return pmf, outside, [log2(scale) + r * log2(alpha) for r in range(radii)]


def _exact(value) -> Fraction:
    """A program's exact number: an ``int``, a ``Fraction`` or a text (``"1/2"``, bounded)."""
    if isinstance(value, Fraction) or isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, str):
        return number(value, "a program's number")
    raise ValueError(f"{value!r:.40} is not an exact number (an int, a Fraction or a text)")


@functools.lru_cache(maxsize=256)
def _alpha(alpha) -> Fraction:
    alpha = _exact(alpha)
    if not 0 <= alpha < 1:
        raise ValueError(f"alpha must be an exact number in [0, 1), got {alpha}")
    return alpha


def choice(weighted):
    items = list(weighted.items() if isinstance(weighted, dict) else weighted)
    return Enumerator.current.choose([(v, _exact(p)) for v, p in items])


def coin(p=Fraction(1, 2)):
    return choice([(True, _exact(p)), (False, 1 - _exact(p))])


def uniform(values):
    return choice([(v, Fraction(1, len(values))) for v in values])


def exponential_mechanism(scores, base):
    items = list(scores.items() if isinstance(scores, dict) else scores)
    base, low = _exact(base), min(_exact(s) for _, s in items)
    weights = [base ** (_exact(s) - low) for _, s in items]
    return choice([(c, w / sum(weights)) for (c, _), w in zip(items, weights)])


def geometric(alpha):
    return Enumerator.current.noise(_alpha(alpha), True) if _alpha(alpha) else 0


def one_sided_geometric(alpha):
    return Enumerator.current.noise(_alpha(alpha), False) if _alpha(alpha) else 0


def _unsupported(name: str):
    def primitive(*args, **kwargs):
        caller = sys._getframe(1)
        message = (f"{caller.f_code.co_filename}, line {caller.f_lineno}: cannot check: the "
                   f"checker does not re-derive programs with {name} noise (not rational laws)")
        if Enumerator.current is not None:
            Enumerator.current.refused = message
        raise Rejected(message)
    primitive.__name__ = name
    return primitive


class EpsilonSymbol:
    """Stand-in for the symbol ε of Laplace-type programs: scaling it (``EPSILON / 2``) is
    allowed while a program loads; a draw with it is refused (its laws are not rational)."""
    __mul__ = __rmul__ = __truediv__ = lambda self, other: self  # noqa: E731


PRIMITIVES = {"coin": coin, "choice": choice, "uniform": uniform,
              "exponential_mechanism": exponential_mechanism, "geometric": geometric,
              "one_sided_geometric": one_sided_geometric, "EpsilonSymbol": EpsilonSymbol,
              "EPSILON": EpsilonSymbol(), **{name: _unsupported(name) for name in (
                  "discrete_laplace", "laplace", "exponential", "gaussian", "discrete_gaussian")}}
"""Every name ``pufferfish.models.programs`` offers a program, as the stand-in serves it."""


def failure(error: BaseException, when: str) -> str:
    """Why a program failed, with its file and line (the innermost frame outside the checker)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if Path(f.filename).parent != Path(__file__).parent]
    where = f"{frames[-1].filename}, line {frames[-1].lineno}: " if frames else ""
    return (f"{where}the program raised {error!r:.100} {when}; "
            f"the checker re-derives nothing from a program that fails")


@contextlib.contextmanager
def silenced():
    """File descriptors 1 and 2 and ``sys.stdout``/``sys.stderr`` on ``os.devnull`` (a program's
    output must not reach the checker's, ``--json`` included), restored afterwards."""
    with contextlib.suppress(Exception):
        sys.stdout.flush(), sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(os.devnull, "w") as sink:
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def _check_language(path: Path, spec: dict) -> list[Path]:
    """The program file and its helper modules, after the language check
    (:func:`pufferfish_check.language.check_file`) — skipped for a program the model marks
    ``"trusted": true`` (the acceptance then states the assumption)."""
    if not path.is_file():  # before anything opens it: a named pipe would block the read
        raise BadInput(f"the program file {path} is not a regular file")
    if spec.get("trusted") is True:
        return [path]
    try:
        return [Path(p) for p in check_file(path, spec.get("function"))] or [path]
    except Refusal as refusal:
        raise Rejected(str(refusal)) from None


class Program:
    """A model's program: its files checked (:func:`_check_language`), their digest, and its
    bounds ``(found, left_out)`` per values read, cached in the process by that digest."""

    def __init__(self, model_folder: Path, spec: dict, threshold: Fraction) -> None:
        self.file, self.function = model_folder / spec["file"], spec["function"]
        self.arguments, self.threshold = dict(spec.get("arguments", {})), threshold
        self.loaded = None
        self.files = _check_language(self.file, spec)
        digest = hashlib.sha256()
        for path in self.files:
            digest.update(read_text(path, "program file", "utf-8").encode())
        self.digest = digest.hexdigest()

    def law(self, values: tuple) -> tuple[dict, Fraction]:
        cached = (self.digest, self.function, key(self.arguments), key(values), self.threshold)
        if cached not in _LAWS:
            with silenced():
                if self.loaded is None:
                    self.loaded = load_program(self.file, self.function)
                found, left_out, _ = Enumerator(self.threshold).law(self.loaded, values,
                                                                    self.arguments)
            _LAWS[cached] = found, left_out
        return _LAWS[cached]


def load_program(file: Path, function: str):
    """The function ``function`` of the program ``file``, imported with the stand-in module."""
    names = ("pufferfish", "pufferfish.models", "pufferfish.models.programs")
    saved = {name: sys.modules.get(name) for name in names}
    for name in names:
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__path__ = []
    for name, primitive in PRIMITIVES.items():
        setattr(sys.modules[names[2]], name, primitive)
    source = read_text(file, "program file", "utf-8")
    try:
        spec = importlib.util.spec_from_loader(f"_checked_{file.stem}", loader=None)
        module = importlib.util.module_from_spec(spec)
        module.__file__ = str(file)
        exec(compile(source, str(file), "exec"), module.__dict__)
    except BaseException as error:  # SystemExit, KeyboardInterrupt, ImportError, SyntaxError...
        raise Rejected(failure(error, "while it loads")) from None
    finally:
        for name, previous in saved.items():
            sys.modules.pop(name, None) if previous is None else sys.modules.update({name: previous})
    if not callable(getattr(module, function, None)):
        raise Rejected(f"cannot check: the program {file} has no function {function!r}")
    return getattr(module, function)
