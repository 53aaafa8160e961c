"""`EventView`: the one place domain events become pixels.

It owns what the events draw on — the chat (streamed answers, tool blocks, notices), the
tool-progress pane, the approvals log and the status line — and has one method, `handle(event)`.
The live agent's events and a replay's recorded events go through the same view, so a replay
looks exactly like the session did. Token and cost totals are the view's own sums of
`TurnFinished` events (starting from `set_totals`), plus the running turn's `UsageCounted` ones
(each response's, as it ends), so a replay never mixes its counts with the live session's.

Events are handled by name: `on_<kind>` (typed; the event classes are imported for the type
checker only, which keeps them off the first frame). What a tool's block draws goes to that block
(`ROUTED_TO_BLOCKS`); what draws nothing here is listed in `IGNORED`
(tests/ui/test_event_view.py checks that every kind is one of the three).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from agent_tui.protocol.dispatch import UNHANDLED, dispatch
from agent_tui.ui.chat.messages import AssistantMessage, ChatView, NoticeMessage, UserMessage
from agent_tui.ui.views import activity
from agent_tui.ui.widgets.folded import FoldedText
from agent_tui.ui.widgets.status import StatusLine

if TYPE_CHECKING:
    from agent_tui.protocol.events import (
        ApprovalDecided,
        ContextCompacted,
        Event,
        FilesChanged,
        MessageFinished,
        MessageStarted,
        Notice,
        StreamFailed,
        TextDelta,
        ThinkingDelta,
        ToolCallReady,
        ToolCallStarted,
        TurnFinished,
        TurnStarted,
        Usage,
        UsageCounted,
    )
    from agent_tui.ui.widgets.approvals_log import ApprovalsLog
    from agent_tui.ui.widgets.tool_blocks import ToolBlock
    from agent_tui.ui.widgets.tool_pane import ToolPane


#: kinds drawn by the tool block of the call they belong to (and by the tool pane)
ROUTED_TO_BLOCKS = frozenset(
    {
        "tool_input_delta",
        "tool_progress",
        "tool_finished",
        "approval_requested",
        "search_query_update",
        "search_results_received",
    }
)
#: kinds the chat doesn't draw: a request starting, a block finishing (its deltas drew it), the
#: undo journal's facts (`FilesChanged` says it once the turn ends), files put back (the undo
#: flow says so itself)
IGNORED = frozenset(
    {"request_started", "block_finished", "change_started", "change_recorded", "files_restored"}
)


class EventView:
    ROUTED: ClassVar[frozenset[str]] = ROUTED_TO_BLOCKS
    IGNORED: ClassVar[frozenset[str]] = IGNORED

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
        #: the answer last ended, which finishes (is drawn whole) in a step of its own
        self._ended: AssistantMessage | None = None
        self._thinking: FoldedText | None = None
        self._blocks: dict[str, ToolBlock] = {}
        self.usage: Usage | None = None
        self.cost = 0.0
        #: what the running turn's responses used so far (its `TurnFinished` replaces it)
        self._turn_usage: Usage | None = None
        self._turn_cost = 0.0
        #: the lines saying a request is tried again, until one gets an answer: a failure that
        #: follows says the same, and takes their place
        self._retrying: list[NoticeMessage] = []
        #: the context window in tokens of the model in use, asked at each answer: the model can
        #: change (set by the app; None: not shown)
        self.window: Callable[[], int] | None = None
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
        usage, turn = self.usage, self._turn_usage
        if turn is not None:
            usage = turn if usage is None else usage + turn
        self.status.usage, self.status.cost = usage, self.cost + self._turn_cost

    # --- events ---

    def handle(self, event: Event) -> None:
        """Draw one event: the tool pane sees every one; then this view's `on_<kind>` handler,
        or the tool block the event belongs to (`ROUTED_TO_BLOCKS`), or nothing (`IGNORED`)."""
        self.tool_pane.handle(event)
        if dispatch(self, event) is UNHANDLED and event.kind in ROUTED_TO_BLOCKS:
            self.route(event)

    def on_turn_started(self, event: TurnStarted) -> None:
        self._blocks.clear()
        activity.working(self.status)
        prompts = self.chat.query_children(UserMessage)  # (not every widget of every answer)
        if prompts and event.index >= 0:
            prompts.last().turn_index = event.index

    def on_message_started(self, event: MessageStarted) -> None:
        self._retrying.clear()  # answered: the retries stay said
        activity.streaming(self.status)

    def on_message_finished(self, event: MessageFinished) -> None:
        if event.stop_reason == "tool_use":  # not "streaming…" while its calls run
            activity.running_tools(self.status)
        window = self.window() if self.window is not None else 0
        if window:
            from agent_tui.agent.context import context_used

            used = context_used(event.usage)
            self.status.context = min(100, round(100 * used / window))

    def on_text_delta(self, event: TextDelta) -> None:
        self._end_thinking()
        self._assistant().write(event.text)

    def on_thinking_delta(self, event: ThinkingDelta) -> None:
        self._thinking_block().append(event.text)

    def on_context_compacted(self, event: ContextCompacted) -> None:
        self.end_message()
        self.chat.append(compaction_notice(event))
        self.status.context = 0

    def on_tool_call_started(self, event: ToolCallStarted) -> None:
        self._tool_block(event.tool_use_id, event.tool).handle(event)

    def on_tool_call_ready(self, event: ToolCallReady) -> None:
        self._tool_block(event.tool_use_id, event.tool).handle(event)

    def on_approval_decided(self, event: ApprovalDecided) -> None:
        self.approvals_log.add(event)
        self.route(event)

    def on_notice(self, event: Notice) -> None:
        self.end_message()
        notice = NoticeMessage(event.text, event.level)
        self.chat.append(notice)
        if event.retrying:
            self._retrying.append(notice)

    def on_files_changed(self, event: FilesChanged) -> None:
        self.end_message()
        self.chat.append(NoticeMessage(files_changed_text(event), "info"))

    def on_stream_failed(self, event: StreamFailed) -> None:
        self.end_message(incomplete=bool(event.partial_text))
        for notice in self._retrying:  # the failure says what they said
            notice.remove()
        self._retrying.clear()
        self.chat.append(
            NoticeMessage(
                f"{event.error}\nThe session is still usable. Press ctrl+r (or send “r”) to retry.",
                "error",
            )
        )

    def on_usage_counted(self, event: UsageCounted) -> None:
        turn = self._turn_usage
        self._turn_usage = event.usage if turn is None else turn + event.usage
        self._turn_cost += event.cost_usd
        self.show_totals()

    def on_turn_finished(self, event: TurnFinished) -> None:
        self.end_message()
        self.usage = event.usage if self.usage is None else self.usage + event.usage
        self.cost += event.cost_usd
        self._turn_usage, self._turn_cost = None, 0.0
        self.show_totals()
        activity.turn_ended(self.status, failed=event.failed)

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
            self._ended = current
            self._call_later(current.finish, incomplete)

    async def settled(self) -> None:
        """Return once the answer last ended is drawn whole (at once when it is, or none is)."""
        ended = self._ended
        if ended is not None and self._current is None:
            await ended.done.wait()

    def route(self, event: Event) -> None:
        """To the tool block of the call the event belongs to."""
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
    # a file changed again after someone else changed it has an entry per change: named once
    names = [Path(p).name for p in dict.fromkeys(str(f["path"]) for f in event.files)]
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    parts = []
    if names:
        parts.append(f"Changed {len(names)} file{'s' if len(names) != 1 else ''}: {shown}")
    if event.unrestorable:
        n = len(event.unrestorable)
        ran = f"{n} command{'s' if n != 1 else ''} ran where no snapshot could be taken"
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
