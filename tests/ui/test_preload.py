"""Importing a resumed session's reading modules while the first frame waits
(`ui/startup/preload.py`): the list is what that boot imports first, in the order the imports
complete, so each step is one module; the steps stop at the first frame; a module that fails to
import stops them quietly (the boot says why). A new session imports nothing early."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.ui.startup.preload import READ_AHEAD_MODULES, IdleImports

# The app started as the command line starts it, with the idle imports switched off, in a fresh
# interpreter under `-X importtime` (which prints each import as it completes): the markers on
# stderr bracket what the boot imports from the first screen's mount until the agent is ready.
# They are written to the file descriptor, as `-X importtime` writes: Textual holds what is
# printed to `sys.stderr` while the app runs, which would put a marker after later imports.
PROBE = """
import os, sys
mark = lambda name: os.write(2, f"@@ {name}\\n".encode())
# what of ours is loaded at a moment (`importlib.import_module`, which the idle steps use, is not
# seen by `-X importtime`)
names = lambda: " ".join(m for m in sys.modules if m.startswith("agent_tui"))
loaded = lambda moment: mark(f"loaded {moment} {names()}")
from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.startup import preload
if os.environ.get("PROBE_IDLE") != "1":
    preload.IdleImports.start = lambda self: None

class Probe(AgentApp):
    def main_mounted(self):
        mark("mounted")
        loaded("mounted")
        # queued before the boot's start, which runs after the same refresh
        self.call_after_refresh(mark, "first frame")
        self.call_after_refresh(loaded, "first-frame")
        super().main_mounted()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        ready = self.boot.ready

        def probed(*args):
            ready(*args)
            mark("ready")
            os._exit(0)

        self.boot.ready = probed

from agent_tui.ui.controllers.sessions import Sessions
show_early = Sessions.show_early

def shown_early(self, tail, runs, on_shown=None):
    def painted():
        mark("painted")
        if on_shown is not None:
            on_shown()

    show_early(self, tail, runs, on_shown=painted)

Sessions.show_early = shown_early
resume = sys.argv[1] if len(sys.argv) > 1 else None
Probe(Options(offline=True, resume=resume)).run(headless=True)
"""


def run_probe(home: Path, *resume: str, idle: bool = False) -> list[str]:
    """The probe's lines on stderr (`resume`: a session's id, resumed as `--resume ID` does;
    `idle`: with the idle imports left on)."""
    env = {**os.environ, "AGENT_TUI_HOME": str(home), "PROBE_IDLE": "1" if idle else "0"}
    env.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", PROBE, *resume],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stderr.splitlines()


def boot_imports(home: Path, *resume: str) -> list[str]:
    """The modules imported between the first screen's mount and the ready agent, in the order
    their imports completed, the idle imports switched off."""
    return imports_in(run_probe(home, *resume), resumed=bool(resume))


def imports_in(probed: list[str], resumed: bool = False) -> list[str]:
    """The modules, and the frames' markers, among a probe's lines from the mount to the ready
    agent (`-X importtime` sees the imports of statements, not the idle steps')."""
    markers = {"@@ painted", "@@ first frame"}
    lines = [line for line in probed if line != "@@ painted" or resumed]
    between = lines[lines.index("@@ mounted") + 1 : lines.index("@@ ready")]
    return [
        line if line in markers else line.split("|")[-1].strip()
        for line in between
        if line.startswith("import time:") or line in markers
    ]


def ours(names: list[str] | tuple[str, ...]) -> list[str]:
    return [name for name in names if name.startswith("agent_tui")]


def test_a_new_session_imports_the_agents_modules_after_the_first_frame(tmp_path: Path) -> None:
    lines = run_probe(tmp_path, idle=True)  # the idle imports as the app has them
    at = {
        moment: set(names)
        for _, _, moment, *names in (line.split() for line in lines if line.startswith("@@ loaded"))
    }
    assert at["first-frame"] - at["mounted"] == set()  # nothing of the agent's, nor git's
    seen = imports_in(lines)
    assert "agent_tui.agent.loop" in ours(seen[seen.index("@@ first frame") :])  # the boot's


def test_a_resumed_session_boot_imports_what_reads_it_ahead_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.sessions.store import SessionStore

    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))  # where the probe's app looks
    with SessionStore.open_default() as store:
        session_id = store.sessions.create(tmp_path, "offline", title="resumed")
        store.messages.add(session_id, "user", "hello")
        store.messages.add(session_id, "assistant", [{"type": "text", "text": "hi"}])
    seen = boot_imports(tmp_path, session_id)
    painted = seen.index("@@ painted")  # the frame that shows the conversation's end
    drawn, after = seen[:painted], seen[painted + 1 :]
    # an end of prose draws without the events' module and the tool blocks (loaded after it)
    assert "agent_tui.protocol.events" in after and "agent_tui.protocol.events" not in drawn
    assert "agent_tui.ui.widgets.tool_blocks" not in drawn
    # what reads and draws the end is all a resumed session's idle steps import, in order; the
    # agent's modules wait for that frame
    assert ours(READ_AHEAD_MODULES)[: len(ours(drawn))] == ours(drawn)
    first = ours(drawn + after)[: len(ours(READ_AHEAD_MODULES))]
    assert ours(READ_AHEAD_MODULES) == first, (
        "READ_AHEAD_MODULES (agent_tui/ui/startup/preload.py) should be what a resumed "
        f"session's boot imports first: {ours(drawn + after)}"
    )
    # then the rest of a new session's boot
    (tmp_path / "new").mkdir()
    new = boot_imports(tmp_path / "new")
    assert set(ours(drawn + after)) == set(ours(READ_AHEAD_MODULES)) | set(ours(new))


def test_each_step_imports_one_module_once_the_ui_is_loaded() -> None:
    """In a fresh interpreter with the first frame's modules loaded: a step imports its module
    (and, for a module of a package whose `__init__` imports its modules, that package's)."""
    code = (
        "import importlib, sys\n"
        "import agent_tui.ui.app\n"
        "agent_tui.ui.app.AgentApp()  # what making the app imports (its settings' reader)\n"
        f"for name in {READ_AHEAD_MODULES!r}:\n"
        "    before = set(sys.modules)\n"
        "    importlib.import_module(name)\n"
        "    new = [m for m in set(sys.modules) - before if m.startswith('agent_tui')]\n"
        "    print(name, len(new))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    steps = dict(line.split() for line in done.stdout.splitlines())
    packages_with_imports = {"agent_tui.sessions"}
    for name, count in steps.items():
        if not any(name.startswith(f"{package}.") for package in packages_with_imports):
            assert int(count) <= 1, f"importing {name} imported {count} of our modules"


async def test_steps_run_one_per_loop_turn_and_stop_when_told() -> None:
    imports = IdleImports(("json", "tomllib", "shlex", "sqlite3"))
    imports.start()
    await asyncio.sleep(0)  # one turn of the loop: one step
    assert imports.steps == 1
    imports.stop()
    for _ in range(5):
        await asyncio.sleep(0)
    assert imports.steps == 1


async def test_a_module_that_fails_to_import_ends_the_steps_quietly() -> None:
    imports = IdleImports(("json", "agent_tui.no_such_module", "tomllib"))
    imports.start()
    for _ in range(5):
        await asyncio.sleep(0)
    assert imports.steps == 1  # json; then the missing module stopped it, tomllib never tried
