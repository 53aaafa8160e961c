"""Keeping a long session inside the model's context window.

Two paths, one trigger (a share of the window, `AgentConfig.compact_at`):
- **server**: on the first-party API each request carries the `compact_20260112`
  context-management edit; the API summarises by itself and streams a `compaction` block, which
  stays in the conversation verbatim (later requests send it back; the API drops what precedes it).
- **client**: elsewhere (another base URL, Bedrock, Vertex), or when the API refuses the edit,
  one summary request replaces the older turns — the recent ones stay — and requests start from
  the summary (`Conversation.compact`). The session store keeps the whole history either way.
`/compact [instructions]` runs the client path on demand, on every platform.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from agent_tui.agent.config import AgentConfig
from agent_tui.agent.context import context_used, context_window
from agent_tui.agent.conversation import Conversation
from agent_tui.protocol.assembler import StreamAssembler, StreamError
from agent_tui.protocol.events import ContextCompacted, Event, Notice, Usage
from agent_tui.providers.base import MessageRequest, Provider, ProviderError, StreamStalled
from agent_tui.providers.drain import drain
from agent_tui.redact import redact

COMPACT_BETA = "compact-2026-01-12"
#: the API's smallest trigger for server-side compaction
MIN_SERVER_TRIGGER = 50_000
#: turns (prompts with what followed them) a client-side compaction leaves as they were
KEEP_TURNS = 2
#: even with server-side compaction requested, compact on the client past this share of the
#: window (a server that silently ignored the edit must not end the session in an error)
SAFETY_SHARE = 0.95

SUMMARY_PROMPT = (
    "The conversation is about to be compacted to save context. Write a summary of everything "
    "above that you will need to carry on: the user's goals and requests, decisions made, files "
    "read or changed and their current state, commands run and results that matter, errors and "
    "how they were resolved, open questions, and the next steps. Be complete and specific "
    "(paths, names, numbers) but concise. Answer with the summary only; do not call tools."
)


def _first_party() -> bool:
    base = os.environ.get("ANTHROPIC_BASE_URL", "")
    return not base or base.rstrip("/").endswith("api.anthropic.com")


class Compactor:
    def __init__(
        self,
        provider: Provider,
        config: AgentConfig,
        conversation: Callable[[], Conversation],
        emit: Callable[[Event], None],
        count: Callable[[Usage], object],
    ) -> None:
        self.provider = provider
        #: where the summary request's usage goes (the turn's spending), failed or not
        self.count = count
        self.config = config
        self._conversation = conversation
        self.emit = emit
        #: the API refused the server-side edit this session: use the client path from now on
        self.server_refused = False
        #: context tokens the last request left in use (0: not known)
        self.used = 0
        self._warned = False

    # --- which path ---

    @property
    def window(self) -> int:
        return context_window(self.config.model)

    @property
    def server(self) -> bool:
        mode = self.config.compaction
        if mode == "server":
            return not self.server_refused
        return (
            mode == "auto"
            and self.provider.name == "anthropic"
            and _first_party()
            and not self.server_refused
        )

    def request_fields(self) -> dict[str, Any]:
        """What a main request adds to ask for server-side compaction (nothing otherwise)."""
        if not self.server:
            return {}
        trigger = max(MIN_SERVER_TRIGGER, int(self.window * self.config.compact_at))
        edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": trigger}}
        return {"context_management": {"edits": [edit]}, "betas": (COMPACT_BETA,)}

    def refused(self, exc: ProviderError) -> bool:
        """The API rejected the compaction edit (unknown beta, unsupported model or platform):
        note it, say so once, and let the caller resend the request without it."""
        if not self.server or exc.status not in (400, 404, 422):
            return False
        text = exc.message.lower()
        if not any(word in text for word in ("compact", "context_management", "beta")):
            return False
        self.server_refused = True
        self.emit(
            Notice(
                "info",
                "Server-side compaction isn't available here; the conversation will be "
                "compacted by a summary request instead when the context fills up.",
            )
        )
        return True

    # --- after each request ---

    def note(self, assembler: StreamAssembler) -> None:
        """Remember how full the context is; report a compaction the server did."""
        before = self.used
        self.used = context_used(assembler.usage)
        for block in assembler.content:
            if block.get("type") == "compaction":
                summary = block.get("content")
                self.emit(ContextCompacted("server", summary or "", before))

    def due(self) -> bool:
        """The next request should go out compacted by the client."""
        if self.config.compaction == "off" or not self.used:
            return False
        share = SAFETY_SHARE if self.server else self.config.compact_at
        if self.used < share * self.window:
            return False
        if self._cut_point() is None:
            if not self._warned:
                self._warned = True
                self.emit(
                    Notice(
                        "warning",
                        "The context is nearly full and this turn is too long to compact "
                        "(only whole earlier turns can be summarised). Consider a new session.",
                    )
                )
            return False
        return True

    # --- the client path ---

    def _cut_point(self) -> int | None:
        """The message the compacted conversation starts at: the start of one of the last
        turns, so every tool call still has its result after it."""
        conversation = self._conversation()
        starts = conversation.prompt_starts()
        later = [i for i in starts if i > conversation.start]  # something before them to cut
        if not later:
            return None
        wanted = starts[-KEEP_TURNS] if len(starts) >= KEEP_TURNS else starts[-1]
        return wanted if wanted > conversation.start else later[-1]

    async def run(self, tools: list[dict[str, Any]], instructions: str = "") -> None:
        """`compact`, saying so in the chat; a failure is a notice (the session goes on
        uncompacted), never the end of the turn."""
        self.emit(Notice("info", "Compacting the conversation…"))
        try:
            await self.compact(tools, instructions)
        except (ProviderError, StreamError, StreamStalled, ValueError) as exc:
            text = redact(str(getattr(exc, "message", exc)))
            self.emit(Notice("warning", f"Could not compact the conversation: {text}"))

    async def compact(self, tools: list[dict[str, Any]], instructions: str = "") -> None:
        """Summarise the older turns with one request; the recent turns stay as they are (its
        usage goes to `count`). Raises `ProviderError` when the summary request fails, and
        `ValueError` when there is nothing older than the recent turns to summarise."""
        conversation = self._conversation()
        cut = self._cut_point()
        if cut is None:
            turns = len([i for i in conversation.prompt_starts() if i >= conversation.start])
            if not turns:
                raise ValueError("there is nothing to compact: the conversation is empty")
            raise ValueError("there is nothing to compact yet: the conversation is one turn long")
        view = conversation.request_messages()
        older = view[: len(view) - (len(conversation.messages) - cut)]
        prompt = SUMMARY_PROMPT + (f"\n\nAlso: {instructions}" if instructions else "")
        request = MessageRequest(
            model=self.config.model,
            # The same tools, system and history as the main requests: the summary reads them
            # from the cache instead of paying for them again.
            messages=[*older, {"role": "user", "content": [{"type": "text", "text": prompt}]}],
            max_tokens=min(8192, self.config.max_tokens),
            system=self.config.system,
            tools=tools,
            tool_choice={"type": "none"} if tools else None,
            purpose="compaction",
        )
        assembler = await drain(
            self.provider, request, count=self.count, stall_timeout=self.config.stall_timeout
        )
        summary = assembler.partial_text().strip()
        if not assembler.stopped or not summary:
            raise ProviderError("The summary request ended without a summary.", kind="compaction")
        before = self.used
        conversation.compact(cut, summary)
        self.used = 0
        self.emit(ContextCompacted("client", summary, before, cut))
