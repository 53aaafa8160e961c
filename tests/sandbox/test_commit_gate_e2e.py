"""Issue 44's proof through the real CLI (`--mode yolo --sandbox on`, the real SDK at the loopback
API), in a work folder off /tmp: every way a sandboxed command could plant code that the
person's own next `git status`, `git checkout -- .` or `.venv/bin/python` runs outside the
sandbox is held at the commit gate — judged by what the command wrote.

Each payload is first fired by bash itself in a copy of the same world, with the person's
follow-up commands, to prove it really plants code there (the oracle); then the same command goes
through agent-tui, the same follow-ups run, and nothing fires.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap
from e2e.test_security_e2e import hostile_model
from sse_server import SSEServer, run_agent_tui

pytestmark = needs_bwrap

GIT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
GIT |= {"GIT_COMMITTER_EMAIL": "t@x"}
ID = "-c user.name=t -c user.email=t@x"
SITE = f".venv/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"


def payloads(marks: Path) -> dict[str, str]:
    """name -> the command that plants it (each makes `marks/NAME` when the planted code runs)."""
    fire = f"touch {marks}/"
    return {
        "commondir": (
            "mkdir -p evil && git init -q --bare evil/repo && "
            f"git --git-dir=evil/repo config core.fsmonitor '{fire}commondir' && "
            "echo ../evil/repo > .git/commondir"
        ),
        "new-nested": f"git init -q sub && git -C sub config core.fsmonitor '{fire}new-nested'",
        "deep-config": f"git -C l1/l2/l3/l4 config core.fsmonitor '{fire}deep-config'",
        "index": (
            "mkdir -p .claude && echo '{\"hooks\": {}}' > .claude/settings.json && "
            "git add -f .claude/settings.json && rm -rf .claude"
        ),
        "commit": (
            "mkdir -p .claude && echo '{\"hooks\": {}}' > .claude/settings.json && "
            f"git add -f .claude/settings.json && git {ID} commit -qm x && "
            "git rm -q --cached -r .claude && rm -rf .claude"
        ),
        "pth": f"echo \"import os; os.system('{fire}pth')\" > {SITE}/evil.pth",
        "sitecustomize": (
            f"echo \"import os; os.system('{fire}sitecustomize')\" > {SITE}/sitecustomize.py"
        ),
        "sub-envrc": "mkdir -p pkg && echo 'echo hi' > pkg/.envrc",
        # R2-3: code the person's tools run later, by place
        "pth-module": (
            f"echo \"import os; os.system('{fire}pth-module')\" >> {SITE}/_hack/__init__.py"
        ),
        "pip-init": f"echo \"import os; os.system('{fire}pip-init')\" >> {SITE}/pip/__init__.py",
        "venv-script": (
            f"printf '#!/bin/sh\\n{fire}venv-script\\n' > .venv/bin/pytest && "
            "chmod +x .venv/bin/pytest"
        ),
        # a new name in the venv's bin/: activated, it comes before the person's own `ls`
        "venv-ls": f"printf '#!/bin/sh\\n{fire}venv-ls\\n' > .venv/bin/ls && chmod +x .venv/bin/ls",
        # written through the person's link .bin/prettier -> ../prettier/bin/prettier.cjs
        "node-bin": (
            "mkdir -p node_modules/.bin && "
            f"printf '#!/bin/sh\\n{fire}node-bin\\n' > node_modules/.bin/prettier && "
            "chmod +x node_modules/.bin/prettier"
        ),
        "node-bin-new": (
            f"printf '#!/bin/sh\\n{fire}node-bin-new\\n' > node_modules/.bin/tsc && "
            "chmod +x node_modules/.bin/tsc"
        ),
        # R2-4: an index entry whose recorded name length makes git check out `.envrc`
        "index-length": (
            f"echo '{fire}index-length' > .envrcXX && git add .envrcXX && "
            "python3 evil_index.py .git/index .envrcXX 6 && "
            "rm .envrcXX"
        ),
        "sub-claude": "mkdir -p pkg/.claude && echo '{}' > pkg/.claude/settings.json",
    }


def bare_payload(marks: Path) -> str:
    """Turns a folder without a `.git` into a git directory whose config runs a program."""
    return (
        "git init -q --bare . && git config core.bare false && "
        f"git config core.worktree \"$PWD\" && git config core.fsmonitor 'touch {marks}/bare'"
    )


def world(root: Path) -> tuple[Path, Path, Path]:
    """A git project with a repository 4 levels down and a virtual environment, a folder that is
    no repository, and the folder the planted code marks."""
    project, plain, marks = root / "project", root / "plain", root / "marks"
    for d in (project, plain, marks, project / "l1" / "l2" / "l3" / "l4"):
        d.mkdir(parents=True, exist_ok=True)
    run = {"check": True, "capture_output": True, "env": {**GIT, "PATH": "/usr/bin:/bin"}}
    subprocess.run(["git", "init", "-q", str(project)], **run)  # type: ignore[call-overload]
    subprocess.run(["git", "init", "-q", str(project / "l1/l2/l3/l4")], **run)  # type: ignore[call-overload]
    (project / "README.md").write_text("# demo\n")
    subprocess.run(["git", "-C", str(project), "add", "README.md"], **run)  # type: ignore[call-overload]
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "one"], **run)  # type: ignore[call-overload]
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")], check=True
    )
    # like setuptools' distutils-precedence.pth: a module every start of the venv's python imports
    (project / SITE / "_hack").mkdir()
    (project / SITE / "_hack" / "__init__.py").write_text("def add_shim(): pass\n")
    (project / SITE / "hack.pth").write_text(
        "import os; enabled = os.environ.get('X', 'local') == 'local'; "
        "enabled and __import__('_hack').add_shim();\n"
    )
    (project / SITE / "pip").mkdir()  # pip's own package (`python -m pip --version` runs it)
    (project / SITE / "pip" / "__init__.py").write_text("")
    (project / SITE / "pip" / "__main__.py").write_text("print('pip 0')\n")
    # the person's node_modules: .bin/prettier links to the package's program
    (project / "node_modules/prettier/bin").mkdir(parents=True)
    program = project / "node_modules/prettier/bin/prettier.cjs"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (project / "node_modules/.bin").mkdir()
    (project / "node_modules/.bin/prettier").symlink_to("../prettier/bin/prettier.cjs")
    (plain / "notes.txt").write_text("notes\n")
    shutil.copy(Path(__file__).with_name("evil_index.py"), project / "evil_index.py")
    return project, plain, marks


def follow_ups(project: Path, plain: Path) -> None:
    """What the person runs later, outside any sandbox."""
    quiet = {"capture_output": True, "env": {**GIT, "PATH": "/usr/bin:/bin"}}
    for where in (project, project / "sub", project / "l1/l2/l3/l4", plain):
        if where.is_dir():
            subprocess.run(["git", "status", "--porcelain"], cwd=where, **quiet)  # type: ignore[call-overload]
    subprocess.run(["git", "checkout", "--", "."], cwd=project, **quiet)  # type: ignore[call-overload]
    subprocess.run([str(project / ".venv/bin/python"), "-c", "pass"], **quiet)  # type: ignore[call-overload]
    python_m_pip = [str(project / ".venv/bin/python"), "-m", "pip", "--version"]
    subprocess.run(python_m_pip, **quiet)  # type: ignore[call-overload]
    activated = {**GIT, "PATH": f"{project}/.venv/bin:/usr/bin:/bin"}
    subprocess.run(["bash", "-c", "ls"], cwd=project, capture_output=True, env=activated)
    programs = [project / ".venv/bin/pytest", *(project / "node_modules/.bin").glob("*")]
    for program in programs:
        if program.exists():
            subprocess.run([str(program)], **quiet)  # type: ignore[call-overload]
    if (project / ".envrc").exists():
        subprocess.run(["bash", str(project / ".envrc")], **quiet)  # type: ignore[call-overload]


def fired(project: Path, marks: Path) -> set[str]:
    found = {p.name for p in marks.iterdir()}
    if (project / ".claude" / "settings.json").exists():
        found.add("checkout-wrote-.claude")
    for rel in ("pkg/.envrc", "pkg/.claude/settings.json"):
        if (project / rel).exists():
            found.add(rel)
    return found


@pytest.fixture
def top() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-gate-", dir="/var/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


EXPECTED = {
    "commondir": {"commondir"},
    "new-nested": {"new-nested"},
    "deep-config": {"deep-config"},
    "index": {"checkout-wrote-.claude"},
    "commit": set(),  # planted in a commit: `git reset --hard` or a checkout of it writes it
    "pth": {"pth"},
    "sitecustomize": {"sitecustomize"},
    "sub-envrc": {"pkg/.envrc"},
    "pth-module": {"pth-module"},
    "pip-init": {"pip-init"},
    "venv-script": {"venv-script"},
    "venv-ls": {"venv-ls"},
    "node-bin": {"node-bin"},
    "node-bin-new": {"node-bin-new"},
    "index-length": {"index-length"},
    "sub-claude": {"pkg/.claude/settings.json"},
}


def _system_sitecustomize(project: Path) -> bool:
    """The venv's Python finds a sitecustomize of the system's before any in site-packages."""
    where = subprocess.run(
        [str(project / ".venv/bin/python"), "-c",
         "import importlib.util as u; s = u.find_spec('sitecustomize'); print(s and s.origin)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    return where not in ("", "None")


def test_each_payload_really_plants_code_when_run_unguarded(top: Path) -> None:
    """The oracle: bash alone, then the person's follow-ups: each payload fires."""
    env = {**GIT, "PATH": "/usr/bin:/bin"}
    for name, expected in EXPECTED.items():
        project, plain, marks = world(top / name)
        if name == "sitecustomize" and _system_sitecustomize(project):
            expected = set()  # Debian's Python imports its own first: a venv's can't run there
        subprocess.run(["bash", "-c", payloads(marks)[name]], cwd=project, env=env, check=True)
        follow_ups(project, plain)
        assert fired(project, marks) >= expected, name
        if name == "commit":
            subprocess.run(["git", "reset", "-q", "--hard"], cwd=project, env=env, check=True)
            assert fired(project, marks) >= {"checkout-wrote-.claude"}
    project, plain, marks = world(top / "bare")
    subprocess.run(["bash", "-c", bare_payload(marks)], cwd=plain, env=env, check=True)
    follow_ups(project, plain)
    assert fired(project, marks) == {"bare"}


async def run_through_agent(
    cwd: Path, home: Path, commands: list[str], env: dict[str, str] | None = None
) -> list[str]:
    """One headless run whose model asks for each command in turn: each tool result's text."""
    calls = [("Bash", {"command": c}) for c in commands]
    async with SSEServer(hostile_model(calls)) as api:
        code, _, err = await run_agent_tui(
            api, cwd, home, "-p", "go", "--mode", "yolo", "--sandbox", "on",
            extra_env={**GIT, **(env or {})},
        )  # fmt: skip
    assert code == 0, err.decode()
    results = [
        json.dumps(b["content"])
        for m in api.requests[-1].json["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert len(results) == len(commands)
    return results


async def test_the_gate_holds_every_payload_and_the_persons_commands_run_nothing(top: Path) -> None:
    project, plain, marks = world(top)
    home = top / "app"
    planted = payloads(marks)
    texts = await run_through_agent(project, home, list(planted.values()))
    results = dict(zip(planted, texts, strict=True))
    [results["bare"]] = await run_through_agent(plain, home, [bare_payload(marks)])
    follow_ups(project, plain)
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=project, capture_output=True)
    assert fired(project, marks) == set(), results
    for name, text in results.items():
        assert "held back" in text, (name, text)
    assert "(git checkout would write it)" in results["index"]
    assert "its new commits hold .claude, .claude/settings.json" in results["commit"]
    assert "a new repository sub/.git/" in results["new-nested"]
    assert "a .pth file runs" in results["pth"]
    assert "makes the project itself a git directory" in results["bare"]
    assert "a module a .pth file of the environment imports" in results["pth-module"]
    assert "pip's own package" in results["pip-init"]
    assert "comes before your commands" in results["venv-ls"]
    assert "node_modules/.bin/prettier runs it" in results["node-bin"]
    assert "a program of node_modules/.bin/" in results["node-bin-new"]
    assert "index now holds" in results["index-length"]
    # what was held waits for the person, listed by the CLI
    listing = subprocess.run(
        [sys.executable, "-m", "agent_tui", "changes", "list", "--all"],
        capture_output=True,
        text=True,
        env={"AGENT_TUI_HOME": str(home), "PATH": "/usr/bin:/bin"},
        cwd=project,
    )
    assert listing.returncode == 0, listing.stderr
    assert len(listing.stdout.strip().splitlines()) == len(results)


async def test_an_ordinary_command_lands_whole(top: Path) -> None:
    project, _, _ = world(top)
    command = (
        "mkdir -p src/pkg && echo 'x = 1' > src/pkg/mod.py && echo more >> README.md && "
        f"git add -A src README.md && git {ID} commit -qm work && echo done"
    )
    [text] = await run_through_agent(project, top / "app", [command])
    assert "held back" not in text, text
    assert (project / "src/pkg/mod.py").read_text() == "x = 1\n"
    log = subprocess.run(["git", "log", "--oneline"], cwd=project, capture_output=True, text=True)
    assert "work" in log.stdout
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=project, capture_output=True
    )
    assert status.stdout == b""  # the index, the commit and the files landed together
    await asyncio.sleep(0)


async def test_a_hooks_folder_the_persons_git_config_names_is_held(top: Path) -> None:
    """The person's ~/.gitconfig sets core.hooksPath to a folder in the project: a hook the
    command writes there runs at the person's next commit (bash shows it), so it is held."""
    person = top / "person"
    person.mkdir(parents=True)
    (person / ".gitconfig").write_text("[core]\n\thooksPath = .githooks\n")
    env = {**GIT, "HOME": str(person), "PATH": "/usr/bin:/bin"}

    def plant(marks: Path) -> str:
        hook = f"#!/bin/sh\\ntouch {marks}/hookspath\\n"
        made = ".githooks/pre-commit"
        return f"mkdir -p .githooks && printf '{hook}' > {made} && chmod +x {made}"

    def commit(project: Path) -> None:
        subprocess.run(
            ["git", "commit", "-q", "--allow-empty", "-m", "mine"], cwd=project, env=env,
            capture_output=True,
        )  # fmt: skip

    oracle, _, marks = world(top / "oracle")
    subprocess.run(["bash", "-c", plant(marks)], cwd=oracle, env=env, check=True)
    commit(oracle)
    assert fired(oracle, marks) == {"hookspath"}  # unguarded, the person's commit runs it
    project, _, marks = world(top / "guarded")
    [text] = await run_through_agent(
        project, top / "app", [plant(marks)], env={"HOME": str(person)}
    )
    assert "held back" in text and ".githooks" in text, text
    commit(project)
    assert fired(project, marks) == set()


async def test_a_stash_held_keeps_what_it_took_from_the_work_tree(top: Path) -> None:
    """F12: `git stash -u` of protected files takes the untracked .venv into the stash; the
    stash is held, and so is the deletion of .venv with it (never half applied)."""
    project, _, marks = world(top)
    (project / "README.md").write_text("# mine, uncommitted\n")
    command = (
        "mkdir -p .claude && echo '{}' > .claude/settings.json && "
        f"echo 'touch {marks}/e' > .envrc && git {ID} stash push -q -u -m wip"
    )
    [text] = await run_through_agent(project, top / "app", [command])
    assert "held back: .git/" in text and "work tree" in text, text
    assert (project / ".venv/bin/python").exists()  # not taken away while its stash is held
    assert (project / "README.md").read_text() == "# mine, uncommitted\n"
    stashes = subprocess.run(["git", "stash", "list"], cwd=project, capture_output=True)
    assert stashes.stdout == b""


def tiny_wheel(where: Path) -> Path:
    """A wheel of one small package, written by hand (no build backend, no network)."""
    files = {
        "tinypkg/__init__.py": "ANSWER = 42\n",
        "tinypkg-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n",
        "tinypkg-0.1.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    for name, text in files.items():
        digest = hashlib.sha256(text.encode()).digest()
        b64 = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        record.append(f"{name},sha256={b64},{len(text.encode())}")
    files["tinypkg-0.1.dist-info/RECORD"] = "\n".join([*record, "tinypkg-0.1.dist-info/RECORD,,"])
    path = where / "tinypkg-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    return path


async def test_everyday_installs_land_and_an_existing_environments_programs_are_held(
    top: Path,
) -> None:
    """Issue 45's dev commands land unasked: a wheel pip-installed into the person's existing
    venv, a new venv, a first node_modules, a package and a build cache in an existing one; only
    a program written into the existing node_modules/.bin is held."""
    project, _, _ = world(top)
    subprocess.run([sys.executable, "-m", "venv", str(project / "env")], check=True)
    wheel = tiny_wheel(project)
    install = f"env/bin/pip install -q --no-index --disable-pip-version-check ./{wheel.name}"
    fresh = f"{sys.executable} -m venv --without-pip fresh"
    first_node = (
        "mkdir -p web/node_modules/lodash web/node_modules/.bin && "
        "echo 'module.exports = 1' > web/node_modules/lodash/index.js && "
        "ln -s ../lodash/index.js web/node_modules/.bin/lodash"
    )
    existing_node = (
        "mkdir -p node_modules/lodash node_modules/.cache && echo 1 > node_modules/lodash/index.js"
        " && echo c > node_modules/.cache/x && rm node_modules/.bin/prettier && "
        "printf '#!/bin/sh\\n' > node_modules/.bin/prettier"
    )
    texts = await run_through_agent(
        project, top / "app", [install, fresh, first_node, existing_node]
    )
    for text in texts[:3]:
        assert "held back" not in text, text
    imported = subprocess.run(
        [str(project / "env/bin/python"), "-c", "import tinypkg; print(tinypkg.ANSWER)"],
        capture_output=True, text=True, cwd=top,
    )  # fmt: skip
    assert imported.stdout == "42\n", imported.stderr
    assert (project / "fresh/pyvenv.cfg").is_file()
    assert subprocess.run([str(project / "fresh/bin/python"), "-c", "pass"]).returncode == 0
    assert (project / "web/node_modules/.bin/lodash").is_symlink()
    assert "held back: node_modules/ (its programs and start-up code: .bin/prettier)" in texts[3]
    assert (project / "node_modules/lodash/index.js").read_text() == "1\n"
    assert (project / "node_modules/.cache/x").read_text() == "c\n"
    assert os.readlink(project / "node_modules/.bin/prettier") == "../prettier/bin/prettier.cjs"
