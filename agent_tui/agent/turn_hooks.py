"""A turn's own hooks (the main agent's; a sub-agent's turns are part of its parent's):
`UserPromptSubmit` before a prompt is sent (exit 2 or a JSON block: the prompt is not sent and
the person reads why; stdout or additionalContext goes to the model with the prompt), and `Stop`
when the model ends its answer (exit 2 or a JSON block: the reason goes to the model, which goes
on; at most `MAX_STOP_CONTINUATIONS` times a turn, with `stop_hook_active` set after the first)."""

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
    if not hooks.matching("UserPromptSubmit"):
        return None, ""
    verdict = judge("UserPromptSubmit", await hooks.run("UserPromptSubmit", {"prompt": prompt}))
    _say(agent, verdict)
    why = verdict.block if verdict.block is not None else verdict.stop
    if why is not None:
        text = f"A UserPromptSubmit hook blocked the prompt (it was not sent): {why}"
        agent.emit(Notice("warning", text))
        event = TurnFinished(None, Usage(), 0.0, 0, False, False)
        agent.emit(event)
        return event, ""
    extra = "".join(
        f"\n\n<user-prompt-submit-hook>\n{c}\n</user-prompt-submit-hook>" for c in verdict.context
    )
    return None, extra


async def stop_continues(agent: Agent, stop_reason: str | None, main: bool) -> bool:
    """The model ended its answer: True when a Stop hook sends it on (its reason added)."""
    hooks = agent.config.hooks
    if hooks is None or not main or stop_reason not in ("end_turn", "stop_sequence"):
        return False
    if not hooks.matching("Stop"):
        return False
    runs = await hooks.run("Stop", {"stop_hook_active": hooks.stop_runs > 0})
    verdict = judge("Stop", runs)
    _say(agent, verdict)
    if verdict.block is None or verdict.stop is not None:
        return False
    if hooks.stop_runs >= MAX_STOP_CONTINUATIONS:
        text = f"A Stop hook sent the model on {MAX_STOP_CONTINUATIONS} times; stopping here."
        agent.emit(Notice("warning", text))
        return False
    hooks.stop_runs += 1
    agent.emit(Notice("info", f"A Stop hook sends the model on: {one_line(verdict.block, 200)}"))
    agent.conversation.add_prompt(f"Stop hook feedback:\n{verdict.block}")
    return True
