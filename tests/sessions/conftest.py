"""Fixtures for the session tests: a store in tmp_path, a scripted turn, and a recorder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.sessions import SessionStore

Recorder = Callable[[SessionStore, str, list[dict[str, Any]]], None]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    s = SessionStore(tmp_path / "sessions.db")
    yield s
    s.close()


@pytest.fixture
def turn() -> list[dict[str, Any]]:
    return scripted_turn()


@pytest.fixture
def record() -> Recorder:
    return record_messages


def scripted_turn() -> list[dict[str, Any]]:
    """A turn with thinking, a client tool call, a server web search and unknown fields."""
    return [
        {"role": "user", "content": "What is new in Python 3.13? Also run `git status`."},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "Search, then run.",
                    "signature": "EqQBCkYIAxgC==",
                },
                {"type": "text", "text": "Let me search.", "citations": None},
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_01",
                    "name": "web_search",
                    "input": {"query": "python 3.13 release notes"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_01",
                    "content": [
                        {
                            "type": "web_search_result",
                            "title": "What's New In Python 3.13",
                            "url": "https://docs.python.org/3/whatsnew/3.13.html",
                            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5==",
                            "page_age": "October 7, 2024",
                            "future_field": {"nested": [1, 2.5, None, True]},
                        }
                    ],
                },
                {
                    "type": "text",
                    "text": "Python 3.13 has a new REPL.",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": "https://docs.python.org/3/whatsnew/3.13.html",
                            "title": "What's New",
                            "encrypted_index": "Eo8BCioIAhgB==",
                            "cited_text": "A new interactive interpreter…",
                        }
                    ],
                },
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Bash",
                    "input": {"command": "git status", "description": "Show the tree"},
                    "caller": {"type": "direct"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_02",
                    "name": "Read",
                    "input": {"file_path": "README.md"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "content": "On branch main\nnothing to commit, working tree clean",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02",
                    "content": [{"type": "text", "text": "# agent-tui ünïcode ✓"}],
                },
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "The tree is clean."}]},
    ]


def record_messages(store: SessionStore, session_id: str, messages: list[dict[str, Any]]) -> None:
    """Record messages the way the agent loop does: prompts whole, the rest block by block."""
    for message in messages:
        if isinstance(message["content"], str):
            store.messages.add(session_id, message["role"], message["content"])
            continue
        seq = store.messages.begin(session_id, message["role"])
        for block in message["content"]:
            store.messages.append_block(session_id, seq, block)
