"""The app's own entries in the command palette (ctrl+p), after Textual's: each runs what its key
or `/command` runs, on the collaborator that owns it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from agent_tui.ui.controllers.session_settings import SessionSettings
    from agent_tui.ui.controllers.sessions import Sessions
    from agent_tui.ui.controllers.undo_flow import UndoFlow


def palette_commands(
    sessions: Sessions,
    undo: UndoFlow,
    settings: SessionSettings,
    focus_shells: Callable[[], object],
) -> Iterator[SystemCommand]:
    yield SystemCommand(
        "Sessions: browse",
        "Find a past session; resume, replay, export or delete it",
        sessions.browse,
    )
    yield SystemCommand(
        "Undo: the last turn's file changes",
        "Put back what the last turn changed on disk, after a preview (/undo)",
        undo.undo,
    )
    yield SystemCommand(
        "Rewind: to an earlier prompt",
        "Go back to before a prompt: its files, the conversation, or both (/rewind)",
        undo.rewind,
    )
    yield SystemCommand(
        "Permissions: rules in force",
        "The rules by source, how often each fired; delete one (/permissions)",
        undo.permissions,
    )
    yield SystemCommand(
        "Background shells",
        "The running background shells: choose one, k kills it (/bashes, f2)",
        focus_shells,
    )
    yield SystemCommand(
        "Context: compact",
        "Summarise the older turns now to free context (/compact)",
        settings.compact,
    )
    yield SystemCommand(
        "MCP: servers",
        "The MCP servers: connected, failed or waiting, and their tools (/mcp)",
        settings.mcp_status,
    )
    yield SystemCommand(
        "Sandbox: status",
        "The OS sandbox: backend, mode, writable / hidden paths, network (/sandbox)",
        settings.sandbox,
    )
    yield SystemCommand(
        "Thinking: on/off",
        "Toggle extended thinking for the next requests (alt+t)",
        settings.toggle_thinking,
    )
    yield SystemCommand(
        "Model: switch",
        "Use another model from the next request on (the prompt cache starts anew)",
        settings.switch_model,
    )
