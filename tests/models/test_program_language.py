"""The program language (pufferfish_check/language.py, models/programs/language.py): hostile
programs — every channel by which a program could keep state between runs, draw hidden
randomness or reach the toolkit — are refused before they run, with the file, the line, the
construct and (for honest mistakes) what to write instead; with ``trusted`` they run as before;
every shipped program passes."""

from __future__ import annotations

import functools
import glob
import random
from fractions import Fraction
from pathlib import Path

import pytest

import pufferfish.models.programs as programs
from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError
from pufferfish.models.programs import (Limits, ProgramError, ProgramMechanism, coin, geometric,
                                        load_program)
from pufferfish.models.programs.language import check_module, frozen_arguments
from pufferfish.models.programs.steps import stepwise
from pufferfish_check.language import PRIMITIVES, Refusal, check_file, check_source

FAST = Limits(cpu_seconds=5, grace_seconds=1)
HOSTILE_DIR = Path(__file__).parent / "hostile"

# (name, program text, line of the refusal, what the message names, what it says to write)
HOSTILE = [
    ("c_generator", "from _random import Random\ndef f(data):\n    return Random().random() < .5\n",
     1, "from _random import", None),
    ("random_module", "import random\ndef f(data):\n    return random.random() < 0.5\n",
     1, "import random", "from pufferfish.models.programs import coin"),
    ("random_wrapped", "from pufferfish.models.programs import coin\n\ndef f(data):\n"
     "    return coin.__wrapped__\n", 4, "the attribute .__wrapped__", None),
    ("dev_urandom", "def f(data):\n    return open('/dev/urandom', 'rb').read(1)[0] % 2\n",
     2, "open()", "an argument"),
    ("thread", "import threading\ndef f(data):\n    return 0\n", 1, "import threading", None),
    ("os_times", "from os import times\ndef f(data):\n    return int(times()[0]) % 2\n",
     1, "from os import", None),
    ("os_getpid", "import os\ndef f(data):\n    return os.getpid() % 2\n", 1, "import os", None),
    ("hash_string", "def f(data):\n    x = 1\n    return hash('a' + str(x)) % 2\n",
     3, "hash()", "a comparison or a sort of the values"),
    ("set_order", "def f(data):\n    for x in {'a', 'b', 'c'}:\n        return x\n",
     2, "a set literal", "a tuple, a sorted list or dict.fromkeys"),
    ("set_call", "def f(data):\n    out = []\n    for x in set(('a', 'b')):\n"
     "        out.append(x)\n    return out\n", 3, "set()", "a tuple, a sorted list"),
    ("set_comprehension", "def f(data):\n    return list({str(x) for x in data})\n",
     2, "a set comprehension", "dict.fromkeys"),
    ("frozenset", "def f(data):\n    return sorted(frozenset(data))\n", 2, "frozenset()", None),
    ("dict_view_set", "def f(data):\n    a = {'x': 1}\n    k = a.keys()\n"
     "    return list(k & {'y': 2}.keys())\n", 3, ".keys() outside a loop", "list(d.keys())"),
    ("reloaded_helper", "import importlib\ndef f(data):\n    return 0\n", 1, "import importlib",
     None),
    ("reload_function", "from importlib import reload\ndef f(data):\n    return 0\n", 1,
     "from importlib import", None),
    ("mutable_default", "from pufferfish.models.programs import coin\n\n"
     "def f(data, calls=[]):\n    calls.append(1)\n    return len(calls) % 2\n", 3,
     "a mutable default argument", "None and build the list inside the function"),
    ("dict_default", "def f(data, seen={}):\n    return 0\n", 1, "a mutable default argument",
     None),
    ("module_counter", "COUNT = [0]\n\ndef f(data):\n    COUNT[0] += 1\n    return COUNT[0]\n",
     1, "a module-level list, dict or set", "a tuple or another constant"),
    ("module_cache", "CACHE = {}\ndef f(data):\n    return CACHE.setdefault(data, len(CACHE))\n",
     1, "a module-level list, dict or set", "build it in the function"),
    ("itertools_count", "from itertools import count\nTICKS = count()\n"
     "def f(data):\n    return next(TICKS) % 2\n", 1, "from itertools import count", None),
    ("module_call", "TICKS = iter(range(10))\ndef f(data):\n    return 0\n", 1,
     "a module-level value that is not a constant", None),
    ("toolkit_private", "import pufferfish.models.programs.enumerate as engine\n"
     "def f(data):\n    return 0\n", 1, "import pufferfish.models.programs.enumerate", None),
    ("toolkit_engine", "from pufferfish.models.programs import program_distribution\n"
     "def f(data):\n    return 0\n", 1, "from pufferfish.models.programs import "
     "program_distribution", None),
    ("replace_engine", "from pufferfish.models.programs import coin\n"
     "def cheat(p='1/2'):\n    return True\ncoin.__code__ = cheat.__code__\n"
     "def f(data):\n    return coin()\n", 4, "assignment to the attribute .__code__", None),
    ("globals", "def f(data):\n    g = globals()\n    return 0\n", 2, "globals()", None),
    ("getattr_builtins", "def f(data):\n    return getattr(__builtins__, 'hash')('a') % 2\n",
     2, "getattr()", None),
    ("builtins_name", "def f(data):\n    b = __builtins__\n    return 0\n", 2,
     "the name __builtins__", None),
    ("dunder_import", "def f(data):\n    return __import__('os').getpid() % 2\n", 2,
     "the name __import__", None),
    ("exec", "def f(data):\n    exec('x = 1')\n    return 0\n", 2, "exec()", None),
    ("eval", "def f(data):\n    return eval('1')\n", 2, "eval()", None),
    ("subclasses", "def f(data):\n    return len(type(()).__subclasses__())\n", 2,
     "type()", None),
    ("class_base", "def f(data):\n    return ().__class__.__base__\n", 2,
     "the attribute .__class__", None),
    ("defaults", "def g(x, acc=()):\n    return x\n\ndef f(data):\n    return g.__defaults__\n",
     5, "the attribute .__defaults__", None),
    ("nonlocal", "def f(data):\n    n = 0\n    def bump():\n        nonlocal n\n"
     "        n += 1\n    bump()\n    return n\n", 4, "nonlocal", "a return of the value"),
    ("global", "RUNS = 0\ndef f(data):\n    global RUNS\n    RUNS += 1\n    return RUNS % 2\n",
     3, "global", None),
    ("try_swallow", "from pufferfish.models.programs import coin\ndef f(data):\n    try:\n"
     "        return coin()\n    except BaseException:\n        return 0\n", 3, "try",
     "an if that tests the condition"),
    ("generator", "def f(data):\n    yield data[0]\n", 2, "yield", "a function that returns"),
    ("lru_cache", "from functools import lru_cache\ndef f(data):\n    return 0\n", 1,
     "from functools import lru_cache", "reduce"),
    ("decorator", "def keep(g):\n    return g\n\n@keep\ndef f(data):\n    return 0\n", 5,
     "a decorator", "a plain def"),
    ("class_state", "class Counter:\n    n = 0\ndef f(data):\n    return 0\n", 1, "a class",
     None),
    ("print", "def f(data):\n    print(data)\n    return data[0]\n", 2, "print()",
     "return it instead"),
    ("input", "def f(data):\n    return input()\n", 2, "input()", None),
    ("sys", "import sys\ndef f(data):\n    return len(sys.argv)\n", 1, "import sys", None),
    ("environ", "from os import environ\ndef f(data):\n    return 'X' in environ\n", 1,
     "from os import", None),
    ("time", "import time\ndef f(data):\n    return int(time.time()) % 2\n", 1, "import time",
     None),
    ("datetime", "from datetime import datetime\ndef f(data):\n    return 0\n", 1,
     "from datetime import", None),
    ("id", "def f(data):\n    return id(data) % 2\n", 2, "id()", "=="),
    ("vars", "def f(data):\n    return len(vars())\n", 2, "vars()", None),
    ("dir", "def f(data):\n    return len(dir())\n", 2, "dir()", None),
    ("str_format", "def f(data):\n    return '{0.__class__}'.format(data)\n", 2, ".format",
     "an f-string"),
    ("format_map", "def f(data):\n    return '{x}'.format_map({'x': 1})\n", 2, ".format_map",
     None),
    ("fstring_dunder", "def f(data):\n    return f'{data.__class__}'\n", 2,
     "the attribute .__class__", None),
    ("function_attribute", "def f(data):\n    return 0\nf.calls = 0\n", 3,
     "assignment to the attribute .calls", None),
    ("attribute_in_run", "def g():\n    return 0\ndef f(data):\n    g.calls = 1\n    return 0\n",
     4, "assignment to the attribute .calls", "a local variable"),
    ("primitive_attribute", "from pufferfish.models.programs import geometric\n"
     "def f(data):\n    return geometric.cache\n", 3, "the attribute .cache of geometric", None),
    ("unknown_attribute", "def f(data):\n    return data.run\n", 2, "the attribute .run", None),
    ("math_dict", "import math\ndef f(data):\n    return math.__dict__\n", 3,
     "the attribute .__dict__", None),
    ("with", "def f(data):\n    with open('x') as h:\n        return 0\n", 2, "with", None),
    ("async", "async def f(data):\n    return 0\n", 1, "a module-level asyncfunctiondef", None),
    ("lambda_default", "def f(data):\n    g = lambda x, acc=[]: acc\n    return 0\n", 2,
     "a mutable default argument", None),
    ("is_identity", "def f(data):\n    return (data[0] + 1000) is (data[0] + 1000)\n", 2,
     "'is' between values", "=="),
    ("del_name", "def f(data):\n    x = 1\n    del x\n    return 0\n", 3, "del of this target",
     None),
    ("raise_exit", "def f(data):\n    raise SystemExit(0)\n", 2, "raise of this exception", None),
    ("main_block", "def f(data):\n    return 0\n\nif __name__ == '__main__':\n    f(0)\n", 4,
     "a module-level if", "it inside a function"),
    ("module_loop", "for i in range(3):\n    pass\ndef f(data):\n    return 0\n", 1,
     "a module-level for", None),
    ("star_import", "from math import *\ndef f(data):\n    return 0\n", 1, "this import from math",
     None),
    ("relative_import", "from . import helper\ndef f(data):\n    return 0\n", 1,
     "this import from", None),
    ("dunder_binding", "__builtins__ = {}\ndef f(data):\n    return 0\n", 1,
     "the name __builtins__", None),
    ("annotation_effect", "def f(data: print('loaded')):\n    return 0\n", 1, "print()", None),
    ("match", "def f(data):\n    match data:\n        case _:\n            return 0\n", 2,
     "'match'", None),
    ("comprehension_shadow", "def f(data):\n    y = [0 for hash in data]\n"
     "    return hash('a') % 2\n", 3, "hash()", None),
    ("bad_stepwise", "STEP = 1\ndef f(data):\n    return 0\nf.stepwise = (f, STEP, f)\n", 4,
     "assignment to the attribute .stepwise", "f.stepwise = (start, step, finish)"),
    ("missing_helper", "from nothere import g\ndef f(data):\n    return g()\n", 1,
     "from nothere import", "HELPER.py next to the program"),
]


def _write(tmp_path, name, text, helpers=None):
    for helper, source in (helpers or {}).items():
        (tmp_path / f"{helper}.py").write_text(source)
    (tmp_path / f"{name}.py").write_text(text)
    return f"{name}.py"


def test_the_hostile_suite_is_large():
    assert len(HOSTILE) >= 45 and len({case[0] for case in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize("name, text, line, construct, instead", HOSTILE,
                         ids=[case[0] for case in HOSTILE])
def test_a_hostile_program_is_refused_at_its_line(tmp_path, name, text, line, construct,
                                                  instead):
    file = _write(tmp_path, name, text)
    with pytest.raises(Refusal) as refused:
        check_source(text, str(tmp_path / file))
    refusal = refused.value
    assert refusal.line == line, str(refusal)
    assert construct in refusal.construct, str(refusal)
    assert f"{file}, line {line}: " in str(refusal) and "is not allowed in a program: " in str(
        refusal)
    if instead is not None:
        assert instead in refusal.instead and f"; write {refusal.instead}" in str(refusal)
    # through a model file: before anything of it runs, a ModelError at the program's path
    with pytest.raises(ModelError, match=rf"{file}, line {line}: ") as error:
        load_program(file, "f", tmp_path, "mechanisms.m.program")
    assert error.value.path == "mechanisms.m.program.file"
    assert "trusted" in str(error.value)


@pytest.mark.parametrize("name", ["mutable_default", "module_counter", "hash_string",
                                  "set_order", "print", "nonlocal", "global", "replace_engine",
                                  "generator", "function_attribute", "dict_view_set"])
def test_with_trusted_the_language_is_skipped_and_the_program_runs_as_before(tmp_path, name):
    text = dict((case[0], case[1]) for case in HOSTILE)[name]
    file = _write(tmp_path, name, text)
    program = load_program(file, "f", tmp_path, limits=FAST, trusted=True)
    mechanism = ProgramMechanism("m", program, limits=FAST, trusted=True,
                                 source=(str(tmp_path / file), "f"))
    assert mechanism.trusted and mechanism.to_dict()["program"]["trusted"] is True
    try:
        mechanism.distribution((0,))
    except ProgramError as error:  # a run-time check of the boundary, not the language
        assert "is not allowed in a program" not in str(error)
    finally:
        program.worker(FAST).close()


def test_the_same_refused_file_loads_with_trusted_and_reports_holds_as_before(tmp_path):
    """The motivating case: a counter in a mutable default makes the law look constant."""
    text = dict((case[0], case[1]) for case in HOSTILE)["mutable_default"]
    file = _write(tmp_path, "counter", text)
    with pytest.raises(ModelError, match="a mutable default argument"):
        load_program(file, "f", tmp_path)
    assert callable(load_program(file, "f", tmp_path, trusted=True))


def test_a_hostile_helper_module_is_refused_in_its_own_file_and_line(tmp_path):
    file = _write(tmp_path, "main", "from helper import flip\ndef f(data):\n    return flip()\n",
                  {"helper": "from pufferfish.models.programs import coin\nimport random\n"
                             "def flip():\n    return random.random() < 0.5\n"})
    with pytest.raises(ModelError, match=r"helper.py, line 2: import random is not allowed"):
        load_program(file, "f", tmp_path, "mechanisms.m.program")
    with pytest.raises(Refusal, match="helper.py, line 2"):
        check_file(tmp_path / file)


def test_a_helper_that_keeps_state_is_refused(tmp_path):
    file = _write(tmp_path, "main", "from state import bump\ndef f(data):\n    return bump()\n",
                  {"state": "SEEN = []\ndef bump():\n    SEEN.append(1)\n    return len(SEEN)\n"})
    with pytest.raises(ModelError, match=r"state.py, line 1: a module-level list"):
        load_program(file, "f", tmp_path)


def test_an_honest_helper_module_is_checked_and_imported_from_its_checked_text(tmp_path):
    file = _write(tmp_path, "main", "from flips import flip, KEEP\ndef f(data):\n"
                                    "    return data[0] if flip(KEEP) else 1 - data[0]\n",
                  {"flips": "from fractions import Fraction\n"
                            "from pufferfish.models.programs import coin\n"
                            "KEEP = Fraction(3, 4)\n"
                            "def flip(p):\n    return coin(p)\n"})
    assert [p.name for p in check_file(tmp_path / file, "f")] == ["main.py", "flips.py"]
    mechanism = ProgramMechanism("m", load_program(file, "f", tmp_path))
    assert mechanism.distribution((1,)).prob(1) == Fraction(3, 4)
    with pytest.raises(Refusal, match="flips defines no constant or function missing"):
        check_source("from flips import missing\n", str(tmp_path / "other.py"))


def test_honest_programs_in_the_language_pass():
    check_source("from fractions import Fraction\nfrom math import floor\nimport math\n"
                 "from itertools import product\nfrom functools import reduce\n"
                 "from pufferfish.models.programs import coin, EPSILON, EpsilonSymbol\n"
                 "HALF = Fraction(1, 2)\nTABLE = (1, 2, -3 * 4)\nTAU = math.tau\n"
                 "__all__ = ['f']\n"
                 "def f(data, k=2, name='x', p=HALF):\n"
                 "    order = list(dict.fromkeys(str(v) for v in data))\n"
                 "    pairs = {a: 2 * a for (a,) in product(range(k))} if k else {}\n"
                 "    total = reduce(lambda a, b: a + b, data, 0)\n"
                 "    for key, value in sorted(pairs.items()):\n"
                 "        total += value\n"
                 "    if (n := len(order)) > 1 and data is not None:\n"
                 "        total += floor(math.sqrt(n))\n"
                 "    assert isinstance(p, Fraction)\n"
                 "    out = [x for x in data if x] + [TABLE.index(1)]\n"
                 "    del out[0:]\n"
                 "    return f'{name}{total}' if coin(p) else ', '.join(order)\n", "honest.py")


def test_check_file_with_a_function_needs_that_function(tmp_path):
    file = _write(tmp_path, "p", "def f(data):\n    return 0\n")
    with pytest.raises(Refusal, match="a program without g()"):
        check_file(tmp_path / file, "g")


# --- functions given from Python --------------------------------------------------------------

_CACHE: dict = {}


def _cached(data):
    return _CACHE.setdefault(data, len(_CACHE))


def _hashing(data):
    return hash(str(data)) % 2


def _calls_hashing(data):
    return _hashing(data)


def _remember(data, seen=[]):  # noqa: B006 (the hostile case)
    seen.append(data)
    return len(seen)


def _plain(data):
    return data[0]


def _wrapped():
    @functools.wraps(_plain)
    def wrapper(data):
        return random.random() < 0.5
    return wrapper


def _closure_counter():
    calls = []

    def counted(data):
        calls.append(1)
        return len(calls) % 2
    return counted


_noted = _plain.__class__(_plain.__code__, {})  # a copy to which an attribute is set
_noted.calls = 0

PYTHON = [
    ("closure_counter", _closure_counter(), "the name calls (a list defined outside"),
    ("module_dict", _cached, "the name _CACHE (a dict defined outside"),
    ("hash_in_helper", _calls_hashing, "hash()"),
    ("mutable_default", _remember, "a mutable default argument of _remember"),
    ("wraps", _wrapped(), "the attribute .__wrapped__ of wrapper"),
    ("lru_cache", functools.lru_cache(_plain), "only a plain Python function can be checked"),
    ("function_attribute", _noted, "the attribute .calls of _plain"),
    ("random_lambda", lambda data: random.random() < 0.5, "the name random (a module defined"),
    ("builtin", len, "only a plain Python function"),
]


@pytest.mark.parametrize("name, function, construct", PYTHON, ids=[c[0] for c in PYTHON])
def test_a_hostile_function_given_from_python_is_refused(name, function, construct):
    with pytest.raises(ModelError, match="is not allowed in a program") as refused:
        ProgramMechanism(name, function)
    assert construct in str(refused.value) and refused.value.path == f"mechanisms.{name}"
    mechanism = ProgramMechanism(name, function, trusted=True)  # the way out: not checked
    assert mechanism.trusted


def test_a_refusal_of_a_function_names_its_file_and_line():
    with pytest.raises(ModelError, match=r"test_program_language.py, line \d+: hash\(\)") as error:
        ProgramMechanism("h", _calls_hashing)
    line = int(str(error.value).split(", line ")[1].split(":")[0])
    assert "hash(" in Path(__file__).read_text().splitlines()[line - 1]


def test_a_function_without_source_is_refused_with_the_way_out():
    namespace: dict = {}
    exec("def built(data):\n    return data[0]\n", namespace)
    with pytest.raises(ModelError, match="its source is not available.*trusted=True"):
        ProgramMechanism("built", namespace["built"])
    assert ProgramMechanism("built", namespace["built"], trusted=True).distribution((1,)).prob(
        1) == 1


def test_honest_functions_lambdas_closures_and_the_stepwise_decorator_pass():
    keep = Fraction(3, 4)

    def randomized(data):
        return data[0] if coin(keep) else 1 - data[0]

    def start(data):
        return 0

    def step(count, i, answer):
        return count + (answer + geometric("1/2") >= 1)

    def finish(count):
        return count

    @stepwise(start, step, finish)
    def above(data):
        count = start(data)
        for i, answer in enumerate(data):
            count = step(count, i, answer)
        return finish(count)

    assert ProgramMechanism("rr", randomized).distribution((1,)).prob(1) == keep
    first = ProgramMechanism("first", lambda data: data[0] if coin("3/4") else 1 - data[0])
    assert first.distribution((0,)).prob(0) == Fraction(3, 4)
    assert ProgramMechanism("above", above).distribution((0, 1)).prob(0) > 0
    assert not first.trusted


def test_arguments_are_frozen_so_a_run_cannot_leave_state_in_them():
    def grows(data, seen):
        seen.append(1)
        return len(seen)

    with pytest.raises(ProgramError, match="'tuple' object has no attribute 'append'"):
        ProgramMechanism("g", grows, {"seen": []}, isolate=False).distribution((0,))
    assert frozen_arguments({"t": {"a": [1]}}, "m") == {"t": {"a": (1,)}}
    with pytest.raises(ModelError, match="a set.*sorted list"):
        ProgramMechanism("s", _plain, {"names": {"a", "b"}})
    with pytest.raises(TypeError, match="cannot be changed"):
        frozen_arguments({"t": {"a": 1}}, "m")["t"]["b"] = 2


def test_the_runtime_check_of_the_imported_module_refuses_what_slipped_through(tmp_path):
    import types

    module = types.ModuleType("m")
    module.__file__ = str(tmp_path / "m.py")
    module.SEEN = []
    with pytest.raises(ModelError, match="its global 'SEEN' is a list"):
        check_module(module, {str(tmp_path / "m.py"): ""}, "mechanisms.m.program.file")
    module.SEEN = (1, "a", Fraction(1, 2))
    module.coin = coin
    check_module(module, {str(tmp_path / "m.py"): ""}, "")


def test_the_trusted_key_round_trips_through_a_model_file(tmp_path):
    import json

    import pufferfish

    (tmp_path / "p.py").write_text("import random\ndef f(data):\n    return data[0]\n")
    model = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
             "priors": {"u": {"uniform": True}}, "secrets": {}, "entry_pairs": True,
             "mechanisms": {"m": {"program": {"file": "p.py", "function": "f"}}}}
    (tmp_path / "m.json").write_text(json.dumps(model))
    with pytest.raises(ModelError, match="mechanisms.m.program.file: .*import random"):
        pufferfish.load(tmp_path / "m.json")
    model["mechanisms"]["m"]["program"]["trusted"] = True
    (tmp_path / "m.json").write_text(json.dumps(model))
    mechanism = pufferfish.load(tmp_path / "m.json").mechanisms["m"]
    assert mechanism.trusted and mechanism.to_dict()["program"]["trusted"] is True
    model["mechanisms"]["m"]["program"]["trusted"] = "yes"
    (tmp_path / "m.json").write_text(json.dumps(model))
    with pytest.raises(ModelError, match="trusted"):
        pufferfish.load(tmp_path / "m.json")


# --- every shipped program passes -------------------------------------------------------------

SHIPPED = sorted(p for p in glob.glob(str(example_path("quickstart.json").parent / "**" / "*.py"),
                                      recursive=True) if not p.endswith("__init__.py"))


@pytest.mark.parametrize("path", SHIPPED, ids=[Path(p).name for p in SHIPPED])
def test_every_shipped_program_passes(path):
    assert check_file(path)[0] == Path(path)


def test_the_primitives_are_what_the_package_exports_as_draws():
    engine = {"ExpNumber", "Noisy", "ProgramError", "program_distribution", "EngineError",
              "ProgramMechanism", "ProgramFile", "load_program", "Limits", "DEFAULT_MAX_STEPS",
              "DEFAULT_MAX_RUNS", "DEFAULT_MAX_DEPTH"}
    assert PRIMITIVES == set(programs.__all__) - engine
    assert all(hasattr(programs, name) for name in PRIMITIVES)


def test_no_allowed_attribute_reaches_a_noisy_value_internals():
    from pufferfish.models.programs.noise import EpsilonSymbol, Noisy
    from pufferfish_check.language import ATTRIBUTES

    public = {n for cls in (Noisy, EpsilonSymbol) for n in dir(cls) if not n.startswith("_")}
    assert not public & ATTRIBUTES
