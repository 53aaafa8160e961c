"""Claude Code's stream-json protocol beside ours: `--output-format stream-json` prints, among
its own events (docs/stream-json.md, unchanged), the lines a Claude Code consumer reads — a
`system`/`init` line first, an `assistant` line per response and a `user` line per tool result
(the API's message shapes), and a `result` line last — and `--output-format json` prints the
`result` object alone. A consumer of either skips the types it doesn't know.

Choices where Claude Code's docs leave room (docs/stream-json.md says them too): `num_turns`
counts the model's responses; `duration_api_ms` the time from each request's start to its end
(a tool's own requests, WebFetch's or a sub-agent's, are inside the tools' time, not in it);
`total_cost_usd` and `modelUsage` are the whole session's (a resumed one's too), `usage` this
run's; costs are rounded to ten decimal places (float noise out); `claude_code_version`
carries agent-tui's version (the consumer is not talking to Claude Code).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_tui import __version__
from agent_tui.protocol.events import (
    Event,
    MessageFinished,
    MessageStarted,
    RequestStarted,
    StreamFailed,
    ToolCallReady,
    ToolProgress,
    TurnFinished,
    Usage,
)

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent

#: Claude Code's permission modes for ours
CLAUDE_MODES = {"accept-edits": "acceptEdits", "yolo": "bypassPermissions"}
#: how a turn ended, as Claude Code's `terminal_reason` says it
TERMINAL = {"max_turns": "max_turns", "max_cost": "budget_exhausted"}


def dollars(value: float) -> float:
    """A cost as printed: rounded to ten decimal places, so float noise goes
    (`0.0022500000000000003` is `0.00225`) and no price does."""
    return round(value, 10)


def api_usage(usage: Usage) -> dict[str, Any]:
    """Usage in the API's shape (Claude Code's `NonNullableUsage`)."""
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        # WebFetch runs here, not as the API's server tool: it makes no web_fetch_requests
        "server_tool_use": {
            "web_search_requests": usage.web_search_requests,
            "web_fetch_requests": 0,
        },
        "service_tier": "standard",
        "web_search_requests": usage.web_search_requests,  # where our `usage` has always had it
    }


class ClaudeStream:
    """One headless run's Claude Code lines, built from the agent's events as they come."""

    def __init__(self, agent: Agent, session_id: Callable[[], str | None]) -> None:
        self.agent = agent
        #: the recorded session's id (known once the recorder has written it)
        self.session_id = session_id
        self.started = time.monotonic()
        self.api_ms = 0.0
        self._request_at: float | None = None
        self._message: dict[str, Any] = {}
        #: tool_use id -> when its input was complete (`tool_progress`'s elapsed time)
        self._calls: dict[str, float] = {}
        #: the init line was made (it comes first, once)
        self.announced = False
        #: where the conversation's messages not yet printed start (tool results)
        self._seen = len(agent.messages)

    def _line(self, kind: str, **fields: Any) -> dict[str, Any]:
        session = self.session_id() or ""
        return {"type": kind, **fields, "uuid": str(uuid.uuid4()), "session_id": session}

    def init(self, mcp_servers: list[dict[str, str]] | None = None) -> dict[str, Any]:
        """The `system`/`init` line: what the session runs with."""
        agent = self.agent
        self.announced = True
        from agent_tui.slash_commands import BUILT_IN

        mode = agent.permissions.mode
        return self._line(
            "system",
            subtype="init",
            cwd=str(agent.config.cwd),
            tools=list(agent.tools.names()),
            mcp_servers=mcp_servers or [],
            model=agent.config.model,
            permissionMode=CLAUDE_MODES.get(mode, mode),
            slash_commands=[c.name.lstrip("/") for c in BUILT_IN],
            apiKeySource="ANTHROPIC_API_KEY" if agent.provider.name != "offline" else "none",
            output_style="default",
            skills=[],
            plugins=[],
            agents=sorted(agent.subagents.types if agent.subagents is not None else {}),
            claude_code_version=__version__,
        )

    def decorate(self, event: Event, data: dict[str, Any]) -> dict[str, Any]:
        """Our `tool_progress` line is also Claude Code's (same type name): its fields added."""
        if isinstance(event, ToolProgress):
            began = self._calls.get(event.tool_use_id, self.started)
            data.update(
                tool_name=event.tool,
                parent_tool_use_id=None,
                elapsed_time_seconds=round(time.monotonic() - began, 3),
                uuid=str(uuid.uuid4()),
                session_id=self.session_id() or "",
            )
        return data

    def on_event(self, event: Event) -> list[dict[str, Any]]:
        """The Claude Code lines `event` completes (usually none)."""
        out = []
        if isinstance(event, ToolCallReady):
            self._calls[event.tool_use_id] = time.monotonic()
        if isinstance(event, RequestStarted):
            out += self._tool_results()
            self._request_at = time.monotonic()
        elif isinstance(event, MessageStarted):
            self._message = {"id": event.message_id, "model": event.model}
        elif isinstance(event, MessageFinished | StreamFailed):
            if self._request_at is not None:
                self.api_ms += (time.monotonic() - self._request_at) * 1000
                self._request_at = None
            if isinstance(event, MessageFinished):
                out.append(self._assistant(event))
        elif isinstance(event, TurnFinished):
            out += self._tool_results()
        return out

    def _assistant(self, event: MessageFinished) -> dict[str, Any]:
        message = {
            "id": self._message.get("id", ""),
            "type": "message",
            "role": "assistant",
            "model": self._message.get("model", self.agent.config.model),
            "content": event.content,
            "stop_reason": event.stop_reason,
            "stop_sequence": None,
            "usage": api_usage(event.usage),
        }
        self._seen = len(self.agent.messages)
        return self._line("assistant", message=message, parent_tool_use_id=None)

    def _tool_results(self) -> list[dict[str, Any]]:
        """A `user` line for each tool result added to the conversation since the last line."""
        messages = self.agent.messages
        out = []
        for message in messages[self._seen :]:
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append(
                        self._line(
                            "user",
                            message={"role": "user", "content": [block]},
                            parent_tool_use_id=None,
                            tool_use_result=_result_text(block.get("content")),
                        )
                    )
        self._seen = len(messages)
        return out

    def result(
        self, turn: TurnFinished, answer: str, denials: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The `result` line (and `--output-format json`'s object)."""
        agent = self.agent
        if turn.stop_reason == "max_turns":
            subtype = "error_max_turns"
        elif turn.failed or turn.cancelled:
            subtype = "error_during_execution"
        elif turn.stop_reason == "max_cost":
            subtype = "error_max_budget_usd"
        else:
            subtype = "success"
        fields: dict[str, Any] = {
            "subtype": subtype,
            "duration_ms": round((time.monotonic() - self.started) * 1000),
            "duration_api_ms": round(self.api_ms),
            "is_error": subtype != "success",
            "num_turns": turn.requests,
            "result": answer.strip(),
            "stop_reason": turn.stop_reason,
            "total_cost_usd": dollars(agent.session_cost),
            "usage": api_usage(turn.usage),
            "modelUsage": self._model_usage(),
            "permission_denials": denials,
            "terminal_reason": _terminal(turn),
            "session_usage": agent.session_usage.to_dict(),
        }
        if subtype != "success":
            fields["errors"] = [_error_text(turn)]
        return self._line("result", **fields)

    def _model_usage(self) -> dict[str, Any]:
        from agent_tui import models
        from agent_tui.agent.context import context_window

        agent, usage = self.agent, self.agent.session_usage
        model = agent.config.model
        return {
            model: {
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "cacheReadInputTokens": usage.cache_read_input_tokens,
                "cacheCreationInputTokens": usage.cache_creation_input_tokens,
                "webSearchRequests": usage.web_search_requests,
                "costUSD": dollars(agent.session_cost),
                "contextWindow": context_window(model),
                "maxOutputTokens": models.max_output(model, agent.config.max_tokens),
            }
        }


def _terminal(turn: TurnFinished) -> str:
    if turn.cancelled:
        return "aborted_streaming"
    if turn.failed:
        return "api_error"
    return TERMINAL.get(turn.stop_reason or "", "completed")


def _error_text(turn: TurnFinished) -> str:
    if turn.stop_reason == "max_turns":
        return "Reached the maximum number of turns (--max-turns)"
    if turn.stop_reason == "max_cost":
        return "Spending cap reached"
    return "The turn was cancelled" if turn.cancelled else "The turn failed"


def _result_text(content: Any) -> Any:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return content
