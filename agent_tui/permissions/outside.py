"""Where a command's words lead: the places a command may read without asking, and the backstop
for the words of a command a rule allows whose meaning no table knows.

A rule such as `Bash(shuf:*)` grants shuf's ordinary use in the project. The option tables say
which words are files written (`shuf -o F`), read, or plain text; but no table knows every option
of every program a rule can name. So, for a command a rule allows, every word whose meaning isn't
known — the word itself, the value after its `=`, an option's attached value (`-o/x`, `--outp=/x`,
`-Wl,-o,/x`) — is resolved like a path, and one that leads out of the project (or a word known
only at run time, which might) makes the command ask. A place outside the project passes only when
nothing there can be changed by the command: a device such as /dev/null, or a system folder
(/usr, /lib, /bin, /sbin) that this user can't write.

Reads follow Claude Code's working directories: a file read (an operand of `cat`, `ls`, `grep`,
…, under a rule or none) must be inside the project, in a system folder, or covered by a
`Read(...)` allow rule of the person's own; never under a `Read(...)` deny rule. So
`ls /outside && date` under `Bash(ls:*)` asks, `cat ~/.ssh/id_rsa` asks, and `ls /usr/include`
or `grep -rn size_t /usr/include` run.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_tui.permissions.analysis import Part, Word

#: folders of installed software: readable by every user, never a secret
SYSTEM_ROOTS = tuple(
    Path(p) for p in ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
)
#: devices a command may name for reading or writing without reaching a file
DEVICES = frozenset(
    {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}
    | {"/dev/stdin", "/dev/stdout", "/dev/stderr"}
)
_FD = re.compile(r"/(dev|proc/self)/fd/\d+")
_SAFE_GLOB = re.compile(r"[\w.*?\[\]/@+,=-]+")
#: what splits a command string into words, roughly as a shell would (quotes, operators)
STRING_WORDS = re.compile(r"[\s;&|()<>`'\"{}]+")

PathTest = Callable[[Path], bool]


def _never(_: Path) -> bool:
    return False


@dataclass(frozen=True)
class Reach:
    """The project (the working directory, and the folders added to it) and where its relative
    paths are taken from (the working directory and every place a `cd` may lead), with the
    person's `Read(...)` rules."""

    cwd: Path
    dirs: Sequence[Path]
    read_denied: PathTest = _never
    read_allowed: PathTest = _never
    #: folders added to the working directory (`--add-dir`, additionalDirectories): read
    #: there as in it; written, they are outside (as the sandbox keeps them read-only for Bash)
    added: Sequence[Path] = ()

    def places(self, word: str) -> list[str]:
        """Where `word` leads from each folder, resolved (symlinks too); none for a device."""
        if word in DEVICES or _FD.fullmatch(word):
            return []  # not a file
        if word.startswith("file://"):
            word = word[len("file://") :] or "/"
        word = os.path.expanduser(word)
        return [os.path.realpath(os.path.join(d, word)) for d in self.dirs]

    def _inside(self, p: str, *more: Path) -> bool:
        for top in (str(self.cwd), *map(str, more)):
            if p == top or p.startswith(top.rstrip("/") + "/"):
                return True
        return False

    def readable(self, word: str) -> bool:
        """A file the command reads: inside the project, a system folder or a place a Read
        allow rule names, and no Read deny rule covers it."""
        return all(self._readable(p) for p in self.places(word))

    def _readable(self, p: str) -> bool:
        if self.read_denied(Path(p)):
            return False
        if self._inside(p, *self.added):
            return True
        return in_system_folder(Path(p)) or self.read_allowed(Path(p))

    def stays(self, word: str) -> bool:
        """A word that may name a file read or written: it stays in the project, or leads only
        where this user can't write (a system folder) and may read."""
        return all(self._stays(p) for p in self.places(word))

    def _stays(self, p: str) -> bool:
        if self.read_denied(Path(p)):
            return False
        if self._inside(p):
            return True
        return in_system_folder(Path(p)) and not _writable(Path(p))

    def glob_stays(self, raw: str, test: Callable[[str], bool]) -> bool:
        """`du -sh *`: a relative glob whose matches (expanded now) all pass `test`, none of
        which could be read as an option."""
        if not _SAFE_GLOB.fullmatch(raw) or raw.startswith("/") or ".." in raw:
            return False
        for d in self.dirs:
            for match in glob.glob(raw, root_dir=d):
                if match.startswith("-") or not test(os.path.join(d, match)):
                    return False
        return True


def in_system_folder(p: Path) -> bool:
    """`p` (resolved) is in a folder of installed software, which every user may read."""
    return any(p.is_relative_to(root) for root in SYSTEM_ROOTS)


def _writable(p: Path) -> bool:
    """This user could create or change `p` (the nearest folder that exists is writable)."""
    for level in (p, *p.parents):
        if os.path.lexists(level):
            return os.access(level, os.W_OK)
    return True


def leads(word: str) -> Iterator[str]:
    """The paths a word may name: itself, the value after its `=`, and, for an option, every
    value it may carry attached (after any run of option letters: `-xvf/x`) or in a list
    (`-Wl,-o,/x`, `--opt=a,/x`); each also without a leading `@` or `<` (`curl -d @F`). A word
    that reads as a command string (`perf stat --pre 'touch /x'`, `sg g 'cp f ~/x'`) leads
    where each of its words does."""
    spelled = [w for w in STRING_WORDS.split(word) if w]
    for path in (word, *spelled) if spelled != [word] else (word,):
        yield from _unprefixed(path)


def _unprefixed(word: str) -> Iterator[str]:
    for path in _leads(word):
        yield path
        if path[:1] in ("@", "<"):
            yield path[1:]


def _leads(word: str) -> Iterator[str]:
    yield word
    value = word.split("=", 1)[1] if "=" in word else None
    if value:
        yield value
        yield from value.split(",")[1:]
    if word.startswith("-") and not word.startswith("--"):
        body = word[1:]
        for k in range(1, len(body)):
            if not body[k - 1].isalnum():
                break
            yield body[k:]
        yield from body.split(",")[1:]


def strays(
    part: Part, reach: Reach, skip: frozenset[int] = frozenset(), reads: Sequence[int] = ()
) -> list[str]:
    """The words of `part` (argv indexes not in `skip`) that may lead out of the project: for
    the indexes in `reads`, a file read somewhere no Read rule allows; for every other word of
    unknown meaning, any place this user could change. A word known only at run time counts,
    unless it is a glob whose matches stay."""
    argv = part.argv
    raw = part.raw if len(part.raw) == len(argv) else ()
    found: list[str] = []
    for i in range(1, len(argv)):
        if i in skip:
            continue
        w = argv[i]
        test = reach.readable if i in reads else reach.stays
        if w is None:
            if not (raw and reach.glob_stays(raw[i], test)):
                found.append(raw[i] if raw else "a word known only at run time")
        elif not all(test(p) for p in dict.fromkeys(leads(w)) if p):
            found.append(w)
    return found


def read_outside(reach: Reach, words: Sequence[Word], raw: Sequence[str] = ()) -> Word | str | None:
    """The first of `words` (files read) that isn't readable, or None."""
    for k, w in enumerate(words):
        if w is None:
            text = raw[k] if k < len(raw) else ""
            if not (text and reach.glob_stays(text, reach.readable)):
                return text or "a file known only at run time"
        elif not reach.readable(w):
            return w
    return None
