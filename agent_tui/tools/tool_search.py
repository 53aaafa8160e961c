"""ToolSearch: how the model finds a deferred tool (Claude Code's name and input: `query`, with
`select:NAME[,NAME]` to load tools by name or keywords to search, and `max_results`).

Keywords are matched against each deferred tool's name (split at `__` and `_`, so an MCP tool is
found by its server's name), its description and its parameters' names and descriptions; a
keyword that is a whole name part counts most, and tools that match far worse than the best one
are left out. What the model gets back depends on the session's
mode (`tools.deferred`): `tool_reference` blocks the API expands ("api"), or the definitions as
text ("client").
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.tools.base import Tool, ToolContext, ToolOutput


class DeferredTools(Protocol):
    """What ToolSearch needs of the session's tools (`tools.deferred.DeferringRegistry`)."""

    mode: str

    def deferred(self) -> list[Tool]: ...


_WORD = re.compile(r"[a-z0-9]+")


class ToolSearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1,
        description='Keywords to search the deferred tools for, or "select:NAME,NAME" to load '
        "tools by their exact names.",
    )
    max_results: int = Field(default=5, ge=1, le=50, description="The most tools to load.")


class ToolSearchTool(Tool):
    name: ClassVar[str] = "ToolSearch"
    subject_fields: ClassVar[tuple[str, ...]] = ("query",)
    description: ClassVar[str] = (
        "Loads deferred tools so that you can call them. Deferred tools are named below but their "
        "definitions (what they do, their parameters) are not loaded until you search for them: "
        'search by keywords, or load tools by name with "select:NAME,NAME". A tool found becomes '
        "callable like any other. Search before concluding that no tool can do something."
    )
    input_model: ClassVar[type[BaseModel]] = ToolSearchInput
    read_only: ClassVar[bool] = True

    def __init__(self, registry: DeferredTools) -> None:
        self.registry = registry

    def schema(self) -> dict[str, Any]:
        names = "\n".join(t.name for t in self.registry.deferred())
        schema = super().schema()
        schema["description"] = f"{self.description}\n\nDeferred tools:\n{names}"
        return schema

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        deferred = {t.name: t for t in self.registry.deferred()}
        found = search(params.query, list(deferred.values()), params.max_results)
        if not found:
            listing = ", ".join(deferred) or "none"
            return ToolOutput(
                f"No deferred tool matches {params.query!r}. The deferred tools: {listing}.",
                summary="no tool found",
                meta={"matches": []},
            )
        names = [t.name for t in found]
        summary = f"{len(names)} tool{'s' if len(names) != 1 else ''} loaded: {', '.join(names)}"
        meta: dict[str, Any] = {"matches": names, "mode": self.registry.mode}
        if self.registry.mode == "api":
            # Only references: the API expands each into the tool's full definition.
            refs = [{"type": "tool_reference", "tool_name": n} for n in names]
            return ToolOutput("", summary=summary, meta=meta, blocks=refs)
        definitions = "\n".join(json.dumps(t.schema(), ensure_ascii=False) for t in found)
        text = (
            f"<functions>\n{definitions}\n</functions>\n\n"
            "These tools can now be called by name, with input that follows their input_schema."
        )
        return ToolOutput(text, summary=summary, meta=meta)


def search(query: str, tools: list[Tool], limit: int) -> list[Tool]:
    """The tools `query` asks for, best first (see the module's doc)."""
    query = query.strip()
    if query.lower().startswith("select:"):
        wanted = [n.strip() for n in query[len("select:") :].split(",") if n.strip()]
        by_name = {t.name.lower(): t for t in tools}
        picked = [by_name[n.lower()] for n in wanted if n.lower() in by_name]
        return list(dict.fromkeys(picked))[:limit]
    words = _WORD.findall(query.lower())
    if not words:
        return []
    scored = []
    for order, tool in enumerate(tools):
        score = _score(tool, words)
        if score > 0:
            scored.append((-score, order, tool))
    scored.sort(key=lambda item: item[:2])
    # A tool that matches far worse than the best (a word in passing in its description) would
    # only cost the model tokens.
    floor = -scored[0][0] / 4 if scored else 0
    return [tool for score, _, tool in scored[:limit] if -score >= floor]


def _score(tool: Tool, words: list[str]) -> int:
    schema = tool.schema()
    parts = set(_WORD.findall(tool.name.lower()))
    name = tool.name.lower()
    description = str(schema.get("description", "")).lower()
    params = json.dumps(schema.get("input_schema", {}).get("properties", {})).lower()
    score = 0
    for word in words:
        if word in parts:
            score += 10
        elif word in name:
            score += 5
        if word in description:
            score += 2
        if word in params:
            score += 1
    return score
