"""One MCP server tool as a `Tool`: named `mcp__<server>__<tool>` (as Claude Code names them, so
rules carry over), its input schema sent as the server gave it, and its result — text, images,
embedded resources, links — turned into a tool_result for the model."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from agent_tui.tools.base import Tool, ToolContext, ToolInputError, ToolOutput

#: characters of text a result may carry
MAX_RESULT_CHARS = 100_000
#: image types the Messages API takes
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class McpArguments(BaseModel):
    """Whatever object the model sent: the server validates its own arguments."""

    model_config = ConfigDict(extra="allow")


Call = Callable[[str, str, dict[str, Any]], Awaitable[Any]]


def tool_name(server: str, tool: str) -> str:
    return f"mcp__{server}__{tool}"


class McpTool(Tool):
    name: ClassVar[str] = ""  # per instance, see __init__
    description: ClassVar[str] = ""
    input_model: ClassVar[type[BaseModel]] = McpArguments
    #: MCP tools are deferred, as in Claude Code: found with ToolSearch (`tools.deferred`)
    should_defer: ClassVar[bool] = True

    def __init__(
        self, server: str, tool: str, description: str, schema: dict[str, Any], call: Call
    ) -> None:
        self.name = tool_name(server, tool)  # type: ignore[misc]
        self.server, self.tool = server, tool
        self.description = (description or f"The {tool} tool of the {server} MCP server.")[:4000]  # type: ignore[misc]
        self.input_schema = schema if isinstance(schema, dict) else {"type": "object"}
        self._call = call

    def schema(self) -> dict[str, Any]:
        schema = {k: v for k, v in self.input_schema.items() if k != "title"}
        schema.setdefault("type", "object")
        return {"name": self.name, "description": self.description, "input_schema": schema}

    def validate(self, raw: dict[str, Any]) -> BaseModel:
        if not isinstance(raw, dict):
            raise ToolInputError(f"Invalid input for {self.name}: expected an object")
        return McpArguments.model_validate(raw)

    def subject(self, params: Any) -> str:
        args = params.model_dump()
        return f"{self.server}: {self.tool} {json.dumps(args, ensure_ascii=False)}"

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        ctx.progress(status=f"calling {self.server}")
        try:
            result = await self._call(self.server, self.tool, params.model_dump())
        except Exception as exc:  # a server that dies or times out is the model's to hear
            return ToolOutput(
                f"The {self.server} MCP server failed: {type(exc).__name__}: {exc}",
                is_error=True,
                summary="server failed",
            )
        return result_output(result)


def result_output(result: Any) -> ToolOutput:
    """A `CallToolResult` as a ToolOutput: text joined, images as image blocks, resources
    inlined as text (or described, when binary)."""
    texts: list[str] = []
    blocks: list[dict[str, Any]] = []
    for item in getattr(result, "content", None) or []:
        kind = getattr(item, "type", "")
        if kind == "text":
            texts.append(item.text)
        elif kind == "image" and item.mime_type in IMAGE_TYPES:
            source = {"type": "base64", "media_type": item.mime_type, "data": item.data}
            blocks.append({"type": "image", "source": source})
        elif kind == "resource":
            resource = item.resource
            text = getattr(resource, "text", None)
            if text is not None:
                texts.append(f"[resource {resource.uri}]\n{text}")
            else:
                texts.append(
                    f"[binary resource {resource.uri} ({resource.mime_type or 'unknown'})]"
                )
        elif kind == "resource_link":
            texts.append(f"[resource link {item.name}: {item.uri}]")
        else:
            texts.append(f"[{kind or 'unknown'} content, not shown]")
    structured = getattr(result, "structured_content", None)
    if not texts and structured:
        texts.append(json.dumps(structured, ensure_ascii=False))
    text = "\n".join(texts)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n[cut at {MAX_RESULT_CHARS:,} characters]"
    failed = bool(getattr(result, "is_error", False))
    images = f" · {len(blocks)} image{'s' if len(blocks) != 1 else ''}" if blocks else ""
    summary = ("error" if failed else f"{len(text):,} chars") + images
    return ToolOutput(text, is_error=failed, summary=summary, blocks=blocks or None)
