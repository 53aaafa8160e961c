"""PartialStringField: the live web-search query, extracted from JSON as it streams in pieces.

The invariant checked throughout: however the JSON text is chunked, the value seen after the last
chunk equals what `json.loads` gives for the top-level field, every intermediate value is a prefix
of it, and `feed()` returns True exactly when the value grew.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.protocol.partial_json import PartialStringField


def run(chunks: list[str], name: str = "query") -> tuple[str | None, list[str]]:
    field = PartialStringField(name)
    seen: list[str] = []
    for chunk in chunks:
        before = field.value
        grew = field.feed(chunk)
        assert grew == (field.value != before and bool(field.value)), (chunks, before)
        if grew:
            assert field.value is not None
            seen.append(field.value)
    return field.value, seen


def check_all_splits(raw: str, expected: str | None, name: str = "query") -> None:
    """Split `raw` at every position (two pieces), and also feed it one character at a time."""
    for i in range(len(raw) + 1):
        value, seen = run([raw[:i], raw[i:]], name)
        assert value == expected, (i, raw[:i], raw[i:])
        for partial in seen:
            assert expected is not None and expected.startswith(partial)
    value, seen = run(list(raw), name)
    assert value == expected
    for a, b in itertools.pairwise(seen):
        assert b.startswith(a) and len(b) > len(a)


CASES: list[dict[str, Any]] = [
    {"query": "Python 3.13 release date"},
    {"query": ""},
    {"query": 'say "hi"'},
    {"query": "back\\slash"},
    {"query": "line\nbreak\ttab\rcr\bbs\fff"},
    {"query": "slash / and unicode é ☃"},
    {"query": "snake 🐍 and 𝄞 clef"},  # non-BMP: surrogate pairs with ensure_ascii
    {"allowed_domains": ["query.example"], "query": "not first"},
    {"a": {"query": "nested, ignore"}, "query": "top"},
    {"a": [{"query": "in array"}, "query"], "b": {"c": {"query": "deep"}}, "query": "real"},
    {"note": "the word query", "query": "x"},
    {"query": "x", "max_uses": 3},
    {"q": "query", "query2": "no", "query": "yes"},
    {"nested": {"query": "only nested"}},
    {"query": 42},
    {"query": None},
    {"query": ["a", "b"]},
    {"query": {"query": "inner"}},
]


def expected_for(obj: dict[str, Any]) -> str | None:
    value = obj.get("query")
    return value if isinstance(value, str) else None


@pytest.mark.parametrize("obj", CASES, ids=lambda o: json.dumps(o)[:40])
@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("compact", [True, False])
def test_every_split_of_every_case(obj: dict[str, Any], ensure_ascii: bool, compact: bool) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    raw = json.dumps(obj, ensure_ascii=ensure_ascii, separators=separators)
    check_all_splits(raw, expected_for(obj))


def test_pretty_printed_json() -> None:
    obj = {"other": {"query": "no"}, "query": "multi\nline 🐍"}
    raw = json.dumps(obj, indent=2)
    check_all_splits(raw, obj["query"])


def test_escape_split_right_after_backslash() -> None:
    assert run(['{"query": "a\\', '"b"}'])[0] == 'a"b'
    assert run(['{"query": "a\\', '\\b"}'])[0] == "a\\b"
    assert run(['{"query": "a\\', 'nb"}'])[0] == "a\nb"


def test_unicode_escape_split_inside_the_hex_digits() -> None:
    raw = '{"query": "x\\u2603y"}'
    for i in range(len(raw) + 1):
        assert run([raw[:i], raw[i:]])[0] == "x☃y"


def test_surrogate_pair_split_between_the_halves() -> None:
    raw = '{"query": "\\ud83d\\udc0d!"}'  # 🐍
    assert json.loads(raw)["query"] == "🐍!"
    for i in range(len(raw) + 1):
        for j in range(i, len(raw) + 1):
            assert run([raw[:i], raw[i:j], raw[j:]])[0] == "🐍!"


@pytest.mark.parametrize(
    "raw",
    [
        '{"query": "a\\ud83db"}',  # lone high surrogate, then a plain character
        '{"query": "\\ud83d"}',  # lone high surrogate at the end of the string
        '{"query": "a\\udc0db"}',  # lone low surrogate
        '{"query": "\\ud83d\\u0041"}',  # high surrogate then a non-surrogate escape
        '{"query": "\\ud83d\\ud83d\\udc0d"}',  # two highs, then a low
    ],
)
def test_lone_surrogates_match_json_loads(raw: str) -> None:
    check_all_splits(raw, json.loads(raw)["query"])


def test_escaped_key_is_recognised() -> None:
    check_all_splits('{"qu\\u0065ry": "escaped key"}', "escaped key")


def test_value_equal_to_the_field_name_is_not_a_key() -> None:
    # "query" as a value must not make the next value the query.
    check_all_splits('{"a": "query", "b": "no"}', None)
    check_all_splits('["query", "no"]', None)


def test_other_field_name() -> None:
    check_all_splits('{"query": "q", "command": "git status"}', "git status", name="command")


def test_value_grows_while_streaming() -> None:
    field = PartialStringField("query")
    assert field.value is None
    assert not field.feed('{"que')
    assert not field.feed('ry": ')
    assert field.value is None
    assert not field.feed('"')  # capture started, nothing yet
    assert field.value == ""
    assert field.feed("Pyth")
    assert field.value == "Pyth"
    assert field.feed('on"')
    assert not field.feed(', "max": "more"}')
    assert field.value == "Python"


def test_empty_chunks_are_harmless() -> None:
    assert run(["", '{"query":', "", ' "a"', "", "}"])[0] == "a"


def test_huge_query_in_many_chunks() -> None:
    query = ("abc\\" * 5000) + "é" * 5000
    raw = json.dumps({"query": query})
    chunks = [raw[i : i + 7] for i in range(0, len(raw), 7)]
    assert run(chunks)[0] == query


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["query", "q", "x"]), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(
    before=st.dictionaries(st.sampled_from(["a", "b", "quer", "query "]), json_values, max_size=3),
    query=st.one_of(st.text(), json_values),
    ensure_ascii=st.booleans(),
    data=st.data(),
)
def test_random_objects_and_chunkings(
    before: dict[str, Any], query: Any, ensure_ascii: bool, data: st.DataObject
) -> None:
    obj = {**before, "query": query}
    raw = json.dumps(obj, ensure_ascii=ensure_ascii)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=10)))
    chunks = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    value, seen = run(chunks)
    assert value == expected_for(obj)
    for partial in seen:
        assert isinstance(query, str) and query.startswith(partial)
