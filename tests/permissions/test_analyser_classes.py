"""Tables for each class of the analyser's blind spots (issue 29): what must ask, and the ordinary
use that must still run. Each row was first run in bash (see test_bash_oracle.py for the property
that bash's own behaviour is the judge); here the engine's answer is checked row by row."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule

#: rules a person might well have; each grants ordinary use only
RULES = (
    "Bash(echo:*)",
    "Bash(ls:*)",
    "Bash(cat:*)",
    "Bash(git log:*)",
    "Bash(git status:*)",
    "Bash(git branch:*)",
    "Bash(git checkout:*)",
    "Bash(tar:*)",
    "Bash(zip:*)",
    "Bash(unzip:*)",
    "Bash(sort:*)",
    "Bash(sed:*)",
    "Bash(awk:*)",
    "Bash(mawk:*)",
    "Bash(make:*)",
    "Bash(npm run:*)",
    "Bash(npm test:*)",
    "Bash(rg:*)",
    "Bash(curl:*)",
    "Bash(wget:*)",
    "Bash(cp:*)",
    "Bash(ln:*)",
    "Bash(xargs:*)",
    "Bash(find:*)",
    "Bash(time:*)",
    "Bash(timeout:*)",
    "Bash(nice:*)",
    "Bash(nohup:*)",
    "Bash(stdbuf:*)",
    "Bash(setsid:*)",
    "Bash(env:*)",
    "Bash(chrt:*)",
    "Bash(ionice:*)",
    "Bash(taskset:*)",
    "Bash(flock:*)",
    "Bash(touch:*)",
    "Bash(pytest:*)",
)


def engine(
    cwd: Path, mode: str = "accept-edits", rules: tuple[str, ...] = RULES
) -> PermissionEngine:
    return PermissionEngine(
        cwd,
        [SourcedRule(parse_rule(r), "allow", "cli") for r in rules],
        mode=mode,  # type: ignore[arg-type]
    )


def decide(cwd: Path, command: str, mode: str = "accept-edits") -> str:
    return engine(cwd, mode).check("Bash", {"command": command}, read_only=False).behavior


# --- 1. wrappers with option values ------------------------------------------------------------

WRAPPERS_ASK = [
    "env time -o ls sh -c 'id'",  # GNU time's -o takes `ls`: the command is sh
    "command time -f %e sh -c id",
    "env time --output=x bash -c id",
    "env time --out x bash -c id",  # a long-option abbreviation
    "timeout -s KILL 5 sh -c id",
    "timeout --sig=KILL 5 sh -c id",
    "timeout -k 1 5 bash -c id",
    "nice -n 5 sh -c id",
    "nice -5 sh -c id",
    "nice --adj=5 sh -c id",
    "stdbuf -o L sh -c id",
    "stdbuf --out=L sh -c id",
    "setsid -w sh -c id",
    "env -u X sh -c id",
    "env --unset X sh -c id",
    "env -S 'sh -c id'",
    "chrt -o 0 sh -c id",
    "chrt --other 0 sh -c id",
    "ionice -c 3 sh -c id",
    "taskset -c 0 sh -c id",
    "taskset 1 sh -c id",
    "flock /tmp/lock sh -c id",
    "flock x -c 'touch /tmp/y'",
    "flock -w 5 x sh -c id",
    "env time -o /tmp/outside.txt ls",  # GNU time writes its report outside
    "nohup sh -c id",
    "env --frobnicate ls",  # an option the table doesn't know
    "timeout --frob 5 ls",
    "sudo -s",
    "sudo -u root sh -c id",
    "xargs --process-slot-var=PATH ls",
]

WRAPPERS_ALLOW = [
    "time ls",
    "time -p ls",
    "env time -o timing.txt ls",
    "timeout 5 ls",
    "timeout -s KILL 5 ls",
    "nice -n 5 ls",
    "nohup ls",
    "stdbuf -oL ls",
    "env LANG=C ls",
    "chrt -o 0 ls",
    "ionice -c3 ls",
    "taskset -c 0 ls",
]


@pytest.mark.parametrize("command", WRAPPERS_ASK)
def test_wrapper_options_are_read_as_the_program_reads_them(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) != "allow"


@pytest.mark.parametrize("command", WRAPPERS_ALLOW)
def test_wrappers_around_an_allowed_command_still_run(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) == "allow"


# --- 2. xargs / find splicing run-time text into code --------------------------------------------

SPLICE_ASK = [
    "find . -name '*.txt' -exec sh -c 'echo {}' \\;",
    "find . -exec bash -c 'cat \"{}\"' \\;",
    "find . -exec sh -c 'x{}' +",
    "ls | xargs -I{} sh -c 'echo {}'",
    "ls | xargs -I % bash -c 'cat %'",
    "ls | xargs -i sh -c 'echo {}'",
    "ls | xargs --replace sh -c 'echo {}'",
    "ls | xargs -ifoo sh -c 'echo foo'",
    "echo --output=/tmp/x | xargs git log",
    "echo --to-command=id | xargs tar cf a.tar",
    "ls | xargs sed -n p",
    "ls | xargs sort",
    "ls | xargs -e sh -c 'id'",  # -e takes no detached value: the command is sh
    "ls | xargs -l sh -c 'id'",
    "ls | xargs -0 sh",
    # the names xargs reads may be anywhere (`echo ~/.ssh/id_rsa | xargs cat`): find's aren't
    "ls | xargs cat",
    "ls | xargs touch",
]

SPLICE_ALLOW = [
    "ls | xargs -I{} echo {}",
    "find . -name '*.py' -exec cat {} \\;",
    "ls | xargs echo",
    "find . -name '*.py' -exec cat {} +",
    "find . -exec git log {} \\;",  # find's names start with `./`: never an option
]


@pytest.mark.parametrize("command", SPLICE_ASK)
def test_run_time_text_in_code_or_options_asks(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) != "allow"


@pytest.mark.parametrize("command", SPLICE_ALLOW)
def test_plain_xargs_and_find_exec_still_run(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) == "allow"


# --- 5. variables that configure a program ------------------------------------------------------

VARIABLES_ASK = [
    "XDG_CONFIG_HOME=/tmp/x git status",
    "RIPGREP_CONFIG_PATH=/tmp/rc rg foo",
    "CURL_HOME=/tmp curl http://127.0.0.1/",
    "WGETRC=/tmp/rc wget http://127.0.0.1/",
    "TAR_OPTIONS=--to-command=id tar xf a.tar",
    "ZIPOPT='-TT id' zip a.zip f",
    "MAKEFILES=/tmp/evil.mk make",
    "export RIPGREP_CONFIG_PATH=/tmp/rc; rg foo",
    "RIPGREP_CONFIG_PATH=/tmp/rc; export RIPGREP_CONFIG_PATH; rg foo",
    "declare -x TAR_OPTIONS=x; tar cf a.tar f",
    "set -a; TAR_OPTIONS=x; tar cf a.tar f",
    "set -o allexport; TAR_OPTIONS=x; tar cf a.tar f",
    "env WGETRC=/tmp/rc wget http://127.0.0.1/",
    "OLDPWD=/tmp; cd - && cat secret",
    "cd - && ls",
    "HOME=/tmp; cat ~/x",
    "echo x > ~-/f",
    "cp f ~+1/g",
    "PAGER='sh -c id' git log",
    "FOO=1 ls",
    "env -i FOO=1 ls",
]

VARIABLES_ALLOW = [
    "LC_ALL=C sort f",
    "PAGER=cat git log",
    "GIT_PAGER=cat git log -1",
    "NO_COLOR=1 ls",
    "x=1; echo $x",
    "for f in a b; do echo $f; done",
]


@pytest.mark.parametrize("command", VARIABLES_ASK)
def test_variables_that_configure_a_program_ask(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) != "allow"


@pytest.mark.parametrize("command", VARIABLES_ALLOW)
def test_harmless_variables_still_run(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) == "allow"


# --- 3. option spelling as getopt reads it -------------------------------------------------------

SPELLING_ASK = [
    "sort --compress-prog=sh f",
    "sort --compress-p sh f",
    "tar --checkpoint=1 --checkpoint-act=exec=id -cf /dev/null f",
    "tar -cf /dev/null --to-comm=id f",
    "tar --use-compress-prog=id -cf /dev/null f",
    "tar cIf id a.tar f",  # old-style bundle: I takes `id`, f takes `a.tar`
    "tar xIf id a.tar",
    "tar cvfI a.tar id f",
    "zip -TT'sh -c id' a.zip f",
    "zip -TTid a.zip f",
    "tar cf a.tar *",  # a file named --checkpoint-action=… would be an option
    "sort -o out *",
    "sed -n p $f",
    "git log $opts",
    "npm run test --script-sh=/tmp/x",
    "sed --expr='1e id' f",
    "sed --in-pl s/a/b/ /tmp/f",
    "sed --fi=/tmp/prog f",
    "wget --exec 'x' http://127.0.0.1/",
]

SPELLING_ALLOW = [
    "tar --checkpoint=1 -cf a.tar f",  # --checkpoint is an option of its own
    "tar cf a.tar src/*",  # can only expand to `src/…`
    "tar -cf a.tar -- *",
    "sort -- *",
    "sed -n p ./*.txt",
]


@pytest.mark.parametrize("command", SPELLING_ASK)
def test_options_are_spelled_as_getopt_reads_them(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) != "allow"


@pytest.mark.parametrize("command", SPELLING_ALLOW)
def test_plain_spellings_still_run(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) == "allow"


# --- 4. tables that were missing or incomplete ---------------------------------------------------

TABLES_ASK = [
    "make --eval='x:=$(shell id)'",
    "make -E 'all: ; id'",
    "make -f /tmp/evil.mk",
    "make --file=/tmp/evil.mk",
    "make --makef=/tmp/evil.mk",
    "make SHELL=/tmp/x",
    "make CC='sh -c id' all",
    "make -C /tmp",
    "make --dir=/tmp",
    "make -I /tmp/inc",
    "npm run test --script-shell=/tmp/x",
    "npm test --node-options='--require /tmp/x.js'",
    "npm run build --prefix /tmp/other",
    "npm run build --userconfig=/tmp/npmrc",
    "git branch --edit-description",
    "git branch --edit-desc",
    "mawk -W exec /tmp/prog f",
    "awk -W exec /tmp/prog f",
    "gawk -o/tmp/out '{print}' f",
    "sed -n ':a;1e id' f",
    "sed ':a;s/x/y/;ta;1e id' f",
    "sed -n 'b end;1e id' f",
    "uniq f /tmp/outside",
]

TABLES_ALLOW = [
    "make",
    "make test",
    "make -j4 test",
    "npm run test",
    "npm test -- --watch=false",
    "sed -n ':a;N;ba' f",
    "sed -n '/x/b end; p; :end' f",
    "uniq f",
]


@pytest.mark.parametrize("command", TABLES_ASK)
def test_program_tables_cover_their_manuals(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) != "allow"


@pytest.mark.parametrize("command", TABLES_ALLOW)
def test_ordinary_use_under_a_rule_runs(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) == "allow"


# --- asking less: everyday read-only commands on project files ---------------------------------

READ_ONLY_CORPUS = [
    "cat README.md",
    "cat src/a.py | head -20",
    "head -n 50 src/a.py",
    "head -5 README.md",
    "tail -n 20 README.md",
    "tail -f -n 5 README.md",
    "wc -l src/*.py",
    "wc -l README.md src/a.py",
    "grep -rn 'def ' src",
    "grep -rn TODO .",
    "grep -i import src/a.py",
    "grep -c x README.md",
    "grep -rn --include='*.py' foo .",
    "rg foo",
    "rg -n 'def main' src",
    "rg --type py import",
    "rg -l TODO",
    "find . -name '*.py'",
    "find src -type f -newer README.md",
    "find . -maxdepth 2 -type d",
    "sort README.md",
    "sort -u README.md | uniq -c",
    "sort -k2 -n data.txt | head",
    "uniq README.md",
    "diff README.md src/a.py",
    "diff -u src/a.py src/b.py",
    "git status",
    "git status --short",
    "git diff",
    "git diff --stat HEAD~1",
    "git log --oneline -10",
    "git log -p -1 -- src/a.py",
    "git show HEAD",
    "git show HEAD:README.md",
    "git branch",
    "git branch -a",
    "git branch --show-current",
    "git blame src/a.py",
    "git rev-parse HEAD",
    "git ls-files",
    "ls -la",
    "ls -la src",
    "file src/a.py",
    "stat README.md",
    "du -sh .",
    "du -sh *",
    "tree",
    "cat README.md | grep foo | wc -l",
    "cut -d, -f1 data.txt | sort | uniq -c | sort -rn",
    "cd src && ls",
    "cd src && cat a.py",
    "jq . package.json",
    "sed -n '1,20p' src/a.py",
    "awk '{print $1}' data.txt",
    "echo done",
    "pwd",
]

READ_ONLY_ASK = [
    "cat ~-/secret",  # $OLDPWD
    "cd ~- && cat x",
    "cat ~+2/x",
    "diff -r src /tmp",
    "diff -r src src2",  # -r follows symlinks met inside the folders
    "cat < /etc/passwd",
    "wc -l < ~/.ssh/id_rsa",
    "grep x 0</etc/shadow",
    "sort < secret.txt",
    "cat /etc/passwd",
    "cat ../outside.txt",
    "grep -rn root /etc",
    "find / -name passwd",
    "find . -delete",
    "find . -exec rm {} \\;",
    "sort -o out.txt README.md",
    "uniq README.md out.txt",
    "sed -i s/a/b/ README.md",
    "sed 'r /etc/passwd' README.md",
    "rg --pre cat foo",
    "grep -R foo .",
    "ls /root",
    "head -c 100 ~/.ssh/id_rsa",
    "tail -n 5 /var/log/syslog",
    "wc --files0-from=list.txt",
    "du --files0-from=list.txt",
    "tree -o out.txt",
    "file -C -m magic",
    "git branch new-branch",
    "git tag v1",
    "git stash",
    "git -c core.pager=id log",
    "git log --output=/tmp/x",
    "git diff --no-index /etc/passwd README.md",
    "date -s 2020-01-01",
    "cd /etc && cat passwd",
    "cd - && cat x",
    "cat secret.txt",  # a Read deny rule covers it
    "grep -rn key secret.txt",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    for name in ("README.md", "data.txt", "package.json", "secret.txt", "src/a.py", "src/b.py"):
        (work / name).write_text("{}\n" if name.endswith(".json") else "a b\n")
    (tmp_path / "outside.txt").write_text("x")
    return work


def _default(project: Path) -> PermissionEngine:
    deny = SourcedRule(parse_rule("Read(./secret.txt)"), "deny", "cli")
    return PermissionEngine(project, [deny], mode="default")


def test_everyday_read_only_commands_run_unasked(project: Path) -> None:
    e = _default(project)
    asked = [
        c
        for c in READ_ONLY_CORPUS
        if e.check("Bash", {"command": c}, read_only=False).behavior != "allow"
    ]
    assert len(READ_ONLY_CORPUS) >= 40
    assert len(asked) <= 2, asked


@pytest.mark.parametrize("command", READ_ONLY_ASK)
def test_reading_outside_writing_or_running_still_asks(project: Path, command: str) -> None:
    d = _default(project).check("Bash", {"command": command}, read_only=False)
    assert d.behavior != "allow", d


@pytest.mark.parametrize("command", READ_ONLY_CORPUS + READ_ONLY_ASK)
def test_plan_mode_is_never_more_permissive_than_default(project: Path, command: str) -> None:
    deny = SourcedRule(parse_rule("Read(./secret.txt)"), "deny", "cli")
    plan = PermissionEngine(project, [deny], mode="plan").check(
        "Bash", {"command": command}, read_only=False
    )
    default = _default(project).check("Bash", {"command": command}, read_only=False)
    if plan.behavior == "allow":
        assert default.behavior == "allow", (command, default)


# --- 6. writes the engine doesn't see -----------------------------------------------------------

UNSEEN_WRITES_ASK = [
    "tar xf a.tar",
    "tar -xzf a.tgz",
    "tar --extract -f a.tar",
    "tar -C /tmp/outside -xf a.tar",
    "tar xvf a.tar -C .",
    "unzip a.zip",
    "unzip -o a.zip",
    "unzip -d sub a.zip",
    "cp -r dir/. .",
    "cp -a vendor/x .",
    "cp --recursive a b",
    "rsync -a src/ .",
    "git checkout main",
    "git checkout -f feature",
    "git switch main",
    "git reset --hard origin/main",
    "git merge feature",
    "git pull",
    "git stash pop",
    "patch -p1 < fix.diff",
    "ln -s /tmp d && echo x > d/f",
    "ln -s /tmp d; cat x > d/f",
    "ln /tmp/f h && echo x >> h",
    "tar cf /tmp/outside.tar f",  # the archive is written outside
]

UNSEEN_WRITES_ALLOW = [
    "tar tf a.tar",
    "tar cf a.tar f",
    "unzip -l a.zip",
    "cp a b",
    "git checkout -b new-branch",
    "git checkout -- f",
]


@pytest.mark.parametrize("command", UNSEEN_WRITES_ASK)
def test_writes_of_unknown_names_or_through_links_ask(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) != "allow"


@pytest.mark.parametrize("command", UNSEEN_WRITES_ALLOW)
def test_archives_and_copies_with_known_names_still_run(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) == "allow"


def test_a_reader_never_looks_through_a_link_the_command_makes(tmp_path: Path) -> None:
    e = engine(tmp_path, "default", rules=("Bash(ln:*)",))
    d = e.check("Bash", {"command": "ln -s /etc/passwd p && cat p"}, read_only=False)
    assert d.behavior == "ask"


def test_a_hard_link_is_checked_by_inode(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "rc").write_text("x")
    os.link(outside / "rc", work / "h")
    (work / "plain").write_text("x")
    assert decide(work, "echo x >> h") == "ask"
    assert decide(work, "echo x >> plain") == "allow"
    edit = engine(work).check("Edit", {"file_path": str(work / "h")}, read_only=False)
    assert edit.behavior == "ask"


# --- 7. a repository's own git configuration ----------------------------------------------------

GIT_KEYS = [
    ("core.fsmonitor", "touch /tmp/x; false"),
    ("core.hooksPath", "/tmp/hooks"),
    ("core.pager", "sh -c id"),
    ("core.sshCommand", "sh -c id"),
    ("core.editor", "sh -c id"),
    ("diff.external", "sh -c id"),
    ("diff.ev.textconv", "sh -c id"),
    ("filter.fl.clean", "sh -c id"),
    ("gpg.program", "sh -c id"),
    ("log.showSignature", "true"),
    ("alias.st", "!sh -c id"),
    ("includeIf.gitdir:/.path", "/tmp/x"),
    ("credential.helper", "!sh -c id"),
    ("sequence.editor", "sh -c id"),
]


def _repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
    return path


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(("key", "value"), GIT_KEYS)
@pytest.mark.parametrize("mode", ["default", "plan", "accept-edits"])
def test_read_only_git_asks_when_the_repository_configures_a_program(
    tmp_path: Path, key: str, value: str, mode: str
) -> None:
    repo = _repo(tmp_path / "repo")
    subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
    for command in ("git status", "git log -1", "git diff", "git show", "git branch"):
        assert decide(repo, command, mode) != "allow", (key, command)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_hooks_included_files_implicit_and_nested_git_dirs(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    assert decide(repo, "git status", "default") == "allow"
    hook = repo / ".git" / "hooks" / "post-index-change"
    hook.write_text("#!/bin/sh\ntouch /tmp/x\n")
    assert decide(repo, "git status", "default") == "ask"
    hook.unlink()
    (repo / ".git" / "extra").write_text("[core]\n\tfsmonitor = touch /tmp/x\n")
    subprocess.run(["git", "-C", str(repo), "config", "include.path", "extra"], check=True)
    assert decide(repo, "git status", "default") == "ask"
    (repo / ".git" / "extra").write_text("[user]\n\tname = x\n")
    # an include asks even when it is harmless now: the same command could write it first
    assert decide(repo, "echo '[core]' > inc.cfg; git status", "accept-edits") == "ask"
    # a folder with HEAD, objects/, refs/ and a config is a git directory to `cd x && git …`
    bare = tmp_path / "work"
    (bare / "x" / "objects").mkdir(parents=True)
    (bare / "x" / "refs").mkdir()
    (bare / "x" / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "x" / "config").write_text("[core]\n\tfsmonitor = touch /tmp/x\n")
    assert decide(bare, "cd x && git status", "default") == "ask"
    assert decide(bare, "git -C x status", "default") == "ask"
    assert decide(bare, "echo > x/config", "accept-edits") == "ask"  # its config is protected
    # the same command writing what git then reads
    plain = tmp_path / "plain"
    plain.mkdir()
    command = (
        "mkdir -p y/objects y/refs; echo ref > y/HEAD; printf x > y/config; cd y && git status"
    )
    assert decide(plain, command, "accept-edits") == "ask"


# --- 9. protected names compared as case-insensitive file systems compare them -------------------

PROTECTED_SPELLINGS = [
    "echo x > .GIT/config",
    "echo x > .Git/hooks/pre-commit",
    "echo x > .git./config",
    "echo x > GIT~1/config",
    "echo x > repo.git/config",
    "echo x > .ENVRC",
    "echo x > .VSCode/tasks.json",
    "cp f .Git/config",
    "echo x > .MCP.JSON",
]


@pytest.mark.parametrize("command", PROTECTED_SPELLINGS)
def test_protected_names_match_whatever_their_case(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) == "ask"


@pytest.mark.parametrize("path", [".GIT/config", ".Git/HOOKS/x", "a.git/config", ".EnvRC"])
def test_file_tools_see_protected_names_whatever_their_case(tmp_path: Path, path: str) -> None:
    d = engine(tmp_path).check("Write", {"file_path": str(tmp_path / path)}, read_only=False)
    assert d.behavior == "ask"
