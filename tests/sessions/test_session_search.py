from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent_tui.sessions import SessionStore
from agent_tui.sessions.search import fts_query

Turn = list[dict[str, Any]]
Rec = Callable[[SessionStore, str, Turn], None]


@pytest.fixture
def filled(store: SessionStore, turn: Turn, record: Rec) -> tuple[SessionStore, str]:
    sid = store.sessions.create("/proj", "m")
    record(store, sid, turn)
    return store, sid


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("Python 3.13", "prompt"),  # the first prompt
        ("tree is clean", "answer"),
        ("git status", "command"),  # a Bash command
        ("README", "tool_call"),  # another tool's input
        ("working tree", "tool_output"),
        ("ünïcode", "tool_output"),  # tool output given as text blocks
        ("release notes", "search"),  # the web search query
        ("whatsnew", "search_results"),
    ],
)
def test_finds_each_kind(filled: tuple[SessionStore, str], query: str, kind: str) -> None:
    store, sid = filled
    hits = store.sessions.search(query)
    assert kind in {h.kind for h in hits}
    hit = next(h for h in hits if h.kind == kind)
    assert hit.session_id == sid and hit.title.startswith("What is new in Python")
    assert "[" in hit.snippet and "]" in hit.snippet


def test_hit_points_at_message(filled: tuple[SessionStore, str]) -> None:
    store, _ = filled
    (hit,) = store.sessions.search("nothing to commit")
    assert hit.message_seq == 2 and hit.kind == "tool_output"
    assert hit.snippet.startswith("On branch main\n[nothing] [to] [commit]")


def test_prefix_and_newest_first(store: SessionStore) -> None:
    old = store.sessions.create("/a", "m")
    store.messages.add(old, "user", "deploy the frontend")
    new = store.sessions.create("/b", "m")
    store.messages.add(new, "user", "deploying the backend")
    assert [h.session_id for h in store.sessions.search("deplo")] == [new, old]
    assert [
        h.session_id for h in store.sessions.search("deplo ")
    ] == []  # trailing space: whole word
    assert [h.session_id for h in store.sessions.search("deploy ")] == [old]
    assert [h.session_id for h in store.sessions.search("deplo", cwd="/a")] == [old]
    assert [h.session_id for h in store.sessions.search("deplo", session_id=new)] == [new]
    assert len(store.sessions.search("deplo", limit=1)) == 1
    assert (
        store.sessions.search("deplo", marks=("<b>", "</b>"))[0].snippet
        == "<b>deploying</b> the backend"
    )


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '"unbalanced',
        "a AND",
        "OR",
        "NOT x",
        "NEAR(",
        "col:value",
        "*",
        "foo*bar",
        "(((",
        "^start",
        "-rf",
        "'; DROP TABLE sessions; --",
        "&& || ;",
        "\\",
        "",
        "   ",
        "日本語",
        "\x00",
    ],
)
def test_special_characters_never_crash(filled: tuple[SessionStore, str], query: str) -> None:
    store, _ = filled
    assert isinstance(store.sessions.search(query), list)
    assert store.sessions.get(filled[1]) is not None


def test_punctuation_is_plain_text(filled: tuple[SessionStore, str]) -> None:
    store, _ = filled
    assert store.sessions.search('"git status"')  # quotes are not a syntax error
    assert store.sessions.search("git-status")  # a phrase of its parts
    assert store.sessions.search("OR") == []  # not an operator
    assert fts_query('say "hi"') == '"say" """hi"""'
    assert fts_query("-- ;") is None


def test_large_output_indexed_bounded(store: SessionStore) -> None:
    sid = store.sessions.create(".", "m")
    seq = store.messages.begin(sid, "user")
    big = "word " * 20_000 + "needle"
    store.messages.append_block(
        sid, seq, {"type": "tool_result", "tool_use_id": "t", "content": big}
    )
    assert store.sessions.search("word")
    assert (
        store.sessions.search("needle") == []
    )  # past the indexed part; the message itself is whole
    assert store.messages.load(sid, repair=False)[0]["content"][0]["content"] == big
