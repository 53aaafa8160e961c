"""`EventView`: the one place domain events become pixels.

It owns what the events draw on — the chat (streamed answers, tool blocks, notices), the
tool-progress pane, the approvals log and the status line — and has one method, `handle(event)`.
The live agent's events and a replay's recorded events go through the same view, so a replay
looks exactly like the session did. Token and cost totals are the view's own sums of
`TurnFinished` events (starting from `set_totals`), so a replay never mixes its counts with the
live session's.

Dispatch is on the event's `kind` string, which keeps the event classes off the first frame.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.ui.widgets.chat import AssistantMessage, ChatView, NoticeMessage, UserMessage
from agent_tui.ui.widgets.folded import FoldedText
from agent_tui.ui.widgets.status import StatusLine

if TYPE_CHECKING:
    from agent_tui.protocol.events import ContextCompacted, Event, FilesChanged, Usage
    from agent_tui.ui.widgets.approvals_log import ApprovalsLog
    from agent_tui.ui.widgets.tool_blocks import ToolBlock
    from agent_tui.ui.widgets.tool_pane import ToolPane


class EventView:
    def __init__(
        self,
        chat: ChatView,
        status: StatusLine,
        tool_pane: ToolPane,
        approvals_log: ApprovalsLog,
        *,
        call_later: Callable[..., Any],
    ) -> None:
        self.chat = chat
        self.status = status
        self.tool_pane = tool_pane
        self.approvals_log = approvals_log
        self._call_later = call_later
        self._current: AssistantMessage | None = None
        self._thinking: FoldedText | None = None
        self._blocks: dict[str, ToolBlock] = {}
        self.usage: Usage | None = None
        self.cost = 0.0
        #: the model's context window in tokens (set by the app; 0: not shown)
        self.window = 0
        #: the conversation now and its recorded tool runs: pruned turns page back in from them
        self.history: Callable[[], tuple[list[dict[str, Any]], dict[str, Any]]] | None = None

    @property
    def streaming(self) -> bool:
        """An answer is being written (not yet finished into its final widget)."""
        return self._current is not None

    # --- totals ---

    def set_totals(self, usage: Usage | None, cost: float) -> None:
        """Start the status line's totals from these (a resumed session's recorded ones)."""
        self.usage, self.cost = usage, cost
        self.show_totals()

    def show_totals(self) -> None:
        self.status.usage, self.status.cost = self.usage, self.cost

    # --- events ---

    def handle(self, event: Event) -> None:
        self.tool_pane.handle(event)
        kind = event.kind
        if kind == "turn_started":
            self._blocks.clear()
            self.status.activity = "working…"
            prompts = self.chat.query(UserMessage)
            if prompts and event.index >= 0:  # type: ignore[attr-defined]
                prompts.last().turn_index = event.index  # type: ignore[attr-defined]
        elif kind == "message_started":
            self.status.activity = "streaming…"
        elif kind == "message_finished" and self.window:
            from agent_tui.agent.context import context_used

            used = context_used(event.usage)  # type: ignore[attr-defined]
            self.status.context = min(100, round(100 * used / self.window))
        elif kind == "text_delta":
            self._end_thinking()
            self._assistant().write(event.text)  # type: ignore[attr-defined]
        elif kind == "thinking_delta":
            self._thinking_block().append(event.text)  # type: ignore[attr-defined]
        elif kind == "context_compacted":
            self.end_message()
            self.chat.append(compaction_notice(event))  # type: ignore[arg-type]
            self.status.context = 0
        elif kind in ("tool_call_started", "tool_call_ready"):
            self._tool_block(event.tool_use_id, event.tool).handle(event)  # type: ignore[attr-defined]
        elif kind == "approval_decided":
            self.approvals_log.add(event)  # type: ignore[arg-type]
            self._route_to_block(event)
        elif kind == "notice":
            self.end_message()
            self.chat.append(NoticeMessage(event.text, event.level))  # type: ignore[attr-defined]
        elif kind == "files_changed":
            self.end_message()
            self.chat.append(NoticeMessage(files_changed_text(event), "info"))  # type: ignore[arg-type]
        elif kind == "stream_failed":
            self.end_message(incomplete=bool(event.partial_text))  # type: ignore[attr-defined]
            self.chat.append(
                NoticeMessage(
                    f"{event.error}\nThe session is still usable. "  # type: ignore[attr-defined]
                    "Press ctrl+r (or send “r”) to retry.",
                    "error",
                )
            )
        elif kind == "turn_finished":
            self.end_message()
            usage = event.usage  # type: ignore[attr-defined]
            self.usage = usage if self.usage is None else self.usage + usage
            self.cost += event.cost_usd  # type: ignore[attr-defined]
            self.show_totals()
            failed = event.failed  # type: ignore[attr-defined]
            self.status.activity = "failed: ctrl+r retries" if failed else "ready"
        else:
            self._route_to_block(event)

    # --- the chat ---

    def page_from(
        self, history: Callable[[], tuple[list[dict[str, Any]], dict[str, Any]]] | None = None
    ) -> None:
        """Page the chat's pruned turns back in from `history()` (the one given before when
        None). A replay turns it off while it runs: its prompts are another conversation's."""
        self.history = history or self.history
        self.chat.on_pruned = self._pruned if self.history else None

    def _pruned(self, index: int) -> None:
        """The chat's oldest turns were pruned, down to the prompt at `index`: the row above the
        messages pages them back in as the person scrolls up."""
        from agent_tui.ui.widgets.history import EarlierMessages, HistoryPager

        row = self.chat.header
        if not isinstance(row, EarlierMessages):
            if self.history is None:
                return
            messages, runs = self.history()
            row = EarlierMessages(HistoryPager(messages, runs=runs))
            self.chat.header = row
            self.chat.mount(row, before=0)
        row.hide_before(index)

    async def clear(self) -> None:
        """Empty the chat and the side panes (before drawing a conversation again)."""
        self.end_message()
        self._blocks.clear()
        self.chat.header = None
        await self.chat.remove_children()
        self.tool_pane.clear()
        self.approvals_log.clear()

    def end_message(self, incomplete: bool = False) -> None:
        self._end_thinking()
        current, self._current = self._current, None
        if current is not None:
            self._call_later(current.finish, incomplete)

    def _route_to_block(self, event: Event) -> None:
        tool_use_id = getattr(event, "tool_use_id", None)
        if tool_use_id and tool_use_id in self._blocks:
            self._blocks[tool_use_id].handle(event)

    def _thinking_block(self) -> FoldedText:
        if self._thinking is None:
            self.end_message()
            self._thinking = FoldedText("Thinking", live=True, classes="thinking")
            self.chat.append(self._thinking)
        return self._thinking

    def _end_thinking(self) -> None:
        thinking, self._thinking = self._thinking, None
        if thinking is not None:
            thinking.finish("Thought")

    def _assistant(self) -> AssistantMessage:
        if self._current is None:
            self._current = AssistantMessage()
            self.chat.append(self._current)
        return self._current

    def _tool_block(self, tool_use_id: str, name: str) -> ToolBlock:
        block = self._blocks.get(tool_use_id)
        if block is None:
            from agent_tui.ui.widgets.tool_blocks import tool_block_for

            self.end_message()
            block = tool_block_for(tool_use_id, name)
            self._blocks[tool_use_id] = block
            self.chat.append(block)
        return block


def files_changed_text(event: FilesChanged) -> str:
    """One line under a turn that changed files: which, and how to take them back."""
    names = [Path(str(f["path"])).name for f in event.files]
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    parts = []
    if names:
        parts.append(f"Changed {len(names)} file{'s' if len(names) != 1 else ''}: {shown}")
    if event.unrestorable:
        n = len(event.unrestorable)
        ran = f"{n} command{'s' if n != 1 else ''} ran outside git"
        parts.append(f"{ran}: {'their' if n != 1 else 'its'} changes can't be undone")
    hint = " — /undo takes this turn back (with a preview)." if names else "."
    return " · ".join(parts) + hint


def compaction_notice(event: ContextCompacted) -> FoldedText:
    """ "Context compacted", with the summary the model goes on from (open to read it)."""
    how = "by the API" if event.how == "server" else "by a summary request"
    before = f", {event.tokens_before:,} tokens before" if event.tokens_before else ""
    return FoldedText(
        f"Context compacted {how}{before}; the summary", event.summary, classes="compaction"
    )
