"""`Value`: the equality, hash and repr a frozen dataclass would generate, written once.

On Python 3.11 a dataclass compiles each method it generates with an `exec` of its own: a module
of many small frozen records spent half its import doing it, on the way to a resumed session's
first frame (BENCHMARKS.md). Its classes are declared
`@dataclass(frozen=True, slots=True, eq=False, repr=False)` and inherit these instead.
"""

from __future__ import annotations

import dataclasses
from typing import Any


class Value:
    """Base of frozen dataclasses declared `eq=False, repr=False`: equal when of the same class
    with equal compared fields, hashed by them, shown by them, as `@dataclass(frozen=True)`
    would make them (tests/protocol/test_value_methods.py holds them to it)."""

    __slots__ = ()

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Value)
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        shown = (f"{f.name}={getattr(self, f.name)!r}" for f in fields if f.repr)
        return f"{type(self).__qualname__}({', '.join(shown)})"
