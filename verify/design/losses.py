"""Loss functions of mechanism design: ``loss(q(D), ω) >= 0``, exact rationals.

* ``l1``: ``|ω − q(D)|``; ``l2``: ``(ω − q(D))²`` (numeric query values and outputs);
* ``01``: ``0`` when ``ω = q(D)``, else ``1`` (any values);
* a loss table file ``{"design_loss": 1, "loss": {"<q value>": {"<output>": "<rational>"}}}``:
  every (query value, output) pair the design meets must be listed, keys are the values as
  written by ``str`` (``"2"``, ``"a"``), numbers exact (``"1/2"``), never negative.

>>> loss_function("l1", [0, 1, 2], [0, 1, 2])(0, 2), loss_function("01", ["a"], ["a", "b"])("a", "b")
(Fraction(2, 1), Fraction(1, 1))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import exact, fraction_str

LOSS_NAMES = ("l1", "l2", "01")
"""The built-in losses; a table loss is read by :func:`read_loss_table`."""


@dataclass(frozen=True)
class Loss:
    """A named loss; ``table`` holds a table loss's entries (else ``None``)."""

    name: str
    function: Callable[[object, object], Fraction]
    table: dict | None = None

    def __call__(self, value: object, output: object) -> Fraction:
        return self.function(value, output)


def _numeric(values: Sequence, name: str, what: str) -> None:
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | Fraction):
            raise ModelError(f"the {name} loss needs numeric {what}, got {v!r}; use --loss 01 "
                             f"or a loss table", "--loss")


def loss_function(loss: str | Loss | None, values: Sequence, outputs: Sequence) -> Loss:
    """The loss named ``loss`` (default ``l1`` when query values and outputs are numeric, else
    ``01``), checked against the query values and outputs it will meet."""
    if isinstance(loss, Loss):
        if loss.table is not None:
            _check_table(loss.table, values, outputs)
        return loss
    if loss is None:
        numeric = all(not isinstance(v, bool) and isinstance(v, int | Fraction)
                      for v in list(values) + list(outputs))
        loss = "l1" if numeric else "01"
    if loss not in LOSS_NAMES:
        raise ModelError(f"unknown loss {loss!r}; use one of {list(LOSS_NAMES)} or a loss table",
                         "--loss")
    if loss in ("l1", "l2"):
        _numeric(values, loss, "query values")
        _numeric(outputs, loss, "outputs")
    if loss == "l1":
        return Loss("l1", lambda v, o: Fraction(abs(o - v)))
    if loss == "l2":
        return Loss("l2", lambda v, o: Fraction((o - v) ** 2))
    return Loss("01", lambda v, o: Fraction(0 if v == o else 1))


def read_loss_table(data: object, source: str = "the loss table") -> Loss:
    """A table loss from a decoded loss-table file (module docstring); located errors."""
    if not isinstance(data, dict) or data.get("design_loss") != 1:
        raise ModelError(f"{source}: a loss table starts with \"design_loss\": 1", "design_loss")
    body = data.get("loss")
    if not isinstance(body, dict) or not body:
        raise ModelError("expected an object query value -> output -> loss", "loss")
    extra = sorted(set(data) - {"design_loss", "loss", "description"})
    if extra:
        raise ModelError(f"unknown key {extra[0]!r}", extra[0])
    table: dict[str, dict[str, Fraction]] = {}
    for value, row in body.items():
        if not isinstance(row, dict) or not row:
            raise ModelError("expected an object output -> loss", f"loss.{value}")
        table[value] = {}
        for output, amount in row.items():
            number = exact(amount, f"loss.{value}.{output}")
            if number < 0:
                raise ModelError(f"a loss must be >= 0, got {fraction_str(number)}",
                                 f"loss.{value}.{output}")
            table[value][output] = number
    return Loss("table", lambda v, o: table[str(v)][str(o)], table)


def _check_table(table: dict, values: Sequence, outputs: Sequence) -> None:
    for v in dict.fromkeys(values):
        if str(v) not in table:
            raise ModelError(f"the loss table has no row for query value {v!r}", f"loss.{v}")
        for o in outputs:
            if str(o) not in table[str(v)]:
                raise ModelError(f"the loss table gives no loss for output {o!r}",
                                 f"loss.{v}.{o}")


__all__ = ["Loss", "LOSS_NAMES", "loss_function", "read_loss_table"]
