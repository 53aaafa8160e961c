"""The offline model: its scripted scenarios, as wire events and end to end through the Agent."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest
from conversation_rules import assert_valid_conversation, results_of
from pydantic import BaseModel

from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.protocol.assembler import StreamAssembler
from agent_tui.protocol.events import (
    Event,
    SearchQueryUpdate,
    SearchResultsReceived,
    StreamFailed,
    TextDelta,
    ToolCallReady,
    ToolFinished,
)
from agent_tui.providers.base import MessageRequest
from agent_tui.providers.offline import OFFLINE_MODEL, OfflineProvider
from agent_tui.tools.base import Tool, ToolContext, ToolOutput, ToolRegistry
from agent_tui.tools.builtin.read import ReadTool
from agent_tui.tools.builtin.web_search import WebSearchTool


async def collect(provider: OfflineProvider, request: MessageRequest) -> StreamAssembler:
    assembler = StreamAssembler()
    async for raw in provider.stream(request):
        assembler.feed(raw)
    assert assembler.stopped and assembler.anomalies == []
    return assembler


def prompt(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": text}]}]


class BashInput(BaseModel):
    command: str
    description: str | None = None


class FakeBash(Tool):
    """Stands in for Bash: records the command, runs nothing."""

    name: ClassVar[str] = "Bash"
    description: ClassVar[str] = "Run a shell command (fake)."
    input_model: ClassVar[type[BaseModel]] = BashInput

    def __init__(self) -> None:
        self.commands: list[str] = []

    def subject(self, params: Any) -> str:
        return str(params.command)

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        self.commands.append(params.command)
        return ToolOutput("4.0K\tREADME.md\n12K\tsrc", summary="exit 0")


def make_agent(tmp_path: Path, tools: list[Tool]) -> tuple[Agent, list[Event]]:
    agent = Agent(
        OfflineProvider(delay_scale=0),
        ToolRegistry(tools),
        AgentConfig(model=OFFLINE_MODEL, cwd=tmp_path, data_dir=tmp_path / "data"),
    )
    events: list[Event] = []
    agent.listeners.append(events.append)
    return agent, events


def of(events: list[Event], cls: type[Event]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


# --- the stream itself ----------------------------------------------------------------------------


async def test_the_prompt_alone_chooses_the_scenario_not_a_bang_commands_output() -> None:
    """`!ls` then "hello": the command's output rides along after the prompt (its words, such
    as "bash", must not turn a greeting into the run-a-command scenario)."""
    note = "<bash-input>ls</bash-input>\n<bash-stdout>README.md</bash-stdout><bash-stderr/>"
    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hello"}, {"type": "text", "text": note}],
        }
    ]
    a = await collect(OfflineProvider(delay_scale=0), MessageRequest("offline", messages))
    assert [b["type"] for b in a.content] == ["text"]
    assert a.content[0]["text"].startswith("# Hello from the offline model")


async def test_piped_input_does_not_choose_the_scenario() -> None:
    """`git diff | agent-tui --offline -p "read the readme"`: the diff's "git" is not a request
    to run a command."""
    piped = "read the readme\n\n<stdin>\ndiff --git a/x b/x\n+status\n</stdin>"
    a = await collect(OfflineProvider(delay_scale=0), MessageRequest("offline", prompt(piped)))
    assert [b.get("name") for b in a.content if b["type"] == "tool_use"] == ["Read"]


async def test_welcome_is_a_markdown_answer_with_a_code_block() -> None:
    a = await collect(OfflineProvider(delay_scale=0), MessageRequest("offline", prompt("hi")))
    assert a.stop_reason == "end_turn"
    assert [b["type"] for b in a.content] == ["text"]
    body = a.content[0]["text"]
    assert body.startswith("# Hello from the offline model")
    assert "```python" in body and "|---|" in body
    assert a.usage.input_tokens > 0 and a.usage.output_tokens > 0
    assert a.model == OFFLINE_MODEL
    # `--offline` with a key set runs it too: it never claims there is no key
    assert "no `ANTHROPIC_API_KEY` here" not in body and "--offline" in body


async def test_unknown_prompts_get_the_welcome() -> None:
    a = await collect(OfflineProvider(0), MessageRequest("offline", prompt("qwerty uiop")))
    assert a.content[0]["text"].startswith("# Hello")


async def test_empty_conversation_does_not_crash() -> None:
    a = await collect(OfflineProvider(0), MessageRequest("offline", []))
    assert a.stop_reason == "end_turn"


@pytest.mark.parametrize(
    ("text", "tool", "key"),
    [
        ("run a command", "Bash", "command"),
        ("please read the readme", "Read", "file_path"),
        ("search the web for textual markdown streaming", "WebSearch", "query"),
    ],
)
async def test_scenarios_call_their_tool(text: str, tool: str, key: str) -> None:
    a = await collect(OfflineProvider(0), MessageRequest("offline", prompt(text)))
    assert a.stop_reason == "tool_use"
    assert [b["type"] for b in a.content] == ["text", "tool_use"]
    call = a.content[1]
    assert call["name"] == tool and key in call["input"]
    assert call["id"].startswith("toolu_offline_")


async def test_search_query_is_taken_from_the_prompt() -> None:
    request = MessageRequest("offline", prompt("Search the web for textual markdown streaming?"))
    a = await collect(OfflineProvider(0), request)
    assert a.content[1]["input"] == {"query": "textual markdown streaming"}


async def test_ids_are_unique_across_streams() -> None:
    provider = OfflineProvider(0)
    ids = set()
    for _ in range(3):
        a = await collect(provider, MessageRequest("offline", prompt("run a command")))
        ids.add(a.content[1]["id"])
        ids.add(a.message_id)
    assert len(ids) == 6


async def test_web_search_sub_request_makes_two_searches() -> None:
    request = MessageRequest(
        "offline",
        [{"role": "user", "content": "Perform a web search for the query: textual markdown"}],
        purpose="web_search",
    )
    assembler = StreamAssembler()
    events: list[Event] = []
    async for raw in OfflineProvider(0).stream(request):
        events += assembler.feed(raw)
    types = [b["type"] for b in assembler.content]
    assert types == ["server_tool_use", "web_search_tool_result"] * 2 + ["text"]
    assert assembler.usage.web_search_requests == 2
    queries = [b["input"]["query"] for b in assembler.content if b["type"] == "server_tool_use"]
    assert queries == ["textual markdown", "textual markdown documentation"]
    results = of(events, SearchResultsReceived)
    assert [r.query for r in results] == queries
    assert all(r.count >= 1 for r in results)
    # results follow the query: every one is indexed under a word of the query it answers
    from agent_tui.providers.offline import _search_index

    keywords = {e["url"]: set(e["keywords"]) for e in _search_index()}
    for r in results:
        words = set(r.query.lower().split())
        assert all(words & keywords[x["url"]] for x in r.results), r
    # the live query grows and ends at the full query, for each search
    by_id: dict[str, list[str]] = {}
    for update in of(events, SearchQueryUpdate):
        by_id.setdefault(update.tool_use_id, []).append(update.query)
    assert [v[-1] for v in by_id.values()] == queries
    for values in by_id.values():
        assert all(q.startswith(p) for p, q in itertools.pairwise(values))
    # each result answers the server_tool_use just before it
    blocks = assembler.content
    for i in (0, 2):
        assert blocks[i + 1]["tool_use_id"] == blocks[i]["id"]
        assert all(r["encrypted_content"] for r in blocks[i + 1]["content"])


async def test_extract_sub_request_answers_extractively() -> None:
    page = "A sentence that is long enough to be picked up by the extractor. " * 3
    request = MessageRequest("offline", prompt(page), purpose="extract")
    a = await collect(OfflineProvider(0), request)
    assert a.content[0]["text"].startswith("(Offline extraction")
    a = await collect(OfflineProvider(0), MessageRequest("offline", prompt("x"), purpose="extract"))
    assert a.content[0]["text"] == "(Empty page.)"


def test_delay_scale_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    assert OfflineProvider().delay_scale == 0
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "fast")
    assert OfflineProvider().delay_scale == 1.0
    assert OfflineProvider(delay_scale=0.5).delay_scale == 0.5


# --- end to end through the Agent -----------------------------------------------------------------


async def test_welcome_turn(tmp_path: Path) -> None:
    agent, events = make_agent(tmp_path, [])
    result = await agent.submit("hello")
    assert result.stop_reason == "end_turn" and result.requests == 1
    assert "".join(e.text for e in of(events, TextDelta)).startswith("# Hello")
    assert result.cost_usd >= 0
    assert_valid_conversation(agent.messages)


async def test_run_a_command(tmp_path: Path) -> None:
    bash = FakeBash()
    agent, _ = make_agent(tmp_path, [bash])
    result = await agent.submit("run a command")
    assert result.stop_reason == "end_turn" and result.requests == 2
    assert bash.commands == ["du -sh -- * | sort -h | tail -n 5 | tee largest.txt"]
    (res,) = results_of(agent.messages[2])
    assert res["content"] == "4.0K\tREADME.md\n12K\tsrc"
    answer = agent.messages[-1]["content"][0]["text"]
    assert "4.0K\tREADME.md\n12K\tsrc" in answer  # the answer quotes the tool result
    assert "{{" not in answer
    assert_valid_conversation(agent.messages)


async def test_read_the_readme_with_the_real_read_tool(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Demo project\n\nIt does things.\n", encoding="utf-8")
    agent, events = make_agent(tmp_path, [ReadTool()])
    result = await agent.submit("read the readme")
    assert result.requests == 2 and not result.failed
    (ready,) = of(events, ToolCallReady)
    assert ready.input == {"file_path": "README.md", "limit": 20}
    (finished,) = of(events, ToolFinished)
    assert not finished.is_error
    answer = agent.messages[-1]["content"][0]["text"]
    assert "# Demo project" in answer and "It does things." in answer
    assert re.search(r"1\t# Demo project", answer)  # line numbers as Read returns them
    assert_valid_conversation(agent.messages)


async def test_read_the_readme_when_there_is_none(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path, [ReadTool()])
    result = await agent.submit("read the readme")
    assert not result.failed and result.requests == 2
    (res,) = results_of(agent.messages[2])
    assert res["is_error"] is True
    assert_valid_conversation(agent.messages)


async def test_search_the_web_with_the_real_web_search_tool(tmp_path: Path) -> None:
    agent, events = make_agent(tmp_path, [WebSearchTool()])
    result = await agent.submit("search the web for textual markdown streaming")
    assert result.stop_reason == "end_turn" and result.requests == 2 and not result.failed
    assert result.usage.web_search_requests == 2  # the sub-request's searches count
    queries = [r.query for r in of(events, SearchResultsReceived)]
    assert queries == ["textual markdown streaming", "textual markdown streaming documentation"]
    (finished,) = of(events, ToolFinished)
    assert not finished.is_error and finished.summary.startswith("Did 2 searches in")
    answer = agent.messages[-1]["content"][0]["text"]
    assert "**textual markdown streaming**" in answer
    assert re.search(r"- \[[^\]]+\]\(https?://", answer), answer  # links from the results
    assert not of(events, StreamFailed)
    assert_valid_conversation(agent.messages)


async def test_two_scenarios_in_one_session(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hello\n", encoding="utf-8")
    bash = FakeBash()
    agent, _ = make_agent(tmp_path, [bash, ReadTool()])
    await agent.submit("run a command")
    await agent.submit("read the readme")
    assert len(bash.commands) == 1  # the second prompt picks its own scenario
    assert "hello" in agent.messages[-1]["content"][0]["text"]
    assert_valid_conversation(agent.messages)
    assert agent.session_usage.output_tokens > 0


async def test_a_query_the_offline_index_knows_nothing_about_gets_no_results() -> None:
    request = MessageRequest(
        "offline",
        [{"role": "user", "content": "Perform a web search for the query: sourdough hydration"}],
        purpose="web_search",
    )
    assembler = StreamAssembler()
    events: list[Event] = []
    async for raw in OfflineProvider(0).stream(request):
        events += assembler.feed(raw)
    assert all(r.count == 0 for r in of(events, SearchResultsReceived))
    assert "no pages about “sourdough hydration”" in assembler.partial_text()
