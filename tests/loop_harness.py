"""The agent loop's test harness: a scripted provider, tiny fake tools, fake permissions and
approvals, and `Harness`, which runs turns and checks every request against the API's rules.
Shared by tests/agent/test_loop*.py, test_tool_runner.py and test_approvals.py."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any, ClassVar

from conversation_rules import (
    ScriptedProvider,
    assert_valid_conversation,
)
from pydantic import BaseModel

from agent_tui.agent.approvals import AllowAll, PermissionChecker
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest, Decision
from agent_tui.protocol.events import (
    Event,
    Usage,
)
from agent_tui.tools.base import Tool, ToolContext, ToolOutput, ToolRegistry

MODEL = "claude-sonnet-4-5"


# --- fake tools -----------------------------------------------------------------------------------


class EchoInput(BaseModel):
    text: str
    times: int = 1


class EchoTool(Tool):
    name: ClassVar[str] = "Echo"
    description: ClassVar[str] = "Echo the text."
    input_model: ClassVar[type[BaseModel]] = EchoInput
    read_only: ClassVar[bool] = True

    def __init__(self) -> None:
        self.calls: list[EchoInput] = []

    def subject(self, params: Any) -> str:
        return params.text

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        self.calls.append(params)
        ctx.progress(status="echoing")
        return ToolOutput(f"echo: {params.text * params.times}", summary="echoed")


class TouchInput(BaseModel):
    path: str


class TouchTool(Tool):
    """Changes things (not read-only): must run alone, in order."""

    name: ClassVar[str] = "Touch"
    description: ClassVar[str] = "Create a file."
    input_model: ClassVar[type[BaseModel]] = TouchInput

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        self.log.append(f"touch {params.path}")
        await asyncio.sleep(0)
        self.log.append(f"touched {params.path}")
        return ToolOutput(f"created {params.path}")


class OptionalInput(BaseModel):
    verbose: bool = False


class OptionalTool(Tool):
    """Valid with an empty input: the tool a malformed tool_use must never reach."""

    name: ClassVar[str] = "Status"
    description: ClassVar[str] = "Show status."
    input_model: ClassVar[type[BaseModel]] = OptionalInput
    read_only: ClassVar[bool] = True

    def __init__(self) -> None:
        self.calls: list[OptionalInput] = []

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        self.calls.append(params)
        return ToolOutput("all good")


class WaitInput(BaseModel):
    label: str = "w"


class WaitTool(Tool):
    """Runs until released, or until cancelled."""

    name: ClassVar[str] = "Wait"
    description: ClassVar[str] = "Wait."
    input_model: ClassVar[type[BaseModel]] = WaitInput

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolOutput("released")


class MeetInput(BaseModel):
    name: str


class MeetTool(Tool):
    """Read-only; each call waits until `expected` calls are running at once."""

    name: ClassVar[str] = "Meet"
    description: ClassVar[str] = "Meet."
    input_model: ClassVar[type[BaseModel]] = MeetInput
    read_only: ClassVar[bool] = True

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.running = 0
        self.peak = 0
        self.all_here = asyncio.Event()

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        self.running += 1
        self.peak = max(self.peak, self.running)
        if self.running >= self.expected:
            self.all_here.set()
        try:
            # a safety net against a hang, not a timing threshold: sequential runs fail on peak
            await asyncio.wait_for(self.all_here.wait(), 5)
        except TimeoutError:
            pass
        finally:
            self.running -= 1
        return ToolOutput(f"met {params.name}")


class CrashTool(Tool):
    name: ClassVar[str] = "Crash"
    description: ClassVar[str] = "Always fails."
    input_model: ClassVar[type[BaseModel]] = OptionalInput

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        raise RuntimeError("boom")


class MeteredTool(Tool):
    """A tool that made a sub-request and reports its usage."""

    name: ClassVar[str] = "Metered"
    description: ClassVar[str] = "Uses tokens."
    input_model: ClassVar[type[BaseModel]] = OptionalInput
    read_only: ClassVar[bool] = True

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(
            "metered", usage=Usage(100, 50, web_search_requests=2), meta={"model": ctx.model}
        )


# --- permissions and approvals --------------------------------------------------------------------


class FakePermissions(AllowAll):
    def __init__(self, decisions: dict[str, Decision] | None = None) -> None:
        self.decisions = decisions or {}
        self.checks: list[tuple[str, dict[str, Any], bool]] = []
        self.saved: list[list[str]] = []
        self.fail_saving = False

    def check(self, tool: str, input: dict[str, Any], *, read_only: bool) -> Decision:
        self.checks.append((tool, copy.deepcopy(input), read_only))
        return self.decisions.get(tool, Decision("allow", rule=f"{tool}", source="rule"))

    def save_always(self, rules: list[str]) -> tuple[str, ...]:
        self.saved.append(rules)
        return () if self.fail_saving else tuple(rules)


class FakeAsk:
    def __init__(self, *answers: ApprovalAnswer) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.requests.append(request)
        return self.answers.pop(0)


ASK = Decision(
    "ask", reason="no rule allows `echo`", suggestions=("Echo(hi:*)", "Echo(ho)"), source="default"
)


# --- harness --------------------------------------------------------------------------------------


class Harness:
    def __init__(
        self,
        provider: ScriptedProvider,
        tools: list[Tool],
        tmp_path: Path,
        *,
        permissions: PermissionChecker | None = None,
        ask: Any = None,
        **config: Any,
    ) -> None:
        self.provider = provider
        settings = {"retry_base_delay": 0.001, **config}
        kwargs: dict[str, Any] = {"permissions": permissions}
        if ask is not None:
            kwargs["ask"] = ask
        self.agent = Agent(
            provider,
            ToolRegistry(tools),
            AgentConfig(model=MODEL, cwd=tmp_path, data_dir=tmp_path / "data", **settings),
            **kwargs,
        )
        self.events: list[Event] = []
        self.agent.listeners.append(self.events.append)

    def of(self, cls: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.agent.messages

    def check(self) -> None:
        assert_valid_conversation(self.messages)
        for request in self.provider.requests:
            assert_valid_conversation(request.messages, trailing_tool_use=False)

    def request_messages(self, n: int) -> list[dict[str, Any]]:
        return self.provider.requests[n].messages
