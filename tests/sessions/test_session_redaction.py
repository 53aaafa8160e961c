from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui import redact as r
from agent_tui.protocol import events as ev
from agent_tui.sessions import SessionStore

KEY = "sk-ant-api03-TESTKEY-abcdefghijklmnopqrstuvwxyz0123456789"
GH = "ghp_testtoken1234567890"


@pytest.fixture(autouse=True)
def secrets_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_TOKEN", GH)
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short to be a secret: left alone


def test_redact_text() -> None:
    assert r.redact("nothing here") == "nothing here"
    assert KEY not in r.redact(f"key={KEY}!")
    assert GH not in r.redact(f"token {GH}")
    assert "sk-ant-api03-otherkey123" not in r.redact("use sk-ant-api03-otherkey123 please")
    assert r.redact("abc abc") == "abc abc"
    out = r.redact("> Authorization: Bearer eyJabc.def\n> x-api-key: zzz123\nok")
    assert "eyJabc" not in out and "zzz123" not in out and out.endswith("\nok")
    assert r.redact('{"X-Api-Key": "k-123"}') == '{"X-Api-Key": "[REDACTED]"}'


def test_redact_obj_keeps_identity_and_opaque_fields() -> None:
    clean = {"a": [1, "two", {"b": None}]}
    assert r.redact_obj(clean) is clean
    obj = {
        "headers": {"Authorization": "Bearer x", "x-api-key": "y", "accept": "json"},
        "signature": "sk-ant-sig-not-a-key-123456",
        "nested": [f"k {KEY}", 3],
    }
    out = r.redact_obj(obj)
    assert out["headers"] == {
        "Authorization": "[REDACTED]",
        "x-api-key": "[REDACTED]",
        "accept": "json",
    }
    assert out["signature"] == obj["signature"]  # signed data must stay byte-exact
    assert out["nested"] == ["k [REDACTED]", 3]
    assert obj["nested"][0] == f"k {KEY}"  # input not mutated


def test_add_secret() -> None:
    r.add_secret("config-file-key-42")
    assert r.redact("x config-file-key-42 y") == "x [REDACTED] y"


def test_secrets_never_reach_the_database(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    sid = store.sessions.create(".", "m", title=f"title {KEY}")
    store.messages.add(sid, "user", f"my key is {KEY} and {GH}")
    seq = store.messages.begin(sid, "assistant")
    store.messages.append_block(sid, seq, {"type": "text", "text": f"echo {KEY}"})
    block = {
        "type": "tool_use",
        "id": "t1",
        "name": "Bash",
        "input": {"command": f"curl -H 'x-api-key: {KEY}'"},
    }
    store.messages.append_block(sid, seq, block)
    store.runs.record(sid, "t1", "Bash", block["input"], decision="allow", summary=GH,
                          rule=f"Bash(echo {GH})")  # fmt: skip
    res = store.messages.begin(sid, "user")
    store.messages.append_block(
        sid, res, {"type": "tool_result", "tool_use_id": "t1", "content": f"{KEY}\n"}
    )
    # A key split across streamed deltas is caught too.
    half = len(KEY) // 2
    store.events.append(sid, ev.TextDelta(index=0, text=f"here: {KEY[:half]}"))
    store.events.append(sid, ev.TextDelta(index=0, text=f"{KEY[half:]} done"))
    store.events.append(
        sid, ev.ToolInputDelta(index=1, tool_use_id="t1", partial_json=f'{{"command": "{GH[:5]}')
    )
    store.events.append(
        sid, ev.ToolInputDelta(index=1, tool_use_id="t1", partial_json=f'{GH[5:]}"}}')
    )
    store.events.append(sid, ev.ToolFinished(tool_use_id="t1", tool="Bash", is_error=False,
                                            summary="ok", duration_s=0.1, content=KEY))  # fmt: skip
    store.sessions.set_title(sid, f"renamed {GH}")
    store.turns.record(sid, ev.Usage(1, 1), 0.0)
    store.close()

    data = b"".join(p.read_bytes() for p in tmp_path.glob("sessions.db*"))
    assert b"my key is" in data  # the content itself was written
    for secret in (KEY, GH, KEY[8:30], "TESTKEY"):
        assert secret.encode() not in data

    reopened = SessionStore(tmp_path / "sessions.db")
    texts = [e.event for e in reopened.events.load(sid)]
    merged = [e for e in texts if isinstance(e, ev.TextDelta)]
    assert merged == [ev.TextDelta(index=0, text="here: [REDACTED] done")]
    reopened.close()
