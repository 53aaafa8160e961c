"""Running ripgrep for Grep and Glob: the `rg` the `ripgrep` wheel installs beside our Python (a
dependency, so it is always there), else one on PATH. Output is read up to a cap and rg is
stopped there, so a search that matches everything costs what the cap allows, not the tree."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sysconfig
from dataclasses import dataclass
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
    lines: list[str]
    #: rg's exit code: 0 found, 1 nothing found, 2 an error (bad pattern, unreadable path)
    code: int
    error: str
    #: output stopped at MAX_OUTPUT_BYTES
    truncated: bool


async def run_rg(args: list[str], cwd: Path, max_bytes: int = MAX_OUTPUT_BYTES) -> RgResult:
    """Run `rg BASE_ARGS args` in `cwd`, reading at most `max_bytes` of its output; killed if
    the caller is cancelled."""
    proc = await asyncio.create_subprocess_exec(
        rg_path(),
        *BASE_ARGS,
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    chunks: list[bytes] = []
    size = 0
    truncated = False
    try:
        while chunk := await proc.stdout.read(65536):
            chunks.append(chunk)
            size += len(chunk)
            if size >= max_bytes:
                truncated = True
                break
        if truncated:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        error = (await proc.stderr.read(16384)).decode("utf-8", "replace").strip()
        code = await proc.wait()
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        raise
    raw = b"".join(chunks)
    if truncated:  # the last entry may be cut in the middle: end at the last whole one
        raw = raw[: max(raw.rfind(b"\n"), raw.rfind(b"\0")) + 1]
    lines = raw.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return RgResult(lines, 0 if truncated else code, error, truncated)
