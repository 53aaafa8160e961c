"""`dispatch(consumer, event)`: the one way an event reaches a consumer's `on_<kind>`."""

from __future__ import annotations

from agent_tui.protocol.dispatch import ALL_KINDS, TOOL_CALL_KINDS, UNHANDLED, dispatch
from agent_tui.protocol.events import EVENT_TYPES, Notice, TextDelta


def test_all_kinds_are_the_event_vocabulary() -> None:
    assert set(EVENT_TYPES) == ALL_KINDS
    assert TOOL_CALL_KINDS <= ALL_KINDS


def test_the_tool_call_kinds_are_those_that_name_a_call() -> None:
    import dataclasses

    named = {
        k
        for k, c in EVENT_TYPES.items()
        if "tool_use_id" in {f.name for f in dataclasses.fields(c)}
    }
    assert named == TOOL_CALL_KINDS


def test_dispatch_calls_the_handler_of_the_kind_with_its_arguments() -> None:
    seen: list[tuple[object, ...]] = []

    class Consumer:
        def on_notice(self, event: Notice, now: float) -> str:
            seen.append((event, now))
            return "drawn"

    notice = Notice("info", "hello")
    assert dispatch(Consumer(), notice, 1.5) == "drawn"
    assert seen == [(notice, 1.5)]
    assert dispatch(Consumer(), TextDelta(0, "x")) is UNHANDLED
