"""What some programs do that an option table can't say: tar's old-style bundles and its modes,
make's command-line variables, archive extraction and worktree updates that write files whose
names nobody knows before they run (positional outputs: outputs.py).

Unknown writes (`tar x`, `unzip`, `git checkout BRANCH`, `patch`) are reported as `unknown`
reasons: the members may be `.git/config`, a hook, `.envrc`, or a symlink that later writes
follow, so such a command always asks, whatever rule matched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agent_tui.permissions.analysis import Word
from agent_tui.permissions.getopt import Unclear, long_name

#: tar's short options that take a value (GNU tar 1.34: `tar --usage`)
TAR_WITH_VALUE = frozenset("bCfFgHIKLNTVX")
_TAR_LONG = (
    "create", "append", "update", "catenate", "concatenate", "delete", "extract", "get", "list",
    "diff", "compare", "test-label", "file", "force-local", "remove-files", "directory", "help",
    "usage", "version", "show-defaults", "to-stdout", "to-command", "checkpoint",
    "checkpoint-action", "compress", "use-compress-program",
)  # fmt: skip
_TAR_MODES = {"c": "create", "r": "append", "u": "update", "A": "catenate", "x": "extract"}


@dataclass
class Extra:
    runs: list[str] = field(default_factory=list)
    writes: list[Word] = field(default_factory=list)
    #: why the command writes files whose names aren't known until it runs
    unknown: list[str] = field(default_factory=list)
    destructive: list[str] = field(default_factory=list)


def tar_words(args: Sequence[Word], raw: Sequence[str] = ()) -> tuple[list[Word], list[str]]:
    """tar's arguments with an old-style first bundle spelled out: `cIf prog a.tar` is
    `-c -I prog -f a.tar` (each value-taking letter takes the next word, in order); with the
    words' source texts moved alongside (empty when not given)."""
    words = list(args)
    texts = list(raw) if len(raw) == len(words) else []
    if not words or words[0] is None or words[0].startswith("-"):
        return words, texts
    bundle, rest = words[0], words[1:]
    rest_raw = texts[1:] if texts else []
    out: list[Word] = []
    out_raw: list[str] = []
    for letter in bundle:
        out.append(f"-{letter}")
        out_raw.append(f"-{letter}")
        if letter in TAR_WITH_VALUE:
            out.append(rest.pop(0) if rest else None)
            out_raw.append(rest_raw.pop(0) if rest_raw else "")
    return out + rest, (out_raw + rest_raw) if texts else []


def extra(name: str, args: list[Word], out: Extra) -> None:
    handler = _HANDLERS.get(name)
    if handler is not None:
        handler(args, out)


def _tar(args: list[Word], out: Extra) -> None:
    words = tar_words(args)[0]
    modes: set[str] = set()
    archive: list[Word] = []
    force_local = False
    i = 0
    while i < len(words):
        a = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else None
        if a is None or a == "--":
            break
        if a.startswith("--"):
            try:
                key = long_name(a, _TAR_LONG)
            except Unclear:
                key = None
            value = a.split("=", 1)[1] if "=" in a else nxt
            if key in ("file",):
                archive.append(value)
            elif key in ("create", "append", "update", "catenate", "concatenate", "delete"):
                modes.add("write")
            elif key in ("extract", "get"):
                modes.add("extract")
            elif key == "force-local":
                force_local = True
            elif key == "remove-files":
                out.destructive.append("tar --remove-files")
            i += 2 if key in ("file", "directory") and "=" not in a else 1
            continue
        if a.startswith("-") and len(a) > 1:
            for j, letter in enumerate(a[1:], start=1):
                if letter in _TAR_MODES:
                    modes.add("extract" if letter == "x" else "write")
                if letter in TAR_WITH_VALUE:
                    value = a[j + 1 :] or nxt
                    if letter == "f":
                        archive.append(value)
                    i += 0 if a[j + 1 :] else 1
                    break
        i += 1
    if "write" in modes:
        out.writes.extend(archive)
    if "extract" in modes:
        out.unknown.append("tar extracts members whose names aren't known before it runs")
    if not force_local and any(a is None or _remote(a) for a in archive):
        out.runs.append("tar with an archive on another host runs a remote shell")


def _remote(archive: str) -> bool:
    head = archive.split("/", 1)[0]
    return ":" in head


def _make(args: list[Word], out: Extra) -> None:
    for a in args:
        if a == "--":
            break
        if a is not None and not a.startswith("-") and "=" in a:
            out.runs.append(
                f"`make {a}`: a variable set on make's command line can change the programs "
                "its recipes run"
            )
            return


def _unzip(args: list[Word], out: Extra) -> None:
    options = [a[1:] for a in args if a is not None and a.startswith("-")]
    if not any(c in o for o in options for c in "ltpczZv"):
        out.unknown.append("unzip extracts members whose names aren't known before it runs")


def _letters_mode(extract: str, label: str) -> Callable[[list[Word], Extra], None]:
    def handler(args: list[Word], out: Extra) -> None:
        first = next((a for a in args if a is None or not a.startswith("-")), "")
        flags = "".join(a[1:] for a in args if a is not None and a.startswith("-"))
        if first is None or any(c in (first or "") + flags for c in extract):
            out.unknown.append(f"{label} writes files whose names aren't known before it runs")

    return handler


def _patch(args: list[Word], out: Extra) -> None:
    if not any(a in ("--dry-run", "-o", "--output") for a in args):
        out.unknown.append("patch writes the files its input names")


def _recursive_copy(letters: str, label: str) -> Callable[[list[Word], Extra], None]:
    """`cp -r dir/. .`: a folder's contents land in the destination; their names (a `.git/`,
    an `.envrc`, a symlink) aren't known before it runs."""

    def handler(args: list[Word], out: Extra) -> None:
        for a in args:
            if a is None or a == "--":
                break
            long = a.startswith("--") and a.split("=", 1)[0] in ("--recursive", "--archive")
            if long or (a.startswith("-") and not a.startswith("--") and set(a[1:]) & set(letters)):
                out.unknown.append(f"{label} copies folders: the files it writes aren't known")
                return

    return handler


def _zip(args: list[Word], out: Extra) -> None:
    operands = _operands(args, frozenset({"-b", "-n", "-t", "-tt", "-x", "-i", "-O", "-P"}))
    if operands:
        out.writes.append(operands[0])
    for k, a in enumerate(args):
        if a in ("-O", "--output-file") and k + 1 < len(args):
            out.writes.append(args[k + 1])


def _operands(args: Sequence[Word], with_value: frozenset[str]) -> list[Word]:
    found: list[Word] = []
    i = 0
    options = True
    while i < len(args):
        a = args[i]
        if options and a == "--":
            options = False
        elif options and a is not None and a.startswith("-") and a != "-":
            i += 1 if a in with_value else 0
        else:
            found.append(a)
        i += 1
    return found


# git subcommands that rewrite the worktree from another tree: the paths are the tree's.
_GIT_WORKTREE = frozenset(
    {"merge", "pull", "rebase", "cherry-pick", "revert", "am", "apply", "stash", "bisect"}
    | {"read-tree", "checkout-index", "worktree", "submodule", "sparse-checkout", "clone"}
)


def git_worktree(sub: str, args: Sequence[Word], out: Extra) -> None:
    """`git checkout BRANCH`, `git merge`, `git reset --hard REV`, … write whatever the other
    tree holds (an `.envrc`, a `.vscode/tasks.json`, a symlink)."""
    why = f"`git {sub}` writes the files of another tree, whose names aren't known here"
    if sub in ("checkout", "switch"):
        if "--" in args:
            out.writes.extend(args[list(args).index("--") + 1 :])
            return
        creating = any(a in ("-b", "-B", "-c", "-C", "--orphan") for a in args)
        operands = [a for a in args if a is None or not a.startswith("-")]
        if creating and len(operands) <= 1:
            return  # a new branch at HEAD: the worktree stays as it is
        if operands or sub == "switch":
            out.unknown.append(why)
    elif sub == "reset":
        if any(a in ("--hard", "--merge", "--keep") for a in args):
            out.unknown.append(why)
    elif sub == "restore":
        if any(a is not None and a.startswith(("-s", "--source")) for a in args):
            out.unknown.append(why)
    elif sub in _GIT_WORKTREE:
        if sub == "stash" and (not args or args[0] in ("list", "show", "push", "save")):
            return
        if sub in ("worktree", "submodule") and args and args[0] in ("list", "status", "prune"):
            return
        if sub == "bisect" and args and args[0] in ("log", "view", "visualize", "terms"):
            return
        out.unknown.append(why)


_HANDLERS: dict[str, Callable[[list[Word], Extra], None]] = {
    "tar": _tar,
    "make": _make,
    "gmake": _make,
    "unzip": _unzip,
    "7z": _letters_mode("xe", "7z"),
    "7za": _letters_mode("xe", "7z"),
    "7zz": _letters_mode("xe", "7z"),
    "cpio": _letters_mode("ip", "cpio"),
    "ar": _letters_mode("x", "ar"),
    "patch": _patch,
    "zip": _zip,
    "cp": _recursive_copy("rRa", "cp"),
    "rsync": _recursive_copy("ra", "rsync"),
}
