"""Conversation: append-only API messages with observers; pending tool calls."""

from __future__ import annotations

from typing import Any

import pytest
from conversation_rules import assert_valid_conversation

from agent_tui.agent.conversation import Conversation


class Recorder:
    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []

    def message_started(self, role: str) -> None:
        self.log.append(("message", role))

    def block_added(self, block: dict[str, Any]) -> None:
        self.log.append(("block", block))


def tool_use(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}


def tool_result(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}


def test_empty() -> None:
    conv = Conversation()
    assert conv.messages == [] and conv.last_role is None
    assert conv.pending_tool_uses() == []


def test_prompt_and_observers() -> None:
    conv = Conversation()
    rec = Recorder()
    conv.observers.append(rec)
    conv.add_prompt("hello")
    conv.begin("assistant")
    conv.append({"type": "text", "text": "hi"})
    assert conv.messages == [
        {"role": "user", "content": [{"type": "text", "text": "hello"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    ]
    assert rec.log == [
        ("message", "user"),
        ("block", {"type": "text", "text": "hello"}),
        ("message", "assistant"),
        ("block", {"type": "text", "text": "hi"}),
    ]
    assert conv.last_role == "assistant"
    assert_valid_conversation(conv.messages)


def test_given_messages_are_used_in_place() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "resumed"}]
    conv = Conversation(messages)
    assert conv.messages is messages


def test_append_to_a_resumed_string_message_makes_it_a_block_list() -> None:
    conv = Conversation([{"role": "user", "content": "plain"}])
    conv.append({"type": "text", "text": "more"})
    assert conv.messages[0]["content"] == [
        {"type": "text", "text": "plain"},
        {"type": "text", "text": "more"},
    ]


def test_pending_tool_uses_of_the_last_assistant_message() -> None:
    conv = Conversation()
    conv.add_prompt("go")
    conv.begin("assistant")
    conv.append({"type": "text", "text": "running"})
    conv.append(tool_use("a"))
    conv.append(tool_use("b"))
    assert [b["id"] for b in conv.pending_tool_uses()] == ["a", "b"]
    conv.begin("user")
    assert [b["id"] for b in conv.pending_tool_uses()] == ["a", "b"]
    conv.append(tool_result("a"))
    assert [b["id"] for b in conv.pending_tool_uses()] == ["b"]
    conv.append(tool_result("b"))
    assert conv.pending_tool_uses() == []
    assert_valid_conversation(conv.messages)


def test_server_tool_use_is_not_pending() -> None:
    conv = Conversation()
    conv.add_prompt("search")
    conv.begin("assistant")
    conv.append({"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}})
    assert conv.pending_tool_uses() == []


def test_nothing_pending_after_a_new_prompt() -> None:
    conv = Conversation()
    conv.add_prompt("go")
    conv.begin("assistant")
    conv.append(tool_use("a"))
    conv.begin("user")
    conv.append(tool_result("a"))
    conv.add_prompt("next")  # two user messages in a row: the API joins them
    assert conv.pending_tool_uses() == []
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "user", "user"]
    assert_valid_conversation(conv.messages)


def test_string_assistant_content_has_no_tool_uses() -> None:
    conv = Conversation([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}])
    assert conv.pending_tool_uses() == []


# --- the rules helper itself must catch what the API rejects --------------------------------------


@pytest.mark.parametrize(
    "messages",
    [
        [],
        [{"role": "assistant", "content": "hi"}],
        [{"role": "system", "content": "x"}],
        [{"role": "user", "content": []}, {"role": "assistant", "content": "a"}],
        # an unanswered tool_use followed by a user message
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [tool_use("a")]},
            {"role": "user", "content": "next"},
        ],
        # a result for the wrong id
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [tool_use("a")]},
            {"role": "user", "content": [tool_result("b")]},
        ],
        # two results for one call
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [tool_use("a")]},
            {"role": "user", "content": [tool_result("a"), tool_result("a")]},
        ],
        # a result that answers nothing
        [{"role": "user", "content": [tool_result("a")]}],
        # results after text in the same turn
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [tool_use("a")]},
            {"role": "user", "content": [{"type": "text", "text": "x"}, tool_result("a")]},
        ],
        # ends with an unanswered call
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": [tool_use("a")]}],
        # a tool_use id used twice
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [tool_use("a")]},
            {"role": "user", "content": [tool_result("a")]},
            {"role": "assistant", "content": [tool_use("a")]},
            {"role": "user", "content": [tool_result("a")]},
        ],
    ],
)
def test_rules_reject_invalid_conversations(messages: list[dict[str, Any]]) -> None:
    with pytest.raises(AssertionError):
        assert_valid_conversation(messages)


def test_rules_accept_joined_turns_and_a_trailing_call_when_asked() -> None:
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [tool_use("a")]},
        {"role": "user", "content": [tool_result("a")]},
        {"role": "user", "content": "and then"},
        {"role": "assistant", "content": [tool_use("b")]},
    ]
    assert_valid_conversation(messages, trailing_tool_use=True)
    with pytest.raises(AssertionError):
        assert_valid_conversation(messages)
