"""Deferred tools, as Claude Code defers them: WebFetch and every MCP tool (`Tool.should_defer`)
reach the model only once it looks for them with `ToolSearch`.

Two ways, chosen per session (`deferral_mode`):

- "api", where the API has tool search (the first-party API at its own address, or a base URL
  said to have it with Claude Code's `ENABLE_TOOL_SEARCH=true`): every tool stays in the request's
  `tools`, the deferred ones marked `defer_loading: true`, so the API keeps them out of the
  model's context; `ToolSearch` answers with `tool_reference` blocks, which the API expands into
  the full definitions (the API's own client-side tool search, as Claude Code uses it).
- "client", elsewhere (the offline model, Bedrock, Vertex, Foundry, another base URL such as a
  proxy, or `AGENT_TUI_TOOL_SEARCH=client`): deferred tools are left out of `tools`;
  `ToolSearch` answers with their definitions as text, and a call to one runs like any other.

Either way `tools` is the same bytes on every request of a session (a search changes nothing in
it, only the conversation grows), so the cached prompt prefix stays valid. `ToolSearch` comes
last, carrying the tools' cache breakpoint, and names the deferred tools in its description.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agent_tui.tools.base import Tool, ToolRegistry

if TYPE_CHECKING:
    from agent_tui.providers.base import Provider

MODES = ("api", "client", "off")
#: the search tool's name, Claude Code's
TOOL_SEARCH = "ToolSearch"


#: the first-party API's host: another base URL (a proxy, a gateway) may not pass tool search on
FIRST_PARTY_HOST = "api.anthropic.com"


def deferral_mode(provider: Provider | None, model: str) -> str:
    """Where the API offers tool search, "api": the first-party API at its own address, Claude 4
    models and later. Elsewhere "client". As Claude Code does, another `ANTHROPIC_BASE_URL` gets
    no API tool search unless `ENABLE_TOOL_SEARCH=true` says it has it (`false`: no deferral at
    all); `AGENT_TUI_TOOL_SEARCH` (api, client or off) overrides both."""
    from urllib.parse import urlsplit

    forced = os.environ.get("AGENT_TUI_TOOL_SEARCH", "").strip().lower()
    if forced in MODES:
        return forced
    enable = os.environ.get("ENABLE_TOOL_SEARCH", "").strip().lower()
    if enable in ("false", "0", "no"):
        return "off"
    if getattr(provider, "name", "") != "anthropic" or "claude-3" in model:
        return "client"
    base = os.environ.get("ANTHROPIC_BASE_URL", "").strip()
    host = urlsplit(base).hostname if base else FIRST_PARTY_HOST
    if host == FIRST_PARTY_HOST or enable in ("true", "1", "yes"):
        return "api"
    return "client"


class DeferringRegistry(ToolRegistry):
    """The session's tools with the deferred ones held back (see the module's doc)."""

    def __init__(self, mode: str, tools: list[Tool] | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown deferral mode {mode!r}")
        super().__init__(tools)
        self.mode = mode
        self._search: Tool | None = None

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown deferral mode {mode!r}")
        self.mode = mode
        self._changed()

    def model_changed(self, provider: Any, model: str) -> None:
        # Claude 3 models have no API tool search; the prompt cache starts anew with a new model
        self.set_mode(deferral_mode(provider, model))

    def deferred(self) -> list[Tool]:
        """The tools held back, in the order they were added (none when the mode is "off")."""
        if self.mode == "off":
            return []
        return [t for t in ToolRegistry.all(self) if t.should_defer]

    def get(self, name: str) -> Tool | None:
        if name == TOOL_SEARCH and TOOL_SEARCH not in self.names():
            return self.search_tool() if self.deferred() else None
        return super().get(name)

    def search_tool(self) -> Tool:
        if self._search is None:
            from agent_tui.tools.tool_search import ToolSearchTool

            self._search = ToolSearchTool(self)
        return self._search

    def _build_schemas(self) -> list[dict[str, Any]]:
        tools = ToolRegistry.all(self)
        deferred = [t for t in tools if t.should_defer] if self.mode != "off" else []
        if not deferred:
            return [t.schema() for t in tools]
        shown = [t.schema() for t in tools if not t.should_defer]
        if self.mode == "api":
            shown += [{**t.schema(), "defer_loading": True} for t in deferred]
        return [*shown, self.search_tool().schema()]
