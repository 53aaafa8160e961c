"""The conversation as API messages, append-only, with observers (the session recorder).

Append-only matters: every change is a new message or a new block at the end, so a recorder can
commit each one as it happens and a crash loses at most what was in flight.
"""

from __future__ import annotations

from typing import Any, Protocol


class ConversationObserver(Protocol):
    def message_started(self, role: str) -> None: ...

    def block_added(self, block: dict[str, Any]) -> None: ...


class Conversation:
    def __init__(self, messages: list[dict[str, Any]] | None = None) -> None:
        self.messages: list[dict[str, Any]] = messages or []
        self.observers: list[ConversationObserver] = []

    @property
    def last_role(self) -> str | None:
        return self.messages[-1]["role"] if self.messages else None

    def begin(self, role: str) -> None:
        self.messages.append({"role": role, "content": []})
        for observer in self.observers:
            observer.message_started(role)

    def append(self, block: dict[str, Any]) -> None:
        content = self.messages[-1]["content"]
        if isinstance(content, str):  # a resumed plain-string message: make it a block list
            self.messages[-1]["content"] = content = [{"type": "text", "text": content}]
        content.append(block)
        for observer in self.observers:
            observer.block_added(block)

    def add_prompt(self, text: str) -> None:
        """A user prompt, as a new message. After a trailing user message (tool results of an
        ended turn) that makes two in a row, which the API combines into one turn."""
        self.begin("user")
        self.append({"type": "text", "text": text})

    def pending_tool_uses(self) -> list[dict[str, Any]]:
        """`tool_use` blocks of the last assistant message that have no tool_result yet."""
        if not self.messages:
            return []
        if self.last_role == "assistant":
            answered: set[str] = set()
            uses = self.messages[-1]["content"]
        elif len(self.messages) >= 2 and self.messages[-2]["role"] == "assistant":
            answered = {
                b.get("tool_use_id", "")
                for b in self.messages[-1]["content"]
                if isinstance(b, dict) and b.get("type") == "tool_result"
            }
            uses = self.messages[-2]["content"]
        else:
            return []
        if isinstance(uses, str):
            return []
        return [b for b in uses if b.get("type") == "tool_use" and b.get("id") not in answered]
