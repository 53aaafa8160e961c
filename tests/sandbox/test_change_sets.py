"""A command's change set, read from a real overlay (bubblewrap's, as commands get it): each kind
of change, what the person did meanwhile, and the gate's verdict on the protected ones."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap

from agent_tui.sandbox.bwrap import BwrapBackend
from agent_tui.sandbox.changes import Change
from agent_tui.sandbox.gate import judge
from agent_tui.sandbox.transaction import Transaction, held_sets, remove_folder

pytestmark = needs_bwrap


def run_in_overlay(txn: Transaction, command: str, *, during: str = "") -> None:
    """`command` run by bash in `txn`'s overlay (the person's `during` run at the same time,
    outside, between the command's two halves: `command` may hold `WAIT`)."""
    backend = BwrapBackend()
    assert backend.availability().ok
    path = backend.path
    assert path is not None
    gate = txn.folder / "go"
    script = command.replace("WAIT", f"while [ ! -e {gate}/x ]; do sleep 0.01; done")
    args = [path, "--unshare-user", "--unshare-pid", "--die-with-parent"]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *txn.arguments()]
    args += ["--bind", str(txn.folder), str(txn.folder), "--chdir", str(txn.lower)]
    gate.mkdir()
    proc = subprocess.Popen([*args, "bash", "-c", script])
    if during:
        subprocess.run(["bash", "-c", during], cwd=txn.lower, check=True)
    (gate / "x").touch()
    assert proc.wait(30) == 0
    shutil.rmtree(gate)


@pytest.fixture
def project() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-cs-", dir="/var/tmp"))
    (root / "p").mkdir()
    try:
        yield root / "p"
    finally:
        remove_folder(root)


def changes_of(project: Path, command: str, during: str = "") -> tuple[Transaction, list[Change]]:
    txn = Transaction.begin(project.parent / "changes", project, command)
    run_in_overlay(txn, command, during=during)
    return txn, txn.changes()


def test_each_kind_of_change_is_read_from_the_upper_directory(project: Path) -> None:
    (project / "kept.txt").write_text("same\n")
    (project / "edit.txt").write_text("a\n")
    (project / "gone.txt").write_text("x\n")
    (project / "tree").mkdir()
    (project / "tree" / "old.txt").write_text("old\n")
    (project / "moved.txt").write_text("m\n")
    command = (
        "echo b >> edit.txt; echo new > new.txt; rm gone.txt; rm -rf tree; mkdir tree; "
        "echo fresh > tree/fresh.txt; mv moved.txt renamed.txt; ln -s new.txt link; "
        "mkfifo pipe; exec 3>>kept.txt; exec 3>&-; chmod +x new.txt"
    )
    txn, changes = changes_of(project, command)
    by = {c.rel: c for c in changes}
    assert by["edit.txt"].kind == "file" and by["edit.txt"].action == "changed"
    assert by["new.txt"].created and by["new.txt"].upper is not None
    assert os.access(by["new.txt"].upper, os.X_OK)
    assert by["gone.txt"].kind == "delete" and by["gone.txt"].below == "file"
    assert by["tree"].kind == "dir" and by["tree"].opaque  # removed and made again
    assert by["tree/old.txt"].kind == "delete"  # what the old folder held goes with it
    assert by["tree/fresh.txt"].created
    assert by["moved.txt"].kind == "delete" and by["renamed.txt"].created
    assert by["link"].kind == "link"
    assert by["pipe"].kind == "special"
    # opened for writing, nothing written: copied up, and known to be the same
    assert "kept.txt" not in by or by["kept.txt"].same
    assert not any(c.conflict for c in changes)
    verdict = judge(changes, project, txn.upper)
    assert [c.rel for c, _ in verdict.skipped] == ["pipe"]
    assert not verdict.protected


def test_what_the_person_writes_meanwhile_is_not_the_commands(project: Path) -> None:
    (project / "both.txt").write_text("start\n")
    (project / "theirs.txt").write_text("start\n")
    command = "echo agent > agent_out.txt; echo agent >> both.txt; WAIT; rm -f theirs.txt"
    # the person, in another terminal, while the command runs
    during = "echo mine > person.txt; echo mine > both.txt; echo mine >> theirs.txt"
    _, changes = changes_of(project, command, during=during)
    by = {c.rel: c for c in changes}
    assert "person.txt" not in by  # never the command's
    assert not by["agent_out.txt"].conflict
    assert by["both.txt"].conflict  # both changed it: the person's is never overwritten unasked
    assert by["theirs.txt"].kind == "delete" and by["theirs.txt"].conflict


@pytest.mark.parametrize(
    "command, expected",
    [
        ("echo x > .envrc", "direnv"),
        ("mkdir -p a/b && echo x > a/b/.envrc", "direnv"),
        ("mkdir -p a/.claude && echo {} > a/.claude/settings.json", ".claude"),
        ("mkdir -p .vscode && echo {} > .vscode/tasks.json", ".vscode"),
        ("echo x > .mcp.json", "MCP"),
        ("mkdir -p x/site-packages && echo 'import os' > x/site-packages/a.pth", ".pth"),
        ("mkdir -p lib/dist-packages && echo 'import os' > lib/dist-packages/a.pth", ".pth"),
        ("echo 'import os' > sitecustomize.pyc", "start-up"),
        ("mkdir -p usercustomize && echo x > usercustomize/__init__.py", "start-up"),
        ("echo 'gitdir: /elsewhere' > sub.git", "git"),
        ("mkdir -p s && echo 'gitdir: ../elsewhere' > s/.git", "points git"),
        ("echo 'home = /x' > pyvenv.cfg", "virtual environment"),
        ("mkdir -p GIT~1 && echo x > GIT~1/config", "git"),
        # R2-3: what a tool runs whatever was there before, at any depth
        ("mkdir -p a/vendor/bin && echo x > a/vendor/bin/phpunit", "composer"),
        ("mkdir -p .yarn/releases && echo x > .yarn/releases/yarn.cjs", "yarn"),
        ("mkdir -p w/.yarn/plugins && echo x > w/.yarn/plugins/p.cjs", "yarn"),
        ("mkdir -p n/__pypackages__ && echo 'import os' > n/__pypackages__/x.pth", ".pth"),
        # F15: which program a toolchain runs
        *[
            (f"mkdir -p d && echo x > d/{n}", "toolchain")
            for n in (
                ".tool-versions",
                ".python-version",
                ".node-version",
                ".nvmrc",
                "global.json",
                ".ruby-version",
                ".sdkmanrc",
                ".bazelversion",
            )
        ],
        ("echo x > bunfig.toml", "preload"),
        *[
            (f"mkdir -p d && echo x > d/{n}", "mise")
            for n in ("mise.toml", ".mise.toml", "mise.dev.toml")
        ],
        ("mkdir -p .mise/tasks && echo x > .mise/tasks/t", "mise"),
        # F26: dotenv files and other tools' configuration
        *[
            (f"mkdir -p d && echo LD_PRELOAD=x > d/{n}", "LD_PRELOAD")
            for n in (".env", ".env.local", ".env.production")
        ],
        *[
            (f"mkdir -p d/{n} && echo x > d/{n}/mcp.json", n)
            for n in (".amazonq", ".kiro", ".continue", ".windsurf", ".junie", ".idea")
        ],
        ("mkdir -p .github/hooks && echo x > .github/hooks/h.json", "Copilot"),
        ("echo x > .pdbrc", "pdb"),
        # R4-3: what runs in a tool's place from the folder it starts in
        ("mkdir -p pip && echo x > pip/__main__.py", "python -m"),
        ("echo x > venv.py", "python -m"),
        ("echo 'all: ; touch x' > GNUmakefile", "Makefile's place"),
        ("mkdir -p .bundle && echo x > .bundle/config", "bundler"),
        ("echo x > .lfsconfig", "git-lfs"),
        ("echo 'require: ./x' > .rubocop.yml", "rubocop"),
        # R3-5: what a tool runs from the folder it starts in
        *[
            (f"mkdir -p d && echo x > d/{n}", why)
            for n, why in (
                (".irbrc", "irb"),
                (".pryrc", "pry"),
                (".Rprofile", "R runs"),
                (".octaverc", "Octave"),
                (".pylintrc", "init-hook"),
                ("pylintrc", "init-hook"),
                (".pnpmfile.cjs", "pnpm"),
                ("gradle.properties", "javaagent"),
                (".jvmopts", "sbt"),
                (".sbtopts", "sbt"),
            )
        ],
        ("mkdir -p .mvn && echo -javaagent:x.jar > .mvn/jvm.config", "Maven"),
        *[
            (f"mkdir -p sub/.hg && echo x > sub/.hg/{n}", "Mercurial")
            for n in ("hgrc", "hgrc-not-shared", "sharedpath")
        ],
    ],
)
def test_the_gate_holds_protected_names_at_any_depth(
    project: Path, command: str, expected: str
) -> None:
    txn, changes = changes_of(project, command)
    verdict = judge(changes, project, txn.upper)
    assert verdict.protected, changes
    assert any(expected in unit.why for unit in verdict.protected), verdict.protected


def test_a_shell_start_up_file_in_a_sub_folder_is_no_concern_outside_home(project: Path) -> None:
    txn, changes = changes_of(project, "mkdir -p docs && echo '# sample' > docs/.bashrc")
    assert not judge(changes, project, txn.upper).protected
    assert judge(changes, project, txn.upper, home_root=True).protected


def git(project: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@x", "PATH": os.environ["PATH"]}
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, env=env)


def test_a_repositorys_everyday_writes_are_free_and_land_together(project: Path) -> None:
    git(project, "init", "-q")
    (project / "a.txt").write_text("a\n")
    git(project, "add", "a.txt")
    git(project, "commit", "-qm", "one")
    ident = "-c user.name=t -c user.email=t@x"
    command = f"echo b >> a.txt && git add a.txt && git {ident} commit -qm two && git {ident} gc -q"
    txn, changes = changes_of(project, command)
    verdict = judge(changes, project, txn.upper)
    assert not verdict.protected, verdict.protected
    assert any(c.rel.startswith(".git/objects/") for c in verdict.free)


@pytest.mark.parametrize(
    "command, expected",
    [
        ("git config core.fsmonitor 'touch /x'", "git's internals (.git/config)"),
        ("echo '#!/bin/sh' > .git/hooks/pre-commit", "git's internals (.git/hooks"),
        ("echo /elsewhere > .git/objects/info/alternates", "objects from elsewhere"),
        ("mkdir -p .git/worktrees/w && echo x > .git/worktrees/w/gitdir", "git's internals"),
        ("echo ../x > .git/commondir", "git's internals (.git/commondir)"),
        ("rm -rf .git", "deletes the repository .git/"),
        ("rm -rf .git/objects", "git's history"),
        ("rm -f .git/hooks/* .git/config", "it deletes .git/config"),
        (
            "git init -q sub && git -C sub config core.pager 'touch /x'",
            "a new repository sub/.git/",
        ),
        ("mkdir -p .claude && echo {} > .claude/x.json && git add -f .claude", "index now holds"),
    ],
)
def test_git_internals_and_what_they_would_bring_are_held(
    project: Path, command: str, expected: str
) -> None:
    git(project, "init", "-q")
    (project / "a.txt").write_text("a\n")
    git(project, "add", "a.txt")
    git(project, "commit", "-qm", "one")
    txn, changes = changes_of(project, command)
    verdict = judge(changes, project, txn.upper)
    assert any(expected in unit.why for unit in verdict.protected), (verdict.protected, changes)


def test_a_clone_that_runs_nothing_is_free(project: Path) -> None:
    src = project.parent / "src"
    src.mkdir()
    git(src, "init", "-q")
    (src / "r.txt").write_text("r\n")
    git(src, "add", "r.txt")
    git(src, "commit", "-qm", "r")
    txn, changes = changes_of(project, f"git clone -q {src} vendor/src")
    verdict = judge(changes, project, txn.upper)
    assert not verdict.protected, verdict.protected
    assert any(c.rel == "vendor/src/r.txt" for c in verdict.free)


def test_a_new_virtual_environment_is_free_but_a_changed_one_is_not(project: Path) -> None:
    txn, changes = changes_of(project, f"{sys.executable} -m venv --without-pip .venv")
    # its python is a link to this Python (one the sandbox shows: it hands nothing new)
    verdict = judge(changes, project, txn.upper, visible=lambda p: True)
    assert not verdict.protected, verdict.protected
    assert any(c.rel == ".venv/pyvenv.cfg" for c in verdict.free)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")])
    txn, changes = changes_of(project, "echo 'home = /project/evil' > .venv/pyvenv.cfg")
    [unit] = judge(changes, project, txn.upper).protected
    assert unit.environment == ".venv" and "which Python runs" in unit.why


#: setuptools' distutils-precedence.pth, as a venv's pip install of setuptools writes it
DISTUTILS_PTH = (
    "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == "
    "'local'; enabled and __import__('_distutils_hack').add_shim(); \n"
)


def existing_venv(project: Path) -> Path:
    """A virtual environment the person made, with a module its .pth imports by `__import__`:
    its site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")])
    (site,) = (project / ".venv/lib").glob("python*/site-packages")
    (site / "distutils-precedence.pth").write_text(DISTUTILS_PTH)
    (site / "_distutils_hack").mkdir()
    (site / "_distutils_hack/__init__.py").write_text("def add_shim(): pass\n")
    return site


@pytest.mark.parametrize(
    "command",
    [
        "echo 'import os' >> SITE/_distutils_hack/__init__.py",  # what the .pth imports
        "mkdir -p SITE/pip && echo x > SITE/pip/__init__.py",  # `pip --version` runs it
        "echo '#!/bin/sh' > .venv/bin/ls && chmod +x .venv/bin/ls",  # before your ls, activated
        "rm .venv/bin/python && echo x > .venv/bin/python",
        "echo 'import os' > SITE/new.pth",
        "echo x > SITE/sitecustomize.py",
        # where it finds its packages, or the environment itself, made a link to the project's
        "rm -rf SITE && mkdir -p evil && ln -s $PWD/evil SITE",
        "rm -rf .venv && mkdir -p evil && ln -s evil .venv",
        # R4-2: configuration its tools read
        "printf '[global]\\nindex-url = https://evil.example/simple\\n' > .venv/pip.conf",
        "mkdir -p .venv/etc/jupyter && echo 'c = 1' > .venv/etc/jupyter/jupyter_config.py",
        "mkdir -p .venv/share/jupyter/kernels/python3"
        ' && echo \'{"argv": ["/bin/sh"]}\' > .venv/share/jupyter/kernels/python3/kernel.json',
    ],
)
def test_an_existing_environments_programs_and_start_up_code_are_held(
    project: Path, command: str
) -> None:
    site = existing_venv(project)
    command = command.replace("SITE", str(site.relative_to(project)))
    txn, changes = changes_of(project, command)
    verdict = judge(changes, project, txn.upper)
    [unit] = verdict.protected
    assert unit.environment == ".venv", unit
    assert not [c for c in verdict.free if c.kind not in ("dir", "delete")], verdict.free


def test_what_an_install_adds_to_an_existing_environment_lands(project: Path) -> None:
    site = existing_venv(project)
    rel = site.relative_to(project)
    command = (
        f"mkdir -p {rel}/tinypkg {rel}/tinypkg-0.1.dist-info && echo 'x = 1' > "
        f"{rel}/tinypkg/__init__.py && echo 'Name: tinypkg' > {rel}/tinypkg-0.1.dist-info/METADATA"
        f" && echo '# more' >> {rel}/_distutils_hack_extra.py"
    )
    txn, changes = changes_of(project, command)
    verdict = judge(changes, project, txn.upper)
    assert not verdict.protected, verdict.protected
    assert f"{rel}/tinypkg/__init__.py" in {c.rel for c in verdict.free}


def test_node_modules_a_first_install_lands_an_existing_ones_programs_are_held(
    project: Path,
) -> None:
    make = (
        "mkdir -p node_modules/.bin node_modules/prettier/bin node_modules/lodash && "
        "echo x > node_modules/prettier/bin/prettier.cjs && echo x > node_modules/lodash/index.js"
        " && ln -s ../prettier/bin/prettier.cjs node_modules/.bin/prettier && mkdir -p "
        "node_modules/shimmed && echo x > node_modules/shimmed/cli.js && echo 'exec node "
        '"$basedir/../shimmed/cli.js" "$@"\' > node_modules/.bin/shimmed'  # pnpm's shims
    )
    txn, changes = changes_of(project, make)
    assert not judge(changes, project, txn.upper).protected  # a first `npm install`
    subprocess.run(["bash", "-c", make], cwd=project, check=True)
    command = (
        "echo y > node_modules/lodash/index.js && mkdir -p node_modules/.cache/babel "
        "node_modules/.vite/deps node_modules/left-pad && echo c > node_modules/.cache/babel/x && "
        "echo d > node_modules/.vite/deps/d.js && echo p > node_modules/left-pad/index.js && "
        "rm node_modules/.bin/prettier && echo '#!/bin/sh' > node_modules/.bin/prettier && "
        "echo z > node_modules/.bin/eslint && echo t >> node_modules/prettier/bin/prettier.cjs"
        " && echo t >> node_modules/shimmed/cli.js"
    )
    txn, changes = changes_of(project, command)
    verdict = judge(changes, project, txn.upper)
    [unit] = verdict.protected
    assert unit.environment == "node_modules"
    held = {c.rel for c in unit.changes if c.kind != "dir"}
    assert held == {
        "node_modules/.bin/prettier",
        "node_modules/.bin/eslint",
        "node_modules/prettier/bin/prettier.cjs",  # what .bin/prettier linked to
        "node_modules/shimmed/cli.js",  # what the shim .bin/shimmed runs
    }, held
    free = {c.rel for c in verdict.free}
    assert {"node_modules/lodash/index.js", "node_modules/.cache/babel/x"} <= free
    assert {"node_modules/.vite/deps/d.js", "node_modules/left-pad/index.js"} <= free
    # node_modules itself made a link to a folder of the command's: all of it is held
    txn, changes = changes_of(
        project, "mkdir -p nm/.bin && mv node_modules old && ln -s nm node_modules"
    )
    [unit] = judge(changes, project, txn.upper).protected
    assert unit.environment == "node_modules" and "node_modules" in {c.rel for c in unit.changes}


@pytest.mark.parametrize(
    "folder, command, held",
    [
        ("vendor/bundle/ruby/3.2.0/gems", "echo x > vendor/bundle/ruby/3.2.0/bin/rspec", True),
        ("vendor/bundle/ruby/3.2.0/gems", "echo x > vendor/bundle/ruby/3.2.0/gems/g.rb", False),
        (".yarn/cache", "echo x > .yarn/cache/a.zip && echo y > .yarn/cache/b.zip", True),
        (".yarn/cache", "echo y > .yarn/cache/new.zip", False),
    ],
)
def test_yarn_and_bundler_folders_first_installs_land(
    project: Path, folder: str, command: str, held: bool
) -> None:
    make = f"mkdir -p {folder} $(dirname {command.split('> ')[1].split()[0]})"
    txn, changes = changes_of(project, f"{make} && {command}")
    assert not judge(changes, project, txn.upper).protected  # there was none: a first install
    (project / folder).mkdir(parents=True, exist_ok=True)
    (project / ".yarn/cache").mkdir(parents=True, exist_ok=True)
    (project / ".yarn/cache/a.zip").write_text("a\n")
    txn, changes = changes_of(project, f"{make} && {command}")
    assert bool(judge(changes, project, txn.upper).protected) is held


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p e/lib/python3.9/site-packages/m && echo x > e/lib/python3.9/site-packages/m/a.py",
        "mkdir -p w/bin && echo x > w/bin/activate.fish",
        "mkdir -p a/node_modules/p/bin a/node_modules/.bin && echo x > a/node_modules/.bin/cli",
    ],
)
def test_code_in_no_environment_there_before_lands(project: Path, command: str) -> None:
    txn, changes = changes_of(project, command)
    assert not judge(changes, project, txn.upper).protected


@pytest.mark.parametrize("name", [".env.example", ".env.sample", "scripts/activate_x.sh"])
def test_templates_and_look_alikes_stay_free(project: Path, name: str) -> None:
    txn, changes = changes_of(project, f"mkdir -p scripts && echo x > {name}")
    assert not judge(changes, project, txn.upper).protected


def test_an_index_entry_through_a_linked_folder_is_held(project: Path) -> None:
    """R2-4: `cfg` links to `.claude`; an index entry `cfg/settings.json` is a checkout into
    .claude (and `./x`, `a//b`, case variants are the same names)."""
    git(project, "init", "-q")
    (project / ".claude").mkdir()
    (project / "cfg").symlink_to(".claude")
    command = (
        "echo '{}' > x.json && h=$(git hash-object -w x.json) && "
        "git update-index --add --cacheinfo 100644,$h,cfg/settings.json && "
        "git update-index --add --cacheinfo 100644,$h,.ENVRC"
    )
    txn, changes = changes_of(project, command)
    why = " ".join(u.why for u in judge(changes, project, txn.upper).protected)
    assert "cfg/settings.json (.claude/settings.json)" in why and ".ENVRC" in why, why


def test_a_write_through_a_protected_link_is_held(project: Path) -> None:
    (project / ".envrc").symlink_to("envrc.d/real")
    txn, changes = changes_of(project, "mkdir -p envrc.d && echo 'evil' > .envrc")
    verdict = judge(changes, project, txn.upper)
    assert any(".envrc is a link to it" in u.why for u in verdict.protected), verdict


def test_a_held_transaction_is_listed_and_an_empty_one_goes(project: Path) -> None:
    base = project.parent / "changes"
    txn, _ = changes_of(project, "echo x > .envrc")
    txn.hold("refused: no one to approve it")
    empty = Transaction.begin(base, project, "true")
    empty.hold("nothing")
    [held] = held_sets(base, project)
    assert held.id == txn.id and held.reason == "refused: no one to approve it"
    assert not empty.folder.exists()
