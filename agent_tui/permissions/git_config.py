"""A repository's own git configuration, read before any git command is allowed.

A project that arrives with its `.git` (an archive, a copied folder) can make the most harmless
`git status` run programs: core.fsmonitor, hooks (post-index-change runs on `git status`),
core.hooksPath, diff.external, textconv and filter drivers, gpg.program, core.pager,
core.sshCommand, aliases, includes. So before a git command runs unasked, the repository git
would find (from every directory the command may run in, `-C` and `--git-dir` included, the
way git discovers it: a `.git` folder or file at each level up, or the folder itself being a
git directory with HEAD, objects/ and refs/) is read with git's own parser
(`git config --file F --includes --list`), and every key must be on an allow-list of settings
that run nothing; an installed hook (anything in hooks/ but the samples) asks too.

The user's own ~/.gitconfig and the system's are the person's choice and aren't read here.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from agent_tui import git_run
from agent_tui.permissions.config_text import plain_entries
from agent_tui.permissions.git_links import IndexUnreadable, gitlinks, populated

#: settings that run nothing, by (lower-case) section: a pattern the rest of the key (after the
#: section's dot) must match whole, `[^\n]*` standing for a subsection. One small pattern a
#: section, compiled when a key of that section is first checked: as one pattern, compiling it
#: took 2.5 ms of every start (issue 34), where a repository's config has a few sections.
#: Not include.path: the included file may be written by the very command being checked.
_ALLOWED: dict[str, str] = {
    "core": r"repositoryformatversion|filemode|bare|logallrefupdates|ignorecase"
    r"|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|whitespace|abbrev"
    r"|compression|loosecompression|packedgitwindowsize|packedgitlimit|deltabasecachesize"
    r"|bigfilethreshold|untrackedcache|splitindex|checkstat|trustctime|preloadindex"
    r"|commentchar|commentstring|warnambiguousrefs|sharedrepository|multipackindex"
    r"|commitgraph|sparsecheckout|sparsecheckoutcone|fsync|fsyncmethod|longpaths|protecthfs"
    r"|protectntfs|notesref|excludesfile|attributesfile|checkroundtripencoding",
    "remote": r"[^\n]*\.(url|pushurl|fetch|push|tagopt|prune|prunetags|mirror"
    r"|skipdefaultupdate|skipfetchall|promisor|partialclonefilter)",
    "branch": r"[^\n]*\.(remote|merge|rebase|pushremote|description)",
    **dict.fromkeys(
        [
            "user",
            "author",
            "committer",
            "color",
            "column",
            "i18n",
            "status",
            "gc",
            "pack",
            "index",
            "feature",
            "safe",
            "advice",
            "rerere",
            "apply",
            "grep",
            "fsck",
            "transfer",
        ],
        r"[^\n]*",
    ),
    "lfs": r"url|repositoryformatversion|locksverify|fetchinclude|fetchexclude|[^\n]*\.access",
    "init": r"defaultbranch",
    "pull": r"rebase|ff",
    "push": r"default|autosetupremote|followtags",
    "fetch": r"prune|prunetags|writecommitgraph|parallel",
    "merge": r"ff|conflictstyle|renames|log|stat",
    "rebase": r"autosquash|autostash|updaterefs|stat|abbreviatecommands",
    "diff": r"renames|algorithm|mnemonicprefix|noprefix|context|statgraphwidth|colormoved"
    r"|colormovedws|indentheuristic|submodule|ignoresubmodules|relative|interhunkcontext"
    r"|suppressblankempty|wserrorhighlight|dirstat|renamelimit",
    "log": r"date|decorate|abbrevcommit|follow|graphcolors|showroot|mailmap"
    r"|initialdecorationset|excludedecoration",
    "submodule": r"[^\n]*\.(url|path|active|branch|ignore|shallow|fetchrecursesubmodules)",
    "extensions": r"objectformat|worktreeconfig|refstorage|preciousobjects|noop",
    "http": r"([^\n]*\.)?(extraheader|sslverify|postbuffer)",
    "url": r"[^\n]*\.(insteadof|pushinsteadof)",
    "blame": r"date|coloring|showemail|showroot|blankboundary|markunblamablelines"
    r"|markignoredlines",
    "tag": r"sort|gpgsign",
    "commit": r"gpgsign|verbose|cleanup|status",
    "worktree": r"guessremote",
    "checkout": r"defaultremote|guess|workers",
    "am": r"keepcr|threeway",
}
_BOOLEAN = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
#: git-lfs's own filter, as `git lfs install --local` writes it
_LFS = {
    "filter.lfs.clean": "git-lfs clean -- %f",
    "filter.lfs.smudge": "git-lfs smudge -- %f",
    "filter.lfs.process": "git-lfs filter-process",
    "filter.lfs.required": "true",
}
#: names a command can write that make a folder a git directory or configure one
GIT_DIR_NAMES = frozenset(
    {"config", "head", "config.worktree", "commondir", "gitdir", "packed-refs", "hooks"}
)


def is_git_dir(path: Path) -> bool:
    """A folder git takes as a git directory, by git's own test (`is_git_directory`): a valid
    HEAD — a file `ref: refs/…` or an object name, or a symbolic link into `refs/` — and
    `objects` and `refs` git can enter (a folder, or anything executable), in the folder a
    `commondir` file names when there is one."""
    try:
        common = path
        pointer = path / "commondir"
        if pointer.is_file():
            named = Path(pointer.read_text("utf-8", "replace").strip())
            common = named if named.is_absolute() else path / named
        if not (os.access(common / "objects", os.X_OK) and os.access(common / "refs", os.X_OK)):
            return False
        return head_valid(path / "HEAD")
    except OSError:
        return False


_OBJECT_NAME = re.compile(r"[0-9a-fA-F]{40}([0-9a-fA-F]{24})?")


def head_valid(head: Path) -> bool:
    """What git accepts as HEAD (`validate_headref`)."""
    try:
        st = os.lstat(head)
        if stat.S_ISLNK(st.st_mode):
            return os.readlink(head).startswith("refs/")
        if not stat.S_ISREG(st.st_mode):
            return False
        with open(head, "rb") as f:
            text = f.read(256).decode("utf-8", "replace").strip()
    except OSError:
        return False
    if text.startswith("ref:"):
        return text[4:].lstrip().startswith("refs/")
    return bool(_OBJECT_NAME.fullmatch(text))


def find_git_dir(start: Path) -> Path | None:
    """The git directory git would use from `start` (its discovery, without ceilings)."""
    repo = find_repo(start)
    return repo[0] if repo is not None else None


def find_repo(start: Path) -> tuple[Path, Path] | None:
    """(git directory, the folder it was found from: its work tree) for git run in `start`."""
    env = os.environ.get("GIT_DIR")
    if env:
        return (Path(env) if Path(env).is_absolute() else start / env), start
    for level in (start, *start.parents):
        dot = level / ".git"
        try:
            if dot.is_dir():
                return dot, level
            if dot.is_file():
                text = dot.read_text("utf-8", "replace").strip()
                if text.startswith("gitdir:"):
                    target = Path(text[len("gitdir:") :].strip())
                    return (level / target).resolve(strict=False), level
                return dot, level  # git refuses an unreadable gitfile; ask anyway
        except OSError:
            return dot, level
        if is_git_dir(level):
            return level, level
    return None


def project_programs(folder: Path) -> str | None:
    """Why git run in `folder` would run a program its repository configures (config, an
    include, a hook, the same in a submodule git descends into), or None (no repository, or one
    that runs nothing)."""
    repo = find_repo(folder)
    return programs([repo[0]], [repo[1]]) if repo is not None else None


def programs(
    git_dirs: Iterable[Path], worktrees: Iterable[Path | None] = (), descend: bool = True
) -> str | None:
    """Why git would run a program the repository configures in one of `git_dirs` (or, with
    `descend`, in a submodule of its work tree in `worktrees`, at any depth), or None."""
    trees = list(worktrees)
    checked: set[Path] = set()  # git directories whose config and hooks were read
    visited: set[Path] = set()  # and those whose gitlinks were followed
    for k, git_dir in enumerate(dict.fromkeys(git_dirs)):
        why = _programs(git_dir, checked)
        if why:
            return why
        tree = trees[k] if k < len(trees) else None
        if descend and tree is not None:
            why = _submodules(tree, git_dir, checked, visited)
            if why:
                return why
    return None


#: repositories read for one command at most (nested submodules): beyond it, ask
MAX_REPOSITORIES = 10_000


def _submodules(
    worktree: Path, git_dir: Path, checked: set[Path], visited: set[Path]
) -> str | None:
    """The checked-out gitlinks `git status` / `git diff` descend into, read like the top."""
    try:
        links = gitlinks(git_dir)
    except IndexUnreadable as e:
        return f"the index can't be read to find its submodules ({e})"
    for path in links:
        dot = populated(worktree, path)
        if dot is None:
            continue
        sub = find_git_dir(worktree / path) or dot
        if sub in visited:
            continue
        visited.add(sub)
        if len(visited) > MAX_REPOSITORIES:
            return f"more than {MAX_REPOSITORIES} nested repositories to read"
        why = _programs(sub, checked) or _submodules(worktree / path, sub, checked, visited)
        if why:
            return (
                f"{why} (in submodule {path}, which git status and git diff descend into; "
                "--ignore-submodules leaves submodules out)"
            )
    return None


def _programs(git_dir: Path, checked: set[Path] | None = None) -> str | None:
    """Why the repository (its common directory, its worktree's config, and every module's
    git directory under `modules/`) runs a program; those read are added to `checked`."""
    checked = set() if checked is None else checked
    common = git_dir
    try:
        pointer = git_dir / "commondir"
        if pointer.is_file():
            rel = Path(pointer.read_text("utf-8", "replace").strip())
            common = (rel if rel.is_absolute() else git_dir / rel).resolve(strict=False)
    except OSError:
        return f"{git_dir}: the repository's files can't be read"
    why = _config_file(git_dir / "config.worktree") if git_dir != common else None
    if why or common in checked:
        return why  # a repository read before, its modules with it
    for repo in (common, *_module_dirs(common / "modules")):
        if repo in checked:
            continue
        checked.add(repo)
        hooks = _installed_hooks(repo / "hooks")
        if hooks:
            return f"the repository {repo} has a git hook installed ({hooks})"
        why = _config_file(repo / "config") or _config_file(repo / "config.worktree")
        if why:
            return why
    return None


def _module_dirs(modules: Path) -> list[Path]:
    """Every submodule's git directory under `.git/modules/` (names may hold `/`; a module's
    own submodules are under its `modules/`), with no cap."""
    found: list[Path] = []
    stack = [modules]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(e for e in folder.iterdir() if e.is_dir() and not e.is_symlink())
        except OSError:
            continue
        for entry in entries:
            if (entry / "HEAD").exists() or (entry / "config").exists():
                found.append(entry)
                stack.append(entry / "modules")
            else:
                stack.append(entry)  # part of a name with `/` in it
    return found


def _installed_hooks(hooks: Path) -> str | None:
    try:
        names = [p.name for p in hooks.iterdir() if not p.name.endswith(".sample")]
    except OSError:
        return None
    return ", ".join(sorted(names)[:3]) if names else None


def _config_file(path: Path) -> str | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return _read_config(str(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4096)
def _read_config(path: str, mtime_ns: int, size: int) -> str | None:
    if not git_run.available():
        return None  # no git: nothing can run it
    entries = _plain(path)
    if entries is None:
        try:
            out = git_run.run(
                Path("/"),
                *("config", "--file", path, "--includes", "--list", "-z"),
                env={"GIT_CONFIG_NOSYSTEM": "1"},
                timeout=10,
            )
        except git_run.GitError:
            return f"{path}: git couldn't read it"
        listed = out.decode("utf-8", "replace").split("\0")
        entries = [(k, v) for k, _, v in (e.partition("\n") for e in listed if e)]
    for key, value in entries:
        if key.lower() == "core.worktree" and _in_superproject(path, value):
            continue  # `git submodule` points a module's git directory at its folder
        if not key_runs_nothing(key, value):
            return f"{path} sets {key}, which can make git run a program"
    return None


def _plain(path: str) -> list[tuple[str, str]] | None:
    """The file's entries when it is a plain one (config_text.py), else None: git reads it."""
    try:
        return plain_entries(Path(path).read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def _in_superproject(config: str, worktree: str) -> bool:
    """A submodule's core.worktree, in its git directory under the superproject's
    `.git/modules/`, naming a folder of the superproject (as `git submodule` writes it)."""
    git_dir = Path(config).resolve(strict=False).parent
    top = next(
        (
            p.parent
            for p in git_dir.parents
            if p.name == ".git" and git_dir.is_relative_to(p / "modules")
        ),
        None,
    )
    target = Path(os.path.normpath(git_dir / worktree))
    return top is not None and target.is_relative_to(top)


def key_runs_nothing(key: str, value: str) -> bool:
    """A configuration key (as `git config --list` prints it) that makes git run nothing."""
    lowered = _lower_key(key)
    if lowered == "core.fsmonitor":
        return value.strip().lower() in _BOOLEAN  # true: git's own daemon
    if lowered in _LFS:
        return value.strip() == _LFS[lowered]
    section, dot, rest = lowered.partition(".")
    allowed = _allowed_rest(section) if dot else None
    return allowed is not None and allowed.fullmatch(rest) is not None


@lru_cache(maxsize=64)
def _allowed_rest(section: str) -> re.Pattern[str] | None:
    """What may follow `section.` in a key that runs nothing (`_ALLOWED`), compiled once."""
    pattern = _ALLOWED.get(section)
    return re.compile(pattern) if pattern is not None else None


def _lower_key(key: str) -> str:
    section, _, rest = key.partition(".")
    sub, dot, name = rest.rpartition(".")
    return (
        f"{section.lower()}.{sub}{dot}{name.lower()}"
        if dot
        else f"{section.lower()}.{rest.lower()}"
    )


def hooks_folders(cwd: Path) -> tuple[str, ...]:
    """The folder inside `cwd` the person's `core.hooksPath` names (a project folder git runs
    hooks from), as a relative path; none when it names none there."""
    try:
        out = git_run.run(
            cwd, "config", "--show-origin", "-z", "--path", "--get-all", "core.hooksPath",
            check=False,
        )  # fmt: skip
        top = git_run.run(cwd, "rev-parse", "--show-toplevel", check=False)
    except git_run.GitError:
        return ()
    # the person's value, not the app's own `-c core.hooksPath=/dev/null` (git_run.NEUTRAL)
    fields = out.decode("utf-8", "replace").split("\0")
    values = [v for o, v in zip(fields[::2], fields[1::2], strict=False) if o != "command line:"]
    value = values[-1].strip() if values else ""
    if not value:
        return ()
    base = Path(top.decode("utf-8", "replace").strip() or cwd)
    folder = Path(os.path.normpath(base / value))
    if folder.is_relative_to(cwd) and folder != cwd:
        return (folder.relative_to(cwd).as_posix(),)
    return ()
