"""A recorder is attached to its agent in one place (`agent/recording.py`): the conversation, the
events, the file contents kept for undo and the sub-agents all reach it, and `detach` stops it."""

from __future__ import annotations

from pathlib import Path

from conversation_rules import ScriptedProvider, reply, text
from loop_harness import Harness

from agent_tui.agent.subagents import SubAgents
from agent_tui.sessions.recorder import Recorder
from agent_tui.sessions.store import SessionStore


async def test_a_recorder_sees_everything_once_attached_and_nothing_once_detached(
    tmp_path: Path,
) -> None:
    h = Harness(ScriptedProvider(reply(text("one")), reply(text("two"))), [], tmp_path)
    agent = h.agent
    agent.subagents = SubAgents.__new__(SubAgents)  # only its `on_start` hook is looked at
    agent.subagents.on_start = None
    store = SessionStore(tmp_path / "s.db")
    recorder = Recorder(store, agent)
    assert recorder in agent.conversation.observers and recorder.on_event in agent.listeners
    assert agent.checkpoints.blobs is recorder.blobs  # undo's file contents go to the session
    assert agent.subagents.on_start == recorder.record_subagent
    await agent.submit("first")
    session = recorder.session_id
    assert session is not None and len(store.messages.load(session)) == 2
    recorder.detach()
    assert recorder not in agent.conversation.observers
    assert recorder.on_event not in agent.listeners
    await agent.submit("second")
    assert len(store.messages.load(session)) == 2  # nothing more recorded there
    store.close()
