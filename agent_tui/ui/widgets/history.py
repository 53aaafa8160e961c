"""Widgets for messages of a resumed session: each message becomes one finished widget (a long
answer at the top of the first page may show its end first, its beginning paged in with the
page above).

A long session is shown a page at a time: `EarlierMessages` sits at the top of the chat and mounts
the previous page above the messages on screen when the person scrolls to the top (or clicks it),
so opening a session of thousands of messages costs one page of widgets. A live session that
outgrows the chat's cap gets the same row when its oldest turns are pruned: scrolling back up
still reaches the first prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.events import Click
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.protocol.content import carries_tool_results, text_of
from agent_tui.sessions.records import ToolRun
from agent_tui.ui.chat.markdown_pieces import pieces
from agent_tui.ui.chat.messages import MarkdownSegment, UserMessage

if TYPE_CHECKING:
    from agent_tui.protocol.events import ToolFinished
    from agent_tui.ui.widgets.tool_blocks import ToolBlock


def history_widgets(
    messages: list[dict[str, Any]],
    runs: dict[str, ToolRun] | None = None,
    first: int = 0,
    cut: int = 0,
) -> list[Widget]:
    """Finished widgets for stored messages (`first`: the index of the first one in the
    conversation); `runs` (the store's tool runs by tool_use_id) give tool rows the same
    summary and timing live rows had (`exit 0 · 5 lines · 0.1s`). With `cut`, the first
    message is an answer shown from that offset of its text on (`answer_cut`)."""
    runs = runs or {}
    widgets: list[Widget] = []
    blocks: dict[str, ToolBlock] = {}
    rest_from = cut  # where the first message's first drawn text begins (`_first_text`)
    for index, message in enumerate(messages, first):
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            kind = block.get("type")
            if kind == "text" and block.get("text", "").strip():
                if message["role"] == "user":
                    widgets.append(UserMessage(block["text"], turn_index=index))
                elif rest_from:
                    widgets.append(answer_rest(block["text"], rest_from))
                    rest_from = 0
                else:
                    # Rendered once per width and kept as lines, like a finished live answer
                    # (a Static would keep the parsed Markdown and render it twice).
                    widgets.append(MarkdownSegment(block["text"], classes="message assistant"))
            elif kind == "tool_use":
                blocks[block["id"]] = tool = _called(block)
                widgets.append(tool)
            elif kind == "tool_result" and block.get("tool_use_id") in blocks:
                blocks[block["tool_use_id"]].handle(_finished(block, runs))
    return widgets


def _called(block: dict[str, Any]) -> ToolBlock:
    """A stored tool call's block. (Its modules, and the events', load with the first one: a
    resumed page of prose draws without them.)"""
    from agent_tui.protocol.events import ToolCallReady
    from agent_tui.ui.widgets.tool_blocks import tool_block_for

    tool = tool_block_for(block["id"], block.get("name", ""))
    tool.handle(ToolCallReady(0, block["id"], block.get("name", ""), block.get("input") or {}))
    return tool


def _finished(block: dict[str, Any], runs: dict[str, ToolRun]) -> ToolFinished:
    """What a stored tool result tells its call's block."""
    from agent_tui.protocol.events import ToolFinished

    text = text_of(block.get("content", ""))
    run = runs.get(block["tool_use_id"])
    if run is not None and run.summary:
        summary, duration = run.summary, run.duration_s or 0.0
    else:  # recorded before runs were kept, or never decided: the output's start
        summary = text.strip().splitlines()[0][:80] if text.strip() else "done"
        duration = 0.0
    return ToolFinished(
        block["tool_use_id"], "", bool(block.get("is_error")), summary, duration, text[:2000]
    )


def answer_rest(text: str, cut: int) -> MarkdownSegment:
    """An answer from `cut` (a safe split point of its markdown) on: with the blank line Rich
    puts between blocks and no margin of its own, so once its beginning is mounted above it
    (`answer_beginning`) the two look exactly like the whole answer."""
    return MarkdownSegment(text[cut:], gap=True, classes="message assistant continued")


def answer_beginning(text: str, cut: int) -> MarkdownSegment:
    """An answer's markdown up to `cut`, the beginning `answer_rest` leaves out."""
    return MarkdownSegment(text[:cut], classes="message assistant")


#: blocks an answer may begin with that the history doesn't draw
_UNDRAWN = frozenset({"thinking", "redacted_thinking"})


def _first_text(message: dict[str, Any]) -> str | None:
    """An answer's first text, when nothing drawn comes before it (only thinking, or blank
    text, which the history doesn't draw): the part `answer_cut` may cut."""
    if message.get("role") != "assistant":
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and str(block.get("text", "")).strip():
            return str(block["text"])
        if kind not in _UNDRAWN and kind != "text":
            return None
    return None


def answer_cut(message: dict[str, Any], rows: int, width: int) -> int:
    """Where a long answer may begin on a resumed session's first page: the last safe split
    point of its text (`markdown_split`) from which the answer still fills about `rows` lines
    `width` cells wide (estimated); 0 when it is shown whole (not an answer, too short, no such
    point, or a text that defines a link reference, which `pieces` keeps whole: markdown
    resolves `[text][ref]` across the whole answer). Its beginning then comes with the next
    page, as earlier messages do."""
    text = _first_text(message)
    if not text or rows <= 0:
        return 0
    width = max(1, width)
    others = _estimated_rows(message, width) - _text_rows(text, width)  # its tool calls
    point = len(text) + 1
    for piece in reversed(pieces(text + "\n")[1:]):  # (finished: its last line is complete)
        point -= len(piece)  # where a split point starts this piece
        if others + 1 + _text_rows(text[point:], width) >= rows:  # 1: its gap (`answer_rest`)
            return point
    return 0


#: messages rendered per page of a resumed session
PAGE = 40


class HistoryPager:
    """Hands out a conversation's messages page by page, newest first.

    `messages` is the agent's own list: it only ever grows at the end, so the indexes of the
    messages not yet shown stay valid while the conversation goes on. Before the agent is
    built, a resumed session's pager has only the conversation's end (`offset`: the index of
    its first message in the whole), and pages no further back until it is given the whole
    (`hold`).
    """

    def __init__(
        self,
        messages: list[dict[str, Any]],
        page: int = PAGE,
        runs: dict[str, ToolRun] | None = None,
        offset: int = 0,
    ) -> None:
        self.messages = messages
        self.page = page
        self.runs = runs or {}
        self.offset = offset
        self.start = offset + len(messages)  # messages before `start` are not shown yet
        #: when > 0: the answer at `start` is shown from this offset of its text on (its end
        #: filled the first page, `answer_cut`); its beginning comes with the next page
        self.cut = 0

    @property
    def hidden(self) -> int:
        return self.start

    @property
    def can_page(self) -> bool:
        """Whether an earlier page can be handed out now."""
        return self.start > self.offset or self.cut > 0

    def hold(self, messages: list[dict[str, Any]]) -> None:
        """The whole conversation, which ends with the messages this pages: pages reach its
        first message from now on."""
        self.messages, self.offset = messages, 0

    def hide_before(self, index: int) -> None:
        """The chat shows the messages from `index` on, whole (a live chat pruned to there)."""
        self.start, self.cut = index, 0

    def previous_page(self) -> list[Widget]:
        """The page before what is shown: the messages before `start`, and the beginning of
        the answer at `start` when only its end is shown."""
        beginning: list[Widget] = []
        if self.cut:
            text = _first_text(self.messages[self.start - self.offset]) or ""
            beginning, self.cut = [answer_beginning(text, self.cut)], 0
        return self._page_from(max(self.offset, self.start - self.page)) + beginning

    def first_page(self, rows: int, width: int) -> list[Widget]:
        """The newest messages that fill about `rows` lines `width` cells wide (estimated from
        their text, never rendered to find out), at most a page: a resumed session paints what
        is seen, not a whole page of answers above it; the rest pages in on scrolling up. The
        oldest of them, a long answer, may show only its end (`answer_cut`): one answer can
        be many screens long, and rendering all of it kept the first frame waiting."""
        start, seen, last = self.start, 0, 0
        while start > self.offset and self.start - start < self.page and seen < rows:
            start -= 1
            last = _estimated_rows(self.messages[start - self.offset], max(1, width))
            seen += last
        cut = 0
        if seen > rows:  # the oldest overfills: its end may be enough
            cut = answer_cut(self.messages[start - self.offset], rows - (seen - last), width)
        return self._page_from(start, cut)

    def _page_from(self, start: int, cut: int = 0) -> list[Widget]:
        end, offset = self.start, self.offset
        # Tool results are drawn into their call's block: keep a page from starting with them,
        # or they would be cut off from the tool_use rendered on the page before.
        while start > offset and carries_tool_results(self.messages[start - offset]):
            start, cut = start - 1, 0
        self.start, self.cut = start, cut
        return history_widgets(self.messages[start - offset : end - offset], self.runs, start, cut)


def _estimated_rows(message: dict[str, Any], width: int) -> int:
    """About how many lines a stored message takes on screen: its text wrapped at `width` plus
    a blank line per block; a tool's row, two; thinking, none (not drawn)."""
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    rows = 0
    for block in content or []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            text = str(block.get("text", ""))
            rows += _text_rows(text, width) if text.strip() else 0
        elif kind not in _UNDRAWN:  # thinking isn't drawn
            rows += 2
    return rows


def _text_rows(text: str, width: int) -> int:
    """About how many lines `text` takes wrapped at `width`, and the blank line before it."""
    return 1 + sum(1 + len(line) // width for line in text.splitlines())


class EarlierMessages(Static):
    """The top row of a resumed chat while earlier messages are not on screen."""

    def __init__(self, pager: HistoryPager) -> None:
        super().__init__(classes="message notice earlier")
        self.pager = pager
        self._loading = False
        self._label()

    def on_mount(self) -> None:
        if self.parent is not None:
            self.watch(self.parent, "scroll_y", self._scrolled, init=False)

    def hide_before(self, index: int) -> None:
        """The chat was pruned down to the prompt at `index`: the row offers what is above it."""
        self.pager.hide_before(index)
        self._label()

    def _label(self) -> None:
        hidden, cut = self.pager.hidden, self.pager.cut
        self.display = hidden > 0 or cut > 0
        if not cut:
            label = f"{hidden:,} earlier messages: scroll up or click to load them"
        elif hidden:  # short: one line on an 80-column terminal
            label = f"this answer's start and {hidden:,} earlier messages: scroll up or click"
        else:
            label = "this answer's start: scroll up or click"
        self.update(Text(f"↑ {label}"))

    def hold(self, messages: list[dict[str, Any]]) -> None:
        """The agent holds the whole conversation this row's pager had only the end of
        (`HistoryPager.hold`): pages reach back to its first message now, and, if the view
        asked for more before (at the top, or not filled), they come."""
        self.pager.hold(messages)
        parent = self.parent
        if not isinstance(parent, Widget) or parent.scroll_y > 0:
            return
        if parent.max_scroll_y <= 0:
            self.fill_view()
        else:
            self.load_page()

    def _scrolled(self, scroll_y: float) -> None:
        if scroll_y <= 0 and self.pager.can_page and not self._loading:
            self.load_page()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.load_page()

    def fill_view(self) -> None:
        """Once the first page is painted: if it doesn't fill the chat (short messages, or the
        estimate was long), load pages until it does, so there is something to scroll up to."""
        parent = self.parent
        if isinstance(parent, Widget) and self.pager.can_page and parent.max_scroll_y <= 0:
            self.load_page()
            parent.call_after_refresh(self.fill_view)

    def load_page(self) -> None:
        """Mount the previous page under this row, keeping the view on what was on screen."""
        parent = self.parent
        if not self.pager.can_page or self._loading or not isinstance(parent, Widget):
            return
        self._loading = True
        before = parent.virtual_size.height
        widgets = self.pager.previous_page()
        self._label()

        def keep_place() -> None:
            grown = parent.virtual_size.height - before
            parent.scroll_to(y=parent.scroll_y + max(0, grown), animate=False, immediate=True)
            self._loading = False

        if widgets:
            parent.mount_all(widgets, after=self)
            parent.call_after_refresh(keep_place)
        else:
            self._loading = False
