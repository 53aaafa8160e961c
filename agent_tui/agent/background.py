"""The session's background shells and the agent that runs them (a sub-agent's calls use its
parent's): their synced changes go to this agent's checkpoints, and what the agent changes in the
project reaches their views (`tools/shells.py`, `sandbox/live.py`)."""

from __future__ import annotations

from typing import Any


def attach(agent: Any) -> None:
    """`agent`: the `agent.loop.Agent` just made."""
    shells = agent.config.shells
    if shells is not None and getattr(shells, "checkpoints", True) is None:
        shells.attach(agent.checkpoints, agent.emit, lambda: agent.running)
        agent.listeners.append(shells.on_event)


async def before_turn_end(agent: Any) -> None:
    """The background shells' writes so far are the ending turn's too."""
    shells = agent.config.shells
    if shells is not None and getattr(shells, "checkpoints", None) is agent.checkpoints:
        await shells.sync_all()
