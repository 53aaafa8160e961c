"""What the session store hands out: plain records of sessions, messages, events, tool runs,
turns and search hits, and the ids and titles it makes. No I/O. Each record's equality, hash
and repr are a frozen dataclass's, written once on `Value` (a resumed session imports this
before its history is drawn)."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from random import SystemRandom
from typing import TYPE_CHECKING, Any

from agent_tui.protocol.usage import Usage
from agent_tui.protocol.values import Value

if TYPE_CHECKING:
    from agent_tui.protocol.events import Event

Content = str | list[dict[str, Any]]

TITLE_MAX = 60


class SessionNotFound(LookupError):
    """No session has that id (or, for prefixes, none starts with it)."""


class StoreUnavailable(Exception):
    """The session database can't be opened (its message says where and why); nothing is
    recorded until it can."""


class AmbiguousSessionId(SessionNotFound):
    def __init__(self, prefix: str, candidates: list[str]) -> None:
        super().__init__(f"session id {prefix!r} is ambiguous: {', '.join(candidates)}")
        self.candidates = candidates


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class SessionInfo(Value):
    """A session as the store lists it: title, folder, model, times, and its tokens and cost."""

    id: str
    title: str
    cwd: str
    model: str
    created_at: float
    updated_at: float
    message_count: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    web_search_requests: int
    cost_usd: float

    @property
    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_creation_input_tokens=self.cache_write_tokens,
            cache_read_input_tokens=self.cache_read_tokens,
            web_search_requests=self.web_search_requests,
        )

    @property
    def total_tokens(self) -> int:
        return self.usage.total_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class StoredMessage(Value):
    """A message as recorded (not repaired), with its position for paging."""

    seq: int
    role: str
    content: Content
    created_at: float

    def to_api(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class StoredEvent(Value):
    """A recorded event with its position (`seq`) and time, for replay."""

    seq: int
    ts: float
    event: Event


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ToolRun(Value):
    """A tool call as recorded for the audit: how it was decided, its result summary and timing."""

    id: int
    tool_use_id: str
    tool: str
    input: dict[str, Any]
    decision: str | None
    decided_by: str | None
    rule: str | None
    summary: str | None
    is_error: bool | None
    exit_code: int | None
    duration_s: float | None
    started_at: float
    finished_at: float | None
    #: the audit's detail: the deciding rule's settings file, the person's answer, the mode
    rule_source: str | None = None
    answer: str | None = None
    mode: str | None = None
    #: where the call's command, URL or path was seen in untrusted text before it was asked
    provenance: str | None = None
    #: seconds from the approval dialog appearing to the answering key
    answer_s: float | None = None


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class TurnRecord(Value):
    """A turn as recorded: its model, stop reason, requests, usage, cost and times."""

    seq: int
    model: str | None
    stop_reason: str | None
    requests: int
    usage: Usage
    cost_usd: float
    started_at: float | None
    finished_at: float


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class SearchHit(Value):
    """One match of a session search: the session, the message, and a snippet around the words."""

    session_id: str
    title: str
    cwd: str
    updated_at: float
    message_seq: int
    kind: str  # prompt | answer | command | tool_call | tool_output | search | search_results
    snippet: str


_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case: sorts like time
#: the OS's randomness, as `secrets.choice` uses it (`secrets` itself loads `hashlib`: 2 ms a start)
_random = SystemRandom()
_id_lock = threading.Lock()
_last_ms = 0


def new_session_id(at: float | None = None) -> str:
    """13 characters: 9 of milliseconds since the epoch, 4 random; sorts by creation time.

    Ids made by one process without `at` strictly increase even within a millisecond.
    """
    global _last_ms
    if at is None:
        with _id_lock:
            ms = max(int(time.time() * 1000), _last_ms + 1)
            _last_ms = ms
    else:
        ms = int(at * 1000)
    head = "".join(_ALPHABET[(ms >> shift) & 31] for shift in range(40, -1, -5))
    tail = "".join(_random.choice(_ALPHABET) for _ in range(4))
    return head + tail


def title_from_prompt(prompt: str, limit: int = TITLE_MAX) -> str:
    """The first non-empty line, whitespace collapsed, cut at a word boundary to `limit` chars."""
    line = next((ln for ln in prompt.splitlines() if ln.strip()), "")
    line = " ".join(line.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


SESSION_COLS = (
    "id, title, cwd, model, created_at, updated_at, message_count, input_tokens, output_tokens, "
    "cache_read_tokens, cache_write_tokens, web_search_requests, cost_usd"
)


def session_info(row: tuple[Any, ...]) -> SessionInfo:
    return SessionInfo(*row)
