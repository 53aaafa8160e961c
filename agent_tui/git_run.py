"""The one place the app itself runs git (tests/test_architecture.py checks no other module does).

What the app runs on its own, before anything was approved — the start-up `git status`, the undo
snapshots (`git add -A` into a private index), reading a repository's config for the analyser —
must never run a program the project configured. Two walls, both here:

- every git this module starts gets the `NEUTRAL` settings, which switch off what can be
  switched off from the command line (fsmonitor, hooks, the pager, signing, credential helpers,
  transports, automatic gc);
- what can't be switched off that way (filter drivers named by in-tree `.gitattributes`,
  `include.path`, textconv, …) is the caller's to refuse: `permissions.git_config.
  project_programs` says whether the repository git would find from a folder configures a
  program (the analyser's reading of its config and hooks); callers then don't run git in that
  repository (undo keeps its snapshots in a repository of its own, `checkpoints/shadow.py`).

The user's own ~/.gitconfig and the system's are the person's choice and stay in effect.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

#: settings that keep git from running programs, given before every command
NEUTRAL = (
    "-c", "core.fsmonitor=false",  # a command run on every index refresh
    "-c", "core.hooksPath=/dev/null",  # hooks (post-index-change runs on `git status`)
    "-c", "core.pager=cat",
    "-c", "commit.gpgSign=false",  # commit-tree would run gpg.program
    "-c", "credential.helper=",  # an empty value empties the list
    "-c", "protocol.allow=never",  # no transport (ext:: runs a command)
    "-c", "gc.auto=0",
    "-c", "maintenance.auto=false",
    "--no-pager",
)  # fmt: skip
#: the environment's additions: no prompt for a password, untranslated messages
_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_PAGER": "cat"}


class GitError(RuntimeError):
    pass


def available() -> bool:
    return shutil.which("git") is not None


def _argv(args: tuple[str, ...]) -> list[str]:
    return ["git", *NEUTRAL, *args]


def _env(env: dict[str, str] | None) -> dict[str, str]:
    return {**os.environ, **(env or {}), **_ENV}


def run(
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    check: bool = True,
    stdin: bytes | None = None,
    timeout: float = 60,
) -> bytes:
    """`git ARGS` in `cwd`, neutralised; its stdout. Raises GitError (git missing, a timeout,
    or a failure when `check`)."""
    try:
        done = subprocess.run(
            _argv(args),
            cwd=cwd,
            env=_env(env),
            capture_output=True,
            input=stdin if stdin is not None else b"",
            timeout=timeout,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]}: {exc}") from None
    if check and done.returncode != 0:
        raise GitError(f"git {args[0]}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def popen(cwd: Path, *args: str, env: dict[str, str] | None = None, **kwargs: Any) -> Any:
    """`git ARGS` started in `cwd`, neutralised (a `subprocess.Popen`); stdin is /dev/null
    unless given. Raises OSError when git can't be started."""
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.Popen(_argv(args), cwd=cwd, env=_env(env), **kwargs)
