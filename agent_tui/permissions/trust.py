"""Project trust: a cloned repository's own grants apply only once the person trusts them.

A repository can ship `.agent-tui/settings.toml` (and a `settings.local.toml`) allowing
`Bash(git:*)` or `Bash(rm:*)`. Those grants — allow rules beyond reading — are ignored until the
person trusts the project: the TUI lists exactly what they grant and asks (trust / ignore); a
headless run honours a stored trust or `--trust-project` and otherwise says on stderr what it
ignored. Restrictions (ask and deny rules) always apply: they can only make things safer.

The answer is stored outside the project (`<config dir>/trusted_projects.json`), keyed by the
folder and a hash of the files' contents, so any change to them asks again. The local file is
also where the app saves the person's own "always" answers; content the app wrote there is
recorded as the person's (`own_local`) and needs no trust.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

TRUST_FILE = "trusted_projects.json"
#: files in a project that can grant permissions or start processes (relative to its root)
PROJECT_FILES = (".agent-tui/settings.toml", ".agent-tui/settings.local.toml", ".mcp.json")
LOCAL_FILE = ".agent-tui/settings.local.toml"

State = Literal["trusted", "ignored"]


def file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


@dataclass(frozen=True, slots=True)
class ProjectFiles:
    """The project files that need trust, and one digest over their contents."""

    cwd: Path
    #: relative path -> content hash, for the files present that need trust
    hashes: dict[str, str]

    @property
    def digest(self) -> str:
        blob = json.dumps(sorted(self.hashes.items())).encode()
        return hashlib.sha256(blob).hexdigest()


class TrustStore:
    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def at(cls, config_dir: Path) -> TrustStore:
        return cls(config_dir / TRUST_FILE)

    def _load(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, data: dict[str, dict[str, str]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".trust.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _entry(self, cwd: Path) -> dict[str, str]:
        entry = self._load().get(str(cwd.resolve()), {})
        return entry if isinstance(entry, dict) else {}

    def files(self, cwd: Path) -> ProjectFiles:
        """The project's files that need trust (the person's own local file excluded)."""
        cwd = cwd.resolve()
        own = self._entry(cwd).get("own_local")
        hashes: dict[str, str] = {}
        for rel in PROJECT_FILES:
            h = file_hash(cwd / rel)
            if h is not None and not (rel == LOCAL_FILE and h == own):
                hashes[rel] = h
        return ProjectFiles(cwd, hashes)

    def is_own_local(self, cwd: Path) -> bool:
        h = file_hash(cwd.resolve() / LOCAL_FILE)
        return h is not None and h == self._entry(cwd).get("own_local")

    def state(self, files: ProjectFiles) -> State | None:
        entry = self._entry(files.cwd)
        if entry.get("digest") != files.digest:
            return None
        state = entry.get("state")
        return state if state in ("trusted", "ignored") else None  # type: ignore[return-value]

    def record(self, files: ProjectFiles, state: State) -> None:
        data = self._load()
        entry = data.setdefault(str(files.cwd), {})
        entry.update(digest=files.digest, state=state)
        self._save(data)

    def record_own_local(self, cwd: Path, keep: State | None = None) -> None:
        """The local file now holds what the app wrote for the person: it needs no trust.

        `keep`: the answer in force before the write, recorded again for the new contents (only
        the person's own file changed).
        """
        cwd = cwd.resolve()
        h = file_hash(cwd / LOCAL_FILE)
        if h is None:
            return
        data = self._load()
        data.setdefault(str(cwd), {})["own_local"] = h
        self._save(data)
        if keep is not None:
            self.record(self.files(cwd), keep)
