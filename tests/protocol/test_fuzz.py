"""Property tests: random mutations of the wire fixtures fed to the assembler and to the loop.

Mutations: drop, duplicate and reorder events; corrupt the JSON text inside `partial_json`; change
event, block and delta types; replace fields with values of another JSON type; cut the stream.
Properties: the assembler raises nothing but `StreamError`; the loop raises nothing at all (a bad
stream ends as StreamFailed or a Notice), its conversation stays valid for the API, and no tool
ever runs with input from a tool_use whose JSON was malformed.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any, ClassVar

from conversation_rules import ScriptedProvider, assert_valid_conversation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from sse_server import FIXTURES, sse_fixture

from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.protocol.assembler import StreamAssembler, StreamError
from agent_tui.protocol.events import Event, ToolCallReady, TurnFinished
from agent_tui.protocol.sse import iter_sse
from agent_tui.tools.base import Tool, ToolContext, ToolOutput, ToolRegistry

Raw = dict[str, Any]

NAMES = sorted(p.name for p in FIXTURES.glob("*.sse"))
FIXTURE_EVENTS: dict[str, list[Raw]] = {n: list(iter_sse(sse_fixture(n))) for n in NAMES}

EVENT_TYPES = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
    "future_event",
]
BLOCK_TYPES = [
    "text",
    "thinking",
    "tool_use",
    "server_tool_use",
    "web_search_tool_result",
    "mystery_block",
]
DELTA_TYPES = [
    "text_delta",
    "input_json_delta",
    "thinking_delta",
    "signature_delta",
    "citations_delta",
    "mystery_delta",
]
FIELDS = ["index", "delta", "content_block", "message", "usage", "text", "partial_json", "error"]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 10)
    | st.floats(allow_nan=True)
    | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "text", "id", "x"]), children, max_size=3)
    ),
    max_leaves=6,
)


def _targets(event: Raw) -> list[Raw]:
    """The dicts inside an event whose fields a mutation may touch."""
    found = [event]
    for key in ("delta", "content_block", "message", "usage", "error"):
        value = event.get(key)
        if isinstance(value, dict):
            found.append(value)
    return found


@st.composite
def mutated(draw: st.DrawFn, name: str | None = None) -> list[Raw]:
    events = copy.deepcopy(FIXTURE_EVENTS[name or draw(st.sampled_from(NAMES))])
    for _ in range(draw(st.integers(1, 4))):
        if not events:
            break
        i = draw(st.integers(0, len(events) - 1))
        op = draw(
            st.sampled_from(
                ["drop", "dup", "swap", "json", "json", "etype", "btype", "dtype", "field", "cut"]
            )
        )
        event = events[i]
        if op == "drop":
            del events[i]
        elif op == "dup":
            events.insert(i, copy.deepcopy(event))
        elif op == "swap":
            j = draw(st.integers(0, len(events) - 1))
            events[i], events[j] = events[j], events[i]
        elif op == "cut":
            del events[i:]
        elif op == "json":
            deltas = [
                e
                for e in events
                if isinstance(e.get("delta"), dict) and "partial_json" in e["delta"]
            ]
            if deltas:
                d = draw(st.sampled_from(deltas))["delta"]
                old = d["partial_json"] if isinstance(d["partial_json"], str) else ""
                k = draw(st.integers(0, len(old)))
                junk = draw(st.sampled_from(['"', "}", "{", "\\", ",", ":", "]", "\\u12", "x"]))
                how = draw(st.sampled_from(["insert", "truncate", "replace"]))
                if how == "insert":
                    d["partial_json"] = old[:k] + junk + old[k:]
                elif how == "truncate":
                    d["partial_json"] = old[:k]
                else:
                    d["partial_json"] = draw(st.text(max_size=12))
        elif op == "etype":
            event["type"] = draw(st.sampled_from(EVENT_TYPES))
        elif op == "btype" and isinstance(event.get("content_block"), dict):
            event["content_block"]["type"] = draw(st.sampled_from(BLOCK_TYPES))
        elif op == "dtype" and isinstance(event.get("delta"), dict):
            event["delta"]["type"] = draw(st.sampled_from(DELTA_TYPES))
        elif op == "field":
            target = draw(st.sampled_from(_targets(event)))
            target[draw(st.sampled_from(FIELDS))] = draw(json_values)
    return events


# --- the assembler -------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=mutated())
def test_assembler_raises_only_stream_error(events: list[Raw]) -> None:
    assembler = StreamAssembler()
    out: list[Event] = []
    try:
        for event in events:
            out += assembler.feed(event)
    except StreamError as exc:
        assert isinstance(exc.kind, str)
    # whatever happened, the results can be read and are in API form
    for block in [*assembler.content, *assembler.salvage()]:
        assert isinstance(block, dict) and isinstance(block.get("type"), str)
    assert isinstance(assembler.partial_text(), str)
    usage = assembler.usage
    assert all(isinstance(v, int) for v in usage.to_dict().values())
    for event in out:
        event.to_dict()
        if isinstance(event, ToolCallReady) and event.input_error:
            assert event.input == {}


# --- the loop ------------------------------------------------------------------------------------


class AnyInput(BaseModel):
    """Accepts any object (every field optional), so only the JSON check can stop a bad call."""

    model_config = {"extra": "allow"}
    command: str | None = None
    path: str | None = None
    query: str | None = None


class Recorder(Tool):
    description: ClassVar[str] = "Records the calls it gets."
    input_model: ClassVar[type[BaseModel]] = AnyInput
    read_only: ClassVar[bool] = True

    def __init__(self, name: str, ran: list[str]) -> None:
        self.name = name  # type: ignore[misc]
        self.ran = ran

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        self.ran.append(ctx.tool_use_id)
        return ToolOutput(f"{self.name} ok")


def _run_loop(events: list[Raw], tmp_path: Path) -> None:
    async def scenario() -> None:
        ran: list[str] = []
        tools = ToolRegistry([Recorder(n, ran) for n in ("Bash", "Read", "WebSearch")])
        provider = ScriptedProvider(events)
        agent = Agent(
            provider,
            tools,
            AgentConfig(
                model="claude-sonnet-4-5",
                cwd=tmp_path,
                data_dir=tmp_path / "data",
                retry_base_delay=0,
                max_retries=1,
                stall_timeout=5,
            ),
        )
        seen: list[Event] = []
        agent.listeners.append(seen.append)
        result = await agent.submit("go")
        assert isinstance(result, TurnFinished)
        malformed = {e.tool_use_id for e in seen if isinstance(e, ToolCallReady) and e.input_error}
        assert not malformed & set(ran), "a tool ran with input from a malformed tool_use"
        assert len(provider.requests) <= 4
        for request in provider.requests:
            assert_valid_conversation(request.messages)
        assert_valid_conversation(agent.messages)
        # and the conversation takes another prompt
        again = await agent.submit("again")
        assert isinstance(again, TurnFinished)
        assert_valid_conversation(agent.messages)

    asyncio.run(scenario())


TOOL_FIXTURES = ["client_tool_bash.sse", "parallel_tools.sse", "main_calls_websearch.sse"]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(events=st.sampled_from(TOOL_FIXTURES).flatmap(mutated))
def test_loop_survives_mutated_tool_streams(events: list[Raw], tmp_path: Path) -> None:
    _run_loop(events, tmp_path)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(events=mutated())
def test_loop_survives_any_mutated_fixture(events: list[Raw], tmp_path: Path) -> None:
    _run_loop(events, tmp_path)
