"""The session's and a turn's own hooks (the main agent's; a sub-agent's turns are part of its
parent's, but for `SubagentStop`):

- `SessionStart` when the session's first prompt is sent (`source`: startup, resume, clear after
  /new, compact after a compaction): its stdout or additionalContext goes to the model with it;
- `UserPromptSubmit` before a prompt is sent (exit 2 or a JSON block: the prompt is not sent and
  the person reads why; stdout or additionalContext goes to the model with the prompt);
- `Stop` when the model ends its answer, `SubagentStop` when a sub-agent ends its report (exit 2
  or a JSON block: the reason goes to the model, which goes on; at most
  `MAX_STOP_CONTINUATIONS` times a turn, with `stop_hook_active` set after the first);
- `PreCompact` before the conversation is summarised (`trigger`: manual for /compact, auto;
  exit 2 or a block: this compaction is skipped, said);
- `SessionEnd` when the session ends (`reason`: prompt_input_exit when the app quits, clear at
  /new, other at the end of a headless run), waited for up to its timeout.
"""

from __future__ import annotations

from typing import Any, Protocol

from agent_tui.hooks.outcome import Verdict, judge
from agent_tui.protocol.events import Event, Notice, TurnFinished, Usage
from agent_tui.text import one_line


class Agent(Protocol):
    """What these need of the agent."""

    @property
    def config(self) -> Any: ...

    @property
    def conversation(self) -> Any: ...

    def emit(self, event: Event) -> None: ...


MAX_STOP_CONTINUATIONS = 3


def _say(agent: Agent, verdict: Verdict) -> None:
    for line in verdict.notices:
        agent.emit(Notice("warning", line))


async def before_prompt(agent: Agent, prompt: str, main: bool) -> tuple[TurnFinished | None, str]:
    """(the turn's end when a hook blocks the prompt, else None; context to send with it)."""
    hooks = agent.config.hooks
    if hooks is None or not main:
        return None, ""
    hooks.stop_runs = 0
    context = await _session_start(agent, hooks)
    if hooks.matching("UserPromptSubmit"):
        verdict = judge("UserPromptSubmit", await hooks.run("UserPromptSubmit", {"prompt": prompt}))
        _say(agent, verdict)
        why = verdict.block if verdict.block is not None else verdict.stop
        if why is not None:
            text = f"A UserPromptSubmit hook blocked the prompt (it was not sent): {why}"
            agent.emit(Notice("warning", text))
            event = TurnFinished(None, Usage(), 0.0, 0, False, False)
            agent.emit(event)
            return event, ""
        context += verdict.context
    tag = "user-prompt-submit-hook"
    return None, "".join(f"\n\n<{tag}>\n{c}\n</{tag}>" for c in context)


async def _session_start(agent: Agent, hooks: Any) -> list[str]:
    """SessionStart, once a session (again after /new or a compaction): its context."""
    source = hooks.session_source
    if source is None:
        return []
    hooks.session_source = None
    if source == "startup" and agent.conversation.messages:
        source = "resume"
    if not hooks.matching("SessionStart", source):
        return []
    verdict = judge("SessionStart", await hooks.run("SessionStart", {"source": source}, source))
    _say(agent, verdict)
    return verdict.context


async def before_compact(agent: Agent, trigger: str, instructions: str = "") -> bool:
    """PreCompact: False when a hook blocks this compaction (said). After one, the next prompt
    runs SessionStart with source "compact"."""
    hooks = agent.config.hooks
    if hooks is None:
        return True
    hooks.session_source = "compact"
    if not hooks.matching("PreCompact", trigger):
        return True
    fields = {"trigger": trigger, "custom_instructions": instructions}
    verdict = judge("PreCompact", await hooks.run("PreCompact", fields, trigger))
    _say(agent, verdict)
    why = verdict.block if verdict.block is not None else verdict.stop
    if why is None:
        return True
    agent.emit(Notice("warning", f"A PreCompact hook stopped the compaction: {one_line(why, 200)}"))
    return False


async def session_end(agent: Agent, reason: str) -> None:
    """SessionEnd (waited for: each hook within its timeout). A session ended by /new starts
    the next one with SessionStart's source "clear"."""
    hooks = agent.config.hooks
    if hooks is None:
        return
    if reason == "clear":
        hooks.session_source = "clear"
    if hooks.matching("SessionEnd", reason):
        _say(agent, judge("SessionEnd", await hooks.run("SessionEnd", {"reason": reason}, reason)))


async def stop_continues(agent: Agent, stop_reason: str | None, main: bool) -> bool:
    """The model ended its answer (a sub-agent: its report): True when a Stop (SubagentStop)
    hook sends it on, its reason added."""
    hooks = agent.config.hooks
    if hooks is None or stop_reason not in ("end_turn", "stop_sequence"):
        return False
    event = "Stop" if main else "SubagentStop"
    if not hooks.matching(event):
        return False
    from agent_tui.slash_commands import last_answer

    key = id(agent.conversation)
    runs_so_far = hooks.stop_runs if main else hooks.subagent_stops.get(key, 0)
    fields = {
        "stop_hook_active": runs_so_far > 0,
        "last_assistant_message": last_answer(agent.conversation.messages),
    }
    verdict = judge(event, await hooks.run(event, fields))
    _say(agent, verdict)
    if verdict.block is None or verdict.stop is not None:
        return False
    if runs_so_far >= MAX_STOP_CONTINUATIONS:
        text = f"A {event} hook sent the model on {MAX_STOP_CONTINUATIONS} times; stopping here."
        agent.emit(Notice("warning", text))
        return False
    if main:
        hooks.stop_runs += 1
    else:
        hooks.subagent_stops[key] = runs_so_far + 1
    text = f"A {event} hook sends the model on: {one_line(verdict.block, 200)}"
    agent.emit(Notice("info", text))
    agent.conversation.add_prompt(f"{event} hook feedback:\n{verdict.block}")
    return True
