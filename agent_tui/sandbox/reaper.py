"""No process outlives the app (issue 27.4), even after `kill -9`.

Three layers. A sandboxed command runs under `bwrap --die-with-parent --unshare-pid`: when the
app dies the kernel kills bwrap, and with it everything in the command's pid namespace. An
unsandboxed command runs under a guard shell that `setpriv --pdeathsig` ties to the app: when the
app dies the guard gets SIGUSR2 and kills its whole process group (a plain PDEATHSIG would reach
only the direct child; the command's own children would live on). And every command's process
group is recorded in `<data dir>/running/` while it runs: the next start kills what a record names
whose app is gone, removes placeholders a killed sandbox left in the project, and the session's
temporary directory.

PR_SET_PDEATHSIG fires when the *thread* that started the child ends: commands are started from
the event loop's thread, which lives as long as the app.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

# `<&0`: a background job's stdin would be /dev/null otherwise (a hook reads its JSON there)
GUARD = (
    'trap "kill -KILL 0" USR2; "$@" <&0 & wait $!; s=$?; '
    "if [ $s -gt 128 ]; then trap - USR2; kill -$((s - 128)) $$; fi; exit $s"
)


def guarded(argv: list[str]) -> list[str]:
    """`argv` under the guard shell, where `setpriv --pdeathsig` exists (Linux); else as is."""
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    if setpriv is None:
        return argv
    return [setpriv, "--pdeathsig", "USR2", "--", "bash", "-c", GUARD, "agent-tui-guard", *argv]


def start_time(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), to tell it from a reused pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def alive(pid: int, started: str | None) -> bool:
    if Path("/proc").is_dir():
        now = start_time(pid)
        return now is not None and (started is None or now == started)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Records:
    """One file per running command: its process group and what to clean if the app dies."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._n = 0

    def add(
        self,
        pgid: int,
        placeholders: Sequence[tuple[Path, str]] = (),
        dirs: Sequence[Path] = (),
    ) -> Path | None:
        self._n += 1
        me = os.getpid()
        path = self.root / f"{me}-{self._n}.json"
        record = {
            "app_pid": me,
            "app_start": start_time(me),
            "pgid": pgid,
            "start": start_time(pgid),
            "placeholders": [[str(p), kind] for p, kind in placeholders],
            "dirs": [str(d) for d in dirs],
        }
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record), "utf-8")
        except OSError:
            return None  # nothing to fall back on: the other two layers still hold
        return path

    @staticmethod
    def remove(path: Path | None) -> None:
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()


def remove_placeholder(path: Path, kind: str) -> None:
    """Remove a placeholder bubblewrap made, if it is still the empty thing it made."""
    with contextlib.suppress(OSError):
        if kind == "dir" and path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()
        elif (
            kind == "file" and path.is_file() and not path.is_symlink() and not path.stat().st_size
        ):
            path.unlink()


def reap(root: Path) -> list[str]:
    """Clean after apps that died: returns what was done, one line each."""
    done: list[str] = []
    try:
        records = list(root.glob("*.json"))
    except OSError:
        return done
    for path in records:
        try:
            record = json.loads(path.read_text("utf-8"))
            app_pid, pgid = int(record["app_pid"]), int(record["pgid"])
        except (OSError, ValueError, KeyError, TypeError):
            Records.remove(path)
            continue
        if app_pid == os.getpid() or alive(app_pid, record.get("app_start")):
            continue  # its app still runs (another session)
        # Only a group whose leader is still the process recorded (same start time): a group id
        # can be taken again once its processes are gone, and a stranger's is never touched.
        leader = start_time(pgid) if pgid > 0 else None
        if leader is not None and leader == record.get("start"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
                done.append(f"stopped the processes of a command left by a killed session ({pgid})")
        for raw, kind in record.get("placeholders", []):
            remove_placeholder(Path(raw), kind)
        for raw in record.get("dirs", []):
            shutil.rmtree(raw, ignore_errors=True)
        Records.remove(path)
    return done
