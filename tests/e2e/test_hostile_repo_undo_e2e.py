"""The app's own git, end to end: a project that arrived with its `.git` configuring a program
(a clean filter named by `.gitattributes`, core.fsmonitor, the same through `include.path`, a
hook). The real CLI, the real SDK at the loopback server, real bash; the model runs a shell
command that deletes and creates a file, in default mode (the ask approved) and in yolo mode.
The program never runs — not through the undo snapshots the app takes around the call — and the
shell change can still be undone (the snapshots went to the app's own repository)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_helpers import type_prompt, wait_for
from checkpoints.test_hostile_repository import HOSTILE, hostile_project
from e2e.test_security_e2e import run_cli
from sse_server import SSEServer, use_loopback_api

from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.screens.restore import RestoreScreen

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

MODES = {"default": ("--approve-asks",), "yolo": ("--mode", "yolo")}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("kind", sorted(HOSTILE))
async def test_the_apps_snapshots_never_run_the_repositorys_program(
    tmp_path: Path, kind: str, mode: str
) -> None:
    project, marker = hostile_project(tmp_path, kind)
    home = tmp_path / "home"
    home.mkdir()
    calls = [("Bash", {"command": "rm notes.txt; echo new > made.txt"})]
    code, events, err, _ = await run_cli(project, home, calls, *MODES[mode], "--sandbox", "off")
    assert code == 0, err
    assert not marker.exists()
    results = [e for e in events if e["type"] == "tool_result"]
    assert results and not results[0]["is_error"], results
    assert not (project / "notes.txt").exists() and (project / "made.txt").exists()
    changed = [e for e in events if e["type"] == "files_changed"]
    assert len(changed) == 1, events
    assert sorted(Path(f["path"]).name for f in changed[0]["files"]) == ["made.txt", "notes.txt"]
    assert changed[0].get("unrestorable", []) == []
    assert any((home / "shadow").iterdir())  # the app's own repository, under its data dir


async def test_undo_of_the_shell_change_works_after_the_cli_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, marker = hostile_project(tmp_path, "clean-filter")
    home = tmp_path / "home"
    home.mkdir()
    calls = [("Bash", {"command": "rm notes.txt; echo new > made.txt"})]
    code, _events, err, _ = await run_cli(project, home, calls, "--mode", "yolo")
    assert code == 0, err
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    async with SSEServer(lambda _i, _b: "") as server:
        use_loopback_api(monkeypatch, server.url)
        app = AgentApp(Options(cwd=project, continue_=True), record=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None and app.recorder, timeout=30)
            await type_prompt(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen), timeout=15)
            titles = {str(t.render()).strip(" ▶") for t in app.screen.query(".restore-title")}
            assert titles == {"[x] create   notes.txt", "[x] delete   made.txt"}, titles
            await pilot.press("y")
            await wait_for(
                pilot,
                lambda: any(n.text.startswith("Restored 2 file") for n in app.query(NoticeMessage)),
                timeout=15,
            )
    assert (project / "notes.txt").read_text() == "the person's notes\n"
    assert not (project / "made.txt").exists()
    assert not marker.exists()
