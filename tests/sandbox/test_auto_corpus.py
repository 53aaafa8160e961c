"""Issue 28's prompt count: ≥ 40 everyday development commands, decided as the app decides them
in `--sandbox auto` — the default since issue 45 — (the permission engine, then the sandbox's
policy), ask at most twice."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.policy import sandbox_decision

EVERYDAY = [
    "npm test",
    "npm run build",
    "npm install",
    "npx tsc --noEmit",
    "yarn lint",
    "python -m pytest -q",
    "python -m pytest tests/test_api.py -k login -x",
    "pytest --lf",
    "python setup.py build",
    "pip install -e .",
    "ruff check .",
    "ruff format --check .",
    "mypy src",
    "black --check .",
    "make",
    "make test",
    "cargo build",
    "cargo test --all",
    "cargo clippy -- -D warnings",
    "go build ./...",
    "go test ./...",
    "go vet ./...",
    "gradle build",
    "mvn -q test",
    "tsc -p .",
    "eslint src --ext .ts",
    "git status",
    "git diff --stat",
    "git log --oneline -20",
    "git show HEAD",
    "git branch -a",
    "git add -A && git commit -m 'wip'",
    "cat src/app.py | sort | uniq -c",
    "grep -rn TODO src | wc -l",
    "find . -name '*.py' | xargs wc -l",
    "for f in src/*.py; do python -m py_compile $f; done",
    "ls -la build",
    "head -50 README.md",
    "wc -l src/*.py",
    "python scripts/gen.py > generated.txt",
    "mkdir -p out && cp README.md out/",
    "sed -i 's/foo/bar/g' src/app.py",
    "node scripts/build.js",
    "docker build -t app .",
    "rm -rf build",
    "git push origin main",
]


@dataclass
class Auto:
    mode: str = "auto"
    active: bool = True
    transactional: bool = True

    def excluded(self, command: str) -> bool:
        return False


def test_everyday_commands_ask_at_most_twice_in_auto(tmp_path: Path) -> None:
    assert len(EVERYDAY) >= 40
    engine = PermissionEngine(tmp_path)
    asked = []
    for command in EVERYDAY:
        raw = {"command": command}
        d = sandbox_decision(Auto(), raw, engine.check("Bash", raw, read_only=False))
        if d.behavior != "allow":
            asked.append(command)
    # what still asks: the destructive `rm -rf build` (a push reaches its remote through the
    # proxy, which asks for the host)
    assert asked == ["rm -rf build"]
