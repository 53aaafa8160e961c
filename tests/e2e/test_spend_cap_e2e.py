"""The spending cap through the real CLI and SDK against an honest loopback server (`metered.py`:
it counts tokens, reports them as usage and stops at max_tokens). The cap counts the whole session
across `--continue` runs, and is never crossed: what the server says it charged stays under it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from metered import cost_of, input_tokens, sse
from sse_server import SSEServer, run_agent_tui

from agent_tui.sessions.store import SessionStore

MODEL = "claude-haiku-4-5"  # $1 in, $5 out per million tokens


def server(words: int, *, counts: bool = True) -> SSEServer:
    return SSEServer(
        lambda n, body: sse(body, words), count_tokens=input_tokens if counts else None
    )


def charged(s: SSEServer, words: int) -> float:
    return sum(cost_of(r.json, words) for r in s.requests)


async def runs(s: SSEServer, tmp_path: Path, cap: str, n: int, *extra: str) -> list[Any]:
    done = []
    for i in range(n):
        args = ["-p", f"question {i}", "--model", MODEL, "--max-cost", cap, *extra]
        if i:
            args.append("--continue")
        done.append(await run_agent_tui(s, tmp_path, tmp_path / "home", *args))
    return done


def stored(home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    store = SessionStore.open_default()
    (info,) = store.sessions.recent()
    return store, info


async def test_four_continue_runs_under_a_tenth_of_a_cent_send_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$0.001 pays for no request's input: not one is sent, in any of the four runs."""
    async with server(200) as s:
        results = await runs(s, tmp_path, "0.001", 4)
    assert s.requests == []  # nothing reached /v1/messages
    for code, out, err in results:
        assert code == 1 and not out.strip()
        assert "Spending cap reached" in err.decode() and "Traceback" not in err.decode()
    assert "of its $0.0010 cap" in results[0][2].decode()  # the status line's precision


async def test_the_cap_holds_across_continue_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each run pays for as much as is left; the session's total never crosses the cap, and once
    nothing useful is left, a run sends nothing and exits non-zero."""
    cap, words = 0.05, 1500
    async with server(words) as s:
        results = await runs(s, tmp_path, str(cap), 4)
    assert charged(s, words) <= cap
    assert results[0][0] == 0  # the first fits whole
    assert results[-1][0] == 1 and "Spending cap reached" in results[-1][2].decode()
    assert len(s.requests) < 4  # the last run sent nothing
    store, info = stored(tmp_path / "home", monkeypatch)
    try:
        assert info.cost_usd == pytest.approx(charged(s, words))  # the session's whole spend
    finally:
        store.close()


async def test_a_cent_never_overshoots_and_a_cut_answer_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cap, words = 0.01, 3000  # the answer wants more than a cent can buy
    async with server(words) as s:
        (code, out, err), second = await runs(s, tmp_path, str(cap), 2)
    assert len(s.requests) == 1 and charged(s, words) <= cap
    sent = s.requests[0].json
    assert sent["max_tokens"] < words  # lowered to what the budget could pay for
    assert len(s.count_requests) == 2  # each run counted exactly: both near the cap
    assert code == 1 and out.strip()  # the part that was paid for is printed
    assert f"The answer was cut at {sent['max_tokens']:,} tokens" in err.decode()
    assert second[0] == 1 and "Spending cap reached" in second[2].decode()
    store, info = stored(tmp_path / "home", monkeypatch)
    try:
        (turn, _) = store.turns.load(info.id)
        assert turn.stop_reason == "max_cost"  # the stored turn says why it ended
        events = [e.event.to_dict() for e in store.events.load(info.id)]
        assert any("The answer was cut at" in str(e.get("text", "")) for e in events)
    finally:
        store.close()


async def test_a_server_that_cannot_count_keeps_the_local_bound(tmp_path: Path) -> None:
    """No token counting (404): the request is planned on the local upper bound, so the cap
    still holds, only with less room for the answer."""
    cap, words = 0.05, 20_000
    async with server(words, counts=False) as s:
        code, _out, err = await run_agent_tui(
            s, tmp_path, tmp_path / "home", "-p", "hi", "--model", MODEL, "--max-cost", str(cap)
        )
    assert len(s.count_requests) == 1  # asked once; a 404 is remembered for the session
    assert len(s.requests) == 1 and charged(s, words) <= cap
    assert code == 1 and "The answer was cut at" in err.decode()


async def test_stream_json_totals_count_the_whole_session(tmp_path: Path) -> None:
    async with server(100) as s:
        firsts = await runs(s, tmp_path, "5", 2, "--output-format", "stream-json")
    ends = [json.loads(out.splitlines()[-2]) for _code, out, _err in firsts]
    assert all(e["type"] == "turn_end" for e in ends)  # Claude Code's `result` follows it
    costs = [cost_of(r.json, 100) for r in s.requests]
    assert ends[0]["total_cost_usd"] == pytest.approx(costs[0])
    assert ends[1]["total_cost_usd"] == pytest.approx(costs[0] + costs[1])  # not from $0
    assert ends[1]["cost_usd"] == pytest.approx(costs[1])


async def test_json_output_is_one_result_with_the_sessions_totals(tmp_path: Path) -> None:
    async with server(100) as s:
        done = await runs(s, tmp_path, "5", 2, "--output-format", "json")
    costs = [cost_of(r.json, 100) for r in s.requests]
    results = []
    for code, out, _err in done:
        assert code == 0
        (line,) = out.decode().splitlines()  # one object, nothing else on stdout
        results.append(json.loads(line))
    first, second = results
    assert first["type"] == "result" and first["subtype"] == "success" and not first["is_error"]
    assert first["result"].startswith("word word")
    assert first["session_id"] == second["session_id"] and len(first["session_id"]) == 13
    assert second["total_cost_usd"] == pytest.approx(costs[0] + costs[1])  # not from $0
    assert second["num_turns"] == 1 and second["usage"]["output_tokens"] == 100


async def test_json_output_at_the_cap(tmp_path: Path) -> None:
    async with server(100) as s:
        ((code, out, err),) = await runs(s, tmp_path, "0.001", 1, "--output-format", "json")
    result = json.loads(out)
    assert code == 1 and result["is_error"] and result["subtype"] == "error_max_budget_usd"
    assert result["total_cost_usd"] == 0 and s.requests == []
    assert "Spending cap reached" in err.decode()


async def test_a_prompt_the_cap_refused_is_not_sent_by_the_next_continue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused at the cap ("it was not sent"), the prompt leaves the stored conversation: the
    next run that continues the session sends only its own prompt (before: both)."""
    async with server(100) as s:
        home = tmp_path / "home"
        args = ["--model", MODEL]
        code, _out, err = await run_agent_tui(
            s, tmp_path, home, "-p", "the refused one", *args, "--max-cost", "0.001"
        )
        assert code == 1 and "it was not sent" in err.decode() and s.requests == []
        code, _out, err = await run_agent_tui(
            s, tmp_path, home, "-p", "the next one", *args, "--continue"
        )
    assert code == 0, err.decode()
    (sent,) = s.requests
    assert "the refused one" not in json.dumps(sent.json["messages"])
    assert [m["role"] for m in sent.json["messages"]] == ["user"]
    store, info = stored(home, monkeypatch)
    try:
        assert [m["role"] for m in store.messages.load(info.id)] == ["user", "assistant"]
        assert info.title == "the next one"
        events = [e.event.to_dict() for e in store.events.load(info.id)]
        assert any(e.get("prompt") == "the refused one" for e in events)  # the record keeps it
    finally:
        store.close()
