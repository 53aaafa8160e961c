"""The conversation as API messages, append-only, with observers (the session recorder).

Append-only matters: every change is a new message or a new block at the end, so a recorder can
commit each one as it happens and a crash loses at most what was in flight. The one exception is
a prompt nothing of which was sent (the spending cap refused its first request): it is taken
back (`withdraw_prompt`), so a resumed session never sends it behind the person's back.
"""

from __future__ import annotations

from typing import Any, Protocol

from agent_tui.protocol.content import is_prompt


class ConversationObserver(Protocol):
    def message_started(self, role: str) -> None: ...

    def block_added(self, block: dict[str, Any]) -> None: ...

    def prompt_withdrawn(self) -> None:
        """The last message begun (a prompt never sent) is gone again."""


SUMMARY_HEADER = (
    "The earlier part of this conversation was compacted to save context. Summary of it:\n\n"
)


class Conversation:
    def __init__(self, messages: list[dict[str, Any]] | None = None) -> None:
        self.messages: list[dict[str, Any]] = messages or []
        self.observers: list[ConversationObserver] = []
        #: after a client-side compaction: requests start at this message, with the summary
        #: put before its content (`messages` itself keeps the whole history)
        self.start = 0
        #: context the person added since the last prompt (`!command` and its output, as Claude
        #: Code's <bash-input>/<bash-stdout>), sent with the next prompt, after its text
        self.notes: list[str] = []
        self.summary: str | None = None
        self._head_key: tuple[int, str, int] | None = None
        self._head: dict[str, Any] = {}

    def compact(self, start: int, summary: str) -> None:
        """From now on, requests see `summary` in place of the messages before `start`."""
        self.start, self.summary = start, summary

    def request_messages(self) -> list[dict[str, Any]]:
        """What a request sends: everything, or after a compaction the summary and what
        follows it. The summary's message is the same object every time, so its bytes (the
        cached prefix) don't change from request to request."""
        if self.summary is None or self.start <= 0:
            return self.messages
        first = self.messages[self.start]
        content = first["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        key = (self.start, self.summary, len(blocks))
        if self._head_key != key:
            self._head_key = key
            summary = {"type": "text", "text": SUMMARY_HEADER + self.summary}
            self._head = {"role": "user", "content": [summary, *blocks]}
        return [self._head, *self.messages[self.start + 1 :]]

    def prompt_starts(self) -> list[int]:
        """Indexes of the messages that begin a turn (a prompt, not tool results)."""
        return [i for i, message in enumerate(self.messages) if is_prompt(message)]

    def keep_partial(self, assembler: Any, opened: bool) -> None:
        """Keep the text of a stream's unfinished block so nothing the person saw is lost
        (`opened`: the assistant message it belongs to has begun)."""
        finished = {id(b) for b in assembler.content}
        extra = [b for b in assembler.salvage() if id(b) not in finished]
        if extra and not opened:
            self.begin("assistant")
        for block in extra:
            self.append(block)

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

    def add_prompt(self, text: str, attachments: list[dict[str, Any]] | None = None) -> None:
        """A user prompt, as a new message (with attached images after its text). After a
        trailing user message (tool results of an ended turn) that makes two in a row, which
        the API combines into one turn."""
        self.begin("user")
        self.append({"type": "text", "text": text})  # first: the session's title is its text
        for note in self.notes:  # what the person ran with `!` (or noted) since the last prompt
            self.append({"type": "text", "text": note})
        self.notes = []
        for block in attachments or ():
            self.append(block)

    def withdraw_prompt(self, at: int) -> None:
        """Take back the prompt added at message `at` (the last message): none of it was sent.
        The person's `!command` notes it carried wait for the next prompt again."""
        if at != len(self.messages) - 1 or self.messages[at]["role"] != "user":
            return
        blocks = self.messages.pop()["content"]
        notes = [b["text"] for b in blocks[1:] if b.get("type") == "text"]
        self.notes = [*notes, *self.notes]
        for observer in self.observers:
            observer.prompt_withdrawn()

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

    def close_dangling(self, reason: str) -> list[dict[str, Any]]:
        """Answer every unanswered tool_use with an is_error result saying `reason`, so the
        conversation stays valid; returns the calls so answered."""
        pending = self.pending_tool_uses()
        if pending and self.last_role != "user":
            self.begin("user")
        for call in pending:
            self.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call["id"],
                    "content": reason,
                    "is_error": True,
                }
            )
        return pending
