"""What the sandbox's boundary stopped in one command, said plainly for the model and the chat:
"write to ~/.bashrc", "read of ~/.ssh/id_rsa (hidden)", "network to 1.2.3.4 refused (...)".

The kernel only returns an error code to the command, so this reads the command's own words
(`Read-only file system` with the path it names), the paths the command line names that are
hidden, and what the proxy refused. It names what it can see; a failure the command didn't
report with a path is still summed up as a sandbox refusal when the output shows one.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from pathlib import Path

from agent_tui.sandbox.layout import Layout

_EROFS = ("Read-only file system", "Errno 30")
#: what a command says when a placeholder (an empty file) stands where it wanted a directory
_MISSING = ("No such file or directory", "Not a directory", "File exists")
_QUOTED = re.compile(r"""['‘"`]([^'’"`\n]+)['’"`]""")
_BEFORE = re.compile(
    r"([^\s:'\"`]+): "
    r"(?:Read-only file system|Permission denied|No such file or directory|Not a directory|"
    r"File exists)"
)
# how programs say a connection or a name lookup failed (curl, wget, git, Python, Node, Go, ...)
_NET = re.compile(
    r"Network is unreachable|No route to host|Could not resolve|Couldn't resolve|"
    r"Temporary failure in name resolution|Name or service not known|getaddrinfo|"
    r"Connection refused|Failed to connect|Couldn't connect|unable to connect|"
    r"ENETUNREACH|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|Errno -[23]\b|Errno 10[1]\b|Errno 111\b",
    re.IGNORECASE,
)
_IP = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?![\w.])")
_DEV_TCP = re.compile(r"/dev/(?:tcp|udp)/([^/\s]+)/")


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def show(path: Path, cwd: Path | None = None) -> str:
    if cwd is not None and path.is_relative_to(cwd) and path != cwd:
        return str(path.relative_to(cwd))
    home = _home()
    return "~/" + str(path.relative_to(home)) if path.is_relative_to(home) else str(path)


def _resolve(raw: str, cwd: Path) -> Path:
    p = Path(os.path.expanduser(raw))
    return Path(os.path.normpath(p if p.is_absolute() else cwd / p))


def blocked(layout: Layout, command: str, output: str, refused: Iterable[str] = ()) -> list[str]:
    """What the sandbox kept the command from, each said once, in the order found: writes and
    protected files its output names, what isn't there in the sandbox, hidden reads and writes
    to the sandbox's own home the command line names, what was refused, the network."""
    found: dict[str, None] = {}
    found.update(dict.fromkeys(_written_or_made(layout, output)))
    found.update(dict.fromkeys(_not_shown(layout, output)))
    found.update(dict.fromkeys(_named_in_command(layout, command)))
    found.update(dict.fromkeys(refused))
    if _NET.search(output) and not any(f.startswith("network to") for f in found):
        found.update(dict.fromkeys(_network(command, output)))
    return list(found)


def _paths_in(line: str, cwd: Path) -> list[Path]:
    return [_resolve(raw.strip(), cwd) for raw in _QUOTED.findall(line) + _BEFORE.findall(line)]


def _written_or_made(layout: Layout, output: str) -> list[str]:
    """A write to a read-only place, or a protected file kept from being made, in the output."""
    found, cwd = [], layout.cwd
    for line in output.splitlines():
        erofs = any(marker in line for marker in _EROFS)
        if not erofs and not any(m in line for m in _MISSING):
            continue
        for path in _paths_in(line, cwd):
            real = Path(os.path.realpath(path))  # a protected link is protected where it points
            if erofs and not (layout.is_writable(path) and layout.is_writable(real)):
                found.append(f"write to {show(path, cwd)}")
            elif not erofs and (layout.is_placeholder(path) or layout.is_placeholder(real)):
                found.append(f"{show(path, cwd)} (protected: kept from being made)")
    return found


def _not_shown(layout: Layout, output: str) -> list[str]:
    """A path the output says is missing that the host has but the sandbox doesn't show."""
    found, cwd = [], layout.cwd
    for line in output.splitlines():
        if not any(m in line for m in _MISSING):
            continue
        for path in _paths_in(line, cwd):
            if not layout.is_visible(path) and _on_host(path):
                found.append(f"{show(path, cwd)}: not there in the sandbox (outside what it shows)")
    return found


def _named_in_command(layout: Layout, command: str) -> list[str]:
    """A hidden file the command line reads, or a write of it that went to the sandbox's home."""
    found, cwd = [], layout.cwd
    for raw in _words(command):
        if "/" in raw or raw.startswith("~"):
            path = _resolve(raw, layout.cwd)
            if layout.is_hidden(path) or (
                layout.home is not None and _secret(path) and not layout.is_visible(path)
            ):
                found.append(f"read of {show(path, cwd)} (hidden)")
            elif _own_home_write(layout, path):
                found.append(f"{show(path, cwd)} went to the sandbox's own home, not yours")
    return found


def _network(command: str, output: str) -> list[str]:
    hosts = dict.fromkeys(_DEV_TCP.findall(command) + _IP.findall(command) + _IP.findall(output))
    why = "the sandbox has no network but its proxy"
    if hosts:
        return [f"network to {host} refused ({why})" for host in hosts]
    return [f"network refused ({why})"]


def _on_host(path: Path) -> bool:
    """The host has `path`, or the folder it would be made in."""
    return os.path.lexists(path) or path.parent.is_dir()


def _secret(path: Path) -> bool:
    from agent_tui.sandbox.layout import SECRETS

    home = _home()
    return any(path.is_relative_to(home / s) for s in SECRETS)


def _own_home_write(layout: Layout, path: Path) -> bool:
    """A path under HOME the command wrote in the sandbox's own home (the person's is not
    there inside)."""
    home = layout.home
    if home is None or not path.is_relative_to(home.home) or path == home.home:
        return False
    if any(path.is_relative_to(p) for p in home.read):
        return False
    return os.path.lexists(home.own / path.relative_to(home.home))


def _words(command: str) -> list[str]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return [w for w in lexer if w not in ("<", ">", ">>", "|", "&&", ";", "&", "||")]
    except ValueError:
        return command.split()


def note(items: list[str]) -> str:
    return (
        "[blocked by the sandbox: "
        + "; ".join(items)
        + ". If it must run outside the sandbox, send the call again with "
        '"dangerouslyDisableSandbox": true; the person is asked.]'
    )
