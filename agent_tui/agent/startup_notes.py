"""What the person should hear about a session's start, for every front end (the app's boot,
headless, `agent-tui acp`): read from the session's parts through their types, in one place.

Each part is read when it is known: the settings' problems and the trust question once the agent
is built; the sandbox's notices once it is probed (a bwrap run or two: off the UI's thread); the
provider's set-up problem once its client was made (`runtime.warm_up`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.agent.approvals import PermissionChecker
    from agent_tui.agent.capped_provider import CappedProvider
    from agent_tui.sandbox.runner import Sandbox


@dataclass(frozen=True, slots=True)
class StartupNotes:
    """`Agent.startup_notes()`: the session's parts, asked what to say."""

    permissions: PermissionChecker
    provider: CappedProvider
    sandbox: Sandbox | None

    def settings(self) -> tuple[str, ...]:
        """Problems in the settings files read (ours, Claude Code's, plugins', hooks')."""
        return tuple(self.permissions.load_warnings)

    def trust_question(self) -> tuple[str, ...]:
        """What the project's files would grant or run, for the person to trust or not."""
        return self.permissions.trust_question

    def sandbox_notices(self) -> list[str]:
        """The sandbox's settings problems and why it can't run (it is probed here)."""
        return list(self.sandbox.start_notices) if self.sandbox is not None else []

    def held_changes(self, *, tui: bool = True) -> str | None:
        """Change sets of an earlier run that never landed, waiting for the person."""
        return self.sandbox.held_offer(tui=tui) if self.sandbox is not None else None

    def provider_problem(self) -> str | None:
        """Why the provider can't send a request (Bedrock or Vertex without a region or
        credentials), once its client was made; None: it can."""
        return self.provider.setup_error
