"""`/command args` in `-p` expands as in the app: the person's commands (ours and Claude Code's,
its skills too), a trusted project's, `$ARGUMENTS` and `$1`; an untrusted project's are not
loaded (and said); another built-in is a usage error; any other `/word` is the prompt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent_tui.slash_commands import BUILT_IN, headless_prompt, load_user_commands


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENT_TUI_OFFLINE_DELAY"] = "0"
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", "-p", *args, "--output-format", "stream-json"],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def sent(done: subprocess.CompletedProcess[str]) -> str:
    starts = [json.loads(x) for x in done.stdout.splitlines() if '"turn_start"' in x]
    return str(starts[0]["prompt"])


def test_a_projects_command_expands_once_trusted(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / ".claude" / "commands" / "fix.md").write_text(
        "---\ndescription: fix an issue\n---\nFix issue #$1 in $ARGUMENTS"
    )
    untrusted = run(["/fix 12 the parser"], tmp_path)
    assert untrusted.returncode == 0, untrusted.stderr
    assert sent(untrusted) == "/fix 12 the parser"
    assert "not loading this project's slash command /fix" in untrusted.stderr
    trusted = run(["/fix 12 the parser", "--trust-project"], tmp_path)
    assert sent(trusted) == "Fix issue #12 in 12 the parser"


def test_the_persons_claude_code_commands_and_skills_expand(tmp_path: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    (claude / "commands").mkdir()
    (claude / "commands" / "review.md").write_text("Review $ARGUMENTS carefully")
    (claude / "skills" / "release").mkdir(parents=True)
    (claude / "skills" / "release" / "SKILL.md").write_text(
        "---\nname: release\ndescription: cut a release\n---\nBump the version, tag it."
    )
    mine = load_user_commands(tmp_path, Path(os.environ["AGENT_TUI_HOME"]), project_trusted=False)
    commands = [*BUILT_IN, *mine]
    assert headless_prompt("/review main.py", commands) == ("Review main.py carefully", None)
    assert headless_prompt("/release", commands) == ("Bump the version, tag it.", None)
    assert sent(run(["/review main.py"], tmp_path)) == "Review main.py carefully"


def test_built_ins_and_other_words() -> None:
    commands = list(BUILT_IN)
    assert headless_prompt("/init", commands)[0].startswith("Please analyse this repository")
    _, problem = headless_prompt("/undo", commands)
    assert problem is not None and "does nothing with -p" in problem
    assert headless_prompt("/etc/hosts has a typo", commands) == ("/etc/hosts has a typo", None)
    assert headless_prompt("/nosuch thing", commands) == ("/nosuch thing", None)


def test_a_screen_command_in_p_is_a_usage_error(tmp_path: Path) -> None:
    done = run(["/undo"], tmp_path)
    assert done.returncode == 2 and "/undo is a command of the app's screen" in done.stderr
