"""A conversation rewound to an earlier prompt goes on in a new session, so nothing recorded is
lost: the old session keeps everything, the new one starts with what came before that prompt
(and the checkpoints of those turns, with their kept contents)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.sessions.store import SessionStore

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent

TITLE_SUFFIX = " (rewound)"
#: a session continued in a copy (`--fork-session`, or it was in use by another process)
FORK_SUFFIX = " (fork)"


def fork_session(
    store: SessionStore, agent: Agent, old: str | None, upto: int, suffix: str = TITLE_SUFFIX
) -> str:
    """A new session with the agent's messages before `upto`; returns its id (call from a
    thread: it writes the messages in one transaction). `suffix` ends its title."""
    info = store.sessions.get(old) if old else None
    title = (info.title if info is not None else "") or "session"
    new = store.sessions.create(
        agent.config.cwd, agent.config.model, title[: 200 - len(suffix)] + suffix
    )
    store.sessions.set_system_prompt(new, agent.config.system)
    with store.batch():
        messages = agent.conversation.messages[:upto]
        if messages:
            store.messages.extend(new, messages)
        for checkpoint in agent.checkpoints.history:
            if checkpoint.message_index < upto:
                store.events.append(new, checkpoint)
        if old:
            store.checkpoints.copy_blobs(old, new)
    store.flush()
    return new
