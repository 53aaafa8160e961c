"""`/doctor`: what this run stands on — the versions, each speed-up to Textual's internals
(applied, or standing down and why) and where the debug log is."""

from __future__ import annotations

import platform

from agent_tui import __version__, debug_log, speedups
from agent_tui.speedups.guard import OFF_VARIABLE


def doctor_text() -> str:
    from importlib.metadata import version

    lines = [
        f"agent-tui {__version__} · Python {platform.python_version()} · "
        f"Textual {version('textual')}",
        f"Speed-ups to Textual's internals ({OFF_VARIABLE}=name,… or all turns them off):",
    ]
    for patch, verdict in speedups.status():
        if verdict.applies:
            lines.append(f"  ✓ {patch.name}: applied (without it: {patch.symptom})")
        else:
            lines.append(f"  ✗ {patch.name}: stands down, {verdict.why}")
    log = debug_log.current()
    lines.append(f"Debug log: {log}" if log else "Debug log: none (agent-tui --debug writes one)")
    return "\n".join(lines)
