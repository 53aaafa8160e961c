"""Bash as the oracle for the analyser where no sandbox runs (issue 46): a project in a scratch
folder, a folder outside it that a payload marks, and the engine given an allow rule for every
command the command line names (so a command is judged under its own rules, the strongest case).

`fires(command)` runs the command in a real bash, unguarded, and says whether anything appeared
(or changed) outside the project; `leaks(command)` whether a secret kept outside reached its
output. Whenever either is true, no engine may allow the command.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path

from permissions.test_bash_oracle import engines

from agent_tui.permissions.shell import analyze

BASH = shutil.which("bash") or "bash"
#: what a leak looks like: the secret's name and its contents
SECRET = "tok-5c1e7"


_GIT = ("git", "-c", "user.email=a@b", "-c", "user.name=a", "-c", "protocol.file.allow=always")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        [*_GIT, *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env=env(cwd),
    )


def env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C"}


class Project:
    """`work/` (a git repository with `f`, `README.md` and a link `link -> ../outside`),
    `outside/` (what a payload marks), `secrets/` (what a read must not reach unasked)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.work, self.outside, self.secrets = root / "work", root / "outside", root / "secrets"
        self.reset()

    def reset(self) -> None:
        for d in (self.work, self.outside, self.secrets):
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
        (self.work / "f").write_text("a\nb\n")
        (self.work / "README.md").write_text("# x\n")
        (self.secrets / SECRET).write_text(SECRET + "\n")
        git("init", "-q", ".", cwd=self.work)
        git("add", "-A", cwd=self.work)
        git("commit", "-qm", "x", cwd=self.work)
        (self.work / "link").symlink_to("../outside")
        (self.work / "peek").symlink_to(f"../secrets/{SECRET}")

    def spell(self, command: str) -> str:
        """OUT is the outside folder's path, SEC the secrets' folder."""
        return command.replace("OUT", str(self.outside)).replace("SEC", str(self.secrets))

    def run(self, command: str) -> str:
        proc = subprocess.Popen(
            [BASH, "-c", command],
            cwd=self.work,
            env=env(self.outside),  # `~` is outside too
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        return out.decode("utf-8", "replace")

    def fires(self, command: str) -> bool:
        """Running `command` unguarded changes something outside the project."""
        before = _listing(self.outside)
        self.run(command)
        return _listing(self.outside) != before

    def leaks(self, command: str) -> bool:
        """Running `command` unguarded prints the secret kept outside the project."""
        return SECRET in self.run(command)


def _listing(folder: Path) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            st = os.lstat(os.path.join(dirpath, name))
            out.append((os.path.join(dirpath, name), st.st_size, st.st_mtime_ns))
    return sorted(out)


def own_rules(command: str) -> tuple[str, ...]:
    """`Bash(NAME:*)` for every command (and wrapper) the command line names."""
    names: list[str] = []
    for part in analyze(command).parts:
        for argv in (part.argv, *part.outer):
            if argv and argv[0]:
                names.append(os.path.basename(argv[0]))
    return tuple(dict.fromkeys(f"Bash({n}:*)" for n in names))


def allowed_by(work: Path, command: str) -> str | None:
    """The first engine (with or without the command's own rules) that allows it, or None."""
    for engine in engines(work, own_rules(command)):
        d = engine.check("Bash", {"command": command}, read_only=False)
        if d.behavior == "allow":
            return f"{engine.mode}, {len(engine.rules)} rules: {d.reason}"
    return None
