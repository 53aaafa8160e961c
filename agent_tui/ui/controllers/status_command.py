"""The person's status command on screen (`agent_tui.status_line`): each second, if no run is
going and the session changed (or 10 s passed), the command runs in a worker thread with the
session's JSON; its first line shows in a line of its own above the status line (mounted with
its first output, so a session without one has no such widget). A failure is said once in the
chat, until the command works again. The app's frames never wait for it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Protocol

from rich.text import Text
from textual.widgets import Static

#: a session that didn't change still has its line refreshed this often (a clock, a branch)
REFRESH_S = 10.0


class StatusCommandHost(Protocol):
    agent: Any
    recorder: Any

    @property
    def main(self) -> Any: ...

    @property
    def chat(self) -> Any: ...


class StatusCommand:
    def __init__(self, app: Any, host: StatusCommandHost, command: str, source: str) -> None:
        self.app, self.host = app, host
        self.command, self.source = command, source
        self.running = False
        self.failed = False
        self.shown = ""
        self._last: bytes = b""
        self._last_at = 0.0

    def start(self) -> None:
        self.tick()
        self.app.set_interval(1.0, self.tick)

    def tick(self) -> None:
        """At most one run at a time, at most one a second."""
        agent = self.host.agent
        if self.running or agent is None:
            return
        from agent_tui import __version__
        from agent_tui.status_line import payload

        recorder = self.host.recorder
        session = (recorder.session_id if recorder is not None else None) or ""
        data = json.dumps(payload(agent, session, __version__)).encode()
        if data == self._last and time.monotonic() - self._last_at < REFRESH_S:
            return
        self._last, self._last_at, self.running = data, time.monotonic(), True
        self.app.run_worker(self._run(data, agent.config.cwd), group="status-command")

    async def _run(self, data: bytes, cwd: Path) -> None:
        from agent_tui.status_line import run

        try:
            outcome = await asyncio.to_thread(run, self.command, data, cwd)
        finally:
            self.running = False
        if outcome.error is not None:
            if not self.failed:
                from agent_tui.ui.chat.messages import NoticeMessage

                self.failed = True
                self.host.chat.append(
                    NoticeMessage(
                        f"The status command ({self.source}) failed: {outcome.error}. It is "
                        f"tried again each second; this is said once: {self.command}",
                        "warning",
                    )
                )
            return
        self.failed = False
        if outcome.line != self.shown:
            self.shown = outcome.line
            self._widget().update(Text.from_ansi(outcome.line, no_wrap=True, end=""))

    def _widget(self) -> Static:
        main = self.host.main
        found = main.query_children("#status-command")
        if found:
            widget: Static = found.first(Static)
            return widget
        widget = Static(id="status-command", markup=False)
        main.mount(widget, before=main.status)
        return widget


def start_status_command(app: Any, host: StatusCommandHost) -> StatusCommand | None:
    """The person's status command, started; None when they have none."""
    from agent_tui.status_line import configured_command

    agent = host.agent
    found = configured_command(agent.config.cwd) if agent is not None else None
    if found is None:
        return None
    runner = StatusCommand(app, host, *found)
    runner.start()
    return runner
