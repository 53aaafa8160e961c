"""Running ripgrep for Grep and Glob: the `rg` the `ripgrep` wheel installs beside our Python (a
dependency, so it is always there), else one on PATH. Output is read up to a cap and rg is
stopped there, so a search that matches everything costs what the cap allows, not the tree."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sysconfig
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

#: bytes of rg output read before it is stopped
MAX_OUTPUT_BYTES = 4_000_000
#: the same for lists of file names: past ~20k names the count is "more" and rg can stop early
MAX_NAMES_BYTES = 1_000_000
#: rg options every search starts with: no user config, no colour, hidden files (but not .git)
BASE_ARGS = ("--no-config", "--color=never", "--hidden", "--glob=!.git")


class RipgrepMissing(RuntimeError):
    pass


@cache
def rg_path() -> str:
    scripts = Path(sysconfig.get_path("scripts")) / ("rg.exe" if os.name == "nt" else "rg")
    if scripts.is_file():
        return str(scripts)
    found = shutil.which("rg")
    if found:
        return found
    raise RipgrepMissing(
        "ripgrep (rg) is not installed: reinstall agent-tui (its `ripgrep` dependency ships rg)"
    )


@dataclass(slots=True)
class RgResult:
    """What rg printed, as read: `raw` ends at its last whole entry, each entry ended by `sep`
    (b"\n" for lines, b"\0" for file names printed with `--null`). Entries are counted in the
    bytes and decoded only as they are taken (`entries`), so a search that matches 100k lines
    costs a count for the ones a result never shows."""

    raw: bytes
    sep: bytes
    #: rg's exit code: 0 found, 1 nothing found, 2 an error (bad pattern, unreadable path)
    code: int
    error: str
    #: output stopped at the byte cap (so there are more entries than `count`)
    truncated: bool
    #: how many entries were read
    count: int = field(init=False)

    def __post_init__(self) -> None:
        self.count = self.raw.count(self.sep)

    def entries(self, start: int = 0) -> Iterator[str]:
        """The entries from the `start`-th on, decoded, in rg's order."""
        raw, sep = self.raw, self.sep
        at = 0
        for _ in range(start):
            at = raw.find(sep, at) + 1
            if at == 0:
                return
        while (end := raw.find(sep, at)) >= 0:
            yield raw[at:end].decode("utf-8", "replace")
            at = end + 1


#: what is told of each piece of output as it arrives: the whole entries in it, undecoded
OnEntries = Callable[[list[bytes]], None]


async def run_rg(
    args: list[str],
    cwd: Path,
    max_bytes: int = MAX_OUTPUT_BYTES,
    *,
    sep: bytes = b"\n",
    on_entries: OnEntries | None = None,
) -> RgResult:
    """Run `rg BASE_ARGS args` in `cwd`, reading at most `max_bytes` of its output (entries
    ended by `sep`), each piece's whole entries handed to `on_entries` as it arrives (while rg
    still searches, in the thread that reads); killed if the caller is cancelled.

    rg is started, read and waited for in a worker thread with blocking reads: rg writes its
    output in pieces of a few KB, and an event loop woken for each (its pipe transport, the
    child watcher's own thread for every process) cost as much as the search of a small tree."""
    search = _Search([rg_path(), *BASE_ARGS, *args], cwd, max_bytes, sep, on_entries)
    try:
        return await asyncio.to_thread(search.run)
    except BaseException:  # cancelled: rg stops, and the thread with it
        search.stop()
        raise


class _Search:
    """One rg process, run to its end (or to the byte cap) by `run`; `stop` kills it from
    another thread, before or after it started."""

    def __init__(
        self, argv: list[str], cwd: Path, cap: int, sep: bytes, on_entries: OnEntries | None
    ) -> None:
        self.argv, self.cwd, self.cap, self.sep, self.on_entries = argv, cwd, cap, sep, on_entries
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopped = False

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._proc is not None:
                _kill(self._proc)

    def run(self) -> RgResult:
        with tempfile.TemporaryFile() as errors:  # (a pipe left unread could fill and block rg)
            with self._lock:
                if self._stopped:  # the caller is gone already
                    return RgResult(b"", self.sep, 1, "", False)
                proc = self._proc = subprocess.Popen(
                    self.argv,
                    cwd=self.cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                )
            assert proc.stdout is not None
            try:
                raw, truncated = self._read(proc)
            except BaseException:
                _kill(proc)
                raise
            finally:
                code = proc.wait()
                proc.stdout.close()
            errors.seek(0)
            error = errors.read(16384).decode("utf-8", "replace").strip()
        return RgResult(raw, self.sep, 0 if truncated else code, error, truncated)

    def _read(self, proc: subprocess.Popen[bytes]) -> tuple[bytes, bool]:
        assert proc.stdout is not None
        fd, sep, on_entries = proc.stdout.fileno(), self.sep, self.on_entries
        chunks: list[bytes] = []
        size = 0
        partial = b""  # the end of the last piece: an entry not whole yet
        while chunk := os.read(fd, 262144):
            chunks.append(chunk)
            size += len(chunk)
            if on_entries is not None:
                *whole, partial = (partial + chunk).split(sep)
                if whole:
                    on_entries(whole)
            if size >= self.cap:
                _kill(proc)  # enough: what it found so far is the result, said as "more"
                raw = b"".join(chunks)
                return raw[: raw.rfind(sep) + 1], True  # the last entry whole, or none
        raw = b"".join(chunks)
        if raw and not raw.endswith(sep):  # (rg ends every entry; a last one without, whole)
            raw += sep
            if on_entries is not None:
                on_entries([partial])
        return raw, False


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
