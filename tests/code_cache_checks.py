"""What the code caches' tests share (`dataclass_code_cache`, `regex_code_cache`,
`expression_code_cache`): a fresh interpreter, as a start is, that imports the tree under test;
the broken files a start may find and a file another Python wrote; and the check that a cache
stands down on a Python whose functions differ."""

from __future__ import annotations

import dataclasses
import json
import logging
import marshal
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import agent_tui

#: the folder holding the `agent_tui` under test
ROOT = Path(agent_tui.__file__).resolve().parents[1]

only_311 = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="the patch is for CPython 3.11"
)


#: files no start writes (empty, not marshal, cut short): the start that finds one only compiles
broken_files = pytest.mark.parametrize(
    "content",
    [b"", b"not marshal at all", b"\xe3" * 64],
    ids=["empty", "garbage", "truncated"],
)


def as_if_another_python(cache_module: ModuleType, folder: Path) -> tuple[str, int]:
    """Rewrites the file a start left in `folder` as another Python would have written it: the
    same entries, under that Python's stamp (its code is not this one's to run). Returns this
    Python's stamp, and how many entries the file holds."""
    path = folder / cache_module.FILE_NAME
    stamp, written, kept = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps(("2 0.1.0 cpython-312 3.12.1", written, kept)))
    return stamp, len(kept)


#: what `in_the_way` writes where the cache folder would be
IN_THE_WAY = "in the way"


def in_the_way(folder: Path) -> Path:
    """A file where a start's cache folder would be (`folder`/file-not-folder): the folder can't
    be made, and the start must go on compiling and leave the file as it is (`IN_THE_WAY`)."""
    blocked = folder / "file-not-folder"
    blocked.write_text(IN_THE_WAY)
    return blocked


def stamp_of(cache_module: ModuleType, folder: Path) -> str:
    """The stamp of the file in `folder` (what Python wrote it)."""
    stamp: str = marshal.loads((folder / cache_module.FILE_NAME).read_bytes())[0]
    return stamp


def child_env(**changes: str) -> dict[str, str]:
    """The environment of a fresh interpreter that imports this tree's `agent_tui` wherever it
    runs (a worktree may share a virtualenv whose editable install points at another tree)."""
    env = {**os.environ, **changes}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return env


def run_fresh(
    script: str, *args: object, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Any:
    """The last line `script` prints in a fresh interpreter (given `args`), read as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=child_env() if env is None else env,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def stand_down_lines(
    cache_module: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    folder: Path,
) -> list[str]:
    """Installs `cache_module.CACHE` as a new process on a Python whose guarded functions aren't
    the source it was written for: checks that it stands down (every place keeps what it holds,
    nothing is written, saving is no error) and returns the lines it logged."""
    cache = cache_module.CACHE
    targets = dict.fromkeys(cache.patch.targets, 12345)
    monkeypatch.setattr(cache, "patch", dataclasses.replace(cache.patch, targets=targets))
    monkeypatch.setattr(cache, "verdicts", {})
    monkeypatch.setattr(cache, "cache", None)  # as in a new process
    absent = object()
    held = [vars(owner).get(name, absent) for owner, name, _ in cache.places]
    with caplog.at_level(logging.WARNING, logger=cache_module.__name__):
        assert cache.install(folder) is False
    assert [vars(owner).get(name, absent) for owner, name, _ in cache.places] == held
    cache.save_and_stop()  # nothing installed: nothing to save, no error
    assert not (folder / cache_module.FILE_NAME).exists()
    return [r.getMessage() for r in caplog.records]
