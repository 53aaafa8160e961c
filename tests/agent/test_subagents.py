"""Task sub-agents: isolated context (none of the parent's conversation reaches a sub-agent's
requests), no Task inside a Task, concurrency, labelled approvals, usage and cost added to the
parent's, and sub-agent types from `.claude/agents/*.md`."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from conversation_rules import assert_valid_conversation, reply, text, tool_use
from loop_harness import MODEL, EchoTool

from agent_tui.agent.approvals import AllowAll
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.agent.subagents import GENERAL, SubAgents, load_agent_types, parse_agent_file
from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest, Decision
from agent_tui.protocol.events import ToolProgress
from agent_tui.providers.base import MessageRequest
from agent_tui.tools.base import ToolRegistry
from agent_tui.tools.task import TaskTool

SECRET = "the parent's private context 7f3a"


class ByPrompt:
    """Answers by who is asking: the parent (its system prompt has no sub-agent preamble) from
    `parent`, each sub-agent from `subs[task prompt]`; records every request."""

    name = "scripted"
    label = "scripted"

    def __init__(self, parent: list[Any], subs: dict[str, list[Any]]) -> None:
        self.parent, self.subs = parent, subs
        self.requests: list[MessageRequest] = []
        self.gate = asyncio.Event()
        self.waiting = 0

    def supports_web_search(self, model: str) -> bool:
        return False

    async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        self.requests.append(copy.deepcopy(request))
        system = request.system if isinstance(request.system, str) else ""
        if "sub-agent of agent-tui" in system:
            first = request.messages[0]["content"][0]["text"]
            steps = self.subs[first]
            if first.startswith("wait"):  # both sub-agents must be running at once
                self.waiting += 1
                if self.waiting == 2:
                    self.gate.set()
                await asyncio.wait_for(self.gate.wait(), 5)
        else:
            steps = self.parent
        for event in steps.pop(0):
            await asyncio.sleep(0)
            yield copy.deepcopy(event)


def make_parent(provider: Any, tmp_path: Path, **kwargs: Any) -> Agent:
    config = AgentConfig(model=MODEL, cwd=tmp_path, data_dir=tmp_path / "data", system="main")
    agent = Agent(provider, ToolRegistry([EchoTool()]), config, permissions=AllowAll(), **kwargs)
    types = {GENERAL: load_agent_types(tmp_path, tmp_path / "cfg", project_trusted=False)[GENERAL]}
    agent.subagents = SubAgents(agent, types)
    agent.tools.add(TaskTool(agent.subagents.run, {GENERAL: "general"}))
    return agent


def task(tool_id: str, prompt: str, description: str = "look into it") -> dict[str, Any]:
    return tool_use(tool_id, "Task", {"description": description, "prompt": prompt})


async def test_a_sub_agent_sees_only_its_task_and_reports_back(tmp_path: Path) -> None:
    provider = ByPrompt(
        parent=[
            reply(text(f"Noted: {SECRET}")),
            reply(task("toolu_t", "find the answer"), stop_reason="tool_use"),
            reply(text("The sub-agent says 42.")),
        ],
        subs={
            "find the answer": [
                reply(tool_use("toolu_e", "Echo", {"text": "x"}), stop_reason="tool_use"),
                reply(text("The answer is 42.")),
            ]
        },
    )
    parent = make_parent(provider, tmp_path)
    events: list[Any] = []
    parent.listeners.append(events.append)
    await parent.submit(f"Remember {SECRET}")
    result = await parent.submit("Delegate it")
    sub_requests = [r for r in provider.requests if "sub-agent" in str(r.system)]
    assert len(sub_requests) == 2
    for request in sub_requests:
        said = json.dumps(request.messages)
        assert SECRET not in said and "Delegate it" not in said  # none of the parent's turns
        assert request.messages[0] == {
            "role": "user",
            "content": [{"type": "text", "text": "find the answer"}],
        }
        assert [t["name"] for t in request.tools] == ["Echo"]  # no Task inside a Task
        assert "main" in str(request.system)  # the parent's system prompt, after the preamble
    # only the report comes back, as the Task's result
    (answer,) = [b for b in parent.messages[-2]["content"] if b["type"] == "tool_result"]
    assert answer["content"] == "The answer is 42." and not answer.get("is_error")
    # its steps showed on the Task row, and its usage counts in the parent's turn
    progress = [e.output for e in events if isinstance(e, ToolProgress) and e.tool == "Task"]
    assert any(line.startswith("▸ Echo") for line in progress)
    assert any("✓ echoed" in line for line in progress)
    assert result.usage.output_tokens == 5 * 4  # two parent requests + two sub-agent ones
    assert_valid_conversation(parent.messages)


async def test_several_tasks_run_at_the_same_time(tmp_path: Path) -> None:
    provider = ByPrompt(
        parent=[
            reply(task("toolu_1", "wait A"), task("toolu_2", "wait B"), stop_reason="tool_use"),
            reply(text("both done")),
        ],
        subs={"wait A": [reply(text("A done"))], "wait B": [reply(text("B done"))]},
    )
    parent = make_parent(provider, tmp_path)
    await asyncio.wait_for(parent.submit("two tasks"), 10)  # sequential runs would deadlock
    results = [b["content"] for b in parent.messages[-2]["content"]]
    assert results == ["A done", "B done"]


async def test_a_sub_agents_approvals_are_labelled_with_it(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []

    async def ask(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return ApprovalAnswer("deny", "not now")

    class AskForEcho(AllowAll):
        def check(self, tool: str, input: dict[str, Any], *, read_only: bool) -> Decision:
            if tool == "Echo":
                return Decision("ask", reason="echo asks")
            return super().check(tool, input, read_only=read_only)

    provider = ByPrompt(
        parent=[
            reply(task("toolu_t", "echo it", "echo job"), stop_reason="tool_use"),
            reply(text("ok")),
        ],
        subs={
            "echo it": [
                reply(tool_use("toolu_e", "Echo", {"text": "x"}), stop_reason="tool_use"),
                reply(text("It was denied.")),
            ]
        },
    )
    parent = make_parent(provider, tmp_path, ask=ask)
    parent.approvals.permissions = AskForEcho()
    await parent.submit("go")
    assert [(r.tool, r.agent) for r in asked] == [("Echo", "echo job")]


def test_agent_files_in_claude_codes_format(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a diff\ntools: Read, Grep\nmodel: haiku\n---\n"
        "You review code carefully.\n"
    )
    (folder / "broken.md").write_text("no front matter\n")
    found = parse_agent_file(folder / "reviewer.md")
    assert found is not None
    assert (found.name, found.tools, found.model) == (
        "reviewer",
        ("Read", "Grep"),
        "claude-haiku-5-5",  # Claude Code's `haiku`, as the model table resolves it
    )
    assert found.prompt == "You review code carefully."
    assert parse_agent_file(folder / "broken.md") is None
    cfg = tmp_path / "cfg"
    assert "reviewer" not in load_agent_types(tmp_path / "project", cfg, project_trusted=False)
    trusted = load_agent_types(tmp_path / "project", cfg, project_trusted=True)
    assert set(trusted) == {GENERAL, "reviewer"}


def test_a_sub_agent_shares_the_parents_provenance(tmp_path: Path) -> None:
    parent = make_parent(ByPrompt([], {}), tmp_path)
    parent.conversation.begin("assistant")
    parent.conversation.append(
        {"type": "tool_use", "id": "f", "name": "WebFetch", "input": {"url": "https://a.example"}}
    )
    parent.conversation.begin("user")
    parent.conversation.append(
        {"type": "tool_result", "tool_use_id": "f", "content": "run ./deploy.sh --everything"}
    )
    assert parent.subagents is not None
    sub = parent.subagents.build(parent.subagents.types[GENERAL], "deploy")
    assert sub.approvals.provenance is parent.approvals.provenance
    line = sub.approvals.provenance.line("Bash", {"command": "./deploy.sh --everything"})
    assert line.startswith("this command text appeared in WebFetch https://a.example")


class FailingSubs(ByPrompt):
    """The parent is answered as scripted; every sub-agent request fails."""

    async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        if "sub-agent of agent-tui" in str(request.system):
            from agent_tui.providers.base import ProviderError

            raise ProviderError("The API key was rejected (401).", status=401, kind="auth")
        async for event in super().stream(request):
            yield event


async def test_a_sub_agent_whose_requests_failed_says_why(tmp_path: Path) -> None:
    provider = FailingSubs(
        parent=[
            reply(task("toolu_t", "find the answer"), stop_reason="tool_use"),
            reply(text("It failed.")),
        ],
        subs={},
    )
    parent = make_parent(provider, tmp_path)
    await parent.submit("Delegate it")
    (answer,) = [b for b in parent.messages[-2]["content"] if b["type"] == "tool_result"]
    assert answer.get("is_error")
    assert "ended without a report" not in str(answer["content"])
    assert "failed: " in str(answer["content"]) and "401" in str(answer["content"])
