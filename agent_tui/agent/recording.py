"""How a session recorder is attached to an agent: in one place (`attach`), undone by `detach`.

A recorder (`sessions/recorder.py`) sees the conversation as it grows (every message begun and
block added), every event the agent emits, the file contents kept for undo, and the sub-agents
the Task tool starts. The agent knows it only as this protocol: the core never imports sessions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent_tui.agent.conversation import ConversationObserver

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.checkpoints.blobs import BlobStore
    from agent_tui.protocol.events import Event


class SessionRecorder(ConversationObserver, Protocol):
    #: where file contents kept for undo go (the recorder's session)
    @property
    def blobs(self) -> BlobStore: ...

    #: the session's id, once it has one (its first message)
    @property
    def session_id(self) -> str | None: ...

    def on_event(self, event: Event) -> None: ...

    def record_subagent(self, sub: Agent, label: str) -> None: ...


def attach(agent: Agent, recorder: SessionRecorder) -> None:
    """Record `agent`'s session with `recorder` from now on."""
    agent.conversation.observers.append(recorder)
    agent.listeners.append(recorder.on_event)
    agent.checkpoints.blobs = recorder.blobs
    if agent.subagents is not None:
        agent.subagents.on_start = recorder.record_subagent
    if agent.config.hooks is not None:  # a hook's input names the session (once it has an id)
        agent.config.hooks.session_id = lambda: recorder.session_id or ""


def detach(agent: Agent, recorder: SessionRecorder) -> None:
    """Stop telling `recorder` what happens (the next recorder attached takes the rest over)."""
    if recorder in agent.conversation.observers:
        agent.conversation.observers.remove(recorder)
    if recorder.on_event in agent.listeners:
        agent.listeners.remove(recorder.on_event)
