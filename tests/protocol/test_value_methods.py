"""Events' and the session records' equality, hash and repr are written once on `Value` (each
class is `eq=False, repr=False`, so its import compiles fewer methods): they must be the ones a
dataclass makes."""

from __future__ import annotations

import dataclasses
import operator

import pytest

from agent_tui.protocol import events as ev
from agent_tui.protocol.values import Value
from agent_tui.sessions import records


def _value_classes() -> list[type[Value]]:
    found: list[type[Value]] = []
    todo: list[type[Value]] = [ev.Event, *Value.__subclasses__()]
    while todo:
        cls = todo.pop()
        if cls not in found:
            found.append(cls)
            todo.extend(cls.__subclasses__())
    return sorted(found, key=lambda c: c.__name__)


def _event_classes() -> list[type[Value]]:
    return [c for c in _value_classes() if issubclass(c, ev.Event)]


def test_the_records_and_events_are_values() -> None:
    names = {c.__name__ for c in _value_classes()}
    assert {"SessionInfo", "StoredMessage", "StoredEvent", "ToolRun", "TurnRecord"} <= names
    assert {"SearchHit", "Event", "ToolFinished"} <= names
    assert records.SessionInfo in _value_classes()


def _twin(cls: type[Value]) -> type:
    """The same fields as a plain frozen dataclass: what Python generates for them."""
    fields = [(f.name, object) for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(cls.__qualname__, fields, frozen=True)


def _values(cls: type[Value], tag: str) -> dict[str, str]:
    return {f.name: f"{tag}-{f.name}" for f in dataclasses.fields(cls)}


@pytest.mark.parametrize("cls", _value_classes(), ids=lambda c: c.__name__)
def test_value_methods_are_a_dataclass_s(cls: type[Value]) -> None:
    twin = _twin(cls)
    a, b = cls(**_values(cls, "a")), cls(**_values(cls, "a"))
    assert repr(a) == repr(twin(**_values(cls, "a")))
    assert a == b and hash(a) == hash(b) == hash(twin(**_values(cls, "a")))
    assert operator.ne(a, b) is False  # `!=` too, as a dataclass's
    for name in _values(cls, "a"):  # any one field differs: not equal
        other = cls(**{**_values(cls, "a"), name: "changed"})
        assert a != other and operator.eq(a, other) is False
    for name in _values(cls, "a"):  # still frozen
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(a, name, "x")


def test_events_of_different_classes_with_the_same_fields_differ() -> None:
    twins = [(c, d) for c in _event_classes() for d in _event_classes() if c is not d]
    pairs = [
        (c, d)
        for c, d in twins
        if [f.name for f in dataclasses.fields(c)] == [f.name for f in dataclasses.fields(d)]
    ]
    assert pairs, "Event and the field-less events share their (no) fields"
    for c, d in pairs:
        assert c(**_values(c, "a")) != d(**_values(d, "a"))


def test_an_event_with_an_unhashable_field_fails_to_hash_as_a_dataclass_does() -> None:
    holder = next(
        c for c in _event_classes() if any(f.default_factory is list for f in dataclasses.fields(c))
    )
    event = holder(**{f.name: [] for f in dataclasses.fields(holder)})
    twin = _twin(holder)(**{f.name: [] for f in dataclasses.fields(holder)})
    with pytest.raises(TypeError):
        hash(twin)
    with pytest.raises(TypeError):
        hash(event)
