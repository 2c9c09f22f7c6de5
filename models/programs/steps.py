"""The declared-state (stepwise) form of a program, whose paths the engine may merge.

A plain program is opaque Python: two of its paths can only be proved to have the same future
by running them, so :func:`~pufferfish.models.programs.enumerate.program_distribution` runs
one path per decision sequence.  A program may in addition *declare* that it is a fold over its
dataset, ``output = finish(step(… step(start(D), 0, D[0]) …, n − 1, D[n − 1]))`` with
``n = len(D)`` (the arguments passed to each function as keywords):

* ``start(dataset, **arguments)`` returns the first state;
* ``step(state, i, entry, **arguments)`` returns the next state from the ``i``-th entry of the
  dataset (it may draw and compare);
* ``finish(state, **arguments)`` returns the output (it may draw and compare too).

A *state* is built from ``None``, ``bool``, ``int``, ``str``, ``Fraction``, tuples and lists of
them, and noisy values (:class:`~pufferfish.models.programs.noise.Noisy`); anything else is
refused.  :func:`stepwise` attaches the three functions to the plain program, which must compute
the same fold (it is what the other tools of the toolkit run; writing it as the loop
``state = start(D); for i, q in enumerate(D): state = step(state, i, q); return finish(state)``
makes the two forms one code)::

    @stepwise(start, step, finish)
    def rnm1(queries, alpha): ...

or, in a file that imports nothing but the primitives (the certificate checker loads program
files with a stand-in for :mod:`pufferfish.models.programs`), ``rnm1.stepwise = (start, step,
finish)`` after the function.

Why merging is sound.  After a step, what the rest of the run can depend on is (1) the state's
Python part, (2) the values of the noise variables the state refers to (the *live* ones), and
(3) nothing else: a step receives only the state, the index, that entry and the arguments,
``finish`` only the state and the arguments (a step that keeps hidden state between calls breaks the declaration as a plain
program that keeps state between runs breaks the engine's; the same checks look for it).  The
noise variables no live value refers to can never be compared again, so the constraints on them
can be summed out: on a forest of comparisons (the engine's invariant), if no two live
variables share a tree, the path's probability of reaching the state with live values ``x`` is
``w · Π_v f_v(x_v)`` with ``f_v`` the belief of ``v``'s tree rooted at ``v`` (the sum-product
algorithm of Kschischang, Frey and Loeliger, Factor Graphs and the Sum-Product Algorithm, as in
:mod:`~pufferfish.models.programs.constraints`) and
``w`` the weight of finite draws times the mass of the trees without a live variable.  Two
paths with equal :func:`state_key` (equal Python values of the same types, noisy values at the
same places with the same signs and offsets) and equal factors except that of the last live
variable therefore have the same future as functions of ``x``, and the law of that future is
linear in the density: they are one node whose last factor is ``w₁f₁ + w₂f₂``.  They are merged
only when the supports of ``f₁`` and ``f₂`` (intervals on which each is positive: bound
consistency on a forest of laws of full support) meet or adjoin, so the merged factor is
positive on its whole interval too and the engine keeps exploring only outcomes of positive
probability, as the plain form does.  A state whose live variables share a tree
is not a product; the engine then falls back to the plain form (the result is the same, only
slower).  Since a step sees no more than its node, its index and its entry, what it does from a
node is also memoised across datasets: datasets that share a prefix share the steps of that
prefix.

Cost: per step, one run of ``step`` per decision sequence *within the step* from each distinct
node, instead of one run of the whole program per path.  Report-noisy-max's state after step
``i`` is the index of the best answer so far and its noisy value: ``i + 1`` nodes, ``O(m²)``
step runs in all instead of ``2^(m−1)`` runs of ``m`` steps.

>>> from pufferfish.models.programs import geometric, program_distribution
>>> def start(data): return 0
>>> def step(count, i, answer): return count + (answer + geometric("1/2") >= 1)
>>> def finish(count): return count
>>> @stepwise(start, step, finish)
... def above(data):
...     count = start(data)
...     for i, answer in enumerate(data):
...         count = step(count, i, answer)
...     return finish(count)
>>> program_distribution(above, (0, 1, 2))
Distribution({3: 5/27, 2: 1/2, 1: 5/18, 0: 1/27})
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from pufferfish.models.programs.noise import Noisy

__all__ = ["Stepwise", "stepwise", "state_key", "rebuilt_state"]


class Stepwise:
    """The three functions of a program's declared-state form (module docstring)."""

    __slots__ = ("start", "step", "finish")

    def __init__(self, start: Callable, step: Callable, finish: Callable) -> None:
        self.start, self.step, self.finish = start, step, finish


def stepwise(start: Callable, step: Callable, finish: Callable) -> Callable:
    """A decorator declaring the stepwise form of a plain program (module docstring): it sets
    the program's ``stepwise`` attribute and returns the program itself."""
    def declare(program: Callable) -> Callable:
        program.stepwise = Stepwise(start, step, finish)
        return program
    return declare


_PLAIN = (type(None), bool, int, str, Fraction)


def state_key(value: object, run: object, live: list[int]) -> tuple:
    """A hashable key of a state in which equal keys mean interchangeable states: plain values
    tagged with their exact type, noisy values by the place of their variables in ``live`` (the
    run's variables in order of first appearance, appended to as found), sign and offset.
    ``TypeError`` for a value outside the state grammar (module docstring).  Cost: linear in the
    size of the state."""
    kind = type(value)
    if kind in _PLAIN:
        return (kind.__name__, value)
    if kind is tuple or kind is list:
        return (kind.__name__, tuple(state_key(item, run, live) for item in value))
    if kind is Noisy:
        if value.run is not run:
            raise TypeError("a noisy value of another run in the state")
        form = value.shape()
        if form[0] == "number":
            return state_key(value.offset, run, live)
        places = []
        for variable in form[2:]:
            if variable not in live:
                live.append(variable)
            places.append(live.index(variable))
        return ("Noisy", form[1], tuple(places), type(value.offset).__name__, value.offset,
                value.continuous)
    raise TypeError(f"the state of a stepwise program may hold only None, booleans, integers, "
                    f"strings, Fractions, tuples, lists and noisy values, not "
                    f"{kind.__name__}")


def rebuilt_state(key: tuple, run: object, variables: list[int]) -> object:
    """The state of ``key`` (:func:`state_key`) with its noisy values on ``run``'s
    ``variables`` (one per place), fresh lists included."""
    kind = key[0]
    if kind == "tuple":
        return tuple(rebuilt_state(item, run, variables) for item in key[1])
    if kind == "list":
        return [rebuilt_state(item, run, variables) for item in key[1]]
    if kind == "Noisy":
        _, coefficient, places, _, offset, continuous = key
        terms = {variables[places[0]]: coefficient}
        if len(places) == 2:
            terms[variables[places[1]]] = -coefficient
        return Noisy.linear(terms, offset, run, continuous)
    return key[1]
