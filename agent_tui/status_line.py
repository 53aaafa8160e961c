"""A status line of the person's own: `[ui] status_command` in their settings.toml, else Claude
Code's `statusLine` (`{"type": "command", "command": …}`) from their own settings.json files (a
project's would run its code unasked). The command gets the session as Claude Code's JSON on
stdin and its first line of output is shown under the status line (ANSI colours kept).

It runs in a worker thread, never on the UI's loop, at most once a second and only while no
earlier run is still going, killed (with its process group) after `TIMEOUT_S`: a slow or
failing command never holds up a frame. A failure is said once until it works again."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent

TIMEOUT_S = 5.0
#: characters of the first line kept
LINE_CHARS = 500


def configured_command(cwd: Path) -> tuple[str, str] | None:
    """(the command, where it was set) or None: ours first, then Claude Code's."""
    from agent_tui.permissions.claude_settings import status_line
    from agent_tui.runtime import user_setting

    ours = user_setting("ui", "status_command")
    if isinstance(ours, str) and ours.strip():
        return ours, "[ui] status_command"
    theirs = status_line(cwd)
    return (theirs, "statusLine") if theirs else None


def payload(agent: Agent, session_id: str, version: str) -> dict[str, Any]:
    """Claude Code's status line input for this session."""
    config = agent.config
    cwd = str(config.cwd)
    return {
        "hook_event_name": "Status",
        "session_id": session_id,
        "transcript_path": "",
        "cwd": cwd,
        "model": {"id": config.model, "display_name": agent.provider.label},
        "workspace": {"current_dir": cwd, "project_dir": cwd},
        "version": version,
        "output_style": {"name": "default"},
        "permission_mode": agent.permissions.mode,
        "cost": {"total_cost_usd": round(agent.session_cost, 6)},
        "usage": agent.session_usage.to_dict(),
    }


@dataclass(frozen=True, slots=True)
class Outcome:
    """One run: its first line, or why there is none."""

    line: str = ""
    error: str | None = None


def run(command: str, data: bytes, cwd: Path, timeout: float = TIMEOUT_S) -> Outcome:
    """Run the command (blocking: call it from a worker thread) with `data` on stdin."""
    try:
        proc = subprocess.Popen(
            ["bash", "-c", command], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        return Outcome(error=f"could not start: {exc}")
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid, signal.SIGKILL)
        proc.communicate()
        return Outcome(error=f"took longer than {timeout:g} s")
    if proc.returncode != 0:
        why = err.decode("utf-8", "replace").strip().splitlines()
        return Outcome(error=f"exit {proc.returncode}" + (f": {why[-1][:200]}" if why else ""))
    lines = out.decode("utf-8", "replace").splitlines()
    return Outcome(lines[0][:LINE_CHARS] if lines else "")


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, sig)
