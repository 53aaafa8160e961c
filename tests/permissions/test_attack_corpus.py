"""A corpus of attacks per class of issue 46, each judged under its own rules (an allow rule for
every command it names) where no sandbox runs. Every entry really fires in bash when run
unguarded (checked here, so the corpus stays meaningful); none may be allowed: 0 fire.

Classes: a rule's tool writing outside the project (its output options, abbreviations, attached
values, positional outputs, prefixes, backup templates, links); builtins that run strings; git
descending into submodules whose own configuration runs a program; reads outside the project
(Claude Code confines them to the working directories).
"""

from __future__ import annotations

import grp
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from permissions.outside_oracle import Project, allowed_by, git

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is the oracle")
#: the group the tests run as (`sg` to it asks no password)
GROUP = grp.getgrgid(os.getgid()).gr_name

#: writes outside the project by a tool a rule names (OUT: the outside folder; `link` and
#: `../outside` lead there too)
OUTPUTS = [
    "shuf -n1 f --output OUT/a",
    "shuf -zoOUT/a f",
    "shuf --outp ../outside/a f",
    "iconv -t utf-8 f -oOUT/a",
    "iconv --outp OUT/a f",
    "xxd -p f OUT/a",
    "xxd -c 4 -g 1 f link/a",
    "uniq -c f OUT/a",
    "uniq -s 1 f ../outside/a",
    "split -b 1 f OUT/p-",
    "split --lines=1 -- f link/q",
    "csplit -s --pref=OUT/c f 2",
    "csplit -sf OUT/c f 2",
    "openssl base64 -in f -out OUT/a",
    "openssl dgst -sha256 -out link/a f",
    "git bundle create OUT/b.bundle --all",
    "git init -q ../outside/r2",
    "git log -1 -p --output OUT/a",
    "git show -s --output link/a",
    "git diff-tree --root -p HEAD --output=OUT/a",
    "git format-patch -q -1 --output-directory OUT",
    "git archive -o link/a.tar HEAD",
    "history -s x; history -w OUT/h",
    "sqlite3 OUT/d.db 'create table t(x)'",
    "sqlite3 x.db \"vacuum into 'OUT/v.db'\"",
    "sqlite3 x.db \"select writefile('OUT/w', 'x')\"",
    "script -qc true OUT/s",
    "script -q -c 'touch M' -O link/s",
    "strace -qo OUT/s true",
    "strace --output=link/s -f true",
    "strace -qq sh -c 'touch ../outside/M'",
    "valgrind -q --log-file=OUT/v true",
    "valgrind -q --tool=massif --massif-out-file=link/m true",  # every tool's --…-out-file
    "valgrind -q --tool=callgrind --callgrind-out-file=OUT/c true",
    "valgrind -q --tool=dhat --dhat-out-file=OUT/d true",
    "VALGRIND_OPTS=--log-file=OUT/v valgrind -q true",
    "printf -- '--log-file=OUT/v\\n' > .valgrindrc; valgrind -q true",  # its ./.valgrindrc
    "gdb --batch -ex 'shell touch OUT/M'",
    "gdb -batch -ex run --args /bin/touch OUT/M",
    "gdb -q --batch -ex 'pipe bt | touch OUT/M' /bin/true",
    "gdb --batch -ex 'set logging file OUT/g' -ex 'set logging enabled on' -ex 'info registers'",
    "perf stat -o OUT/p true",
    "perf stat --pre 'touch OUT/M' true",
    "perf stat --post='touch OUT/M' true",
    "unshare -r touch OUT/M",
    f"sg {GROUP} 'touch OUT/M'",
    f"sg {GROUP} -c 'cp f ~/x'",
    "strace -qq -o '|touch OUT/M' true",
    "strace -ff -o OUT/s true",
    "mv --targ=OUT README.md",
    "cp --target-dir ../outside f",
    "cp -vt OUT f",
    "install -Dm644 f OUT/sub/a",
    "ln -sfn ../work/f OUT/l",
    "tar --crea -f OUT/a.tar f",
    "sed -i.b -e s/a/A/ -i'OUT/z-*' f",
    "sed --in-pl='link/y-*' s/a/A/ f",
    "sort -uo OUT/a f",
    "mktemp -p OUT",
    "mktemp --tmpdir=link",
    "dd if=f of=OUT/a status=none",
    "truncate -s1 link/a",
    "tee -i OUT/a < f",
    "curl -s file:///etc/hostname --output OUT/a",
    "zip -q OUT/a.zip f",
    "zstd -q f -o link/a",
    "patch -so OUT/a f /dev/null",
    "rsync f link/",
    "ar rc OUT/a.a f",
    "strip -o OUT/a /bin/true",
    "timeout 5 shuf f -o OUT/a",
    "nice -n 1 xxd f link/a",
    "env LC_ALL=C uniq f OUT/a",
    "cp f ~/a",
]

#: builtins that run a string, a file or what a name runs, each under its own rule
BUILTINS = [
    "readarray -t -C 'touch OUT/M;:' -c1 < f",
    "mapfile -C'touch OUT/M;:' -c 1 arr < f",
    "mapfile -tc1 -C 'touch OUT/M;:' < f",
    "compgen -C 'touch OUT/M' -- x",
    "compgen -W '$(touch OUT/M)' -- x",
    "compgen -W '`touch OUT/M`' x",
    "trap -- 'touch OUT/M' 0",
    'trap "touch OUT/M" ERR; false',
    "set -T; trap 'touch OUT/M' DEBUG; g() { :; }; g",
    "hash -p /usr/bin/env basename; basename touch OUT/M",
    "enable -n echo; hash -p /usr/bin/env echo; echo touch OUT/M",
    "set -o history; history -s true; fc -e 'touch OUT/M;:' -1",
    "shopt -s expand_aliases; alias yy='touch OUT/M'\nyy",
    "read -r PS4 <<< '$(touch OUT/M)'; set -x; :",
    "printf -v PS4 %s '$(touch OUT/M)'; set -x; true",
    "mapfile -t PS4 <<< '$(touch OUT/M)'; set -x; :",
    "printf 'touch OUT/M\\n' > s; . ./s",
    "printf 'touch OUT/M\\n' > s; source s",
    "echo 'touch OUT/M' > s.sh && bash s.sh",
    "trap 'touch OUT/M' USR1; kill -USR1 $$",
    "jobs -x touch OUT/M",
    "PS4='$(touch OUT/M)'; set -x; :",
    "printf 'touch OUT/M\\n' > e.sh; BASH_ENV=./e.sh bash -c :",
    "printf 'touch OUT/M\\n' > e.sh; export BASH_ENV=./e.sh; bash -c true",
]

#: reads of a secret kept outside the project (SEC: its folder; `peek` is a link to it)
READS = [
    "ls SEC && date",
    "ls -la ../secrets",
    "cat SEC/tok-5c1e7",
    "head -c 100 peek",
    "tail -n 1 SEC/tok-5c1e7",
    "grep -r tok SEC",
    "sort SEC/tok-5c1e7",
    "cut -c1- peek",
    "nl SEC/tok-5c1e7",
    "tac ../secrets/tok-5c1e7",
    "sed -n p SEC/tok-5c1e7",
    "awk 1 SEC/tok-5c1e7",
    "diff SEC/tok-5c1e7 /dev/null",
    "find SEC -name 'tok*'",
    "rg -uu tok SEC",
    "paste peek",
    "cat < SEC/tok-5c1e7",
    "cd SEC && cat tok-5c1e7",
    "cd ../secrets; ls",
    "pushd SEC > /dev/null; cat tok-5c1e7",
    "uniq SEC/tok-5c1e7",
    "tree SEC",
    "du -a SEC",
    "file SEC/tok-5c1e7",
    "stat -c %n SEC/tok-5c1e7",
    "shuf -n1 SEC/tok-5c1e7",
    "xxd -p peek | xxd -r -p",
    "cp peek copy && cat copy",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    yield Project(tmp_path_factory.mktemp("corpus"))


#: programs an entry may need that a machine may not have
_OPTIONAL = frozenset(
    {"xxd", "shuf", "iconv", "openssl", "sqlite3", "script", "zstd", "rsync", "zip", "curl"}
    | {"patch", "ar", "strip", "tree", "rg", "file", "strace", "valgrind", "gdb", "perf"}
    | {"unshare", "sg"}
)
#: programs the machine may not let run (user namespaces, perf events): an entry that needs one
#: and doesn't fire is skipped, not failed
_PRIVILEGED = frozenset({"unshare", "perf"})


def _tools(command: str) -> bool:
    words = command.replace(";", " ").replace("|", " ").split()
    return all(shutil.which(w) for w in words if w in _OPTIONAL)


def _judge(project: Project, command: str, happens: Callable[[str], bool]) -> None:
    if not _tools(command):
        pytest.skip("a tool this entry needs isn't installed")
    project.reset()
    spelled = project.spell(command)
    fired = happens(spelled)
    if not fired and _PRIVILEGED & set(command.split()):
        pytest.skip("this machine doesn't let the entry's program run")
    assert fired, f"the corpus entry doesn't fire in bash: {spelled!r}"
    project.reset()
    assert allowed_by(project.work, spelled) is None, (spelled, allowed_by(project.work, spelled))


def test_each_class_has_a_corpus() -> None:
    assert min(len(OUTPUTS), len(BUILTINS), len(READS), len(GIT_SPELLINGS)) >= 15


@pytest.mark.parametrize("command", OUTPUTS)
def test_a_rule_never_covers_a_write_outside(project: Project, command: str) -> None:
    _judge(project, command, project.fires)


@pytest.mark.parametrize("command", BUILTINS)
def test_builtins_that_run_strings_ask_under_their_own_rule(project: Project, command: str) -> None:
    _judge(project, command, project.fires)


@pytest.mark.parametrize("command", READS)
def test_reads_outside_the_project_ask_under_their_own_rule(project: Project, command: str) -> None:
    _judge(project, command, project.leaks)


# --- git descending into submodules whose configuration runs a program -----------------------

HOOK = "#!/bin/sh\ntouch OUT/M\n"


def _chain(project: Project, depth: int) -> Path:
    """Repositories nested `depth` deep, each committed in its parent as a gitlink (an
    embedded `.git` folder, as an archive or a copied folder brings it); the deepest."""
    folders = [project.work.joinpath(*[f"s{i}" for i in range(k + 1)]) for k in range(depth)]
    for folder in reversed(folders):  # the deepest first: each parent adds its child's link
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "g").write_text("1\n")
        git("init", "-q", ".", cwd=folder)
        git("add", "-A", cwd=folder)
        git("commit", "-qm", "x", cwd=folder)
    git("add", folders[0].name, cwd=project.work)
    git("commit", "-qm", "link", cwd=project.work)
    return folders[-1]


def _absorbed(project: Project, count: int) -> Path:
    """`count` submodules whose git directories are under `.git/modules/` (as `git submodule`
    leaves them); the last one's."""
    for i in range(count):
        sub = project.work / f"m{i:02}"
        sub.mkdir()
        (sub / "g").write_text("1\n")
        git("init", "-q", ".", cwd=sub)
        git("add", "-A", cwd=sub)
        git("commit", "-qm", "x", cwd=sub)
    git("add", *[f"m{i:02}" for i in range(count)], cwd=project.work)
    git("commit", "-qm", "links", cwd=project.work)
    modules = project.work / ".git" / "modules"
    modules.mkdir()
    for i in range(count):
        name = f"m{i:02}"
        shutil.move(project.work / name / ".git", modules / name)
        (project.work / name / ".git").write_text(f"gitdir: ../.git/modules/{name}\n")
        git("config", "core.worktree", f"../../../{name}", cwd=modules / name)
    return modules / f"m{count - 1:02}"


def _fsmonitor(git_dir: Path, project: Project) -> None:
    git("config", "core.fsmonitor", project.spell("touch OUT/M; false"), cwd=git_dir)


def _hook(git_dir: Path, project: Project) -> None:
    hooks = git_dir / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-index-change").write_text(project.spell(HOOK))
    (hooks / "post-index-change").chmod(0o755)
    # The hook runs when git writes the submodule's index, which a status does only when a
    # tracked file's stat data no longer matches it: made so here (its time moved on), as an
    # archive's extraction or a checkout leaves it, not left to the racy-timestamp check
    # (whether the file was written in the index's own second), which fired in some runs only.
    worktree = git_dir.parent if git_dir.name == ".git" else project.work / git_dir.name
    tracked = worktree / "g"
    later = tracked.stat().st_mtime_ns + 10_000_000_000
    os.utime(tracked, ns=(later, later))


def _filter(repo: Path, project: Project) -> None:
    (repo / ".gitattributes").write_text("g filter=fl\n")
    git("config", "filter.fl.clean", project.spell("touch OUT/M; cat"), cwd=repo)
    (repo / "g").write_text("2\n")


def _git_dir(repo: Path) -> Path:
    dot = repo / ".git"
    return dot if dot.is_dir() else repo


SETUPS: dict[str, Callable[[Project], None]] = {
    "fsmonitor, depth 1": lambda p: _fsmonitor(_git_dir(_chain(p, 1)), p),
    "fsmonitor, depth 5": lambda p: _fsmonitor(_git_dir(_chain(p, 5)), p),
    "hook, depth 2": lambda p: _hook(_git_dir(_chain(p, 2)), p),
    "filter, depth 3": lambda p: _filter(_chain(p, 3), p),
    "fsmonitor, module 70 of 70": lambda p: _fsmonitor(_absorbed(p, 70), p),
    "hook, module 66 of 66": lambda p: _hook(_absorbed(p, 66), p),
}
GIT_SPELLINGS = [
    "git status",
    "git status -s",
    "git status --porcelain",
    "git status --short --branch",
    "git status -uno",
    "git status .",
    "git diff",
    "git diff --stat",
    "git diff HEAD",
    "git diff --name-only",
    "git diff -- .",
    "git --no-pager diff",
    "git -C . status",
    "(git status)",
    "git status && git diff",
    "cd . && git diff --submodule=log",
    "git --git-dir=.git --work-tree=. status",
    "git --work-tree=. diff",
]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("setup", list(SETUPS))
def test_git_never_descends_unasked_into_a_submodule_that_runs_a_program(
    project: Project, setup: str
) -> None:
    project.reset()
    SETUPS[setup](project)
    fired = []
    for spelling in GIT_SPELLINGS:
        assert allowed_by(project.work, spelling) is None, (setup, spelling)
        if project.fires(spelling):
            fired.append(spelling)
        project.outside.joinpath("M").unlink(missing_ok=True)
    # it asks for the submodule's own program, not for something else
    from agent_tui.permissions.engine import PermissionEngine

    d = PermissionEngine(project.work).check("Bash", {"command": "git status"}, read_only=False)
    assert setup.split(",")[0] in d.reason.replace("core.fsmonitor", "fsmonitor"), d.reason
    # the hostile submodule really runs its program (once git has refreshed an index, a
    # later status may have nothing left to refresh: not every spelling fires again)
    assert fired, setup
    print(f"{setup}: {len(fired)} of {len(GIT_SPELLINGS)} spellings fired")


# --- a link git brings, then a write through it (last round's class) -------------------------

THROUGH_GIT_LINKS = [
    "git checkout -q br -- d && echo x > d/f",
    "git checkout br -- d; cp f d/g",
    "git restore -s br -- d; tee d/h < f",
    "git checkout -q br -- d e; sort -o d/s f",
    "git checkout br -- . ; touch d/t",
    "git restore --source=br d && mkdir d/n",
    "git checkout -q br -- d && xxd f d/x",
    "git checkout -q br -- d; ln -s ../f d/l",
]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("command", THROUGH_GIT_LINKS)
def test_a_write_through_a_link_git_checks_out_asks(project: Project, command: str) -> None:
    def setup() -> None:
        project.reset()
        git("checkout", "-q", "-b", "br", cwd=project.work)
        (project.work / "d").symlink_to(project.outside)
        (project.work / "e").write_text("e\n")
        git("add", "d", "e", cwd=project.work)
        git("commit", "-qm", "links", cwd=project.work)
        git("checkout", "-q", "-", cwd=project.work)

    setup()
    assert project.fires(command), command
    setup()
    assert allowed_by(project.work, command) is None, (command, allowed_by(project.work, command))
