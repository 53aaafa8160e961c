"""`/sandbox`: what the sandbox is doing, in the person's words."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def describe(sandbox: Any) -> str:
    """`sandbox`: the session's `runner.Sandbox`."""
    a = sandbox.availability
    lines = [
        f"mode: {sandbox.mode} (from {sandbox.config.mode_source})",
        f"backend: {sandbox.backend.name}: {a.detail}" if a.ok else f"not available: {a.detail}",
    ]
    if sandbox.mode == "off":
        lines.append("Bash commands run without a sandbox (`--sandbox on|auto` turns it on).")
    elif not a.ok:
        lines.append("Bash commands run WITHOUT a sandbox: only the permission checks apply.")
    else:
        lines.append(
            "every Bash command runs inside"
            + (
                "; commands asked about only because they may run code or write in the "
                "project run there without asking"
                if sandbox.mode == "auto"
                else "; the usual questions are asked too"
            )
        )
    layout = sandbox.layout()
    home = str(Path(os.path.expanduser("~")))

    def listing(title: str, items: list[str]) -> None:
        lines.append(f"{title}:")
        lines.extend(f"  {i.replace(home, '~', 1) if i.startswith(home) else i}" for i in items)
        if not items:
            lines.append("  (none)")

    listing("writable", [str(p) for p in layout.writable] + ["/tmp (private to this session)"])
    listing(
        "read-only inside them",
        [str(p) for p in layout.read_only]
        + [f"{p} (not there: kept from being made)" for p, _ in layout.placeholders],
    )
    listing("readable", ["everything else, except what is hidden"])
    listing("hidden", [str(p) for p in layout.hidden] + ["/run (sockets of docker, dbus, agents)"])
    from agent_tui.sandbox.network import HostGate

    gate = HostGate(sandbox.permissions, sandbox.config.allowed_domains, None)
    allowed = list(sandbox.config.allowed_domains) + [
        r.rule.text
        for r in getattr(sandbox.permissions, "rules", ())
        if r.behavior == "allow" and r.rule.tool == "WebFetch" and not r.rule.bare
    ]
    listing("network (through the app's proxy)", allowed or ["no host allowed yet"])
    if gate.rule_decision("example.invalid")[0] == "allow":
        lines.append("  any other public host: allowed (yolo mode)")
    else:
        lines.append("  any other host: asks (loopback, private and metadata addresses: refused)")
    if sandbox.config.excluded_commands:
        listing("run outside it (excludedCommands)", list(sandbox.config.excluded_commands))
    if layout.notes:
        listing("notes", list(layout.notes))
    return "\n".join(lines)
