"""`EventView` handles events by name: every event kind has an `on_<kind>` handler, goes to the
tool block it belongs to, or is listed as drawing nothing — never silently dropped."""

from __future__ import annotations

import inspect
import typing

from agent_tui.protocol.events import EVENT_TYPES
from agent_tui.ui.views import event_view
from agent_tui.ui.views.event_view import IGNORED, ROUTED_TO_BLOCKS, EventView

HANDLED = {name[3:] for name in vars(EventView) if name.startswith("on_")}


def test_every_event_kind_is_handled_routed_or_ignored() -> None:
    kinds = set(EVENT_TYPES)
    assert kinds - (HANDLED | ROUTED_TO_BLOCKS | IGNORED) == set(), (
        "a new event: draw it or list it"
    )
    assert (HANDLED | ROUTED_TO_BLOCKS | IGNORED) - kinds == set(), "no handler for a kind gone"
    assert (
        not HANDLED & ROUTED_TO_BLOCKS and not HANDLED & IGNORED and not ROUTED_TO_BLOCKS & IGNORED
    )


def test_each_handler_takes_the_event_class_of_its_kind() -> None:
    namespace = {**vars(event_view), **{cls.__name__: cls for cls in EVENT_TYPES.values()}}
    for kind in HANDLED:
        handler = getattr(EventView, f"on_{kind}")
        hints = typing.get_type_hints(handler, globalns=namespace)
        params = list(inspect.signature(handler).parameters)
        assert hints[params[1]] is EVENT_TYPES[kind], kind
