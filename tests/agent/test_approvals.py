"""The approval policy (`agent/approvals.py`): engine decision, headless, ask, "always"; one
`ApprovalDecided` per call whatever the path."""

from __future__ import annotations

from pathlib import Path

from conversation_rules import (
    ScriptedProvider,
    reply,
    results_of,
    text,
    tool_use,
)
from loop_harness import (
    ASK,
    EchoTool,
    FakeAsk,
    FakePermissions,
    Harness,
)

from agent_tui.permissions.types import ApprovalAnswer, Decision
from agent_tui.protocol.events import (
    ApprovalDecided,
    ApprovalRequested,
    Notice,
    stream_json,
)

# --- permissions ----------------------------------------------------------------------------------


async def test_permission_deny(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions(
        {
            "Echo": Decision(
                "deny", rule="Echo(secret)", reason="deny rule Echo(secret)", source="rule"
            )
        }
    )
    ask = FakeAsk()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "secret"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path, permissions=perms, ask=ask)
    await h.agent.submit("go")
    assert echo.calls == [] and ask.requests == []
    assert perms.checks == [("Echo", {"text": "secret"}, True)]
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] and "Permission denied: deny rule Echo(secret)" in res["content"]
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by, decided.rule) == ("deny", "rule", "Echo(secret)")
    h.check()


async def test_ask_once(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": ASK})
    ask = FakeAsk(ApprovalAnswer("once"))
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path, permissions=perms, ask=ask)
    await h.agent.submit("go")
    assert [c.text for c in echo.calls] == ["hi"]
    (request,) = ask.requests
    assert (request.tool_use_id, request.tool, request.subject) == ("toolu_1", "Echo", "hi")
    assert request.input == {"text": "hi"} and request.decision == ASK
    assert request.cwd == str(tmp_path)
    (asked,) = h.of(ApprovalRequested)
    assert asked.reason == ASK.reason
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by, decided.saved_rules) == ("allow", "user", [])
    assert perms.saved == []
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["content"] == "echo: hi"
    h.check()


async def test_ask_always_saves_the_suggestions(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": ASK})
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(
        provider, [echo], tmp_path, permissions=perms, ask=FakeAsk(ApprovalAnswer("always"))
    )
    await h.agent.submit("go")
    assert perms.saved == [["Echo(hi:*)", "Echo(ho)"]]
    (decided,) = h.of(ApprovalDecided)
    assert decided.decision == "allow" and decided.saved_rules == ["Echo(hi:*)", "Echo(ho)"]
    assert len(echo.calls) == 1
    h.check()


async def test_ask_always_when_saving_fails_still_allows_once(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": ASK})
    perms.fail_saving = True
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    ask = FakeAsk(ApprovalAnswer("always"))
    h = Harness(provider, [echo], tmp_path, permissions=perms, ask=ask)
    await h.agent.submit("go")
    assert len(echo.calls) == 1
    (decided,) = h.of(ApprovalDecided)
    assert decided.decision == "allow" and decided.saved_rules == []
    assert any(n.level == "warning" and "Echo(hi:*)" in n.text for n in h.of(Notice))
    h.check()


async def test_ask_always_without_suggestions_saves_nothing(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": Decision("ask", reason="needs a look")})
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(
        provider, [echo], tmp_path, permissions=perms, ask=FakeAsk(ApprovalAnswer("always"))
    )
    await h.agent.submit("go")
    assert perms.saved == [] and len(echo.calls) == 1


async def test_ask_deny_with_a_message(tmp_path: Path) -> None:
    echo = EchoTool()
    perms = FakePermissions({"Echo": ASK})
    ask = FakeAsk(ApprovalAnswer("deny", message="use printf instead"))
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path, permissions=perms, ask=ask)
    await h.agent.submit("go")
    assert echo.calls == []
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] is True
    assert res["content"] == "The user denied this tool call. The user says: use printf instead"
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by, decided.message) == ("deny", "user", "use printf instead")
    h.check()


async def test_headless_ask_is_denied(tmp_path: Path) -> None:
    echo = EchoTool()
    ask = FakeAsk()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(
        provider,
        [echo],
        tmp_path,
        permissions=FakePermissions({"Echo": ASK}),
        ask=ask,
        headless=True,
    )
    await h.agent.submit("go")
    assert echo.calls == [] and ask.requests == []
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by) == ("deny", "headless")
    assert stream_json(decided)["type"] == "permission"  # the documented stream-json name
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] and "headless" in res["content"] and "--allow" in res["content"]
    h.check()


async def test_headless_with_allow_asks_runs(tmp_path: Path) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(
        provider,
        [echo],
        tmp_path,
        permissions=FakePermissions({"Echo": ASK}),
        headless=True,
        allow_asks=True,
    )
    await h.agent.submit("go")
    assert len(echo.calls) == 1
    (decided,) = h.of(ApprovalDecided)
    assert (decided.decision, decided.by) == ("allow", "headless")


async def test_default_ask_callback_denies(tmp_path: Path) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "hi"}), stop_reason="tool_use"),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path, permissions=FakePermissions({"Echo": ASK}))
    await h.agent.submit("go")
    assert echo.calls == []
    (res,) = results_of(h.request_messages(1)[-1])
    assert res["is_error"] and "no one is there to approve" in res["content"]


async def test_invalid_input_is_rejected_before_asking(tmp_path: Path) -> None:
    ask = FakeAsk()
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"nope": 1}), stop_reason="tool_use"), reply(text("k"))
    )
    h = Harness(
        provider, [EchoTool()], tmp_path, permissions=FakePermissions({"Echo": ASK}), ask=ask
    )
    await h.agent.submit("go")
    assert ask.requests == []
