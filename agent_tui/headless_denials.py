"""What a headless run couldn't do: the calls it refused, said on stderr after the answer with
the flags that would allow them.

Decided (issue 31): the exit code stays 0 when the turn itself succeeded, as in Claude Code (the
model answered, often saying what it could not do; scripts read the answer). The refusals are
never silent: text mode prints them on stderr, `--output-format json` lists them in the result's
`permission_denials` (Claude Code's field), stream-json has a `permission` event for each.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from agent_tui.protocol.events import ApprovalDecided, ToolCallReady


@dataclass
class Denials:
    """The refused calls of one headless run, as their `permission` events arrive."""

    events: list[ApprovalDecided] = field(default_factory=list)
    #: tool_use id -> the call's input, for Claude Code's `tool_input`
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def on_event(self, event: Any) -> None:
        if isinstance(event, ToolCallReady):
            self.inputs[event.tool_use_id] = event.input
        if isinstance(event, ApprovalDecided) and event.decision == "deny":
            self.events.append(event)

    def as_json(self) -> list[dict[str, Any]]:
        """Claude Code's `permission_denials` (`tool_name`, `tool_use_id`, `tool_input`), one
        object per refused call, with what was refused (`subject`) and by what (`by`)."""
        return [
            {
                "tool_name": e.tool,
                "tool_use_id": e.tool_use_id,
                "tool_input": e.updated_input or self.inputs.get(e.tool_use_id, {}),
                "subject": e.subject,
                "by": e.by,
            }
            for e in self.events
        ]

    def report(self) -> list[str]:
        """The lines for stderr: how many were refused, each one, and how to allow them."""
        if not self.events:
            return []
        n = len(self.events)
        lines = [f"agent-tui: {n} tool call{'s' if n != 1 else ''} denied in this run:"]
        for e in self.events:
            subject = e.subject if len(e.subject) <= 100 else e.subject[:99] + "…"
            why = {
                "headless": "needs approval, no one to ask",
                "rule": f"deny rule {e.rule}" if e.rule else "a deny rule",
            }.get(e.by, e.message or e.by)
            lines.append(f"  {e.tool}: {' '.join(subject.split())}  ({why})")
        asked = [e for e in self.events if e.by == "headless"]
        rules = list(dict.fromkeys(r for e in asked for r in e.suggestions))
        if rules:
            flags = " ".join(f"--allow {shlex.quote(r)}" for r in rules)
            lines.append(f"agent-tui: to allow them, run again with {flags}")
        elif asked:
            lines.append(
                "agent-tui: to allow them, run again with --allow 'Tool(pattern)' rules "
                "(or --approve-asks to approve every ask)"
            )
        return lines
