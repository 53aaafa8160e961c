"""The main screen: it owns the layout (the chat, the side panes, the prompt box, the status line
and the keys line), the widgets' lookups, the view keys (scrolling the chat, showing the side
pane) and the `EventView`s that draw on it. Composed once, for the first frame: the side panes
are mounted after it (`mount_side`), when the agent is ready."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen

from agent_tui.ui.chat.messages import ChatView, NoticeMessage
from agent_tui.ui.widgets.key_footer import KeyFooter
from agent_tui.ui.widgets.prompt import PromptInput
from agent_tui.ui.widgets.status import StatusLine

#: below this many columns the side pane is hidden
NARROW_BELOW = 100

if TYPE_CHECKING:
    from agent_tui.ui.views.event_view import EventView
    from agent_tui.ui.widgets.approvals_log import ApprovalsLog
    from agent_tui.ui.widgets.tool_pane import ToolPane


class MainScreen(Screen[None]):
    # Focus goes to the prompt straight away, not first to the chat (the first focusable widget,
    # Textual's default) and then over: that would style both widgets twice more.
    AUTO_FOCUS = "#prompt"

    def __init__(
        self,
        *,
        model: str,
        mode: str,
        offline: str | None = None,
        mounted: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(id="_default")
        self._model, self._mode, self._offline = model, mode, offline
        #: called once the screen's widgets are mounted (the app starts its work from there)
        self._mounted = mounted

    def on_mount(self) -> None:
        self.screen_layout_refresh_signal.subscribe(self, self._lift_toasts)
        if self._mounted is not None:
            self._mounted()

    def _lift_toasts(self, _screen: Screen[None]) -> None:
        """Toasts sit over the chat, bottom right: above the prompt box whatever its height (it
        grows with what is typed), the bars over it, the status line and the keys line."""
        # by id among the screen's own children: no walk of the chat's many widgets
        try:
            lift = self.size.height - self.get_child_by_id("main").region.bottom
            rack = self.get_child_by_id("textual-toastrack")
        except NoMatches:
            return
        if lift > 0 and rack.styles.margin.bottom != lift:
            rack.styles.margin = (0, 0, lift, 0)

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with ChatView(id="chat"):
                if self._offline:
                    yield NoticeMessage(
                        f"{self._offline}. Type a prompt (try “hello”, “run a command”, “search "
                        "the web for textual”).",
                        "info",
                    )
            # filled after the first frame (`mount_side`); styled narrow or not from the start
            yield Vertical(id="side", classes=self._side_class(self.app.size.width))
        yield PromptInput(id="prompt")
        status = StatusLine(id="status")
        status.set_reactive(StatusLine.model, self._model)
        status.set_reactive(StatusLine.mode, self._mode)
        status.set_reactive(StatusLine.activity, "starting…")
        yield status
        yield KeyFooter()

    @staticmethod
    def _side_class(width: int) -> str:
        return "-narrow" if width < NARROW_BELOW else ""

    def _fit_width(self, width: int) -> None:
        """Below `NARROW_BELOW` columns the side pane yields (ctrl+t still shows it). Only the
        pane's class changes: a class on the screen (Textual's breakpoints) styled every widget
        of the chat again on each resize across it, ~20 ms with a long answer on screen. And
        only the pane itself is styled again, not its widgets (the tool blocks: 3-7 ms in the
        resize's callback): no rule styles them by it (`#side.-narrow` alone, app.tcss; see
        tests/ui/test_first_frame.py)."""
        pane = self.query_one_optional("#side")
        if pane is None:
            return
        narrow = bool(self._side_class(width))
        if pane.has_class("-narrow") != narrow:
            pane.set_class(narrow, "-narrow", update=False)
            self.app.stylesheet.update_nodes([pane], animate=True)

    def on_resize(self, event: events.Resize) -> None:
        self._fit_width(event.size.width)

    def on_screen_resume(self) -> None:
        self._fit_width(self.app.size.width)  # resized while a dialog covered this screen

    # --- the widgets ---

    @property
    def chat(self) -> ChatView:
        return self.query_one(ChatView)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def tool_pane(self) -> ToolPane:
        from agent_tui.ui.widgets.tool_pane import ToolPane

        return self.query_one("#tools", ToolPane)

    @property
    def approvals_log(self) -> ApprovalsLog:
        from agent_tui.ui.widgets.approvals_log import ApprovalsLog

        return self.query_one("#approvals", ApprovalsLog)

    def mount_side(self) -> EventView:
        """Mount the tool pane and the approvals log; the live session's view on them."""
        from agent_tui.ui.widgets.approvals_log import ApprovalsLog
        from agent_tui.ui.widgets.tool_pane import ToolPane

        tools, approvals = ToolPane(id="tools"), ApprovalsLog(id="approvals")
        self.query_one("#side").mount(tools, approvals)
        return self.make_view(tools, approvals)

    def make_view(
        self, tools: ToolPane | None = None, approvals: ApprovalsLog | None = None
    ) -> EventView:
        """An `EventView` on this screen's chat, panes and status line (a replay makes its own,
        so its totals stay apart from the live session's)."""
        from agent_tui.ui.views.event_view import EventView

        return EventView(
            self.chat,
            self.status,
            tools or self.tool_pane,
            approvals or self.approvals_log,
            call_later=self.app.call_later,
        )

    # --- the view keys (bound on the app as `screen.…`, so the keys line keeps its order) ---

    def action_scroll_chat(self, where: str) -> None:
        """PageUp/PageDown and Ctrl+Home/End scroll the chat, wherever the focus is."""
        chat = self.chat
        if where == "home":
            chat.scroll_home(animate=False)
        elif where == "end":
            chat.scroll_end(animate=False)
            chat.anchor()
        else:
            scroll: Any = getattr(chat, f"scroll_{where}")
            scroll(animate=False)

    def action_toggle_tools(self) -> None:
        side = self.query_one("#side")
        side.display = not side.display

    def focus_next(self, selector: str | type[Any] = "*") -> Any:
        """Tab: as Textual moves focus, except that the running background shells' list is one
        of the stops even where the side pane is hidden (a narrow terminal): Tab from the last
        stop shows it and goes there, as F2 and /bashes do."""
        chain = self.focus_chain
        if selector == "*" and chain and self.focused is chain[-1] and self._shells_hidden():
            self.action_focus_shells()
            return self.focused
        return super().focus_next(selector)

    def _shells_hidden(self) -> bool:
        if self.query_one_optional("#tools") is None:
            return False
        shells = self.tool_pane.shells
        return bool(shells.running()) and shells not in self.focus_chain

    def action_focus_shells(self) -> None:
        """F2 (Alt+K, /bashes): the background shells list, to choose one and kill it (`k`)."""
        if self.query_one_optional("#tools") is None:
            return
        shells = self.tool_pane.shells
        if not shells.running():
            self.notify("No background shell is running.")
            return
        self.query_one("#side").display = True
        shells.display = True
        shells.focus()
