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
        sid = store.sessions.create(path.parent, "m", title=name)
        store.messages.add(sid, "user", name)
        for n, (decision, by) in enumerate(runs):
            store.runs.record(
                sid, f"toolu_{n}", "Bash", {"command": "ls"}, decision=decision, decided_by=by
            )
        ids[name] = sid
    return store, ids


def test_the_store_filters_on_how_calls_were_decided(tmp_path: Path) -> None:
    store, _ = seeded(tmp_path / "s.db")
    with store:
        titles = {s.title for s in store.sessions.recent(review="unreviewed")}
        assert titles == {"by-rule", "headless"}
        assert {s.title for s in store.sessions.recent(review="denied")} == {"denied"}
        assert len(store.sessions.recent()) == 5


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
        sid = store.sessions.create(tmp_path, "m", title=title)
        store.messages.add(sid, "user", title)
        for n, rule in enumerate(rules):
            store.runs.record(
                sid, f"t{n}", "Bash", {}, decision="allow", decided_by="rule", rule=rule
            )
        ids[title] = sid
    # a call the person allowed by hand doesn't count for a rule, even with one recorded
    store.runs.record(ids["asked"], "t9", "Bash", {}, decision="allow", decided_by="user")
    found = {s.title for s in store.sessions.recent(review="rule:Bash(git status:*)")}
    assert found == {"git", "both"}
    assert {s.title for s in store.sessions.recent(review="rule:Bash(ls:*)")} == {"both"}
    counts = store.runs.rule_counts(tmp_path)
    assert counts["Bash(git status:*)"] == 3 and counts["Bash(ls:*)"] == 1
    store.close()
    code = sessions_main(["--db", str(tmp_path / "s.db"), "list", "--rule", "Bash(ls:*)", "--json"])
    assert code == 0 and [s["title"] for s in json.loads(capsys.readouterr().out)] == ["both"]


def test_the_cli_streams_a_long_listing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with SessionStore(tmp_path / "s.db") as store, store.batch():
        for n in range(450):
            store.sessions.create(tmp_path, "m", title=f"s{n}", created_at=1_700_000_000 + n)
    db = ["--db", str(tmp_path / "s.db")]
    assert sessions_main([*db, "list", "--limit", "0"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.startswith("ID") and len(rows) == 450 and "s449" in rows[0]
    assert sessions_main([*db, "list", "--limit", "0", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 450
    assert sessions_main([*db, "list", "--limit", "250", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 250


# --- issue 27.7: only calls that could change something or reach the network ---------------------

DEFAULTS = [  # (tool, input, decided_by, rule, source): what a session of reading and planning does
    ("Read", {"file_path": "README.md"}, "default", None, None),
    ("Grep", {"pattern": "TODO"}, "default", None, None),
    ("Glob", {"pattern": "**/*.py"}, "default", None, None),
    ("TodoWrite", {"todos": []}, "default", None, None),
    ("Task", {"description": "look around", "prompt": "x"}, "default", None, None),
    ("Bash", {"command": "git status"}, "default", None, None),  # the analyser's read-only
    ("Read", {"file_path": "/etc/hosts"}, "rule", "Read(/etc/**)", "user"),  # reads stay reads
]


def audited(path: Path) -> tuple[SessionStore, dict[str, str]]:
    store = SessionStore(path)
    ids = {}
    for title, runs in {
        "reading": DEFAULTS,
        "pushed": [
            *DEFAULTS,
            ("Bash", {"command": "git push"}, "rule", "Bash(git push:*)", "project"),
        ],
        "fetched": [("WebFetch", {"url": "https://docs.python.org/3/"}, "default", None, None)],
        "edited": [("Edit", {"file_path": "a.py"}, "mode", None, None)],
        "mcp": [("mcp__github__create_issue", {"title": "x"}, "headless", None, None)],
    }.items():
        sid = store.sessions.create(path.parent, "m", title=title)
        store.messages.add(sid, "user", f"{title} words")
        for n, (tool, tool_input, by, rule, source) in enumerate(runs):
            store.runs.record(
                sid, f"t{n}", tool, tool_input, decision="allow", decided_by=by, rule=rule,
                rule_source=source, started_at=1_750_000_000 + n,
            )  # fmt: skip
        ids[title] = sid
    return store, ids


def test_unreviewed_leaves_out_what_only_reads_or_plans(tmp_path: Path) -> None:
    store, _ = audited(tmp_path / "s.db")
    with store:
        found = {s.title for s in store.sessions.recent(review="unreviewed")}
        assert found == {"pushed", "fetched", "edited", "mcp"}


def test_the_filter_holds_while_searching(tmp_path: Path) -> None:
    store, _ = audited(tmp_path / "s.db")
    with store:
        assert {h.title for h in store.sessions.search("words")} == {
            "reading", "pushed", "fetched", "edited", "mcp"
        }  # fmt: skip
        found = {h.title for h in store.sessions.search("words", review="unreviewed")}
        assert found == {"pushed", "fetched", "edited", "mcp"}
        assert {h.title for h in store.sessions.search("pushed", review="unreviewed")} == {"pushed"}
        assert store.sessions.search("reading", review="unreviewed") == []


async def test_the_browser_filter_combines_with_a_search(tmp_path: Path) -> None:
    from textual.app import App

    from agent_tui.ui.screens.sessions import SessionBrowser

    store, _ = audited(tmp_path / "s.db")
    browser = SessionBrowser(lambda: store, cwd=tmp_path)
    app: App[None] = App()
    async with app.run_test(size=(120, 30)) as pilot:
        await app.push_screen(browser)

        def titles() -> set[str]:
            return {r.info.title for r in browser.rows}

        await wait_for(pilot, lambda: len(titles()) == 5)
        await pilot.press("slash")
        for key in "words":
            await pilot.press(key)
        await wait_for(pilot, lambda: browser.query_text == "words" and len(titles()) == 5)
        browser.option_list.focus()
        await pilot.press("f")  # the filter applies to the search's results
        await wait_for(pilot, lambda: titles() == {"pushed", "fetched", "edited", "mcp"})
    store.close()


def test_sessions_calls_lists_each_call_with_its_rule_and_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    store, ids = audited(tmp_path / "s.db")
    store.runs.record(
        ids["reading"], "d1", "Bash", {"command": "rm -rf /"}, decision="deny",
        decided_by="rule", rule="Bash(rm:*)", rule_source="user", started_at=1_750_000_100,
    )  # fmt: skip
    store.close()
    db = ["--db", str(tmp_path / "s.db")]
    assert sessions_main([*db, "calls", "--review", "unreviewed", "--json"]) == 0
    calls = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(c["tool"] for c in calls) == [
        "Bash", "Edit", "WebFetch", "mcp__github__create_issue"
    ]  # fmt: skip
    push = next(c for c in calls if c["tool"] == "Bash")
    assert push["subject"] == "git push" and push["rule"] == "Bash(git push:*)"
    assert push["session_id"] == ids["pushed"]
    assert push["source_file"] == str(tmp_path / ".agent-tui" / "settings.toml")

    assert sessions_main([*db, "calls", "--review", "denied"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert ids["reading"] in line and "rm -rf /" in line and "Bash(rm:*)" in line
    assert str(tmp_path / "home" / "settings.toml") in line
    sid = ids["fetched"]
    assert sessions_main([*db, "calls", "--review", "unreviewed", "--session", sid]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert "WebFetch" in line and "https://docs.python.org/3/" in line and "by default" in line
