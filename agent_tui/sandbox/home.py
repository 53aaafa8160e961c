"""The home directory a sandboxed command sees: empty, but for what toolchains need.

Inside the sandbox HOME is a folder of the session's own (writable; a tool's history file or
config written there lasts for the session and never reaches the person's home). Over it, read
only: what builds read from the person's home — git's config, the language toolchains and their
installed interpreters, the folders on PATH — and what the person lists (`[sandbox]
allowRead`, or Claude Code's `sandbox.filesystem.allowRead`). A toolchain's download cache (pip,
npm, cargo, go, maven, ...) is an overlay: read from the person's cache, written to the session's
own layer, never back into the person's files. Everything else of the home directory —
credentials, keyrings, shell histories, other programs' sockets — simply isn't there.

Outside home, the same holds for other people's home folders and removable media: `/home`,
`/root`, `/mnt` and `/media` are empty (what the project, the app's own Python or a listed path
needs is put back), `/tmp` and `/var/tmp` are the session's own, `/run` is empty.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

#: read-only from the person's home: what toolchains read (missing ones are skipped)
#: git's configuration files: written filtered into the session's home (`gitconfig.py`)
GIT_CONFIGS = (".gitconfig", ".config/git/config")
TOOLCHAINS = (
    ".config/git/ignore",
    ".config/git/attributes",
    ".pyenv",
    ".rustup",
    ".cargo/bin",
    ".nvm",
    ".volta",
    ".fnm",
    ".local/bin",
    ".local/lib",
    ".local/share/uv/python",
    ".local/share/uv/tools",
    ".local/share/pipx",
    ".local/share/fnm",
    ".local/share/mise",
    ".bun/bin",
    ".deno/bin",
    ".rbenv",
    ".rvm",
    ".asdf",
    ".sdkman/candidates",
    ".jdks",
    ".ghcup",
    ".cabal/bin",
    ".elan",
    ".opam",
    ".dotnet",
    "go/bin",
    "sdk",
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
    ".conda/envs",
    ".terminfo",
    ".virtualenvs",
)
#: download caches: the person's is read, writes go to the session's own layer
CACHES = (
    ".cache/pip",
    ".cache/uv",
    ".cache/pypoetry",
    ".cache/go-build",
    ".cache/yarn",
    ".cache/pnpm",
    ".cache/node-gyp",
    ".cache/ms-playwright",
    ".cache/deno",
    ".cache/bazel",
    ".cache/pre-commit",
    ".npm",
    ".yarn/berry/cache",
    ".local/share/pnpm",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".bun/install/cache",
    ".nuget/packages",
)
#: variables naming a toolchain's folder, shown read-only where it is under home (CARGO_HOME:
#: only its bin, the rest holds a registry token)
_TOOL_HOMES = ("VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "NVM_DIR", "RUSTUP_HOME")
#: the session's own inside (its private /tmp and /var/tmp): what must be seen is put back
PRIVATE = (Path("/tmp"), Path("/var/tmp"))
#: emptied (other people's homes, removable media): what must be seen is put back on top
MASKED = ("/home", "/root", "/mnt", "/media")


@dataclass(frozen=True, slots=True)
class HomeLayout:
    """How HOME and the masked folders are put together for one command."""

    home: Path
    #: the session's own folder bound as HOME (writable)
    own: Path
    #: folders replaced by an empty one (tmpfs), outermost first
    masked: tuple[Path, ...]
    #: bound read-only from the host, in order
    read: tuple[Path, ...]
    #: (the person's cache, the session's upper layer for it)
    caches: tuple[tuple[Path, Path], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: written into the session's home: (path relative to it, text) — git's config, filtered
    written: tuple[tuple[str, str], ...] = ()


def _exists(p: Path) -> bool:
    try:
        return p.exists() or p.is_symlink()
    except OSError:  # a folder on the way we may not enter: not there for us either
        return False


def _is_dir(p: Path) -> bool:
    try:
        return p.is_dir()
    except OSError:
        return False


def _inside(p: Path, roots: Iterable[Path]) -> bool:
    return any(p == r or p.is_relative_to(r) for r in roots)


def plan_home(
    home: Path,
    own: Path,
    cache_layers: Path,
    *,
    environ: Mapping[str, str],
    allow_read: Iterable[Path] = (),
    keep_visible: Iterable[Path] = (),
    secrets: Iterable[Path] = (),
) -> HomeLayout:
    """`own`: the session's HOME folder; `cache_layers`: where the session's cache layers live;
    `keep_visible`: paths that must stay as they are on the host, read-only (the app's own
    Python, the folders on PATH); `secrets`: never shown, even when a listed path holds them."""
    home = home.resolve() if home.exists() else home
    hidden = [s.resolve() if _exists(s) else s for s in secrets]
    masked = [Path(m) for m in MASKED if _is_dir(Path(m)) and not Path(m).is_symlink()]
    read: list[Path] = []
    notes: list[str] = []
    caches: list[tuple[Path, Path]] = []
    for rel in CACHES:
        p = home / rel
        if _is_dir(p) and not p.is_symlink():
            caches.append((p, cache_layers / rel.replace("/", "_")))
    cached = [c for c, _ in caches]
    for rel in TOOLCHAINS:
        p = home / rel
        if _exists(p) and not _inside(p, cached):
            read.append(p)
    replaced = [home, *masked, *PRIVATE]
    places = environ.get("PATH", "").split(os.pathsep)
    places += [environ.get(key, "") for key in _TOOL_HOMES]
    cargo = environ.get("CARGO_HOME", "")
    places += [str(Path(cargo) / "bin")] if cargo else []  # its bin: its credentials stay out
    for entry in places:
        p = Path(entry)
        if not (entry and p.is_absolute() and _is_dir(p) and _inside(p, replaced)):
            continue
        if home.is_relative_to(p) or p in masked:
            notes.append(f"{entry} on PATH holds your whole home folder: not shown")
            continue
        read.append(p)
    for p in allow_read:
        if not _exists(p):
            notes.append(f"allowRead {p}: does not exist")
            continue
        read.append(p)
    for p in keep_visible:
        if _inside(p, replaced) and not home.is_relative_to(p):
            read.append(p)
    kept: list[Path] = []
    ordered = sorted(dict.fromkeys(read), key=lambda p: len(p.parts))
    for p in ordered:
        if any(p != k and p.is_relative_to(k) for k in kept):
            continue  # inside a folder already shown (its bind shows it)
        real = p.resolve() if p.is_symlink() else p
        if _inside(p, hidden) or _inside(real, hidden):
            notes.append(f"{p}: holds credentials the sandbox hides; not shown")
            continue
        kept.append(p)
    # a folder before what is inside it (binds on top of binds)
    kept.sort(key=lambda p: len(p.parts))
    written = tuple((rel, text) for rel in GIT_CONFIGS if (text := _git_config(home / rel)))
    layout = HomeLayout(home, own, tuple(masked), tuple(kept), tuple(caches), tuple(notes))
    return replace(layout, written=written)


def _git_config(path: Path) -> str | None:
    from agent_tui.sandbox.gitconfig import filtered

    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _GIT_CONFIG_CACHE:
        _GIT_CONFIG_CACHE[key] = filtered(path)
    return _GIT_CONFIG_CACHE[key]


_GIT_CONFIG_CACHE: dict[tuple[str, int, int], str | None] = {}


def home_arguments(layout: HomeLayout, work: Path) -> list[str]:
    """bwrap arguments for `layout` (after the emptied folders' tmpfs and the private /tmp,
    before the project's overlay). `work`: an empty folder of this command's own for the cache
    overlays' work dirs, on the file system of the cache layers."""
    for rel, text in layout.written:
        write_own(layout.own, rel, text.encode())
    args = ["--bind", str(layout.own), str(layout.home)]
    for p in layout.read:
        args += ["--ro-bind", str(p), str(p)]
    for n, (cache, upper) in enumerate(layout.caches):
        upper.mkdir(parents=True, exist_ok=True)
        w = work / f"cache-{n}"
        w.mkdir(parents=True, exist_ok=True)
        args += ["--overlay-src", str(cache), "--overlay", str(upper), str(w), str(cache)]
    return args


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def write_own(own: Path, rel: str, data: bytes) -> None:
    """Put `data` at `rel` in the session's home `own`, which commands write to: never through
    a link one planted (`~/.gitconfig` → `~/.ssh/id_rsa`, `~/.config/git` → the project's
    .git): each folder is opened without following a link, and a link or file in a folder's
    place is taken away first; the file is written beside its name and renamed over it (a link
    there is replaced, never followed)."""
    *folders, name = Path(rel).parts
    fd = os.open(own, _DIR)
    try:
        for folder in folders:
            fd = _own_folder(fd, folder)
        try:
            current = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        except OSError:
            current = -1
        if current >= 0:
            try:
                st = os.fstat(current)
                same = stat.S_ISREG(st.st_mode) and st.st_size == len(data)
                if same and os.pread(current, len(data) + 1, 0) == data:
                    return
            finally:
                os.close(current)
        tmp = f".{name}.{os.urandom(4).hex()}"
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=fd)
        with os.fdopen(out, "wb") as f:
            f.write(data)
        try:
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except IsADirectoryError:  # a folder a command made in the file's place
            shutil.rmtree(name, dir_fd=fd)
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    finally:
        os.close(fd)


def _own_folder(parent: int, name: str) -> int:
    """The folder `name` in `parent` (closed here), made a folder again if a command put a link
    or a file in its place."""
    try:
        try:
            return os.open(name, _DIR, dir_fd=parent)
        except FileNotFoundError:
            pass
        except OSError:  # a link (ELOOP) or a file (ENOTDIR) where the folder was
            os.unlink(name, dir_fd=parent)
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o755, dir_fd=parent)
        return os.open(name, _DIR, dir_fd=parent)
    finally:
        os.close(parent)


def seal_arguments(layout: HomeLayout) -> list[str]:
    """After everything is bound: the emptied folders read-only (a write there fails instead of
    vanishing with the command); what is bound inside them keeps its own mode."""
    return [a for m in layout.masked if m != layout.home for a in ("--remount-ro", str(m))]
