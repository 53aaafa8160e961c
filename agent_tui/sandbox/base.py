"""What a sandbox backend is: it says whether it can run here (and why not), wraps a command so
that it runs inside the boundary a `Layout` describes, and describes itself for `/sandbox`.

A Seatbelt (macOS) backend would implement the same three things; none ships untested.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from agent_tui.permissions.settings import SourcedRule
    from agent_tui.permissions.types import Behavior
    from agent_tui.sandbox.layout import Layout

SandboxMode = Literal["off", "on", "auto"]
MODES: tuple[SandboxMode, ...] = ("off", "on", "auto")
#: how much each mode protects: a project's settings may raise the mode, never lower it
STRENGTH: dict[str, int] = {"off": 0, "auto": 1, "on": 2}


@dataclass(frozen=True, slots=True)
class Availability:
    """Whether a sandbox backend can run here, and the line that says which one, or why not."""

    ok: bool
    #: "bubblewrap 0.11.0 (/usr/bin/bwrap)", or why it can't run, in one line
    detail: str


@dataclass(frozen=True, slots=True)
class Wrapped:
    """A command made to run inside the sandbox."""

    argv: list[str]


class SandboxPermissions(Protocol):
    """What the sandbox reads of the permission engine (`permissions.engine.PermissionEngine`):
    the Read deny rules it hides, the WebFetch rules and mode its network gate asks, and the
    hosts a person named."""

    @property
    def mode(self) -> str: ...

    @property
    def rules(self) -> tuple[SourcedRule, ...]: ...

    def rules_of(self, behavior: Behavior, tool: str) -> Iterator[SourcedRule]: ...

    @property
    def explicit_hosts(self) -> frozenset[str]: ...


class Backend(Protocol):
    name: str

    def availability(self) -> Availability:
        """Whether this backend runs here; probed once, then cached."""
        ...

    def wrap(
        self,
        argv: list[str],
        layout: Layout,
        proxy_socket: Path | None,
        *,
        project: list[str] | None = None,
        work: Path | None = None,
        netns: int | None = None,
        mirror: Path | None = None,
        seccomp: str = "",
    ) -> Wrapped:
        """`argv` run inside the boundary `layout` describes, reaching the network only through
        the proxy listening on `proxy_socket` (None: no network at all). `project`: the
        arguments that mount the project (a transaction's overlay); `work`: the command's own
        scratch folder; `netns`: join the session's network namespace (its holder's pid)."""
        ...

    def probe_overlay(self, lower: Path, upper: Path, work: Path) -> str | None:
        """None when an overlay of `lower` (writes to `upper`) mounts here, else why not."""
        ...
