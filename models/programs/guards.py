"""Determinism of programs: the standard sources of randomness and time fail while a program runs.

The exact law of a program (:mod:`~pufferfish.models.programs.enumerate`) is a function of the
dataset only if every random choice goes through the toolkit's primitives: a draw from Python's
``random`` is taken by the replay as a fixed value, so a program that hides its randomness
there would be audited as deterministic — and a rare output that reveals the data could be
reported as private.  While a program's module is imported and while it runs,
:func:`deterministic` makes every standard source of randomness and of time raise
:class:`HiddenRandomness` in the thread that runs the program (other threads are unaffected):

* the functions of :mod:`random` and the methods of :class:`random.Random` and
  :class:`random.SystemRandom` that draw or seed (so creating a ``Random`` fails too);
* :func:`os.urandom`, :func:`os.getrandom`, :mod:`secrets`, ``uuid.uuid1``,
  ``uuid.uuid4``;
* the clocks of ``time`` (``time``, ``perf_counter``, ``monotonic``, ``process_time``,
  ``thread_time``, ``clock_gettime`` and their ``_ns`` forms, ``localtime``, ``gmtime``,
  ``ctime``) and ``datetime.now``/``utcnow``/``today``, ``date.today``;
* the functions and constructors of ``numpy.random`` when NumPy is loaded.

A library that the program imports may use them while it loads (seeding its own generator):
a call is refused when it comes from the program's code, not from a module being imported.

:class:`HiddenRandomness` derives from :class:`BaseException`, so a program's
``except Exception`` does not swallow it; a use is also recorded (:func:`first_use`), so a bare
``except:`` cannot hide it either.  This is a fault boundary against mistakes, not a security
sandbox: a program can reach the same sources by other paths (docs/programs.md, "What a program
may and may not do").

>>> import random
>>> with deterministic():
...     try:
...         random.random()
...     except HiddenRandomness as refusal:
...         print(str(refusal)[:48])
random.random is refused: a program draws random
>>> 0 <= random.random() < 1
True
"""

from __future__ import annotations

import datetime
import os
import random
import secrets
import sys
import threading
import time
import uuid
from contextlib import contextmanager

__all__ = ["HiddenRandomness", "deterministic", "patched", "refusing", "first_use"]

REASON = ("a program draws randomness only through the toolkit's primitives (coin, choice, "
          "uniform, exponential_mechanism, geometric, one_sided_geometric) and reads no clock: "
          "its exact law must be a function of the dataset")


class HiddenRandomness(BaseException):
    """A program used a source of randomness or time other than the toolkit's primitives."""

    def __init__(self, name: str, line: str) -> None:
        self.name, self.line = name, line
        super().__init__(f"{name} is refused: {REASON}")


_owner: int | None = None
_source: str | None = None
_patching = 0
_uses: list[HiddenRandomness] = []


def first_use() -> HiddenRandomness | None:
    """The first refused use since :func:`deterministic` was entered (even if the program caught
    it), or ``None``."""
    return _uses[0] if _uses else None


def _program_line() -> str:
    """``" at FILE, line N"`` for the innermost frame of the program's file (or, when it is not
    known, the innermost frame outside the standard modules that were patched)."""
    frame = sys._getframe(2)
    skipped = {os.path.realpath(m.__file__) for m in (random, secrets, uuid)
               if getattr(m, "__file__", None)}
    while frame is not None:
        name = frame.f_code.co_filename
        if (name == _source) if _source else (os.path.realpath(name) not in skipped
                                              and "numpy" not in name and name != __file__):
            return f" at {os.path.basename(name)}, line {frame.f_lineno}"
        frame = frame.f_back
    return ""


def _library_loading() -> bool:
    """Whether the call comes from a module being imported by the program (a library seeding its
    own generator as it loads), rather than from the program's own code: an import frame is met
    before any frame of the program's file."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if _source and name == _source:
            return False
        if name.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _guard(name: str, original):
    def refused(*args, **kwargs):
        if _owner != threading.get_ident() or _library_loading():
            return original(*args, **kwargs)
        use = HiddenRandomness(name, _program_line())
        _uses.append(use)
        raise use
    refused.__name__ = getattr(original, "__name__", name)
    refused.__wrapped__ = original
    return refused


def _guarded_class(name: str, original: type, methods: tuple[str, ...]) -> type:
    """A subclass of the C type ``original`` whose clock-reading class methods are refused."""
    namespace = {}
    for method in methods:
        plain = getattr(original, method)
        namespace[method] = classmethod(lambda cls, *a, _f=plain, _m=method, **k: (
            _f(*a, **k) if _owner != threading.get_ident() or _library_loading()
            else _refuse(f"{name}.{_m}")))
    return type(original.__name__, (original,), namespace)


def _refuse(name: str):
    use = HiddenRandomness(name, _program_line())
    _uses.append(use)
    raise use


_TIME = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
         "process_time", "process_time_ns", "thread_time", "thread_time_ns", "clock_gettime",
         "clock_gettime_ns", "localtime", "gmtime", "ctime")
_RANDOM_METHODS = ("random", "getrandbits", "randbytes", "seed")
_DATETIME = _guarded_class("datetime.datetime", datetime.datetime, ("now", "utcnow", "today"))
_DATE = _guarded_class("datetime.date", datetime.date, ("today",))


_BASE: list[tuple[object, str, str]] = []
_WRAPPERS: dict[tuple[int, str], tuple[object, object]] = {}  # (owner, name): (original, guard)
_LOCK = threading.RLock()


def _targets() -> list[tuple[object, str, str]]:
    """``(owner, attribute, public name)`` of every source refused."""
    if not _BASE:
        _BASE.extend((random, n, f"random.{n}") for n in random.__all__
                     if getattr(getattr(random, n, None), "__self__", None) is random._inst)
        _BASE.extend((cls, n, f"random.{cls.__name__}.{n}")
                     for cls in (random.Random, random.SystemRandom)
                     for n in _RANDOM_METHODS if hasattr(cls, n))
        _BASE.extend((os, n, f"os.{n}") for n in ("urandom", "getrandom") if hasattr(os, n))
        _BASE.extend((secrets, n, f"secrets.{n}") for n in ("token_bytes", "token_hex",
                                                            "token_urlsafe", "randbits",
                                                            "randbelow", "choice"))
        _BASE.extend((uuid, n, f"uuid.{n}") for n in ("uuid1", "uuid4"))
        _BASE.extend((time, n, f"time.{n}") for n in _TIME if hasattr(time, n))
    numpy = sys.modules.get("numpy")
    numpy_random = getattr(numpy, "random", None)  # NumPy loads its random module lazily
    if numpy_random is None:
        return _BASE
    return _BASE + [(numpy_random, n, f"numpy.random.{n}")
                    for n in getattr(numpy_random, "__all__", ())
                    if callable(getattr(numpy_random, n, None))]


def _wrapper(owner: object, attribute: str, name: str, current: object) -> object:
    """The guard of ``current``, made once."""
    key = (id(owner), attribute)
    made = _WRAPPERS.get(key)
    if made is None or made[0] is not current:
        made = _WRAPPERS[key] = (current, _guard(name, current))
    return made[1]


def _after_fork() -> None:
    """In a forked child: the lock and the owner are this process's own (the thread that held
    them in the parent does not exist here)."""
    global _LOCK, _owner, _source, _patching
    _LOCK, _owner, _source, _patching = threading.RLock(), None, None, 0


os.register_at_fork(after_in_child=_after_fork)


@contextmanager
def deterministic(source: str | None = None):
    """Refuse the sources of randomness and time in this thread inside the block (module
    docstring); ``source`` is the program's file name, for the line of a refusal.  The same as
    :func:`refusing` inside :func:`patched`."""
    with patched(), refusing(source):
        yield


@contextmanager
def patched():
    """The sources replaced by their guards inside the block, which refuse only inside
    :func:`refusing` (an engine runs a program many times: it patches once and refuses during
    each run).  Re-entrant in a thread; another thread waits for the block to end."""
    global _patching
    with _LOCK:  # one thread at a time has the sources patched
        _patching += 1
        if _patching > 1:
            try:
                yield
            finally:
                _patching -= 1
            return
        saved = []
        for owner, attribute, name in _targets():
            current = getattr(owner, attribute)
            own = owner.__dict__.get(attribute) if isinstance(owner, type) else current
            saved.append((owner, attribute, own))
            setattr(owner, attribute, _wrapper(owner, attribute, name, current))
        saved += [(datetime, "datetime", datetime.datetime), (datetime, "date", datetime.date)]
        datetime.datetime, datetime.date = _DATETIME, _DATE
        try:
            yield
        finally:
            _patching -= 1
            for owner, attribute, original in reversed(saved):
                if original is None:
                    delattr(owner, attribute)
                else:
                    setattr(owner, attribute, original)


@contextmanager
def refusing(source: str | None = None):
    """Inside :func:`patched`, make the guards refuse in this thread (a run of the program);
    re-entrant: an inner block changes nothing."""
    global _owner, _source
    if _owner == threading.get_ident():
        yield
        return
    _owner, _source = threading.get_ident(), source
    _uses.clear()
    try:
        yield
    finally:
        _owner = _source = None
