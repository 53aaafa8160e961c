from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.sessions import INTERRUPTED, SessionStore, conversation_problems, repair_messages

Msg = dict[str, Any]


def tool_use(tid: str, name: str = "Bash") -> Msg:
    return {"type": "tool_use", "id": tid, "name": name, "input": {"command": "ls"}}


def result(tid: str, text: str = "ok") -> Msg:
    return {"type": "tool_result", "tool_use_id": tid, "content": text}


def interrupted(tid: str) -> Msg:
    return {"type": "tool_result", "tool_use_id": tid, "content": INTERRUPTED, "is_error": True}


def text(t: str) -> Msg:
    return {"type": "text", "text": t}


PROMPT: Msg = {"role": "user", "content": "do it"}


def test_valid_conversation_unchanged(turn: list[Msg]) -> None:
    before = copy.deepcopy(turn)
    assert repair_messages(turn) == before
    assert turn == before  # not mutated


def test_dangling_tool_use_gets_interrupted_results() -> None:
    msgs = [
        PROMPT,
        {"role": "assistant", "content": [text("running"), tool_use("a"), tool_use("b")]},
    ]
    fixed = repair_messages(msgs)
    assert fixed[:2] == msgs
    assert fixed[2] == {"role": "user", "content": [interrupted("a"), interrupted("b")]}
    assert conversation_problems(msgs) and conversation_problems(fixed) == []


def test_partial_tool_results_completed() -> None:
    msgs = [
        PROMPT,
        {"role": "assistant", "content": [tool_use("a"), tool_use("b"), tool_use("c")]},
        {"role": "user", "content": [result("b")]},
    ]
    fixed = repair_messages(msgs)
    assert fixed[2]["content"] == [result("b"), interrupted("a"), interrupted("c")]
    assert conversation_problems(fixed) == []


def test_trailing_server_tool_use_dropped() -> None:
    search = {
        "type": "server_tool_use",
        "id": "srv1",
        "name": "web_search",
        "input": {"query": "q"},
    }
    done = {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": []}
    cut = {"type": "server_tool_use", "id": "srv2", "name": "web_search", "input": {"query": "r"}}
    msgs = [PROMPT, {"role": "assistant", "content": [text("a"), search, done, text("b"), cut]}]
    fixed = repair_messages(msgs)
    assert fixed == [PROMPT, {"role": "assistant", "content": [text("a"), search, done, text("b")]}]
    assert conversation_problems(msgs) and conversation_problems(fixed) == []


def test_message_of_only_cut_server_call_is_dropped() -> None:
    cut = {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}
    msgs = [PROMPT, {"role": "assistant", "content": [cut]}]
    assert repair_messages(msgs) == [PROMPT]


def test_empty_trailing_messages_dropped() -> None:
    msgs = [
        PROMPT,
        {"role": "assistant", "content": [text("hi")]},
        {"role": "user", "content": []},
        {"role": "assistant", "content": []},
    ]
    assert repair_messages(msgs) == msgs[:2]


def test_crash_then_new_prompt_in_the_middle() -> None:
    """Resumed after a crash: the stored conversation has the dangling call mid-way."""
    msgs = [
        PROMPT,
        {"role": "assistant", "content": [tool_use("a")]},
        {"role": "assistant", "content": []},  # begun, never filled
        {"role": "user", "content": "are you there?"},
        {"role": "assistant", "content": [text("yes")]},
    ]
    fixed = repair_messages(msgs)
    assert fixed == [
        PROMPT,
        {"role": "assistant", "content": [tool_use("a")]},
        {"role": "user", "content": [interrupted("a"), text("are you there?")]},
        {"role": "assistant", "content": [text("yes")]},
    ]
    assert conversation_problems(fixed) == []


def test_consecutive_same_role_messages() -> None:
    # Two user messages (prompt recorded, crash, new prompt): valid as is, the API merges them.
    two_users = [PROMPT, {"role": "user", "content": "again"}]
    assert repair_messages(two_users) == two_users
    # Results split over consecutive user messages, with a stray duplicate and an orphan.
    msgs = [
        PROMPT,
        {"role": "assistant", "content": [tool_use("a"), tool_use("b")]},
        {"role": "user", "content": [result("a")]},
        {"role": "user", "content": [result("b"), result("a", "dup"), result("zz"), text("next")]},
    ]
    fixed = repair_messages(msgs)
    assert fixed[2:] == [
        {"role": "user", "content": [result("a"), result("b")]},
        {"role": "user", "content": [text("next")]},
    ]
    assert conversation_problems(fixed) == []
    # Two assistant messages in a row, the first with an unanswered call.
    msgs = [
        PROMPT,
        {"role": "assistant", "content": [tool_use("a")]},
        {"role": "assistant", "content": [text("more")]},
    ]
    fixed = repair_messages(msgs)
    assert conversation_problems(fixed) == []
    assert fixed[2] == {"role": "user", "content": [interrupted("a")]}


def test_orphan_results_dropped() -> None:
    msgs = [
        PROMPT,
        {"role": "assistant", "content": [text("x")]},
        {"role": "user", "content": [result("q")]},
    ]
    assert repair_messages(msgs) == msgs[:2]


def test_repair_on_load(store: SessionStore) -> None:
    sid = store.sessions.create(".", "m")
    store.messages.add(sid, "user", "go")
    seq = store.messages.begin(sid, "assistant")
    store.messages.append_block(sid, seq, tool_use("a"))
    store.messages.append_block(sid, seq, tool_use("b"))
    res = store.messages.begin(sid, "user")
    store.messages.append_block(sid, res, result("a"))
    loaded = store.messages.load(sid)
    assert loaded[-1]["content"] == [result("a"), interrupted("b")]
    assert conversation_problems(loaded) == []
    assert store.messages.load(sid, repair=False)[-1]["content"] == [result("a")]


_block = st.one_of(
    st.builds(text, st.sampled_from(["a", "b", " "])),
    st.builds(tool_use, st.sampled_from(["t1", "t2", "t3"])),
    st.builds(result, st.sampled_from(["t1", "t2", "t3", "t9"])),
    st.fixed_dictionaries(
        {
            "type": st.just("server_tool_use"),
            "id": st.sampled_from(["s1", "s2"]),
            "name": st.just("web_search"),
            "input": st.just({}),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("web_search_tool_result"),
            "tool_use_id": st.sampled_from(["s1", "s2"]),
            "content": st.just([]),
        }
    ),
)
_message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant"]),
        "content": st.one_of(st.text(max_size=3), st.lists(_block, max_size=4)),
    }
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_message, max_size=8))
def test_repair_always_valid_and_idempotent(msgs: list[Msg]) -> None:
    fixed = repair_messages(msgs)
    # Tool results only make sense in user messages and calls in assistant ones; the generator
    # mixes them freely, so judge only the rules repair promises.
    problems = [p for p in conversation_problems(fixed) if "inside an assistant" not in p]
    assert problems == []
    assert repair_messages(fixed) == fixed
