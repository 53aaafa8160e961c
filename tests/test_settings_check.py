"""Bad values in the person's settings refuse the start with one line naming the file and the
setting — headless and TUI alike — instead of being ignored (`max_cost = "5"` was no cap)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.settings_check import check_environment, check_settings

BAD = [
    ('[limits]\nmax_cost = "5"\n', '[limits] max_cost = "5" is not valid'),
    ("[limits]\nmax_cost = -5\n", "[limits] max_cost = -5 is not valid"),
    ('[limits]\nmax_cost = "lots"\n', '[limits] max_cost = "lots" is not valid'),
    ("[limits]\nmax_cost = 0\n", "[limits] max_cost = 0 is not valid"),
    ("[limits]\nmax_cost = nan\n", "[limits] max_cost = nan is not valid"),
    ("[limits]\nmax_cots = 5\n", "[limits] max_cots is not a setting agent-tui knows"),
    ("limits = 5\n", "[limits] must be a table"),
    ('[model]\nthinking = "yes"\n', '[model] thinking = "yes" is not valid: it must be true or'),
    ("[model]\nthinking_budget = 500\n", "[model] thinking_budget = 500 is not valid"),
    ("[model]\nthinking_budget = 8000.5\n", "[model] thinking_budget = 8000.5 is not valid"),
    ('[context]\ncompaction = "sometimes"\n', '[context] compaction = "sometimes" is not valid'),
    ('[web]\nskip_web_fetch_preflight = "yes"\n', '[web] skip_web_fetch_preflight = "yes" is'),
    ("[web]\nskip_webfetch_preflight = true\n", "[web] skip_webfetch_preflight is not a setting"),
    # a misspelt table is refused like a misspelt key (issue 50: it was silently ignored)
    (
        '[permisions]\nallow = ["Bash(ls:*)"]\n',
        "[permisions] is not a table agent-tui reads (did you mean [permissions]?)",
    ),
    ("[some_other_table]\nanything = 1\n", "[some_other_table] is not a table agent-tui reads"),
]


def run(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        env={**base, "AGENT_TUI_HOME": str(home), "AGENT_TUI_OFFLINE_DELAY": "0", **(env or {})},
        cwd=home,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


@pytest.mark.parametrize(("toml", "said"), BAD)
@pytest.mark.parametrize("mode", ["headless", "tui"])
def test_a_bad_setting_refuses_the_start(tmp_path: Path, toml: str, said: str, mode: str) -> None:
    (tmp_path / "settings.toml").write_text(toml)
    done = run(tmp_path, *(["-p", "hello"] if mode == "headless" else []))
    assert done.returncode == 1 and not done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"agent-tui: {tmp_path / 'settings.toml'}: ")
    assert said in lines[0]


def test_good_settings_start(tmp_path: Path) -> None:
    (tmp_path / "settings.toml").write_text(
        "[limits]\nmax_cost = 5\n[model]\nthinking = false\nthinking_budget = 4096\n"
        '[context]\ncompaction = "client"\n[permissions]\nallow = ["Bash(ls:*)"]\n'
        "[web]\nskip_web_fetch_preflight = true\n"
        '[sandbox]\nmode = "on"\n[ui]\nnotify = false\n'
        '[[hooks.Stop]]\nhooks = [{ type = "command", command = "true" }]\n'
    )
    done = run(tmp_path, "-p", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_bad_environment_values_refuse_the_start(tmp_path: Path) -> None:
    done = run(tmp_path, "-p", "hello", env={"AGENT_TUI_COMPACTION": "never"})
    assert done.returncode == 1
    assert done.stderr.strip() == (
        'agent-tui: AGENT_TUI_COMPACTION=never is not valid: it must be "auto" | "server" | '
        '"client" | "off"'
    )
    assert check_environment({"AGENT_TUI_STALL_TIMEOUT": "soon"}) is not None
    assert check_environment({"AGENT_TUI_STALL_TIMEOUT": "-1"}) is not None
    assert check_environment({"AGENT_TUI_STALL_TIMEOUT": "30"}) is None


def test_the_line_shows_values_as_written() -> None:
    line = check_settings({"limits": {"max_cost": "5"}}, "/x/settings.toml")
    assert line == (
        '/x/settings.toml: [limits] max_cost = "5" is not valid: it must be a number of US '
        "dollars above 0"
    )
    assert check_settings({"limits": {"max_cost": True}}, "f") is not None  # a bool isn't 1
    assert check_settings({"limits": {"max_cost": 0.5}}, "f") is None


def test_settings_that_are_missing_unreadable_or_not_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No file: nothing to refuse, and no TOML parser loaded for it (it runs before the first
    frame). A file that can't be read refuses the start, with why; one that isn't TOML is the
    permissions loader's to report (every tool asks until it is fixed), not this check's."""
    from agent_tui.settings_check import settings_problem

    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
    code = "import sys\nfrom agent_tui.settings_check import settings_problem\n"
    code += "print(settings_problem(), 'tomllib' in sys.modules)\n"
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["None", "False"]
    path = tmp_path / "settings.toml"
    path.mkdir()  # a folder where the file should be: can't be read, even as root
    assert settings_problem() == f"{path}: cannot be read (Is a directory)"
    path.rmdir()
    path.write_text("[limits\nmax_cost = 5\n")
    assert settings_problem() is None


def test_a_projects_misspelt_table_is_warned_about(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".agent-tui").mkdir(parents=True)
    (project / ".agent-tui" / "settings.toml").write_text('[permisions]\nallow = ["Bash(ls:*)"]\n')
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))}
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", "-p", "hello", "--offline"],
        env={**base, "AGENT_TUI_HOME": str(tmp_path / "home"), "AGENT_TUI_OFFLINE_DELAY": "0"},
        cwd=project, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # a project's typo doesn't stop the start
    said = f"{project / '.agent-tui' / 'settings.toml'}: [permisions] is not a table agent-tui"
    assert said in done.stderr and "did you mean [permissions]?" in done.stderr
