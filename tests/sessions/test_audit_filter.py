"""The audit filters: sessions where a tool call ran without the person's review, or where one
was denied — in the store, the CLI and the sessions browser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_helpers import wait_for

from agent_tui.sessions.cli import main as sessions_main
from agent_tui.sessions.store import SessionStore


def seeded(path: Path) -> tuple[SessionStore, dict[str, str]]:
    store = SessionStore(path)
    ids = {}
    for name, runs in {
        "reviewed": [("allow", "user")],
        "by-rule": [("allow", "user"), ("allow", "rule")],
        "headless": [("allow", "headless")],
        "denied": [("deny", "user")],
        "quiet": [],
    }.items():
        sid = store.create_session(path.parent, "m", title=name)
        store.add_message(sid, "user", name)
        for n, (decision, by) in enumerate(runs):
            store.record_tool_run(
                sid, f"toolu_{n}", "Bash", {"command": "ls"}, decision=decision, decided_by=by
            )
        ids[name] = sid
    return store, ids


def test_the_store_filters_on_how_calls_were_decided(tmp_path: Path) -> None:
    store, _ = seeded(tmp_path / "s.db")
    with store:
        titles = {s.title for s in store.list_sessions(review="unreviewed")}
        assert titles == {"by-rule", "headless"}
        assert {s.title for s in store.list_sessions(review="denied")} == {"denied"}
        assert len(store.list_sessions()) == 5


def test_the_cli_lists_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, _ = seeded(tmp_path / "s.db")
    store.close()
    code = sessions_main(
        ["--db", str(tmp_path / "s.db"), "list", "--review", "unreviewed", "--json"]
    )
    assert code == 0
    assert {s["title"] for s in json.loads(capsys.readouterr().out)} == {"by-rule", "headless"}


async def test_the_browser_cycles_the_filters(tmp_path: Path) -> None:
    from textual.app import App

    from agent_tui.ui.screens.sessions import SessionBrowser

    store, _ = seeded(tmp_path / "s.db")
    browser = SessionBrowser(lambda: store, cwd=tmp_path)
    app: App[None] = App()
    async with app.run_test(size=(120, 30)) as pilot:
        await app.push_screen(browser)

        def titles() -> set[str]:
            return {r.info.title for r in browser.rows}

        everything = {"reviewed", "by-rule", "headless", "denied", "quiet"}
        await wait_for(pilot, lambda: titles() == everything)
        await pilot.press("f")
        await wait_for(pilot, lambda: titles() == {"by-rule", "headless"})
        header = str(browser.query_one("#sessions-header").render())
        assert "a tool call ran without your review" in header
        await pilot.press("f")
        await wait_for(pilot, lambda: titles() == {"denied"})
        await pilot.press("f")
        await wait_for(pilot, lambda: titles() == everything)
    store.close()


def test_the_rule_filter_and_fire_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SessionStore(tmp_path / "s.db")
    ids = {}
    for title, rules in {
        "git": ["Bash(git status:*)", "Bash(git status:*)"],
        "both": ["Bash(ls:*), Bash(git status:*)"],
        "asked": [],
    }.items():
        sid = store.create_session(tmp_path, "m", title=title)
        store.add_message(sid, "user", title)
        for n, rule in enumerate(rules):
            store.record_tool_run(
                sid, f"t{n}", "Bash", {}, decision="allow", decided_by="rule", rule=rule
            )
        ids[title] = sid
    # a call the person allowed by hand doesn't count for a rule, even with one recorded
    store.record_tool_run(ids["asked"], "t9", "Bash", {}, decision="allow", decided_by="user")
    found = {s.title for s in store.list_sessions(review="rule:Bash(git status:*)")}
    assert found == {"git", "both"}
    assert {s.title for s in store.list_sessions(review="rule:Bash(ls:*)")} == {"both"}
    counts = store.rule_counts(tmp_path)
    assert counts["Bash(git status:*)"] == 3 and counts["Bash(ls:*)"] == 1
    store.close()
    code = sessions_main(["--db", str(tmp_path / "s.db"), "list", "--rule", "Bash(ls:*)", "--json"])
    assert code == 0 and [s["title"] for s in json.loads(capsys.readouterr().out)] == ["both"]


def test_the_cli_streams_a_long_listing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with SessionStore(tmp_path / "s.db") as store, store.batch():
        for n in range(450):
            store.create_session(tmp_path, "m", title=f"s{n}", created_at=1_700_000_000 + n)
    db = ["--db", str(tmp_path / "s.db")]
    assert sessions_main([*db, "list", "--limit", "0"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.startswith("ID") and len(rows) == 450 and "s449" in rows[0]
    assert sessions_main([*db, "list", "--limit", "0", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 450
    assert sessions_main([*db, "list", "--limit", "250", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 250
