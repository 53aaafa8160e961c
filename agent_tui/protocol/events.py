"""Typed domain events: the UI's, the store's and headless mode's only input.

Every event is a frozen dataclass with a stable `kind` string; `to_dict()` gives a JSON-ready dict
with a `type` field (used by `--output-format stream-json` and by the session store for replay), and
`event_from_dict()` turns such a dict back into the event.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agent_tui.protocol.usage import Usage as Usage  # imported from here too
from agent_tui.protocol.values import Value


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Event(Value):
    """Base of every domain event. `kind` is the snake_case of the class name (`ToolFinished` ->
    `tool_finished`); the class attributes below are facts the session store relies on. Its
    equality, hash and repr are a dataclass's, written once on `Value` (each event class is
    `eq=False, repr=False`: on Python 3.11 compiling them was half of this module's import)."""

    #: the snake_case of the class name, set for every subclass by `__init_subclass__`
    kind: ClassVar[str] = "event"
    #: the session store commits its buffer after this event: it ends a unit a crash should keep
    commit_boundary: ClassVar[bool] = False
    #: a streamed piece: (the field that keys the stream, the field holding its text); the store
    #: joins consecutive pieces before redaction, so a key split across deltas is still caught
    delta_text: ClassVar[tuple[str, str] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # No super() call: `slots=True` rebuilds the class, which breaks zero-argument super(),
        # and object.__init_subclass__ does nothing.
        cls.kind = _snake(cls.__name__)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            data[f.name] = value.to_dict() if isinstance(value, Usage) else value
        return data


# --- one model response (emitted by the StreamAssembler) ---------------------------------------


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class MessageStarted(Event):
    """A model response began: its message id, and the model answering."""

    message_id: str
    model: str


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class TextDelta(Event):
    """A piece of streamed text for the text block at `index`."""

    delta_text: ClassVar[tuple[str, str] | None] = ("index", "text")
    index: int
    text: str


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ThinkingDelta(Event):
    """A piece of streamed thinking for the thinking block at `index`."""

    delta_text: ClassVar[tuple[str, str] | None] = ("index", "text")
    index: int
    text: str


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ToolCallStarted(Event):
    """A `tool_use` (client tool) or `server_tool_use` block began streaming."""

    index: int
    tool_use_id: str
    tool: str
    server: bool = False


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ToolInputDelta(Event):
    """A piece of a tool call's input JSON as it streams (`partial_json`, not parseable alone)."""

    delta_text: ClassVar[tuple[str, str] | None] = ("index", "partial_json")
    index: int
    tool_use_id: str
    partial_json: str


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ToolCallReady(Event):
    """A tool call's input is complete. `input_error` is set when the JSON was invalid."""

    commit_boundary: ClassVar[bool] = True
    index: int
    tool_use_id: str
    tool: str
    input: dict[str, Any]
    server: bool = False
    input_error: str | None = None


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class SearchQueryUpdate(Event):
    """The query of a streaming web search, as far as it has arrived."""

    tool_use_id: str
    query: str
    # Ordinal of the search within its tool call (0, 1, …), so a second search is not mistaken
    # for a continuation of the first.
    search_index: int = 0
    tool: str = "WebSearch"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class SearchResultsReceived(Event):
    """A `web_search_tool_result` block: `count` results, or `error_code` for the error form."""

    commit_boundary: ClassVar[bool] = True
    tool_use_id: str
    query: str
    count: int
    results: list[dict[str, str]] = field(default_factory=list)
    error_code: str | None = None
    search_index: int = 0
    tool: str = "WebSearch"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class BlockFinished(Event):
    """A content block is complete; `block` is its API form, exactly as it will be sent back."""

    commit_boundary: ClassVar[bool] = True
    index: int
    block: dict[str, Any]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class MessageFinished(Event):
    """A model response is complete: why it stopped, its usage, and its content as sent back."""

    commit_boundary: ClassVar[bool] = True
    stop_reason: str | None
    usage: Usage
    content: list[dict[str, Any]]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class StreamFailed(Event):
    """The stream broke. `partial` is the content assembled before the failure."""

    commit_boundary: ClassVar[bool] = True
    error: str
    retryable: bool = False
    partial_text: str = ""


# --- the turn (emitted by the agent loop) --------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class TurnStarted(Event):
    """A new prompt began a turn."""

    commit_boundary: ClassVar[bool] = True
    prompt: str
    #: where the prompt is in the conversation (`Agent.messages`); -1 when not known
    index: int = -1


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class RequestStarted(Event):
    """The loop sent request number `n` (1-based) of this turn."""

    n: int


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ToolProgress(Event):
    """Live progress of a running tool: a status line and/or new output text."""

    delta_text: ClassVar[tuple[str, str] | None] = ("tool_use_id", "output")
    tool_use_id: str
    tool: str
    status: str = ""
    output: str = ""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ToolFinished(Event):
    """A tool call finished: whether it failed, its one-line summary, how long it took, and the
    start of its output (`content`)."""

    commit_boundary: ClassVar[bool] = True
    tool_use_id: str
    tool: str
    is_error: bool
    summary: str
    duration_s: float
    content: str = ""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ApprovalRequested(Event):
    """A tool call waits for the person's answer; `reason` is why it asks."""

    commit_boundary: ClassVar[bool] = True
    tool_use_id: str
    tool: str
    subject: str
    reason: str


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ApprovalDecided(Event):
    """How a tool call was permitted or refused, and by which rule (or by the person)."""

    commit_boundary: ClassVar[bool] = True
    tool_use_id: str
    tool: str
    subject: str
    decision: str  # "allow" | "deny"
    by: str  # "rule" | "user" | "mode" | "default" | "headless"
    rule: str | None = None
    saved_rules: list[str] = field(default_factory=list)
    message: str = ""
    #: where the deciding rule came from: "user", "project", "local", "cli", "session"
    rule_source: str = ""
    #: the person's answer ("once", "session", "always", "deny"), when asked; the mode then
    answer: str = ""
    mode: str = ""
    #: where its command, URL or path was seen in untrusted text before, and the seconds the
    #: person took to answer (None: not asked)
    provenance: str = ""
    answer_s: float | None = None
    #: the rules that would allow it (what a headless run's denial tells the person to add)
    suggestions: list[str] = field(default_factory=list)
    #: the input a PreToolUse hook rewrote the call to (None: as the model sent it)
    updated_input: dict[str, Any] | None = None

    @property
    def kept_as(self) -> str:
        """How `saved_rules` were kept, in words: written to settings ("always"), or for this
        session only (`s`), where nothing is saved."""
        return "for this session" if self.answer == "session" else "saved"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ContextCompacted(Event):
    """The conversation's older part was replaced by a summary: by the API (`how="server"`, a
    `compaction` block kept in the conversation) or by a summary request (`how="client"`;
    requests start at message `start`, see `Conversation.compact`)."""

    commit_boundary: ClassVar[bool] = True
    how: str
    summary: str
    #: context tokens in use before the compaction (0: not known)
    tokens_before: int = 0
    start: int = 0


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ChangeStarted(Event):
    """A call that may change files is about to run (see `agent_tui.checkpoints`), written
    before it runs so that a kill in the middle still knows it ran: a Write or Edit's `path` and
    its content now (blob id; None: absent), or for a shell command or MCP tool in git the
    snapshot `tree` of the work tree now ("" for both outside git: not captured)."""

    commit_boundary: ClassVar[bool] = True
    checkpoint: int
    message_index: int
    prompt: str
    tool_use_id: str
    tool: str
    subject: str
    path: str = ""
    before: str | None = None
    before_mode: str = ""
    tree: str = ""
    #: a sandboxed command whose writes come back as its change set: nothing reaches the
    #: project before it is recorded (killed before that, it changed nothing: it is held)
    exact: bool = False


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ChangeRecorded(Event):
    """What the call a `ChangeStarted` announced changed, written as soon as it finished: each
    file as in `FilesChanged.files`; `tree` the snapshot after it (in git)."""

    commit_boundary: ClassVar[bool] = True
    checkpoint: int
    tool_use_id: str
    tool: str
    files: list[dict[str, Any]] = field(default_factory=list)
    tree: str = ""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class FilesChanged(Event):
    """What one turn's calls changed on disk (see `agent_tui.checkpoints`): each file as
    `{"path", "before", "after", "before_mode", "after_mode", "by"}`, where before/after are blob
    ids (None: the file did not exist); a file changed again by a later call after someone else
    changed it has one entry per call. `trees` are the git snapshots taken (empty outside git),
    `unrestorable` the calls whose changes could not be captured, and `interrupted` the calls
    that started but whose changes were never recorded (the app was killed): their
    `ChangeStarted` fields, for a restore to show what they may have changed as conflicts."""

    commit_boundary: ClassVar[bool] = True
    checkpoint: int
    #: the index of the message that began the turn (its prompt), and the prompt's first words
    message_index: int
    prompt: str
    files: list[dict[str, Any]] = field(default_factory=list)
    trees: list[str] = field(default_factory=list)
    unrestorable: list[str] = field(default_factory=list)
    interrupted: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class FilesRestored(Event):
    """An undo or rewind put files back as they were before checkpoint `to` and every later one."""

    commit_boundary: ClassVar[bool] = True
    to: int
    restored: list[str] = field(default_factory=list)
    #: files left as they are: conflicts and files the person unticked, and (with the reason)
    #: files refused or that failed to be written
    kept: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Notice(Event):
    """Something the person should see in the chat (max_tokens, refusal, retry, …)."""

    commit_boundary: ClassVar[bool] = True
    level: str  # "info" | "warning" | "error"
    text: str
    #: a failed request about to be tried again: if the retries fail too, the `StreamFailed`
    #: says it all, and a screen drops this line rather than say the same twice
    retrying: bool = False


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class UsageCounted(Event):
    """What a request of the turn used (or a tool's own requests: WebSearch, WebFetch, Task),
    as soon as it is known, so running totals move with each response rather than at the turn's
    end. Not recorded: the turn's `TurnFinished` carries their sum."""

    usage: Usage
    cost_usd: float


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class TurnFinished(Event):
    """A turn is over: why its last response stopped, its usage, cost and number of requests, and
    whether it was cancelled or failed."""

    commit_boundary: ClassVar[bool] = True
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
        ContextCompacted,
        ChangeStarted,
        ChangeRecorded,
        FilesChanged,
        FilesRestored,
        Notice,
        UsageCounted,
        TurnFinished,
    )
}


# Sessions recorded before the vocabulary was unified, and `--output-format stream-json` (whose
# documented names are a contract), use these names: old kind -> event class.
LEGACY_KINDS: dict[str, type[Event]] = {
    "message_start": MessageStarted,
    "text": TextDelta,
    "thinking": ThinkingDelta,
    "tool_call_start": ToolCallStarted,
    "tool_input_delta": ToolInputDelta,
    "tool_call": ToolCallReady,
    "search_query": SearchQueryUpdate,
    "search_results": SearchResultsReceived,
    "block": BlockFinished,
    "message_end": MessageFinished,
    "error": StreamFailed,
    "turn_start": TurnStarted,
    "request_start": RequestStarted,
    "tool_progress": ToolProgress,
    "tool_result": ToolFinished,
    "approval_request": ApprovalRequested,
    "permission": ApprovalDecided,
    "notice": Notice,
    "turn_end": TurnFinished,
}
LEGACY_NAMES: dict[str, str] = {cls.kind: old for old, cls in LEGACY_KINDS.items()}
#: old field name -> new, for tool events recorded before every one carried `tool_use_id`/`tool`
LEGACY_FIELDS = {"id": "tool_use_id", "name": "tool"}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of `Event.to_dict()` (replay); reads the names of older sessions too."""
    kind = data["type"]
    cls = EVENT_TYPES.get(kind) or LEGACY_KINDS[kind]
    names = {f.name for f in dataclasses.fields(cls)}
    renamed = {old: new for old, new in LEGACY_FIELDS.items() if new in names and new not in data}
    data = {renamed.get(k, k): v for k, v in data.items()}
    kwargs = {f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data}
    if "usage" in kwargs and isinstance(kwargs["usage"], dict):
        kwargs["usage"] = Usage(**kwargs["usage"])
    return cls(**kwargs)


def stream_json(event: Event) -> dict[str, Any]:
    """An event as `--output-format stream-json` prints it: the documented `type` names
    (`text`, `tool_call`, `permission`, `tool_result`, `turn_end`, `error`, …), and the tool
    events' earlier field names (`id`, `name`) beside `tool_use_id` and `tool`."""
    data = event.to_dict()
    data["type"] = LEGACY_NAMES.get(event.kind, event.kind)
    if isinstance(event, ToolCallStarted | ToolInputDelta | ToolCallReady):
        data["id"] = event.tool_use_id
    if isinstance(event, ToolCallStarted | ToolCallReady | ToolProgress | ToolFinished):
        data["name"] = event.tool
    return data
