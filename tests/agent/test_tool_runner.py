"""Running tool calls (`agent/tool_runner.py` and the loop's batching): one result per id, in
order; read-only calls concurrently; unknown tools, invalid or malformed input and crashing tools
become error results, never a broken conversation."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from conversation_rules import (
    ScriptedProvider,
    reply,
    results_of,
    text,
    tool_use,
)
from loop_harness import (
    CrashTool,
    EchoTool,
    Harness,
    MeetTool,
    OptionalTool,
    TouchTool,
)
from pydantic import BaseModel
from sse_server import sse_fixture

from agent_tui.protocol.events import (
    ApprovalDecided,
    ToolCallReady,
    ToolFinished,
    ToolProgress,
)
from agent_tui.protocol.sse import iter_sse
from agent_tui.tools.base import ToolContext, ToolOutput

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
