"""Project trust: a cloned repository's own grants apply only once the person trusts them.

A repository can ship `.agent-tui/settings.toml` (and a `settings.local.toml`) allowing
`Bash(git:*)` or `Bash(rm:*)`. Those grants — allow rules beyond reading — are ignored until the
person trusts the project: the TUI lists exactly what they grant and asks (trust / ignore); a
headless run honours a stored trust or `--trust-project` and otherwise says on stderr what it
ignored. Restrictions (ask and deny rules) always apply: they can only make things safer.

The answer is stored outside the project (`<config dir>/trusted_projects.json`), keyed by the
folder and a hash of the files' contents, so any change to them asks again. The local file is
also where the app saves the person's own "always" answers: the rules the app wrote there are
recorded as the person's (`own_rules`) and need no trust; when the app changes the file, the
answer in force is recorded again for the new contents.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

TRUST_FILE = "trusted_projects.json"
#: files in a project that can grant permissions or start processes (relative to its root): ours
#: and Claude Code's settings, and its MCP servers
PROJECT_FILES = (
    ".agent-tui/settings.toml",
    ".agent-tui/settings.local.toml",
    ".mcp.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
)
#: folders of files that shape the agent (what it is told, what it may be asked to do): Claude
#: Code's sub-agent types, slash commands and skills, as (folder, pattern, what each one is)
SHAPING_FILES = (
    (".claude/agents", "*.md", "sub-agent type"),
    (".claude/commands", "**/*.md", "slash command"),
    (".claude/skills", "*/SKILL.md", "skill"),
)
#: `ProjectFiles.digest` of a project without any of them: sha256 of "[]", written out so that a
#: start in such a project (most) doesn't load `hashlib` for it (2 ms, issue 34)
EMPTY_DIGEST = "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"

State = Literal["trusted", "ignored"]


def file_hash(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    import hashlib  # at first use: `hashlib` is 2 ms of every start (issue 34)

    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class ProjectFiles:
    """The project files that need trust, and one digest over their contents."""

    cwd: Path
    #: relative path -> content hash, for the files present that need trust
    hashes: dict[str, str]

    @property
    def digest(self) -> str:
        if not self.hashes:
            return EMPTY_DIGEST
        import hashlib

        blob = json.dumps(sorted(self.hashes.items())).encode()
        return hashlib.sha256(blob).hexdigest()


def shaping_files(cwd: Path) -> list[tuple[str, str]]:
    """(path relative to `cwd`, what it is) for each file in `SHAPING_FILES`' folders."""
    if not (cwd / ".claude").is_dir():
        return []
    found = []
    for folder, pattern, what in SHAPING_FILES:
        root = cwd / folder
        for path in sorted(root.glob(pattern)) if root.is_dir() else ():
            if path.is_file():
                found.append((path.relative_to(cwd).as_posix(), what))
    return found


def describe_shaping(cwd: Path) -> tuple[str, ...]:
    """The trust dialog's lines for the agent-shaping files: "slash command /deploy (…)"."""
    lines = []
    for rel, what in shaping_files(cwd):
        parts = Path(rel).parts
        if what == "skill":
            name = parts[-2]
        elif what == "slash command":
            name = "/" + ":".join(Path(*parts[2:]).with_suffix("").parts)
        else:
            name = Path(rel).stem
        lines.append(f"{what} {name} ({rel})")
    return tuple(lines)


@dataclass
class ProjectTrust:
    """The project's trust as the engine holds it: the store that records it, the files it covers,
    and the answer for them (None: not given for their present contents)."""

    store: TrustStore
    files: ProjectFiles
    state: State | None


class TrustSubject(Protocol):
    """Something from outside the project that waits at the same gate (a plugin): the lines the
    trust dialog lists for it while it waits (none: nothing to ask), and what the person's
    answer does (recorded with `TrustStore.record_subject`)."""

    @property
    def waiting(self) -> tuple[str, ...]: ...

    def decide(self, trusted: bool) -> None: ...


class TrustStore:
    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def at(cls, config_dir: Path) -> TrustStore:
        return cls(config_dir / TRUST_FILE)

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, data: dict[str, dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".trust.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _entry(self, cwd: Path) -> dict[str, Any]:
        entry = self._load().get(str(cwd.resolve()), {})
        return entry if isinstance(entry, dict) else {}

    def files(self, cwd: Path) -> ProjectFiles:
        cwd = cwd.resolve()
        names = [*PROJECT_FILES, *(rel for rel, _what in shaping_files(cwd))]
        hashes = {rel: h for rel in names if (h := file_hash(cwd / rel)) is not None}
        return ProjectFiles(cwd, hashes)

    def own_rules(self, cwd: Path) -> frozenset[str]:
        rules: object = self._load().get(str(cwd.resolve()), {}).get("own_rules", [])
        return (
            frozenset(r for r in rules if isinstance(r, str))
            if isinstance(rules, list)
            else frozenset()
        )

    def state(self, files: ProjectFiles) -> State | None:
        return self.subject_state(str(files.cwd.resolve()), files.digest)

    def record(self, files: ProjectFiles, state: State) -> None:
        self.record_subject(str(files.cwd), files.digest, state)

    def subject_state(self, key: str, digest: str) -> State | None:
        """The answer recorded for `key` (a project's folder, `plugin:/its/folder`) when its
        contents were `digest`; None: not answered for these contents."""
        entry = self._load().get(key, {})
        if not isinstance(entry, dict) or entry.get("digest") != digest:
            return None
        state = entry.get("state")
        if state == "trusted":
            return "trusted"
        return "ignored" if state == "ignored" else None

    def record_subject(self, key: str, digest: str, state: State) -> None:
        data = self._load()
        entry = data.setdefault(key, {})
        entry.update(digest=digest, state=state)
        self._save(data)

    def record_own_rules(self, cwd: Path, rules: tuple[str, ...], keep: State | None) -> None:
        """The app wrote `rules` to the local file for the person: they need no trust, and the
        answer in force (`keep`) is recorded again for the file's new contents."""
        cwd = cwd.resolve()
        data = self._load()
        entry = data.setdefault(str(cwd), {})
        kept = entry.get("own_rules")
        own: list[str] = [r for r in kept if isinstance(r, str)] if isinstance(kept, list) else []
        entry["own_rules"] = list(dict.fromkeys([*own, *rules]))
        if keep is not None:
            entry.update(digest=self.files(cwd).digest, state=keep)
        self._save(data)
