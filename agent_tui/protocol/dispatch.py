"""One dispatch style for domain events: `dispatch(consumer, event)` calls the consumer's
`on_<kind>` handler (`kind` is the event class's snake_case name, `ToolFinished` ->
`on_tool_finished`), with any further arguments, and returns what it returns.

A consumer says what it does with every kind: it handles it (an `on_<kind>` method), passes it
on to what it belongs to (`ROUTED`), or draws nothing for it (`IGNORED`). tests/ui/test_dispatch.py
checks each consumer against every kind, so a new kind is placed by each one."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from agent_tui.protocol.events import Event


class _Unhandled:
    def __repr__(self) -> str:
        return "UNHANDLED"


#: what `dispatch` returns when the consumer has no handler for the event's kind
UNHANDLED: Final = _Unhandled()


def dispatch(consumer: object, event: Event, *args: Any) -> Any:
    """`consumer.on_<kind>(event, *args)`'s result, or `UNHANDLED` without such a handler."""
    handler = getattr(consumer, "on_" + event.kind, None)
    if handler is None:
        return UNHANDLED
    return handler(event, *args)


def all_kinds_but(kinds: Iterable[str]) -> frozenset[str]:
    """Every event kind but `kinds`: the `IGNORED` of a consumer of those alone."""
    return ALL_KINDS - frozenset(kinds)


#: every event kind, spelled out so a consumer's module needs no import of the events (the first
#: frame doesn't load them); tests/protocol/test_dispatch.py holds it to `events.EVENT_TYPES`
ALL_KINDS: Final = frozenset(
    {
        *("message_started", "text_delta", "thinking_delta", "block_finished"),
        *("message_finished", "stream_failed", "turn_started", "request_started"),
        *("tool_call_started", "tool_input_delta", "tool_call_ready", "tool_progress"),
        *("tool_finished", "search_query_update", "search_results_received"),
        *("approval_requested", "approval_decided", "context_compacted", "change_started"),
        *("change_recorded", "files_changed", "files_restored", "notice", "usage_counted"),
        "turn_finished",
    }
)
#: the kinds about one tool call (they carry its `tool_use_id`)
TOOL_CALL_KINDS: Final = frozenset(
    {
        "tool_call_started",
        "tool_input_delta",
        "tool_call_ready",
        "search_query_update",
        "search_results_received",
        "approval_requested",
        "approval_decided",
        "tool_progress",
        "tool_finished",
        "change_started",
        "change_recorded",
    }
)
