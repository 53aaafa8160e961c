"""`--debug`: what the app logs, written to a file of its own (Claude Code's `-d/--debug [FILTER]`
and `--debug-file PATH`).

Without it nothing is configured: the `agent_tui` logger has a `NullHandler` (the package's
`__init__`), so no record of ours ever reaches stderr, over the screen. With it, every record of
ours (from DEBUG up) and the libraries' from INFO up go to `<data dir>/debug/<time>-<pid>.log`
(`latest.log` beside it points at the newest), or to `--debug-file`, with the secrets `redact`
knows taken out of each line. FILTER, as in Claude Code, is comma-separated words, each naming
part of a logger's name (`speedups`, `mcp`, `hooks`, `sandbox`…), or `!word` to leave those out.
The log begins with the versions the app runs on; which speed-ups stood down and why follows as
they are checked (`agent_tui.speedups`), and `/doctor` lists them too.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import sys
import time
from pathlib import Path

#: the file this process logs to (None: `--debug` not given)
_current: list[Path] = []

#: a FILTER `--debug` takes (else what follows it is the prompt): `api,hooks`, `!speedups`
_FILTER = re.compile(r"!?[\w.-]+(,!?[\w.-]+)*")


def add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-d",
        "--debug",
        nargs="?",
        const="",
        metavar="FILTER",
        help="write a debug log (where: said at the start); FILTER: words of the loggers' names "
        "to keep, or !word to leave out (speedups,mcp or !textual)",
    )
    parser.add_argument(
        "--debug-file", type=Path, metavar="PATH", help="the debug log's file (implies --debug)"
    )


def from_args(args: argparse.Namespace) -> Path | None:
    """Start the debug log `--debug`/`--debug-file` ask for; where it goes (None: not asked).
    A prompt right after a bare `--debug` (`agent-tui --debug "why is this slow"`) is the
    prompt, not a filter."""
    if args.debug is None and args.debug_file is None:
        return None
    words = args.debug or ""
    if words and not _FILTER.fullmatch(words):  # the prompt's words, in the order typed
        args.initial = words if args.initial is None else f"{words} {args.initial}"
        words = ""
    return start(args.debug_file, words)


def start(path: Path | None = None, words: str = "") -> Path:
    """Log to `path` (default: a new file under the data dir's `debug/`) from now on; the file.
    Once a process: a second call returns the first file."""
    if _current:
        return _current[0]
    path = (path or _default_path()).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(_Redacted("%(asctime)s [%(levelname)s] %(name)s: %(message)s"))
    if words:
        handler.addFilter(_Words(words))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(min(root.level or logging.WARNING, logging.INFO))
    logging.getLogger("agent_tui").setLevel(logging.DEBUG)
    logging.captureWarnings(True)  # a library's warnings go to the log, not over the screen
    _current.append(path)
    _header()
    return path


def current() -> Path | None:
    """The debug log's file, when `--debug` started one."""
    return _current[0] if _current else None


def _default_path() -> Path:
    from agent_tui.paths import data_dir

    folder = data_dir() / "debug"
    path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    latest = folder / "latest.log"
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        latest.unlink(missing_ok=True)
        latest.symlink_to(path.name)
    return path


def _header() -> None:
    import platform
    from importlib.metadata import PackageNotFoundError, version

    from agent_tui import __version__

    log = logging.getLogger("agent_tui.debug")
    found = []
    for package in ("textual", "rich", "anthropic", "trafilatura"):
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} missing")
    log.info(
        "agent-tui %s on Python %s (%s), %s; %s",
        __version__,
        platform.python_version(),
        sys.implementation.cache_tag,
        platform.platform(),
        ", ".join(found),
    )
    log.info("command line: %s", " ".join(sys.argv[1:]))


class _Redacted(logging.Formatter):
    """Each line with the secrets `redact` knows taken out (keys, tokens, auth headers)."""

    def format(self, record: logging.LogRecord) -> str:
        from agent_tui.redact import redact

        return redact(super().format(record))


class _Words(logging.Filter):
    """Claude Code's FILTER: records whose logger's name holds one of the words (or, with
    `!word`, none of those)."""

    def __init__(self, words: str) -> None:
        super().__init__()
        parts = [w.strip().lower() for w in words.split(",") if w.strip()]
        self.keep = [w for w in parts if not w.startswith("!")]
        self.drop = [w[1:] for w in parts if w.startswith("!")]

    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name.lower()
        if any(word in name for word in self.drop):
            return False
        return not self.keep or any(word in name for word in self.keep)
