"""`/sandbox`: what the sandbox is doing, in the person's words: how commands run (as
transactions or directly), what they see and write, what they get of the environment, where
their network goes, and what is forwarded."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _how(sandbox: Any) -> str:
    if sandbox.mode == "off":
        return "Bash commands run without a sandbox (`--sandbox auto|on` turns it on)."
    if not sandbox.availability.ok:
        return "Bash commands run WITHOUT a sandbox: only the permission checks apply."
    asks = (
        "commands asked about only for what the sandbox contains (code, writes) run unasked"
        if sandbox.mode == "auto" and sandbox.transactional
        else "the usual questions are asked too"
    )
    if sandbox.transactional:
        apply = (
            "each change set waits for your review"
            if sandbox.config.apply == "review"
            else "applied when the command ends; protected files wait at the gate"
        )
        return f"every Bash command runs inside, as a transaction ({apply}); {asks}."
    why = sandbox.overlay_problem or "no overlay"
    return f"every Bash command runs inside, writing to the project directly ({why}); {asks}."


def describe(sandbox: Any) -> str:
    """`sandbox`: the session's `runner.Sandbox`."""
    a = sandbox.availability
    lines = [
        f"mode: {sandbox.mode} (from {sandbox.config.mode_source})",
        f"backend: {sandbox.backend.name}: {a.detail}" if a.ok else f"not available: {a.detail}",
        _how(sandbox),
    ]
    if sandbox.mode == "off" or not a.ok:
        return "\n".join(lines)
    layout = sandbox.layout()
    home = str(Path(os.path.expanduser("~")))

    def listing(title: str, items: list[str]) -> None:
        lines.append(f"{title}:")
        lines.extend(f"  {i.replace(home, '~', 1) if i.startswith(home) else i}" for i in items)
        if not items:
            lines.append("  (none)")

    if layout.overlay:
        _transaction_lists(sandbox, layout, listing)
    else:
        _direct_lists(layout, listing)
    _common_lists(sandbox, layout, listing, lines)
    return "\n".join(lines)


def _transaction_lists(
    sandbox: Any, layout: Any, listing: Callable[[str, list[str]], None]
) -> None:
    listing(
        "the project (through each command's overlay: its writes are its change set)",
        [str(layout.cwd)],
    )
    listing(
        "writable as they are",
        [str(p) for p in layout.writable] + ["/tmp and /var/tmp (the session's own)"],
    )
    if layout.home is not None:
        listing(
            "home: the session's own; shown read-only from yours",
            [str(p) for p in layout.home.read],
        )
        listing(
            "download caches (read from yours, written to the session's own layer)",
            [str(c) for c, _ in layout.home.caches],
        )
        listing("emptied", [str(m) for m in layout.home.masked])
    held = sandbox.held_offer()
    if held:
        listing("waiting for you", [held])


def _direct_lists(layout: Any, listing: Callable[[str, list[str]], None]) -> None:
    listing("writable", [str(p) for p in layout.writable] + ["/tmp (private to this session)"])
    listing(
        "read-only inside them",
        [str(p) for p in layout.read_only]
        + [f"{p} (not there: kept from being made)" for p, _ in layout.placeholders],
    )
    if layout.home is not None:
        listing(
            "home: the session's own; shown read-only from yours",
            [str(p) for p in layout.home.read],
        )


def _common_lists(
    sandbox: Any, layout: Any, listing: Callable[[str, list[str]], None], lines: list[str]
) -> None:
    from agent_tui.sandbox.environment import left_out
    from agent_tui.sandbox.network import HostGate

    listing("hidden", [str(p) for p in layout.hidden] + ["/run (sockets of docker, dbus, agents)"])
    if layout.sockets:
        listing("sockets shown (allowUnixSockets)", [str(p) for p in layout.sockets])
    passed = sandbox.environment()
    missing = left_out(os.environ, passed)
    listing(
        "environment: the allow-list; left out of yours",
        [", ".join(missing)] if missing else [],
    )
    gate = HostGate(sandbox.permissions, sandbox.config.allowed_domains, None)
    allowed = list(sandbox.config.allowed_domains) + [
        r.rule.text
        for r in sandbox.permissions.rules
        if r.behavior == "allow" and r.rule.tool == "WebFetch" and not r.rule.bare
    ]
    net = "one namespace for the session; out only through the app's proxy"
    listing(f"network ({net})", allowed or ["no host allowed yet"])
    if gate.rule_decision("example.invalid")[0] == "allow":
        lines.append("  any other public host: allowed (yolo mode)")
    else:
        lines.append("  any other host: asks (loopback, private and metadata addresses: refused)")
    watch = sandbox.port_watch
    forwards = [
        f"{watch.owners.get(p, '?')}: {p} → 127.0.0.1:{f.host_port}"
        for p, f in (watch.forwards.items() if watch is not None else ())
    ]
    if forwards or sandbox.config.forward_ports:
        listing("forwarded to this machine", forwards or ["(none yet)"])
    if sandbox.config.excluded_commands:
        listing("run outside it (excludedCommands)", list(sandbox.config.excluded_commands))
    if layout.notes:
        listing("notes", list(layout.notes))
