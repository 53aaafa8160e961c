"""Sub-agents for the `Task` tool: a new conversation that starts from the task's prompt alone.

A sub-agent is an `Agent` of its own — the same loop, the same permission engine and approval
dialogs (labelled with it), the parent's provider — with the parent's tools but `Task` (no Task
inside a Task), or fewer if its type says so, and a system prompt of its own. None of the
parent's conversation reaches it; only its final answer goes back, as the Task's result, with
its usage and cost. Its steps show on the Task's row in the progress pane, and its conversation
is recorded as a session linked to the parent's.

Types come from Claude Code's `.claude/agents/*.md` files (front matter: name, description,
tools, model; the body is the type's prompt): the user's `<config>/agents/` and, in a trusted
project only, the project's `.claude/agents/`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.models import resolve
from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest
from agent_tui.protocol.events import Event, Notice, StreamFailed, ToolCallReady, ToolFinished
from agent_tui.tools.base import ToolContext, ToolOutput, ToolRegistry
from agent_tui.tools.subject import tool_subject

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.tools.task import TaskInput

GENERAL = "general-purpose"
PREAMBLE = (
    "You are a sub-agent of agent-tui, given one task by the main agent. You see nothing of its "
    "conversation: the task below is all you have. Work on your own with your tools; the user "
    "approves risky steps as usual. When done, answer with a concise report of what you found "
    "or did (paths, names, results): the main agent sees that final message and nothing else."
)


@dataclass(frozen=True, slots=True)
class AgentType:
    """A kind of sub-agent `Task` may start: the built-in one, or one from an `agents/*.md` file."""

    name: str
    description: str
    prompt: str = ""
    #: the tools it may use (None: all the parent's but Task)
    tools: tuple[str, ...] | None = None
    model: str | None = None
    source: str = "built-in"


BUILT_IN = AgentType(GENERAL, "Research, search and multi-step tasks; has every tool but Task.")

_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)(.*)\Z", re.DOTALL)


def parse_agent_file(path: Path) -> AgentType | None:
    """One `.claude/agents/*.md` file; None if it has no front matter with a name."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    m = _FRONT.match(text)
    if m is None:
        return None
    fields: dict[str, str] = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            fields[key.strip().lower()] = value.strip().strip("\"'")
    name = fields.get("name", "")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        return None
    tools = None
    if fields.get("tools"):
        tools = tuple(t.strip() for t in fields["tools"].strip("[]").split(",") if t.strip())
    model = fields.get("model") or None
    model = None if model in (None, "inherit") else resolve(model)  # Claude Code's aliases too
    return AgentType(
        name, fields.get("description", ""), m.group(2).strip(), tools, model, str(path)
    )


def load_agent_types(
    cwd: Path,
    config_dir: Path,
    *,
    project_trusted: bool,
    extra: Iterable[tuple[Path, str]] = (),
) -> dict[str, AgentType]:
    """The built-in type, the user's (ours, then ~/.claude/agents), then (trusted projects only)
    the project's, later ones winning on a name; then `extra`'s files, each (file, prefix): a
    trusted plugin's, named `prefix:name`."""
    from agent_tui.permissions.claude_settings import claude_dir

    types = {GENERAL: BUILT_IN}
    folders = [config_dir / "agents", claude_dir() / "agents"]  # ours, then Claude Code's
    if project_trusted:
        folders.append(cwd / ".claude" / "agents")
    for folder in folders:
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
            found = parse_agent_file(path)
            if found is not None:
                types[found.name] = found
    for path, prefix in extra:
        found = parse_agent_file(path)
        if found is not None:
            name = f"{prefix}:{found.name}"
            types[name] = dataclasses.replace(found, name=name, source=f"plugin {prefix}")
    return types


class SubAgents:
    """Runs `Task` calls for one parent agent (`TaskTool.runner`)."""

    def __init__(
        self,
        parent: Agent,
        types: dict[str, AgentType],
        on_start: Callable[[Agent, str], None] | None = None,
    ) -> None:
        self.parent = parent
        self.types = types
        #: called with each new sub-agent and its label (the session recorder links it)
        self.on_start = on_start

    def build(self, kind: AgentType, label: str) -> Agent:
        from agent_tui.agent.conversation import Conversation
        from agent_tui.agent.loop import Agent
        from agent_tui.tools.deferred import DeferringRegistry

        parent = self.parent
        allowed = [
            tool
            for name in parent.tools.names()
            if name != "Task"
            and (kind.tools is None or name in kind.tools)
            and (tool := parent.tools.get(name)) is not None
        ]
        system = "\n\n".join(p for p in (PREAMBLE, kind.prompt, parent.config.system) if p)
        # The cap is the parent's: its requests go through the parent's provider and budget.
        config = dataclasses.replace(
            parent.config,
            model=kind.model or parent.config.model,
            system=system,
            max_cost=None,
            max_turns=None,  # `--max-turns` counts the main agent's responses
        )

        async def ask(request: ApprovalRequest) -> ApprovalAnswer:
            return await parent.approvals.ask(dataclasses.replace(request, agent=label))

        # The parent's tools, deferred the same way (WebFetch and MCP tools found with ToolSearch)
        mode = getattr(parent.tools, "mode", None)
        tools = DeferringRegistry(mode, allowed) if isinstance(mode, str) else ToolRegistry(allowed)
        sub = Agent(
            parent.provider,
            tools,
            config,
            permissions=parent.permissions,
            ask=ask,
            conversation=Conversation(),
        )
        sub.runner.checkpoints = parent.checkpoints  # its changes belong to the parent's turn
        sub.approvals.own_writes = parent.checkpoints.own_writes
        # what the parent's tools returned is where a sub-agent's command may come from too
        sub.conversation.observers.remove(sub.approvals.provenance)
        sub.approvals.provenance = parent.approvals.provenance
        sub.conversation.observers.append(parent.approvals.provenance)
        return sub

    async def run(self, params: TaskInput, ctx: ToolContext) -> ToolOutput:
        name = params.subagent_type or GENERAL
        kind = self.types.get(name)
        if kind is None:
            known = ", ".join(sorted(self.types))
            return ToolOutput(
                f"Unknown subagent_type {name!r}; the types are: {known}.",
                is_error=True,
                summary="unknown type",
            )
        label = params.description
        sub = self.build(kind, label)
        sub.listeners.append(_progress_reporter(ctx))
        errors: list[str] = []  # why its requests failed, for a report that says so
        sub.listeners.append(lambda e: _keep_error(e, errors))
        if self.on_start is not None:
            self.on_start(sub, label)
        result = await sub.submit(params.prompt)
        report = _final_text(sub.messages)
        steps = sum(1 for m in sub.messages[1:] if m["role"] == "assistant")
        cost = result.cost_usd
        meta: dict[str, Any] = {"model": sub.config.model, "cost_usd": cost, "steps": steps}
        summary = f"{steps} step{'s' if steps != 1 else ''} · ${cost:.4f}"
        if result.failed or result.cancelled or not report:
            why = "was cancelled" if result.cancelled else "ended without a report"
            if result.failed and errors and not result.cancelled:
                why = f"failed: {errors[-1]}"
            if result.stop_reason == "max_cost":
                why = "stopped: the spending cap was reached"
            return ToolOutput(
                f"The sub-agent {why}." + (f" Its last words:\n{report}" if report else ""),
                is_error=True,
                summary=summary,
                usage=result.usage,
                meta=meta,
            )
        return ToolOutput(report, summary=summary, usage=result.usage, meta=meta)


def _keep_error(event: Event, errors: list[str]) -> None:
    if isinstance(event, StreamFailed):
        errors.append(event.error)
    elif isinstance(event, Notice) and event.level == "error":
        errors.append(event.text)


def _final_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message["role"] != "assistant" or not isinstance(message["content"], list):
            continue
        text = "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")
        if text.strip():
            return text.strip()
    return ""


def _progress_reporter(ctx: ToolContext) -> Callable[[Event], None]:
    """The sub-agent's steps as progress lines of the Task row (one per tool call)."""

    def report(event: Event) -> None:
        if isinstance(event, ToolCallReady) and not event.server:
            subject = tool_subject(event.tool, event.input)
            ctx.progress(output=f"▸ {event.tool} {subject}\n")
        elif isinstance(event, ToolFinished):
            mark = "✗" if event.is_error else "✓"
            ctx.progress(output=f"  {mark} {event.summary}\n")

    return report


def attach_subagents(agent: Agent, cwd: Path, config_dir: Path, *, trusted: bool) -> None:
    """`agent`'s `Task` tool (made on first use) and its runner, with the sub-agent types of the
    user and (if `trusted`) the project; a project the person trusts later in the session adds
    its types then (`permissions.on_trusted`)."""
    plugins = agent.config.plugins

    def load(project: bool) -> dict[str, AgentType]:
        extra = plugins.agent_files() if plugins is not None else ()
        return load_agent_types(cwd, config_dir, project_trusted=project, extra=extra)

    types = load(trusted)
    runner = agent.subagents = SubAgents(agent, types)
    descriptions = {n: t.description for n, t in types.items()}

    def trusted_now(project: bool = True) -> None:
        found = load(project)
        types.update(found)
        descriptions.update({n: t.description for n, t in found.items()})
        agent.tools.schemas_changed()

    if not trusted and hasattr(agent.permissions, "on_trusted"):
        agent.permissions.on_trusted.append(trusted_now)
    if plugins is not None:  # a plugin trusted mid-session adds its types
        plugins.on_trusted.append(lambda _now: trusted_now(agent.permissions.project_trusted))

    def task_tool() -> Any:
        from agent_tui.tools.task import TaskTool

        return TaskTool(runner.run, descriptions)

    agent.tools.add_lazy("Task", task_tool)
