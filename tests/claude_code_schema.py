"""What a Claude Code stream-json consumer expects of each line, written from Claude Code's
published types (the Agent SDK's `SDKMessage`: `SDKSystemMessage` init, `SDKAssistantMessage`,
`SDKUserMessage`, `SDKResultMessage`, `SDKToolProgressMessage`, `ModelUsage`,
`SDKPermissionDenial`) and its Python SDK's parser (`claude_agent_sdk._internal.message_parser`:
a line of a type it doesn't know is skipped; a known one must have its fields). The assistant's
`message` is checked with the installed anthropic SDK's own `BetaMessage` model.

`check_stream(lines)` parses every line as such a consumer would and returns the typed ones."""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
#: the types the SDKs parse (the Python SDK's `parse_message`, the TS SDK's tool_progress)
KNOWN = ("system", "assistant", "user", "result", "stream_event", "tool_progress")


class _Line(BaseModel):
    model_config = ConfigDict(extra="allow")  # more fields may come: consumers ignore them

    uuid: str
    session_id: str = Field(min_length=1)

    @field_validator("uuid")
    @classmethod
    def _is_uuid(cls, value: str) -> str:
        uuid.UUID(value)
        return value


class McpServer(BaseModel):
    name: str
    status: str


class Plugin(BaseModel):
    name: str
    path: str


class SystemInit(_Line):
    type: Literal["system"]
    subtype: Literal["init"]
    apiKeySource: str
    cwd: str
    tools: list[str]
    mcp_servers: list[McpServer]
    model: str
    permissionMode: PermissionMode
    slash_commands: list[str]
    output_style: str
    skills: list[str]
    plugins: list[Plugin]
    claude_code_version: str
    agents: list[str] | None = None


class Assistant(_Line):
    type: Literal["assistant"]
    message: dict[str, Any]
    parent_tool_use_id: str | None

    @field_validator("message")
    @classmethod
    def _api_message(cls, value: dict[str, Any]) -> dict[str, Any]:
        from anthropic.types.beta import BetaMessage

        BetaMessage.model_validate(value)  # the API's own shape
        assert value["role"] == "assistant" and isinstance(value["content"], list)
        return value


class ToolResultBlock(BaseModel):
    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[dict[str, Any]] | None = None
    is_error: bool | None = None


class UserContent(BaseModel):
    role: Literal["user"]
    content: str | list[ToolResultBlock]


class User(_Line):
    type: Literal["user"]
    message: UserContent
    parent_tool_use_id: str | None
    tool_use_result: Any = None


class ServerToolUse(BaseModel):
    web_search_requests: int
    web_fetch_requests: int


class NonNullableUsage(BaseModel):
    model_config = ConfigDict(extra="allow")

    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    server_tool_use: ServerToolUse


class ModelUsage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    inputTokens: int
    outputTokens: int
    cacheReadInputTokens: int
    cacheCreationInputTokens: int
    webSearchRequests: int
    costUSD: float
    contextWindow: int
    maxOutputTokens: int


class PermissionDenial(BaseModel):
    model_config = ConfigDict(extra="allow")

    tool_name: str
    tool_use_id: str
    tool_input: dict[str, Any]


TerminalReason = Literal[
    "completed", "max_turns", "tool_deferred", "aborted_streaming", "aborted_tools",
    "hook_stopped", "stop_hook_prevented", "background_requested", "blocking_limit",
    "rapid_refill_breaker", "prompt_too_long", "image_error", "model_error", "api_error",
    "malformed_tool_use_exhausted", "budget_exhausted", "structured_output_retry_exhausted",
    "tool_deferred_unavailable", "turn_setup_failed",
]  # fmt: skip


class _Result(_Line):
    type: Literal["result"]
    duration_ms: int = Field(ge=0)
    duration_api_ms: int = Field(ge=0)
    is_error: bool
    num_turns: int = Field(ge=0)
    stop_reason: str | None
    total_cost_usd: float = Field(ge=0)
    usage: NonNullableUsage
    modelUsage: dict[str, ModelUsage]
    permission_denials: list[PermissionDenial]
    terminal_reason: TerminalReason | None = None


class ResultSuccess(_Result):
    subtype: Literal["success"]
    result: str
    is_error: Literal[False]


class ResultError(_Result):
    subtype: Literal[
        "error_max_turns",
        "error_during_execution",
        "error_max_budget_usd",
        "error_max_structured_output_retries",
    ]
    errors: list[str]
    is_error: Literal[True]


class ToolProgress(_Line):
    type: Literal["tool_progress"]
    tool_use_id: str
    tool_name: str
    parent_tool_use_id: str | None
    elapsed_time_seconds: float = Field(ge=0)


Result = TypeAdapter(ResultSuccess | ResultError)
MODELS: dict[str, Any] = {
    "assistant": TypeAdapter(Assistant),
    "user": TypeAdapter(User),
    "result": Result,
    "tool_progress": TypeAdapter(ToolProgress),
}


def parse_line(data: dict[str, Any]) -> BaseModel | None:
    """One line as the consumer reads it: None for a type it skips; raises for a known type
    that doesn't have what that type promises."""
    kind = data.get("type")
    assert isinstance(kind, str) and kind, f"a line without a type: {data}"
    if kind == "system":
        return (
            TypeAdapter(SystemInit).validate_python(data) if data.get("subtype") == "init" else None
        )
    adapter = MODELS.get(kind)
    return adapter.validate_python(data) if adapter is not None else None


def check_stream(lines: list[str]) -> list[BaseModel]:
    """Every line parsed: JSON objects, the known types valid, `system`/`init` first and
    `result` last, one session throughout."""
    parsed = [json.loads(line) for line in lines]
    typed = [m for m in (parse_line(d) for d in parsed) if m is not None]
    assert isinstance(typed[0], SystemInit), typed[0]
    assert isinstance(typed[-1], ResultSuccess | ResultError) and parsed[-1]["type"] == "result"
    assert len({m.session_id for m in typed}) == 1  # type: ignore[attr-defined]
    return typed
