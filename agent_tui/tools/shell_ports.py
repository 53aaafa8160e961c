"""The ports the session's background shells listen on, watched and forwarded to the person's
loopback once allowed (`sandbox/ports.py`); the shells list shows where each one is."""

from __future__ import annotations

from typing import Any

from agent_tui.protocol.events import Notice


def watch_ports(shells: Any, sandbox: Any, ctx: Any) -> None:
    """Start watching (once a session) when a sandboxed background shell starts."""
    holder = sandbox.holder
    if holder is None:
        return
    if sandbox.port_watch is None:
        from agent_tui.paths import data_dir
        from agent_tui.sandbox.ports import PortWatch

        def running() -> dict[int, str]:
            return {s.pgid: s.id for s in shells.running() if s.sandboxed}

        sandbox.port_watch = PortWatch(
            holder,
            sandbox.cwd,
            shells=running,
            ask=ctx.ask_forward,
            say=lambda level, text: ctx.emit(Notice(level, text)),
            settings=tuple(sandbox.config.forward_ports),
            yolo=lambda: sandbox.permissions.mode == "yolo",
            remembered_file=data_dir() / "forwarded-ports.json",
        )
        shells.ports = sandbox.port_watch
    sandbox.port_watch.start()


def forwarded(shells: Any, shell_id: str) -> dict[int, int]:
    """The shell's forwarded ports: its port in the sandbox -> the port on this machine."""
    watch = getattr(shells, "ports", None)
    return dict(watch.of(shell_id)) if watch is not None else {}
