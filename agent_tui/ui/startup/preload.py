"""The agent's modules, imported while the first frame waits for its tick.

Textual paints on a timer: once the first screen is mounted and styled, its first frame waits for
the screen's update timer, most of a frame (1/60 s) with the event loop idle. The boot worker
starts after that frame, and most of its CPU went on importing the agent's modules (BENCHMARKS.md,
issue 34). `IdleImports` imports them in that wait instead: one module per event-loop step, so the
frame is held up by one module's import at most, until the frame is painted (`stop`, when the boot
starts); the boot imports what is left, as before. Nothing else is done early: the agent is still
built, and the session opened, by the boot worker.

`BOOT_MODULES` is what the boot imports on its way to a ready agent, in the order the imports
complete (a module after the ones it imports), so each step imports one module (a package whose
`__init__` imports its modules: those too). `tests/ui/test_preload.py` keeps it so, and prints the
list to put here when the boot's imports change.
"""

from __future__ import annotations

import asyncio
import importlib
import logging

log = logging.getLogger(__name__)

BOOT_MODULES = (
    # a new session's `git status` starts as the first screen is mounted (`BootFlow._start_git`)
    "agent_tui.agent",
    "agent_tui.agent.config",
    "agent_tui.agent.memory",
    "agent_tui.agent.system_prompt",
    "agent_tui.git_run",
    "agent_tui.permissions",
    "agent_tui.permissions.config_text",
    "agent_tui.permissions.git_index",
    "agent_tui.permissions.git_links",
    "agent_tui.permissions.git_config",
    "agent_tui.ui.startup.booting",
    "agent_tui.ui.controllers.approval_queue",
    "agent_tui.permissions.types",
    "agent_tui.ui.controllers.stamp_guard",
    "agent_tui.ui.views.rule_preview",
    "agent_tui.agent.background",
    "agent_tui.agent.stop_reasons",
    "json",
    "agent_tui.tools.subject",
    "agent_tui.agent.provenance",
    "agent_tui.tools.base",
    "agent_tui.agent.verdict",
    "agent_tui.protocol.usage",
    "agent_tui.protocol.events",
    "agent_tui.agent.approvals",
    "agent_tui.agent.cost",
    "agent_tui.providers",
    "agent_tui.providers.base",
    "agent_tui.agent.preflight",
    "agent_tui.agent.budget",
    "agent_tui.agent.capped_provider",
    "agent_tui.agent.context",
    "agent_tui.protocol.content",
    "agent_tui.agent.conversation",
    "agent_tui.protocol.partial_json",
    "agent_tui.protocol.assembler",
    "agent_tui.providers.drain",
    "agent_tui.redact",
    "agent_tui.agent.compaction",
    "agent_tui.agent.retries",
    "agent_tui.agent.startup_notes",
    "agent_tui.agent.tool_runner",
    "agent_tui.hooks",
    "agent_tui.hooks.config",
    "agent_tui.hooks.runner",
    "agent_tui.hooks.outcome",
    "agent_tui.agent.turn_hooks",
    "agent_tui.checkpoints",
    "agent_tui.checkpoints.attribution",
    "agent_tui.checkpoints.blobs",
    "agent_tui.checkpoints.git_tree",
    "agent_tui.checkpoints.confined",
    "agent_tui.checkpoints.scratch",
    "agent_tui.checkpoints.checkpointer",
    "agent_tui.pathutil",
    "agent_tui.tools.media",
    "agent_tui.agent.loop",
    "agent_tui.tools.shells",
    "agent_tui.providers.offline",
    "agent_tui.permissions.claude_settings",
    "shlex",
    "agent_tui.permissions.hosts",
    "agent_tui.permissions.rules",
    "agent_tui.permissions.settings",
    "agent_tui.permissions.decisions",
    "agent_tui.permissions.analysis",
    "agent_tui.permissions.links",
    "agent_tui.permissions.protected",
    "agent_tui.permissions.trust",
    "agent_tui.permissions.engine",
    "agent_tui.models",
    "agent_tui.settings_check",
    "agent_tui.permissions.claude_rules",
    "agent_tui.sandbox",
    "agent_tui.sandbox.base",
    "agent_tui.sandbox.config",
    "agent_tui.sandbox.reaper",
    "agent_tui.sandbox.run",
    "agent_tui.sandbox.runner",
    "agent_tui.sandbox.git_exclude",
    "agent_tui.sandbox.home",
    "agent_tui.sandbox.bwrap",
    "agent_tui.plugins",
    "agent_tui.mcp_servers",
    "agent_tui.mcp_servers.config",
    "agent_tui.plugins.manifest",
    "agent_tui.plugins.session",
    "agent_tui.plugins.registry",
    "agent_tui.tools.deferred",
    "agent_tui.agent.subagents",
    "agent_tui.mcp_servers.session_setup",
    "agent_tui.agent.skill_setup",
    "agent_tui.front_matter",
    "agent_tui.skills",
    "agent_tui.sessions.records",
    "agent_tui.sessions.repair",
    "sqlite3",
    "agent_tui.sessions.search",
    "agent_tui.sessions.audit",
    "agent_tui.sessions.chain",
    "agent_tui.sessions.event_buffer",
    "agent_tui.sessions.schema",
    "agent_tui.sessions.faults",
    "agent_tui.sessions.database",
    "agent_tui.sessions.catalog",
    "agent_tui.sessions.event_log",
    "agent_tui.sessions.checkpoint_log",
    "agent_tui.sessions.message_log",
    "agent_tui.sessions.run_log",
    "agent_tui.sessions.store",
    "agent_tui.sessions",
    "agent_tui.agent.recording",
    "agent_tui.sessions.backlog",
    "agent_tui.sessions.draft",
    "agent_tui.sessions.recorded_blobs",
    "agent_tui.sessions.session_lock",
    "agent_tui.sessions.stored_session",
    "agent_tui.sessions.recorder",
    "agent_tui.ui.widgets.approvals_log",
    "agent_tui.ui.views.tool_activity",
    "agent_tui.ui.widgets.plan",
    "agent_tui.tools.shell_ports",
    "agent_tui.ui.widgets.shells_list",
    "agent_tui.ui.widgets.tool_rows",
    "agent_tui.ui.widgets.tool_pane",
    "agent_tui.ui.widgets.folded",
    "agent_tui.ui.views.event_view",
    "agent_tui.ui.controllers.questions",
    "agent_tui.ui.controllers.status_command",
    "agent_tui.status_line",
)


#: what the boot of a resumed session (`--resume ID`, `--continue`) imports to read the session's
#: end ahead and draw it (`booting.read_ahead`, `Sessions.show_early`), then the whole
#: (`ReadAhead.read_all`), in the order the imports complete: that boot's idle steps. Only those:
#: the agent is built after that frame is painted (`BootFlow._show_early`), so its modules,
#: imported before, would only take CPU from the frame the person waits for (issue 34)
READ_AHEAD_MODULES = (
    "agent_tui.ui.startup.booting",
    "agent_tui.protocol.usage",
    "agent_tui.protocol.events",
    "agent_tui.sessions.records",
    "agent_tui.sessions.repair",
    "sqlite3",
    "agent_tui.redact",
    "agent_tui.protocol.content",
    "agent_tui.sessions.search",
    "json",
    "agent_tui.sessions.audit",
    "agent_tui.sessions.chain",
    "agent_tui.sessions.event_buffer",
    "agent_tui.sessions.schema",
    "agent_tui.sessions.faults",
    "agent_tui.sessions.database",
    "agent_tui.sessions.catalog",
    "agent_tui.checkpoints",
    "agent_tui.checkpoints.blobs",
    "agent_tui.sessions.event_log",
    "agent_tui.sessions.checkpoint_log",
    "agent_tui.sessions.message_log",
    "agent_tui.sessions.run_log",
    "agent_tui.sessions.store",
    "agent_tui.sessions",
    "agent_tui.sessions.faults",
    "agent_tui.sessions.session_lock",
    "agent_tui.sessions.stored_session",
    "agent_tui.tools.subject",
    "agent_tui.ui.views.tool_activity",
    "agent_tui.ui.widgets.tool_rows",
    "agent_tui.ui.widgets.tool_blocks",
    "agent_tui.ui.widgets.history",
    "agent_tui.checkpoints.attribution",  # reading the whole session, once its end is drawn
)


class IdleImports:
    """Imports `modules` one per event-loop step from `start` until `stop` (or the end)."""

    def __init__(self, modules: tuple[str, ...] = BOOT_MODULES) -> None:
        self._next = iter(modules)
        self._stopped = False
        #: how many steps ran (for tests and benchmarks)
        self.steps = 0

    def start(self) -> None:
        """From the UI thread, in the app's event loop (the first screen just mounted)."""
        asyncio.get_running_loop().call_soon(self._step)

    def stop(self) -> None:
        self._stopped = True

    def _step(self) -> None:
        if self._stopped:
            return
        name = next(self._next, None)
        if name is None:
            return
        try:
            importlib.import_module(name)
        except Exception:  # a broken install: the boot meets it too, and says so in the chat
            log.debug("preloading %s failed", name, exc_info=True)
            return
        self.steps += 1
        asyncio.get_running_loop().call_soon(self._step)
