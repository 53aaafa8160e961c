"""The app's view and mode keys: scrolling the chat, the side pane, F1 help, and the permission
mode (Shift+Tab, with a confirmation before yolo). A mixin of `AgentApp`."""

from __future__ import annotations

import shutil
from typing import Any

from agent_tui.ui.app_parts import AppParts
from agent_tui.ui.widgets.prompt import PromptInput


class ViewActions(AppParts):
    async def run_async(
        self, *, headless: bool = False, size: tuple[int, int] | None = None, **kwargs: Any
    ) -> int | None:
        """Run headless at the size the headless driver reports. Without one, Textual's driver
        says 80×24 and its Rich console 80×25, and the first frame is laid out and painted three
        times (24, 25, 24 rows) instead of once. A real terminal gives both the same size."""
        if headless and size is None:
            columns, lines = shutil.get_terminal_size()  # what HeadlessDriver asks, too
            size = (columns, lines)
        return await super().run_async(headless=headless, size=size, **kwargs)

    # The view keys are bound on the app (the keys line lists them in the app's order); the
    # main screen does what they ask.

    def action_scroll_chat(self, where: str) -> None:
        self.main.action_scroll_chat(where)

    def action_toggle_tools(self) -> None:
        self.main.action_toggle_tools()

    def action_cycle_mode(self) -> None:
        if self.agent is None:
            return
        from agent_tui.permissions.types import MODES

        approvals = self.agent.approvals
        mode = MODES[(MODES.index(approvals.mode) + 1) % len(MODES)]
        if mode == "yolo":
            from agent_tui.ui.screens.confirm import ConfirmScreen

            question = (
                "Switch to yolo mode? Every tool call not denied by a rule will run without "
                "asking you."
            )
            self.push_screen(ConfirmScreen(question), self._yolo_answered)
            return
        self._set_mode(mode)

    def _yolo_answered(self, yes: bool | None) -> None:
        self._set_mode("yolo" if yes else "default")

    def _set_mode(self, mode: str) -> None:
        assert self.agent is not None
        self.agent.approvals.set_mode(mode)
        self.status.mode = mode
        self.notify(f"Permission mode: {mode}")

    def action_help(self) -> None:
        from agent_tui.ui.screens.help import HelpScreen, editing_keys

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        self.push_screen(HelpScreen(editing_keys(PromptInput.BINDINGS)))
