"""StreamAssembler on every wire fixture and on hand-made streams that break the rules."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from sse_server import FIXTURES, sse_fixture

from agent_tui.protocol.assembler import StreamAssembler, StreamError
from agent_tui.protocol.events import (
    BlockFinished,
    Event,
    MessageFinished,
    MessageStarted,
    SearchQueryUpdate,
    SearchResultsReceived,
    TextDelta,
    ThinkingDelta,
    ToolCallReady,
    ToolCallStarted,
    ToolInputDelta,
    Usage,
)
from agent_tui.protocol.sse import iter_sse

Raw = dict[str, Any]


def fixture_events(name: str) -> list[Raw]:
    return list(iter_sse(sse_fixture(name)))


def assemble(events: list[Raw]) -> tuple[StreamAssembler, list[Event]]:
    assembler = StreamAssembler()
    out: list[Event] = []
    for event in events:
        out += assembler.feed(event)
    return assembler, out


def of(events: list[Event], cls: type[Event]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


# --- small builders for hand-made streams --------------------------------------------------------


def start(msg_id: str = "msg_1", usage: dict[str, Any] | None = None) -> Raw:
    return {
        "type": "message_start",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [],
            "stop_reason": None,
            "usage": usage if usage is not None else {"input_tokens": 5, "output_tokens": 1},
        },
    }


def block_start(index: int, block: dict[str, Any]) -> Raw:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, d: dict[str, Any]) -> Raw:
    return {"type": "content_block_delta", "index": index, "delta": d}


def text_delta(index: int, text: str) -> Raw:
    return delta(index, {"type": "text_delta", "text": text})


def json_delta(index: int, partial: str) -> Raw:
    return delta(index, {"type": "input_json_delta", "partial_json": partial})


def stop(index: int) -> Raw:
    return {"type": "content_block_stop", "index": index}


def end(stop_reason: str = "end_turn", usage: dict[str, Any] | None = None) -> list[Raw]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": usage if usage is not None else {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]


def text_block(index: int, *chunks: str) -> list[Raw]:
    return [
        block_start(index, {"type": "text", "text": ""}),
        *(text_delta(index, c) for c in chunks),
        stop(index),
    ]


def tool_block(index: int, tool_id: str, name: str, *chunks: str) -> list[Raw]:
    return [
        block_start(index, {"type": "tool_use", "id": tool_id, "name": name, "input": {}}),
        *(json_delta(index, c) for c in chunks),
        stop(index),
    ]


# --- every fixture -------------------------------------------------------------------------------

EXPECTED: dict[str, dict[str, Any]] = {
    "text_only.sse": {"blocks": ["text"], "stop": "end_turn", "searches": 0},
    "client_tool_bash.sse": {"blocks": ["text", "tool_use"], "stop": "tool_use", "searches": 0},
    "parallel_tools.sse": {
        "blocks": ["text", "tool_use", "tool_use"],
        "stop": "tool_use",
        "searches": 0,
    },
    "main_calls_websearch.sse": {
        "blocks": ["text", "tool_use"],
        "stop": "tool_use",
        "searches": 0,
    },
    "web_search.sse": {
        "blocks": ["text", "server_tool_use", "web_search_tool_result"] + ["text"] * 4,
        "stop": "end_turn",
        "searches": 1,
    },
    "web_search_two_queries.sse": {
        "blocks": ["text", "server_tool_use", "web_search_tool_result", "text"]
        + ["server_tool_use", "web_search_tool_result"]
        + ["text"] * 5,
        "stop": "end_turn",
        "searches": 2,
    },
    "web_search_error.sse": {
        "blocks": ["text", "server_tool_use", "web_search_tool_result", "text"]
        + ["server_tool_use", "web_search_tool_result"]
        + ["text"] * 3,
        "stop": "end_turn",
        "searches": 1,
    },
    "pause_turn.sse": {
        "blocks": ["text", "server_tool_use", "web_search_tool_result", "server_tool_use"],
        "stop": "pause_turn",
        "searches": 1,
    },
    "pause_turn_continuation.sse": {
        "blocks": ["web_search_tool_result", "text", "text", "text"],
        "stop": "end_turn",
        "searches": 1,
    },
}
COMPLETE_FIXTURES = sorted(EXPECTED)


def test_expectations_cover_every_fixture() -> None:
    on_disk = {p.name for p in FIXTURES.glob("*.sse")}
    assert on_disk == set(EXPECTED) | {"overloaded_midstream.sse"}


def _expected_usage(events: list[Raw]) -> dict[str, Any]:
    """Usage as the API defines it: message_start's, updated by message_delta's."""
    usage: dict[str, Any] = {}
    for event in events:
        if event["type"] == "message_start":
            usage.update(event["message"]["usage"])
        elif event["type"] == "message_delta":
            usage.update(event.get("usage") or {})
    return usage


@pytest.mark.parametrize("name", COMPLETE_FIXTURES)
def test_fixture_block_sequence_stop_reason_and_usage(name: str) -> None:
    raw = fixture_events(name)
    assembler, events = assemble(raw)
    want = EXPECTED[name]
    assert [b["type"] for b in assembler.content] == want["blocks"]
    assert assembler.stop_reason == want["stop"]
    assert assembler.started and assembler.stopped
    assert assembler.anomalies == []
    usage = _expected_usage(raw)
    assert assembler.usage == Usage(
        input_tokens=usage["input_tokens"],
        output_tokens=usage["output_tokens"],
        cache_creation_input_tokens=usage.get("cache_creation_input_tokens") or 0,
        cache_read_input_tokens=usage.get("cache_read_input_tokens") or 0,
        web_search_requests=want["searches"],
    )
    # event stream shape: one MessageStarted first, one MessageFinished last carrying the content
    assert isinstance(events[0], MessageStarted)
    assert events[0].message_id == raw[0]["message"]["id"]
    assert isinstance(events[-1], MessageFinished)
    assert events[-1].stop_reason == want["stop"]
    assert events[-1].content == assembler.content
    assert events[-1].usage == assembler.usage
    assert len(of(events, MessageFinished)) == 1
    finished = of(events, BlockFinished)
    assert [f.index for f in finished] == sorted(f.index for f in finished)
    assert [f.block for f in finished] == assembler.content


@pytest.mark.parametrize("name", COMPLETE_FIXTURES)
def test_fixture_text_deltas_add_up_to_the_text_blocks(name: str) -> None:
    assembler, events = assemble(fixture_events(name))
    by_index: dict[int, str] = {}
    for e in of(events, TextDelta):
        by_index[e.index] = by_index.get(e.index, "") + e.text
    texts = {i: b["text"] for i, b in enumerate(assembler.content) if b["type"] == "text"}
    assert by_index == {i: t for i, t in texts.items() if t}
    assert assembler.partial_text() == "".join(texts.values())


@pytest.mark.parametrize("name", COMPLETE_FIXTURES)
def test_fixture_tool_input_deltas_join_to_the_input(name: str) -> None:
    assembler, events = assemble(fixture_events(name))
    joined: dict[str, str] = {}
    for e in of(events, ToolInputDelta):
        joined[e.tool_use_id] = joined.get(e.tool_use_id, "") + e.partial_json
    ready = {e.tool_use_id: e for e in of(events, ToolCallReady)}
    started = {e.tool_use_id: e for e in of(events, ToolCallStarted)}
    assert set(ready) == set(started) == set(joined)
    for tool_id, text in joined.items():
        assert json.loads(text) == ready[tool_id].input
        assert ready[tool_id].input_error is None
        assert ready[tool_id].tool == started[tool_id].tool
        assert ready[tool_id].server == started[tool_id].server
    tool_blocks = [b for b in assembler.content if b["type"] in ("tool_use", "server_tool_use")]
    assert [b["id"] for b in tool_blocks] == [e.tool_use_id for e in of(events, ToolCallReady)]


def test_bash_tool_input_is_assembled() -> None:
    assembler, events = assemble(fixture_events("client_tool_bash.sse"))
    assert assembler.content[0] == {"type": "text", "text": "I'll check the working tree status."}
    assert assembler.content[1] == {
        "type": "tool_use",
        "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        "name": "Bash",
        "input": {"command": "git status --short"},
    }
    (ready,) = of(events, ToolCallReady)
    assert ready.input == {"command": "git status --short"}
    assert not ready.server
    # the empty first input_json_delta produces no event; the other four do
    assert len(of(events, ToolInputDelta)) == 4


def test_parallel_tool_ids_and_inputs() -> None:
    assembler, events = assemble(fixture_events("parallel_tools.sse"))
    calls = [(e.tool_use_id, e.tool, e.input) for e in of(events, ToolCallReady)]
    assert calls == [
        ("toolu_01A09q90qw90lq917835lq9", "Bash", {"command": "git status --short"}),
        ("toolu_01B7xk2Vn4Rq8Ws3Yd5Tf6Gh", "Read", {"path": "README.md"}),
    ]
    assert [b.get("id") for b in assembler.content[1:]] == [c[0] for c in calls]


def test_web_search_usage_and_results() -> None:
    assembler, events = assemble(fixture_events("web_search_two_queries.sse"))
    assert assembler.usage.web_search_requests == 2
    results = of(events, SearchResultsReceived)
    assert [r.count for r in results] == [3, 3]
    assert all(r.query for r in results)
    assert of(events, SearchQueryUpdate)


def test_web_search_error_form() -> None:
    _, events = assemble(fixture_events("web_search_error.sse"))
    results = of(events, SearchResultsReceived)
    assert [(r.count, r.error_code) for r in results] == [(3, None), (0, "max_uses_exceeded")]
    assert results[1].query == "Python 3.13 end of life date"


@pytest.mark.parametrize("name", ["web_search.sse", "pause_turn_continuation.sse"])
def test_citations_are_kept_on_text_blocks(name: str) -> None:
    raw = fixture_events(name)
    cited: dict[int, list[dict[str, Any]]] = {}
    for event in raw:
        if event["type"] == "content_block_delta" and event["delta"]["type"] == "citations_delta":
            cited.setdefault(event["index"], []).append(event["delta"]["citation"])
    assert cited
    assembler, _ = assemble(raw)
    for index, block in enumerate(assembler.content):
        if index in cited:
            assert block["type"] == "text"
            assert block["citations"] == cited[index]
        elif block["type"] == "text":
            assert not block.get("citations")


@pytest.mark.parametrize(
    "name",
    ["web_search.sse", "web_search_two_queries.sse", "pause_turn.sse", "web_search_error.sse"],
)
def test_search_result_blocks_are_kept_verbatim(name: str) -> None:
    """encrypted_content must go back to the API byte for byte."""
    raw = fixture_events(name)
    originals = {
        e["index"]: e["content_block"]
        for e in raw
        if e["type"] == "content_block_start"
        and e["content_block"]["type"] == "web_search_tool_result"
    }
    assembler, _ = assemble(copy.deepcopy(raw))
    for index, original in originals.items():
        assert assembler.content[index] == original
        if isinstance(original["content"], list):
            assert all(r["encrypted_content"] for r in original["content"])


def test_pause_turn_content() -> None:
    assembler, _ = assemble(fixture_events("pause_turn.sse"))
    assert assembler.stop_reason == "pause_turn"
    last = assembler.content[-1]
    assert last == {
        "type": "server_tool_use",
        "id": "srvtoolu_01Lr8TyNc5XpWd2Gh7KqMb3F",
        "name": "web_search",
        "input": {"query": "CPython 3.14 release schedule"},
    }
    # the continuation answers the paused search
    cont, _ = assemble(fixture_events("pause_turn_continuation.sse"))
    assert cont.content[0]["tool_use_id"] == last["id"]


def test_overloaded_midstream_raises_stream_error_and_keeps_partial_text() -> None:
    assembler = StreamAssembler()
    seen: list[Event] = []
    with pytest.raises(StreamError) as info:
        for event in fixture_events("overloaded_midstream.sse"):
            seen += assembler.feed(event)
    assert info.value.kind == "overloaded_error"
    assert "Overloaded" in str(info.value)
    assert assembler.partial_text() == "Here is a short summary of the change"
    assert "".join(e.text for e in of(seen, TextDelta)) == assembler.partial_text()
    assert assembler.got_content
    assert not assembler.stopped
    assert assembler.content == []  # the text block never finished…
    assert assembler.salvage() == [  # …but what was shown is salvageable
        {"type": "text", "text": "Here is a short summary of the change"}
    ]


def test_error_event_without_details() -> None:
    with pytest.raises(StreamError) as info:
        StreamAssembler().feed({"type": "error"})
    assert info.value.kind == "api_error"
    with pytest.raises(StreamError) as info:
        StreamAssembler().feed({"type": "error", "error": {"type": "api_error", "message": "x"}})
    assert info.value.kind == "api_error" and str(info.value) == "x"


# --- unknown things are skipped, and kept ---------------------------------------------------------


def test_unknown_event_types_and_ping_are_skipped() -> None:
    assembler = StreamAssembler()
    assert assembler.feed({"type": "ping"}) == []
    assert assembler.feed({"type": "brand_new_event", "index": 0, "payload": [1, 2]}) == []
    assert assembler.feed({"no_type": True}) == []
    assert assembler.content == []


def test_unknown_block_type_is_kept_verbatim() -> None:
    mystery = {"type": "mystery_block", "id": "m1", "payload": {"deep": [1, "two", None]}}
    raw = [
        start(),
        *text_block(0, "before"),
        block_start(1, copy.deepcopy(mystery)),
        delta(1, {"type": "mystery_delta", "bits": "xyz"}),
        stop(1),
        *text_block(2, "after"),
        *end(),
    ]
    assembler, events = assemble(raw)
    assert assembler.content == [
        {"type": "text", "text": "before"},
        mystery,
        {"type": "text", "text": "after"},
    ]
    assert assembler.anomalies == []
    assert [e.index for e in of(events, BlockFinished)] == [0, 1, 2]
    assert not of(events, ToolCallStarted)


def test_unknown_delta_type_on_a_known_block_is_ignored() -> None:
    raw = [
        start(),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Hel"),
        delta(0, {"type": "sparkle_delta", "sparkle": "✨"}),
        text_delta(0, "lo"),
        stop(0),
        *end(),
    ]
    assembler, _ = assemble(raw)
    assert assembler.content == [{"type": "text", "text": "Hello"}]


def test_thinking_and_signature() -> None:
    raw = [
        start(),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
        delta(0, {"type": "thinking_delta", "thinking": "think."}),
        delta(0, {"type": "signature_delta", "signature": "sig-"}),
        delta(0, {"type": "signature_delta", "signature": "abc"}),
        stop(0),
        block_start(1, {"type": "redacted_thinking", "data": "ENCRYPTED=="}),
        stop(1),
        *text_block(2, "Answer."),
        *end(),
    ]
    assembler, events = assemble(raw)
    assert assembler.content == [
        {"type": "thinking", "thinking": "Let me think.", "signature": "sig-abc"},
        {"type": "redacted_thinking", "data": "ENCRYPTED=="},
        {"type": "text", "text": "Answer."},
    ]
    assert "".join(e.text for e in of(events, ThinkingDelta)) == "Let me think."
    assert assembler.partial_text() == "Answer."


def test_text_in_the_start_block_counts() -> None:
    raw = [start(), block_start(0, {"type": "text", "text": "Hi"}), text_delta(0, "!"), stop(0)]
    assembler, events = assemble([*raw, *end()])
    assert assembler.content == [{"type": "text", "text": "Hi!"}]
    assert [e.text for e in of(events, TextDelta)] == ["Hi", "!"]


def test_tool_input_given_whole_in_the_start_block() -> None:
    raw = [
        start(),
        block_start(0, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "x"}}),
        stop(0),
        *end("tool_use"),
    ]
    _, events = assemble(raw)
    (ready,) = of(events, ToolCallReady)
    assert ready.input == {"command": "x"} and ready.input_error is None


# --- rule-breaking streams are tolerated and recorded -------------------------------------------


def test_delta_for_a_block_never_started() -> None:
    raw = [start(), text_delta(3, "ghost"), *text_block(0, "real"), *end()]
    assembler, events = assemble(raw)
    assert assembler.content == [{"type": "text", "text": "real"}]
    assert "ghost" not in assembler.partial_text()
    assert any("block 3" in a for a in assembler.anomalies)
    assert isinstance(events[-1], MessageFinished)


def test_delta_after_the_block_stopped() -> None:
    raw = [start(), *text_block(0, "done"), text_delta(0, " late"), *end()]
    assembler, _ = assemble(raw)
    assert assembler.content == [{"type": "text", "text": "done"}]
    assert len(assembler.anomalies) == 1


def test_block_stopped_twice() -> None:
    raw = [start(), *text_block(0, "once"), stop(0), *end()]
    assembler, events = assemble(raw)
    assert assembler.content == [{"type": "text", "text": "once"}]
    assert len(of(events, BlockFinished)) == 1
    assert assembler.anomalies == ["block 0 stopped twice"]


def test_stop_for_a_block_never_started() -> None:
    raw = [start(), stop(5), *end()]
    assembler, _ = assemble(raw)
    assert assembler.content == []
    assert assembler.anomalies == ["stop for block 5 that never started"]


def test_block_started_twice_keeps_the_first() -> None:
    raw = [
        start(),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "a"),
        block_start(0, {"type": "tool_use", "id": "t", "name": "Bash", "input": {}}),
        text_delta(0, "b"),
        stop(0),
        *end(),
    ]
    assembler, _ = assemble(raw)
    assert assembler.content == [{"type": "text", "text": "ab"}]
    assert assembler.anomalies == ["block 0 started twice"]


def test_message_stopped_twice() -> None:
    raw = [start(), *text_block(0, "x"), *end(), {"type": "message_stop"}]
    assembler, events = assemble(raw)
    assert len(of(events, MessageFinished)) == 1
    assert assembler.anomalies == ["message stopped twice"]


def test_block_start_without_index_or_block() -> None:
    assembler = StreamAssembler()
    assert assembler.feed({"type": "content_block_start", "content_block": {"type": "text"}}) == []
    assert assembler.feed({"type": "content_block_start", "index": 0}) == []
    assert len(assembler.anomalies) == 2


def test_unfinished_blocks_are_not_in_content() -> None:
    raw = [start(), *text_block(0, "kept"), block_start(1, {"type": "text", "text": ""})]
    raw += [text_delta(1, "cut"), *end()]
    assembler, events = assemble(raw)
    assert assembler.content == [{"type": "text", "text": "kept"}]
    assert assembler.partial_text() == "keptcut"
    assert events[-1].content == [{"type": "text", "text": "kept"}]


def test_message_delta_usage_replaces_field_by_field() -> None:
    raw = [
        start(usage={"input_tokens": 100, "output_tokens": 1, "cache_read_input_tokens": 7}),
        *text_block(0, "x"),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "stop_sequence", "stop_sequence": "###"},
            "usage": {"output_tokens": 42, "input_tokens": None},
        },
        {"type": "message_stop"},
    ]
    assembler, _ = assemble(raw)
    assert assembler.usage == Usage(100, 42, 0, 7, 0)
    assert assembler.stop_reason == "stop_sequence"
    assert assembler.stop_sequence == "###"


def test_stream_without_message_stop() -> None:
    raw = [start(), *text_block(0, "partial"), *tool_block(1, "t1", "Bash", '{"command": "ls"}')]
    assembler, _ = assemble(raw)
    assert not assembler.stopped
    assert assembler.stop_reason is None
    assert [b["type"] for b in assembler.content] == ["text", "tool_use"]
    # a tool call nobody can answer any more is not salvaged
    assert assembler.salvage() == [{"type": "text", "text": "partial"}]


def test_salvage_keeps_answered_server_tool_use_only() -> None:
    raw = fixture_events("pause_turn.sse")[:-2]  # as if cut before message_delta
    assembler, _ = assemble(raw)
    kept = [b["type"] for b in assembler.salvage()]
    assert kept == ["text", "server_tool_use", "web_search_tool_result"]


# --- invalid tool JSON ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "chunks",
    [
        ['{"command": "ls"'],  # cut
        ['{"command": ', "ls}"],  # not JSON
        ["[1, 2]"],  # not an object
        ['"just a string"'],
        ['{"command": "ls"}', "}"],  # trailing garbage
        ["nul", "l"],
    ],
)
def test_invalid_tool_json_sets_input_error(chunks: list[str]) -> None:
    raw = [start(), *tool_block(0, "toolu_bad", "Bash", *chunks), *end("tool_use")]
    assembler, events = assemble(raw)
    (ready,) = of(events, ToolCallReady)
    assert ready.input == {}
    assert ready.input_error
    assert assembler.content == [
        {"type": "tool_use", "id": "toolu_bad", "name": "Bash", "input": {}}
    ]
    assert assembler.stopped


def test_invalid_server_tool_json_sets_input_error() -> None:
    raw = [
        start(),
        block_start(0, {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}),
        json_delta(0, '{"query": "half'),
        stop(0),
        *end(),
    ]
    _, events = assemble(raw)
    (ready,) = of(events, ToolCallReady)
    assert ready.server and ready.input == {} and ready.input_error
    # the live query still showed what arrived
    assert [u.query for u in of(events, SearchQueryUpdate)] == ["half"]


# --- size: correctness only, no timing -----------------------------------------------------------


def test_huge_text_block_from_many_chunks() -> None:
    chunks = [f"chunk {i} · ünïcode ✓\n" for i in range(50_000)]
    assembler, events = assemble([start(), *text_block(0, *chunks), *end()])
    expected = "".join(chunks)
    assert assembler.content == [{"type": "text", "text": expected}]
    assert len(of(events, TextDelta)) == len(chunks)
    assert assembler.partial_text() == expected


def test_huge_tool_input_from_many_chunks() -> None:
    content = "x" * 200_000 + '"\\\n'
    raw_json = json.dumps({"path": "big.txt", "content": content})
    pieces = [raw_json[i : i + 5] for i in range(0, len(raw_json), 5)]
    raw = [start(), *tool_block(0, "t_big", "Write", *pieces), *end("tool_use")]
    _, events = assemble(raw)
    (ready,) = of(events, ToolCallReady)
    assert ready.input == {"path": "big.txt", "content": content}


def test_assembler_does_not_mutate_its_input() -> None:
    raw = fixture_events("web_search.sse")
    before = copy.deepcopy(raw)
    assemble(raw)
    assert raw == before


# --- malformed events (wrong JSON types) are tolerated --------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "content_block_delta", "index": 0, "delta": True},
        {"type": "content_block_delta", "index": 0, "delta": None},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}},
        {"type": "content_block_delta", "index": "0", "delta": {"type": "text_delta", "text": "x"}},
        {"type": "message_delta", "delta": [], "usage": "lots"},
        {"type": "message_start", "message": "nope"},
        {"type": ["list"]},
        {"type": "content_block_start", "index": 1, "content_block": {"text": "typeless"}},
    ],
)
def test_malformed_events_are_skipped(bad: Raw) -> None:
    raw = [start(), block_start(0, {"type": "text", "text": ""}), text_delta(0, "ok"), bad]
    assembler, events = assemble([*raw, stop(0), *end()])
    assert assembler.content == [{"type": "text", "text": "ok"}]
    assert assembler.stopped and isinstance(events[-1], MessageFinished)


def test_non_dict_event_is_an_anomaly() -> None:
    assembler = StreamAssembler()
    assert assembler.feed("ping") == []  # type: ignore[arg-type]
    assert assembler.anomalies


def test_wrongly_typed_stop_reason_and_usage() -> None:
    raw = [
        start(usage={"input_tokens": "many"}),
        *text_block(0, "x"),
        {"type": "message_delta", "delta": {"stop_reason": 7}, "usage": {"output_tokens": [1]}},
        {"type": "message_stop"},
    ]
    assembler, _ = assemble(raw)
    assert assembler.stop_reason is None
    assert assembler.usage == Usage()


def test_error_event_with_a_string_error() -> None:
    with pytest.raises(StreamError, match="went wrong"):
        StreamAssembler().feed({"type": "error", "error": "went wrong"})


@pytest.mark.parametrize(
    "block",
    [
        {"type": "tool_use", "name": "Bash", "input": {}},
        {"type": "tool_use", "id": "", "name": "Bash", "input": {}},
        {"type": "tool_use", "id": 7, "name": "Bash", "input": {}},
        {"type": "server_tool_use", "id": "s1", "input": {}},
    ],
)
def test_tool_block_without_id_or_name_is_dropped(block: dict[str, Any]) -> None:
    raw = [start(), block_start(0, block), json_delta(0, '{"command": "ls"}'), stop(0)]
    assembler, events = assemble([*raw, *end("tool_use")])
    assert assembler.content == []
    assert not of(events, ToolCallReady) and not of(events, ToolCallStarted)
    assert any("without an id" in a for a in assembler.anomalies)


def test_salvage_drops_an_empty_unfinished_text_block() -> None:
    raw = [start(), block_start(0, {"type": "text", "text": ""}), text_delta(0, "")]
    assembler, _ = assemble(raw)
    assert assembler.salvage() == []
