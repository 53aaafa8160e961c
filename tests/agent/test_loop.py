"""The agent loop, driven by a scripted provider and tiny fake tools.

Every test ends by checking the conversation against the API's rules (`assert_valid_conversation`)
and, where a later request was made, that request too: the point of the loop is that whatever
happens (tools fail, the person cancels, the stream breaks) the next request is one the API takes.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any, ClassVar

import pytest
from conversation_rules import (
    ScriptedProvider,
    assert_valid_conversation,
    hang_after,
    reply,
    results_of,
    text,
    tool_use,
)
from pydantic import BaseModel
from sse_server import sse_fixture

from agent_tui.agent import loop as loop_module
from agent_tui.agent.approvals import AllowAll, PermissionChecker
from agent_tui.agent.cost import cost_usd
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest, Decision
from agent_tui.protocol.events import (
    ApprovalDecided,
    ApprovalRequested,
    BlockFinished,
    Event,
    MessageStarted,
    Notice,
    RequestStarted,
    StreamFailed,
    TextDelta,
    ToolCallReady,
    ToolFinished,
    ToolProgress,
    TurnFinished,
    TurnStarted,
    Usage,
    stream_json,
)
from agent_tui.protocol.sse import iter_sse
from agent_tui.providers.base import ProviderError
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


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the loop's back-off delays instead of sleeping them."""
    delays: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(delay: float, *args: Any) -> None:
        if delay > 0:
            delays.append(delay)
        await real_sleep(0)

    monkeypatch.setattr(loop_module.asyncio, "sleep", fake_sleep)
    return delays


# --- plain turns ----------------------------------------------------------------------------------


async def test_text_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply(text("Hello there.")))
    h = Harness(provider, [EchoTool()], tmp_path)
    result = await h.agent.submit("hi")
    assert result == h.events[-1]
    assert result.stop_reason == "end_turn" and result.requests == 1
    assert not result.failed and not result.cancelled
    assert h.messages == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Hello there."}]},
    ]
    (request,) = provider.requests
    assert request.model == MODEL
    assert request.messages == h.messages[:1]
    assert [t["name"] for t in request.tools] == ["Echo"]
    assert request.tools[0]["input_schema"]["required"] == ["text"]
    assert request.system
    assert isinstance(h.events[0], TurnStarted) and h.events[0].prompt == "hi"
    assert isinstance(h.events[1], RequestStarted) and h.events[1].n == 1
    assert isinstance(h.events[2], MessageStarted)
    assert not h.of(Notice)
    assert not h.agent.running
    h.check()


async def test_stop_sequence_ends_quietly(tmp_path: Path) -> None:
    h = Harness(ScriptedProvider(reply(text("a"), stop_reason="stop_sequence")), [], tmp_path)
    result = await h.agent.submit("hi")
    assert result.stop_reason == "stop_sequence"
    assert not h.of(Notice)


async def test_two_prompts_alternate(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply(text("one")), reply(text("two")))
    h = Harness(provider, [], tmp_path)
    await h.agent.submit("first")
    await h.agent.submit("second")
    assert [m["role"] for m in h.request_messages(1)] == ["user", "assistant", "user"]
    h.check()


# --- tools ----------------------------------------------------------------------------------------


async def test_tool_use_then_answer(tmp_path: Path) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(
            text("Let me echo."),
            tool_use("toolu_1", "Echo", {"text": "hi"}),
            stop_reason="tool_use",
        ),
        reply(text("It said hi.")),
    )
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("echo hi")
    assert result.requests == 2 and result.stop_reason == "end_turn"
    assert [c.text for c in echo.calls] == ["hi"]
    second = h.request_messages(1)
    assert second[-2]["role"] == "assistant"
    assert second[-2]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Echo",
        "input": {"text": "hi"},
    }
    assert second[-1] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "echo: hi"}],
    }
    (ready,) = h.of(ToolCallReady)
    assert ready.input == {"text": "hi"}
    (finished,) = h.of(ToolFinished)
    assert (finished.tool_use_id, finished.is_error, finished.summary) == (
        "toolu_1",
        False,
        "echoed",
    )
    assert finished.content == "echo: hi" and finished.duration_s >= 0
    assert [p.status for p in h.of(ToolProgress)] == ["echoing"]
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by, decided.subject) == ("allow", "default", "hi")
    h.check()


async def test_parallel_tools_get_one_result_each_in_order(tmp_path: Path) -> None:
    log: list[str] = []
    echo = EchoTool()
    calls = [
        tool_use("toolu_a", "Echo", {"text": "a"}),
        tool_use("toolu_b", "Touch", {"path": "x"}),
        tool_use("toolu_c", "Echo", {"text": "c", "times": 2}),
        tool_use("toolu_d", "Touch", {"path": "y"}),
    ]
    provider = ScriptedProvider(reply(*calls, stop_reason="tool_use"), reply(text("done")))
    h = Harness(provider, [echo, TouchTool(log)], tmp_path)
    await h.agent.submit("go")
    results = results_of(h.request_messages(1)[-1])
    assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b", "toolu_c", "toolu_d"]
    assert [r["content"] for r in results] == ["echo: a", "created x", "echo: cc", "created y"]
    assert not any(r.get("is_error") for r in results)
    # tools that change things run alone and in the order the model gave
    assert log == ["touch x", "touched x", "touch y", "touched y"]
    assert sorted(f.tool_use_id for f in h.of(ToolFinished)) == [
        "toolu_a",
        "toolu_b",
        "toolu_c",
        "toolu_d",
    ]
    h.check()


async def test_read_only_tools_run_concurrently(tmp_path: Path) -> None:
    meet = MeetTool(expected=3)
    calls = [tool_use(f"toolu_{i}", "Meet", {"name": str(i)}) for i in range(3)]
    provider = ScriptedProvider(reply(*calls, stop_reason="tool_use"), reply(text("ok")))
    h = Harness(provider, [meet], tmp_path)
    await h.agent.submit("meet")
    assert meet.peak == 3
    results = results_of(h.request_messages(1)[-1])
    assert [r["content"] for r in results] == ["met 0", "met 1", "met 2"]
    h.check()


async def test_parallel_tools_fixture(tmp_path: Path) -> None:
    """The wire fixture with two tool calls (Bash, Read) against fakes of those names."""

    class FakeBash(EchoTool):
        name: ClassVar[str] = "Bash"
        input_model: ClassVar[type[BaseModel]] = type(
            "BashIn", (BaseModel,), {"__annotations__": {"command": str}}
        )

        def subject(self, params: Any) -> str:
            return str(params.command)

        async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
            return ToolOutput(f"ran {params.command}")

    class FakeRead(EchoTool):
        name: ClassVar[str] = "Read"
        input_model: ClassVar[type[BaseModel]] = type(
            "ReadIn", (BaseModel,), {"__annotations__": {"path": str}}
        )

        def subject(self, params: Any) -> str:
            return str(params.path)

        async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
            return ToolOutput(f"read {params.path}")

    provider = ScriptedProvider(
        list(iter_sse(sse_fixture("parallel_tools.sse"))),
        list(iter_sse(sse_fixture("text_only.sse"))),
    )
    h = Harness(provider, [FakeBash(), FakeRead()], tmp_path)
    result = await h.agent.submit("status and readme")
    assert result.requests == 2
    results = results_of(h.request_messages(1)[-1])
    assert [(r["tool_use_id"], r["content"]) for r in results] == [
        ("toolu_01A09q90qw90lq917835lq9", "ran git status --short"),
        ("toolu_01B7xk2Vn4Rq8Ws3Yd5Tf6Gh", "read README.md"),
    ]
    h.check()


async def test_unknown_tool(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        reply(tool_use("toolu_x", "Teleport", {"to": "mars"}), stop_reason="tool_use"),
        reply(text("sorry")),
    )
    h = Harness(provider, [EchoTool()], tmp_path)
    await h.agent.submit("go")
    (result,) = results_of(h.request_messages(1)[-1])
    assert result["is_error"] is True
    assert "Unknown tool 'Teleport'" in result["content"] and "Echo" in result["content"]
    h.check()


@pytest.mark.parametrize(
    "bad_input",
    [{}, {"text": 5}, {"text": "a", "times": "many"}, {"txt": "typo"}],
)
async def test_invalid_input_is_an_error_result(tmp_path: Path, bad_input: dict[str, Any]) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", bad_input), stop_reason="tool_use"),
        reply(text("fixed")),
    )
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("go")
    assert not result.failed
    assert echo.calls == []
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] is True and res["content"].startswith("Invalid input for Echo")
    (finished,) = h.of(ToolFinished)
    assert finished.is_error and finished.summary == "invalid input"
    h.check()


@pytest.mark.parametrize("raw_json", ['{"verbose": tru', "[]", '{"verbose": true}}', "{{"])
async def test_malformed_tool_json_never_runs_the_tool(tmp_path: Path, raw_json: str) -> None:
    status = OptionalTool()
    provider = ScriptedProvider(
        reply(
            {"type": "tool_use", "id": "toolu_m", "name": "Status", "raw_json": raw_json},
            stop_reason="tool_use",
        ),
        reply(text("ok")),
    )
    h = Harness(provider, [status], tmp_path)
    await h.agent.submit("status")
    (ready,) = h.of(ToolCallReady)
    assert ready.input_error
    assert status.calls == [], "a tool ran with input from a malformed tool_use"
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["tool_use_id"] == "toolu_m" and res["is_error"] is True
    assert "JSON" in res["content"]
    h.check()


async def test_tool_exception_becomes_an_error_result(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Crash"), stop_reason="tool_use"), reply(text("oh"))
    )
    h = Harness(provider, [CrashTool()], tmp_path)
    result = await h.agent.submit("go")
    assert not result.failed
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] and "RuntimeError: boom" in res["content"]
    h.check()


async def test_empty_tool_output_is_not_an_empty_result(tmp_path: Path) -> None:
    class Quiet(OptionalTool):
        async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
            return ToolOutput("")

    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Status"), stop_reason="tool_use"), reply(text("ok"))
    )
    h = Harness(provider, [Quiet()], tmp_path)
    await h.agent.submit("go")
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["content"] == "(no output)"


async def test_several_tool_rounds(tmp_path: Path) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "1"}), stop_reason="tool_use"),
        reply(tool_use("toolu_2", "Echo", {"text": "2"}), stop_reason="tool_use"),
        reply(tool_use("toolu_3", "Echo", {"text": "3"}), stop_reason="tool_use"),
        reply(text("three rounds")),
    )
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("go")
    assert result.requests == 4
    assert [c.text for c in echo.calls] == ["1", "2", "3"]
    assert [m["role"] for m in h.messages] == ["user"] + ["assistant", "user"] * 3 + ["assistant"]
    h.check()


# --- permissions ----------------------------------------------------------------------------------


async def test_permission_deny(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions(
        {
            "Echo": Decision(
                "deny", rule="Echo(secret)", reason="deny rule Echo(secret)", source="rule"
            )
        }
    )
    ask = FakeAsk()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "secret"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path, permissions=perms, ask=ask)
    await h.agent.submit("go")
    assert echo.calls == [] and ask.requests == []
    assert perms.checks == [("Echo", {"text": "secret"}, True)]
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] and "Permission denied: deny rule Echo(secret)" in res["content"]
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by, decided.rule) == ("deny", "rule", "Echo(secret)")
    h.check()


async def test_ask_once(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": ASK})
    ask = FakeAsk(ApprovalAnswer("once"))
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path, permissions=perms, ask=ask)
    await h.agent.submit("go")
    assert [c.text for c in echo.calls] == ["hi"]
    (request,) = ask.requests
    assert (request.tool_use_id, request.tool, request.subject) == ("toolu_1", "Echo", "hi")
    assert request.input == {"text": "hi"} and request.decision == ASK
    assert request.cwd == str(tmp_path)
    (asked,) = h.of(ApprovalRequested)
    assert asked.reason == ASK.reason
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by, decided.saved_rules) == ("allow", "user", [])
    assert perms.saved == []
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["content"] == "echo: hi"
    h.check()


async def test_ask_always_saves_the_suggestions(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": ASK})
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(
        provider, [echo], tmp_path, permissions=perms, ask=FakeAsk(ApprovalAnswer("always"))
    )
    await h.agent.submit("go")
    assert perms.saved == [["Echo(hi:*)", "Echo(ho)"]]
    (decided,) = h.of(ApprovalDecided)
    assert decided.decision == "allow" and decided.saved_rules == ["Echo(hi:*)", "Echo(ho)"]
    assert len(echo.calls) == 1
    h.check()


async def test_ask_always_when_saving_fails_still_allows_once(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": ASK})
    perms.fail_saving = True
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    ask = FakeAsk(ApprovalAnswer("always"))
    h = Harness(provider, [echo], tmp_path, permissions=perms, ask=ask)
    await h.agent.submit("go")
    assert len(echo.calls) == 1
    (decided,) = h.of(ApprovalDecided)
    assert decided.decision == "allow" and decided.saved_rules == []
    assert any(n.level == "warning" and "Echo(hi:*)" in n.text for n in h.of(Notice))
    h.check()


async def test_ask_always_without_suggestions_saves_nothing(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": Decision("ask", reason="needs a look")})
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(
        provider, [echo], tmp_path, permissions=perms, ask=FakeAsk(ApprovalAnswer("always"))
    )
    await h.agent.submit("go")
    assert perms.saved == [] and len(echo.calls) == 1


async def test_ask_deny_with_a_message(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": ASK})
    ask = FakeAsk(ApprovalAnswer("deny", message="use printf instead"))
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path, permissions=perms, ask=ask)
    await h.agent.submit("go")
    assert echo.calls == []
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] is True
    assert res["content"] == "The user denied this tool call. The user says: use printf instead"
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by, decided.message) == ("deny", "user", "use printf instead")
    h.check()


async def test_headless_ask_is_denied(tmp_path: Path) -> None:
    echo = EchoTool()
    ask = FakeAsk()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(
        provider,
        [echo],
        tmp_path,
        permissions=FakePermissions({"Echo": ASK}),
        ask=ask,
        headless=True,
    )
    await h.agent.submit("go")
    assert echo.calls == [] and ask.requests == []
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by) == ("deny", "headless")
    assert stream_json(decided)["type"] == "permission"  # the documented stream-json name
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] and "headless" in res["content"] and "--allow" in res["content"]
    h.check()


async def test_headless_with_allow_asks_runs(tmp_path: Path) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(
        provider,
        [echo],
        tmp_path,
        permissions=FakePermissions({"Echo": ASK}),
        headless=True,
        allow_asks=True,
    )
    await h.agent.submit("go")
    assert len(echo.calls) == 1
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by) == ("allow", "headless")


async def test_default_ask_callback_denies(tmp_path: Path) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path, permissions=FakePermissions({"Echo": ASK}))
    await h.agent.submit("go")
    assert echo.calls == []
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] and "no one is there to approve" in res["content"]


async def test_invalid_input_is_rejected_before_asking(tmp_path: Path) -> None:
    ask = FakeAsk()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"nope": 1}), stop_reason="tool_use"), reply(text("k"))
    )
    h = Harness(
        provider, [EchoTool()], tmp_path, permissions=FakePermissions({"Echo": ASK}), ask=ask
    )
    await h.agent.submit("go")
    assert ask.requests == []


# --- stop reasons ---------------------------------------------------------------------------------


async def test_pause_turn_resends_the_paused_content_unchanged(tmp_path: Path) -> None:
    paused = list(iter_sse(sse_fixture("pause_turn.sse")))
    continuation = list(iter_sse(sse_fixture("pause_turn_continuation.sse")))
    provider = ScriptedProvider(paused, continuation)
    h = Harness(provider, [], tmp_path)
    received: list[dict[str, Any]] = []
    h.agent.listeners.append(
        lambda e: received.append(copy.deepcopy(e.block)) if isinstance(e, BlockFinished) else None
    )
    result = await h.agent.submit("research")
    assert result.requests == 2 and result.stop_reason == "end_turn"
    first_content = received[:4]
    second = h.request_messages(1)
    assert [m["role"] for m in second] == ["user", "assistant"]  # no extra user message
    assert second[-1]["content"] == first_content
    assert second[-1]["content"][-1]["id"] == "srvtoolu_01Lr8TyNc5XpWd2Gh7KqMb3F"
    # the continuation is appended to the same assistant message
    assert [m["role"] for m in h.messages] == ["user", "assistant"]
    assert h.messages[-1]["content"] == received
    assert len(received) == 8
    assert not h.of(Notice)
    assert result.usage.web_search_requests == 2
    h.check()


async def test_max_tokens_with_a_dangling_tool_use(tmp_path: Path) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(
            text("I'll run"), tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="max_tokens"
        ),
        reply(text("next answer")),
    )
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("go")
    assert result.stop_reason == "max_tokens" and result.requests == 1
    assert echo.calls == []
    (notice,) = h.of(Notice)
    assert (
        notice.level == "warning" and "max_tokens" in notice.text and "1 tool call" in notice.text
    )
    (res,) = results_of(h.messages[-1])
    assert res["tool_use_id"] == "toolu_1" and res["is_error"]
    assert res["content"].startswith("not run")
    h.check()
    await h.agent.submit("continue")
    assert [m["role"] for m in h.request_messages(1)] == ["user", "assistant", "user", "user"]
    h.check()


@pytest.mark.parametrize(
    ("stop_reason", "words"),
    [
        ("max_tokens", "max_tokens"),
        ("refusal", "refusal"),
        ("model_context_window_exceeded", "'model_context_window_exceeded'"),
        (None, "None"),
        ("tool_use", "no tool call"),
    ],
)
async def test_other_stop_reasons_end_with_a_notice(
    tmp_path: Path, stop_reason: str | None, words: str
) -> None:
    h = Harness(ScriptedProvider(reply(text("partial"), stop_reason=stop_reason)), [], tmp_path)
    result = await h.agent.submit("go")
    assert result.stop_reason == stop_reason and result.requests == 1
    assert not result.failed
    (notice,) = h.of(Notice)
    assert words in notice.text
    assert h.messages[-1]["content"] == [{"type": "text", "text": "partial"}]
    h.check()


# --- cancellation ---------------------------------------------------------------------------------


async def test_cancel_while_a_tool_runs(tmp_path: Path) -> None:
    wait = WaitTool()
    provider = ScriptedProvider(
        reply(text("waiting"), tool_use("toolu_w", "Wait"), stop_reason="tool_use"),
        reply(text("fresh start")),
    )
    h = Harness(provider, [wait], tmp_path)
    task = asyncio.create_task(h.agent.submit("wait"))
    await asyncio.wait_for(wait.started.wait(), 5)
    assert h.agent.running
    assert h.agent.cancel() is True
    result = await task
    assert result.cancelled and not result.failed
    assert wait.cancelled
    (res,) = results_of(h.messages[-1])
    assert res == {
        "type": "tool_result",
        "tool_use_id": "toolu_w",
        "content": "cancelled by user",
        "is_error": True,
    }
    finished = h.of(ToolFinished)
    assert [(f.tool_use_id, f.is_error, f.summary) for f in finished] == [
        ("toolu_w", True, "cancelled by user")
    ]
    assert any(n.text == "Cancelled." for n in h.of(Notice))
    assert not h.agent.running and h.agent.cancel() is False
    h.check()
    # the next prompt works, and its request is valid
    second = await h.agent.submit("again")
    assert second.stop_reason == "end_turn"
    sent = h.request_messages(1)
    assert_valid_conversation(sent)
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "user"]
    h.check()


async def test_cancel_parallel_tools_answers_every_call(tmp_path: Path) -> None:
    wait = WaitTool()
    log: list[str] = []
    calls = [
        tool_use("toolu_1", "Touch", {"path": "a"}),
        tool_use("toolu_2", "Wait"),
        tool_use("toolu_3", "Touch", {"path": "b"}),
    ]
    provider = ScriptedProvider(reply(*calls, stop_reason="tool_use"))
    h = Harness(provider, [wait, TouchTool(log)], tmp_path)
    task = asyncio.create_task(h.agent.submit("go"))
    await asyncio.wait_for(wait.started.wait(), 5)
    h.agent.cancel()
    result = await task
    assert result.cancelled
    results = results_of(h.messages[-1])
    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2", "toolu_3"]
    assert results[0]["content"] == "created a"  # it ran before the cancel
    assert [r["content"] for r in results[1:]] == ["cancelled by user"] * 2
    assert log == ["touch a", "touched a"]  # the third never ran
    h.check()


async def test_cancel_while_streaming_keeps_the_partial_text(tmp_path: Path) -> None:
    events = reply(text("Half an ans"), message_stop=False)[:3]  # start, block start, 1st delta
    provider = ScriptedProvider(hang_after(events), reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    task = asyncio.create_task(h.agent.submit("go"))
    while not h.of(TextDelta):
        await asyncio.sleep(0)
    h.agent.cancel()
    result = await task
    assert result.cancelled, h.events
    assert h.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Half "}]}
    assert provider.closed == 1
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_cancel_a_streamed_tool_call(tmp_path: Path) -> None:
    """A tool_use block that finished streaming before the cancel still gets its result."""
    events = reply(tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use")[:-2]
    provider = ScriptedProvider(hang_after(events), reply(text("ok")))
    h = Harness(provider, [EchoTool()], tmp_path)
    task = asyncio.create_task(h.agent.submit("go"))
    while not h.of(BlockFinished):
        await asyncio.sleep(0)
    h.agent.cancel()
    result = await task
    assert result.cancelled
    (res,) = results_of(h.messages[-1])
    assert res["content"] == "cancelled by user"
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_an_outside_cancel_is_not_swallowed(tmp_path: Path) -> None:
    wait = WaitTool()
    provider = ScriptedProvider(reply(tool_use("toolu_w", "Wait"), stop_reason="tool_use"))
    h = Harness(provider, [wait], tmp_path)
    task = asyncio.create_task(h.agent.submit("wait"))
    await asyncio.wait_for(wait.started.wait(), 5)
    task.cancel()  # not Agent.cancel(): e.g. the app shutting down
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not h.agent.running


# --- retries and broken streams -------------------------------------------------------------------


async def test_retry_before_content_with_backoff(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(
        [ProviderError("Overloaded.", retryable=True, status=529, kind="overloaded_error")],
        [ProviderError("Rate limited.", retryable=True, status=429, kind="rate_limit_error")],
        reply(text("finally")),
    )
    h = Harness(provider, [], tmp_path, retry_base_delay=0.5)
    result = await h.agent.submit("go")
    assert result.stop_reason == "end_turn" and not result.failed
    assert len(provider.requests) == 3
    assert no_sleep == [0.5, 1.0]
    notices = [n.text for n in h.of(Notice)]
    assert len(notices) == 2 and "attempt 1 of 4" in notices[0] and "attempt 2 of 4" in notices[1]
    assert all(r.messages == provider.requests[0].messages for r in provider.requests)
    assert h.messages[-1]["content"] == [{"type": "text", "text": "finally"}]
    h.check()


async def test_retry_after_is_respected(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(
        [ProviderError("Slow down.", retryable=True, status=429, retry_after=7.0)],
        reply(text("ok")),
    )
    h = Harness(provider, [], tmp_path, retry_base_delay=0.5)
    await h.agent.submit("go")
    assert no_sleep == [7.0]


async def test_stream_error_before_content_is_retried(
    tmp_path: Path, no_sleep: list[float]
) -> None:
    overloaded = [
        *reply(text("x"))[:1],
        {"type": "ping"},
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    provider = ScriptedProvider(overloaded, reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert not result.failed and len(provider.requests) == 2
    assert [m["role"] for m in h.messages] == ["user", "assistant"]


async def test_retries_run_out(tmp_path: Path, no_sleep: list[float]) -> None:
    error = ProviderError("Overloaded.", retryable=True, status=529)
    provider = ScriptedProvider(*([[error]] * 3))
    h = Harness(provider, [], tmp_path, max_retries=2)
    result = await h.agent.submit("go")
    assert result.failed and len(provider.requests) == 3
    (failed,) = h.of(StreamFailed)
    assert failed.retryable and failed.error == "Overloaded."
    assert h.agent.can_retry
    assert [m["role"] for m in h.messages] == ["user"]
    h.check()


async def test_non_retryable_error_is_not_retried(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider([ProviderError("Invalid API key.", status=401)], reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed and len(provider.requests) == 1 and no_sleep == []
    (failed,) = h.of(StreamFailed)
    assert not failed.retryable and "Invalid API key" in failed.error
    # the next prompt is fine even with two user messages in a row
    await h.agent.submit("again")
    h.check()


async def test_no_retry_after_content_arrived(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(
        list(iter_sse(sse_fixture("overloaded_midstream.sse"))), reply(text("second answer"))
    )
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("summarise")
    assert result.failed and len(provider.requests) == 1 and no_sleep == []
    (failed,) = h.of(StreamFailed)
    assert failed.partial_text == "Here is a short summary of the change"
    assert failed.retryable  # overloaded: a retry is offered to the person
    assert h.agent.can_retry
    assert h.messages[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Here is a short summary of the change"}],
    }
    assert result.usage.input_tokens == 22  # tokens of the failed request still count
    assert result.cost_usd == pytest.approx(cost_usd(MODEL, result.usage)) and result.cost_usd > 0
    h.check()
    await h.agent.submit("try again please")
    assert [m["role"] for m in h.request_messages(1)] == ["user", "assistant", "user"]
    h.check()


async def test_provider_error_after_content_is_not_retried(
    tmp_path: Path, no_sleep: list[float]
) -> None:
    events = reply(text("Some text"), message_stop=False)[:4]
    cut = [*events, ProviderError("Connection reset.", retryable=True, kind="connection")]
    provider = ScriptedProvider(cut, reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed and len(provider.requests) == 1
    assert h.of(StreamFailed)[0].partial_text == "Some text"
    h.check()


async def test_stream_cut_before_message_stop(tmp_path: Path, no_sleep: list[float]) -> None:
    echo = EchoTool()
    cut = reply(
        text("Running it"), tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use"
    )
    cut = cut[:-2]  # no message_delta, no message_stop
    provider = ScriptedProvider(cut, reply(text("ok")))
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed and len(provider.requests) == 1
    assert echo.calls == []
    (failed,) = h.of(StreamFailed)
    assert "ended before the response was complete" in failed.error
    assert failed.partial_text == "Running it"
    assert h.messages[1]["content"][0] == {"type": "text", "text": "Running it"}
    (res,) = results_of(h.messages[-1])
    assert res["tool_use_id"] == "toolu_1" and res["is_error"]
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_stream_cut_mid_block_keeps_the_text(tmp_path: Path, no_sleep: list[float]) -> None:
    cut = reply(text("Partial answer here"))[:4]  # start, block start, two deltas; no stop
    provider = ScriptedProvider(cut, reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed
    assert h.messages[-1]["content"] == [{"type": "text", "text": "Partial answer here"}]
    h.check()


async def test_stream_cut_before_content_is_retried(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(reply(text("x"))[:1], reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert not result.failed and len(provider.requests) == 2
    h.check()


async def test_retry_after_a_failure(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(
        list(iter_sse(sse_fixture("overloaded_midstream.sse"))), reply(text("A full answer."))
    )
    h = Harness(provider, [], tmp_path)
    await h.agent.submit("summarise")
    assert h.agent.can_retry
    result = await h.agent.retry()
    assert not result.failed and result.stop_reason == "end_turn"
    assert not h.agent.can_retry
    assert any(n.text.startswith("Retrying") for n in h.of(Notice))
    assert len(provider.requests) == 2
    assert_valid_conversation(h.request_messages(1))
    h.check()


async def test_retry_after_a_cut_tool_call(tmp_path: Path, no_sleep: list[float]) -> None:
    echo = EchoTool()
    cut = reply(tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use")[:-2]
    provider = ScriptedProvider(cut, reply(text("ok")))
    h = Harness(provider, [echo], tmp_path)
    await h.agent.submit("go")
    await h.agent.retry()
    assert echo.calls == []  # never run a tool from a broken response
    sent = h.request_messages(1)
    assert_valid_conversation(sent)
    assert sent[-1]["role"] == "user" and results_of(sent[-1])[0]["is_error"]
    h.check()


async def test_unexpected_provider_exception_becomes_stream_failed(
    tmp_path: Path, no_sleep: list[float]
) -> None:
    provider = ScriptedProvider(
        [*reply(text("abc"))[:3], RuntimeError("provider bug")], reply(text("ok"))
    )
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed
    (failed,) = h.of(StreamFailed)
    assert "provider bug" in failed.error
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_stall_timeout(tmp_path: Path, no_sleep: list[float]) -> None:
    events = reply(text("I am thinking"), message_stop=False)[:3]
    provider = ScriptedProvider(hang_after(events), reply(text("ok")))
    h = Harness(provider, [], tmp_path, stall_timeout=0.2)
    result = await h.agent.submit("go")
    assert result.failed
    (failed,) = h.of(StreamFailed)
    assert "stalled" in failed.error and failed.retryable
    assert failed.partial_text == "I am t"
    assert provider.closed == 1
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_stall_before_any_event(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(hang_after([]))
    h = Harness(provider, [], tmp_path, stall_timeout=0.2)
    result = await h.agent.submit("go")
    assert result.failed and "stalled" in h.of(StreamFailed)[0].error
    assert [m["role"] for m in h.messages] == ["user"]


# --- usage and cost -------------------------------------------------------------------------------


async def test_usage_and_cost_are_summed_over_requests(tmp_path: Path) -> None:
    u1 = {"input_tokens": 1000, "output_tokens": 200, "cache_read_input_tokens": 50}
    u2 = {"input_tokens": 1300, "output_tokens": 100, "server_tool_use": {"web_search_requests": 1}}
    first = reply(tool_use("toolu_1", "Metered"), stop_reason="tool_use", usage=u1)
    second = reply(text("done"), usage=u2)
    provider = ScriptedProvider(first, second)
    h = Harness(provider, [MeteredTool()], tmp_path)
    result = await h.agent.submit("go")
    # message_start says input 10 / output 1; message_delta replaces field by field
    req1 = Usage(1000, 200, 0, 50, 0)
    req2 = Usage(1300, 100, 0, 0, 1)
    tool = Usage(100, 50, web_search_requests=2)
    assert result.usage == req1 + req2 + tool
    expected_cost = cost_usd(MODEL, req1) + cost_usd(MODEL, req2) + cost_usd(MODEL, tool)
    assert result.cost_usd == pytest.approx(expected_cost)
    assert result.cost_usd > 0
    assert h.agent.session_usage == result.usage
    # a second turn adds to the session totals
    provider.steps.append(reply(text("again"), usage={"output_tokens": 7}))
    second_turn = await h.agent.submit("more")
    assert second_turn.usage == Usage(10, 7)
    assert h.agent.session_usage == result.usage + Usage(10, 7)
    assert h.agent.session_cost == pytest.approx(result.cost_usd + second_turn.cost_usd)


async def test_turn_finished_is_the_last_event(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use"), reply(text("y"))
    )
    h = Harness(provider, [EchoTool()], tmp_path)
    await h.agent.submit("go")
    kinds = [type(e).__name__ for e in h.events]
    assert kinds[0] == "TurnStarted" and kinds[-1] == "TurnFinished"
    assert kinds.count("RequestStarted") == 2 and kinds.count("TurnFinished") == 1
    assert kinds.index("ToolFinished") < kinds.index("RequestStarted", 2)
    assert all(isinstance(e.to_dict()["type"], str) for e in h.events)
    assert isinstance(h.events[-1], TurnFinished)


@pytest.mark.parametrize("stop_reason", ["end_turn", "pause_turn"])
async def test_a_client_tool_call_with_the_wrong_stop_reason_is_answered_not_run(
    tmp_path: Path, stop_reason: str
) -> None:
    """The API would not send this, but if it does, the conversation must stay valid."""
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(text("odd"), tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason=stop_reason),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("go")
    assert result.requests == 1 and echo.calls == []
    (res,) = results_of(h.messages[-1])
    assert res["tool_use_id"] == "toolu_1" and res["content"].startswith("not run")
    h.check()
