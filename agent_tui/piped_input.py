"""Piped standard input for `agent-tui -p` (`git diff | agent-tui -p "review this"`), as Claude
Code reads it: the input joins the prompt, or is the prompt when none was given.

Input that has not started arriving after a short wait is left alone (a pipe some harness holds
open would otherwise hang the run): a warning says so, and how to wait for a slow writer.
"""

from __future__ import annotations

import os
import select
import stat
import sys
from typing import BinaryIO

#: more than this is refused: a file is better named in the prompt (Read takes it in pages)
MAX_PIPED_BYTES = 10 * 1024 * 1024
#: how long the first byte (or the end) of piped input is waited for
FIRST_BYTE_WAIT_S = 3.0


class PipedInputError(ValueError):
    """Piped input that can't be used (too large); the message is the one line to print."""


def _waits(stream: BinaryIO) -> bool:
    """Whether `stream` is a pipe, socket or file someone may be writing to (not a terminal,
    not /dev/null)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISREG(mode)


def read_piped(stream: BinaryIO | None = None, wait_s: float = FIRST_BYTE_WAIT_S) -> str | None:
    """The text piped to `stream` (standard input by default), or None when nothing is piped.
    Raises `PipedInputError` past `MAX_PIPED_BYTES`."""
    stream = stream if stream is not None else sys.stdin.buffer
    if not _waits(stream):
        return None
    ready, _, _ = select.select([stream], [], [], wait_s)
    if not ready:
        print(
            f"agent-tui: warning: no piped input arrived in {wait_s:g} s; going on without it "
            "(for a slow command, write it to a file first; `</dev/null` skips the wait)",
            file=sys.stderr,
        )
        return None
    data = stream.read(MAX_PIPED_BYTES + 1)
    if len(data) > MAX_PIPED_BYTES:
        raise PipedInputError(
            f"piped input is over {MAX_PIPED_BYTES // (1024 * 1024)} MB; write it to a file "
            "and name the file in the prompt"
        )
    text = data.decode("utf-8", errors="replace")
    return text if text.strip() else None


def with_piped(prompt: str, piped: str | None) -> str:
    """The prompt the model gets: the piped text alone, or the prompt followed by it."""
    if piped is None:
        return prompt
    if not prompt.strip():
        return piped
    return f"{prompt}\n\n<stdin>\n{piped.rstrip(chr(10))}\n</stdin>"
