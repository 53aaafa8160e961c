"""Durable sessions: the SQLite store, repair of cut-off conversations, exports and the CLI."""

from agent_tui.sessions.records import (
    AmbiguousSessionId,
    SearchHit,
    SessionInfo,
    SessionNotFound,
    StoredEvent,
    StoredMessage,
    ToolRun,
    TurnRecord,
    title_from_prompt,
)
from agent_tui.sessions.repair import INTERRUPTED, conversation_problems, repair_messages
from agent_tui.sessions.store import SessionStore

__all__ = [
    "INTERRUPTED",
    "AmbiguousSessionId",
    "SearchHit",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "StoredEvent",
    "StoredMessage",
    "ToolRun",
    "TurnRecord",
    "conversation_problems",
    "repair_messages",
    "title_from_prompt",
]
