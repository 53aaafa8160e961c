"""Typed domain events: the UI's, the store's and headless mode's only input.

Every event is a frozen dataclass with a stable `kind` string; `to_dict()` gives a JSON-ready dict
with a `type` field (used by `--output-format stream-json` and by the session store for replay), and
`event_from_dict()` turns such a dict back into the event.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar


def _count(value: Any) -> int:
    """A token count from the wire; anything that is not a number counts as 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0
    if isinstance(value, float) and abs(value) == float("inf"):
        return 0
    return int(value)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token and server-tool usage; `+` sums usage across the requests of a turn."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    web_search_requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            *(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self))
        )

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )

    @classmethod
    def from_api(cls, usage: dict[str, Any] | None) -> Usage:
        """Build from an API `usage` object (missing or null fields count as 0)."""
        if not isinstance(usage, dict):
            return cls()
        server = usage.get("server_tool_use")
        if not isinstance(server, dict):
            server = {}
        return cls(
            input_tokens=_count(usage.get("input_tokens")),
            output_tokens=_count(usage.get("output_tokens")),
            cache_creation_input_tokens=_count(usage.get("cache_creation_input_tokens")),
            cache_read_input_tokens=_count(usage.get("cache_read_input_tokens")),
            web_search_requests=_count(server.get("web_search_requests")),
        )

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            data[f.name] = value.to_dict() if isinstance(value, Usage) else value
        return data


# --- one model response (emitted by the StreamAssembler) ---------------------------------------


@dataclass(frozen=True, slots=True)
class MessageStarted(Event):
    kind: ClassVar[str] = "message_start"
    message_id: str
    model: str


@dataclass(frozen=True, slots=True)
class TextDelta(Event):
    kind: ClassVar[str] = "text"
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta(Event):
    kind: ClassVar[str] = "thinking"
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted(Event):
    """A `tool_use` (client tool) or `server_tool_use` block began streaming."""

    kind: ClassVar[str] = "tool_call_start"
    index: int
    id: str
    name: str
    server: bool = False


@dataclass(frozen=True, slots=True)
class ToolInputDelta(Event):
    kind: ClassVar[str] = "tool_input_delta"
    index: int
    id: str
    partial_json: str


@dataclass(frozen=True, slots=True)
class ToolCallReady(Event):
    """A tool call's input is complete. `input_error` is set when the JSON was invalid."""

    kind: ClassVar[str] = "tool_call"
    index: int
    id: str
    name: str
    input: dict[str, Any]
    server: bool = False
    input_error: str | None = None


@dataclass(frozen=True, slots=True)
class SearchQueryUpdate(Event):
    """The query of a streaming web search, as far as it has arrived."""

    kind: ClassVar[str] = "search_query"
    tool_use_id: str
    query: str
    # Ordinal of the search within its tool call (0, 1, …), so a second search is not mistaken
    # for a continuation of the first.
    search_index: int = 0


@dataclass(frozen=True, slots=True)
class SearchResultsReceived(Event):
    """A `web_search_tool_result` block: `count` results, or `error_code` for the error form."""

    kind: ClassVar[str] = "search_results"
    tool_use_id: str
    query: str
    count: int
    results: list[dict[str, str]] = field(default_factory=list)
    error_code: str | None = None
    search_index: int = 0


@dataclass(frozen=True, slots=True)
class BlockFinished(Event):
    """A content block is complete; `block` is its API form, exactly as it will be sent back."""

    kind: ClassVar[str] = "block"
    index: int
    block: dict[str, Any]


@dataclass(frozen=True, slots=True)
class MessageFinished(Event):
    kind: ClassVar[str] = "message_end"
    stop_reason: str | None
    usage: Usage
    content: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class StreamFailed(Event):
    """The stream broke. `partial` is the content assembled before the failure."""

    kind: ClassVar[str] = "error"
    error: str
    retryable: bool = False
    partial_text: str = ""


# --- the turn (emitted by the agent loop) --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_start"
    prompt: str


@dataclass(frozen=True, slots=True)
class RequestStarted(Event):
    """The loop sent request number `n` (1-based) of this turn."""

    kind: ClassVar[str] = "request_start"
    n: int


@dataclass(frozen=True, slots=True)
class ToolProgress(Event):
    """Live progress of a running tool: a status line and/or new output text."""

    kind: ClassVar[str] = "tool_progress"
    tool_use_id: str
    name: str
    status: str = ""
    output: str = ""


@dataclass(frozen=True, slots=True)
class ToolFinished(Event):
    kind: ClassVar[str] = "tool_result"
    tool_use_id: str
    name: str
    is_error: bool
    summary: str
    duration_s: float
    content: str = ""


@dataclass(frozen=True, slots=True)
class ApprovalRequested(Event):
    kind: ClassVar[str] = "approval_request"
    tool_use_id: str
    tool: str
    subject: str
    reason: str


@dataclass(frozen=True, slots=True)
class ApprovalDecided(Event):
    """How a tool call was permitted or refused, and by which rule (or by the person)."""

    kind: ClassVar[str] = "permission"
    tool_use_id: str
    tool: str
    subject: str
    decision: str  # "allow" | "deny"
    by: str  # "rule" | "user" | "mode" | "headless"
    rule: str | None = None
    saved_rules: list[str] = field(default_factory=list)
    message: str = ""


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """Something the person should see in the chat (max_tokens, refusal, retry, …)."""

    kind: ClassVar[str] = "notice"
    level: str  # "info" | "warning" | "error"
    text: str


@dataclass(frozen=True, slots=True)
class TurnFinished(Event):
    kind: ClassVar[str] = "turn_end"
    stop_reason: str | None
    usage: Usage
    cost_usd: float
    requests: int
    cancelled: bool = False
    failed: bool = False


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        MessageStarted,
        TextDelta,
        ThinkingDelta,
        ToolCallStarted,
        ToolInputDelta,
        ToolCallReady,
        SearchQueryUpdate,
        SearchResultsReceived,
        BlockFinished,
        MessageFinished,
        StreamFailed,
        TurnStarted,
        RequestStarted,
        ToolProgress,
        ToolFinished,
        ApprovalRequested,
        ApprovalDecided,
        Notice,
        TurnFinished,
    )
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of `Event.to_dict()` (for replay from the session store)."""
    cls = EVENT_TYPES[data["type"]]
    kwargs = {f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data}
    if "usage" in kwargs and isinstance(kwargs["usage"], dict):
        kwargs["usage"] = Usage(**kwargs["usage"])
    return cls(**kwargs)
