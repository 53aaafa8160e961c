"""How long to wait before retrying a failed request, and when not to wait at all.

A server may ask for any wait in `retry-after` (a day, say). Waiting that long would look like a
hang, so the loop waits at most `AgentConfig.max_retry_wait` seconds; past that it stops and says
when to try again. The SDK's own retries are off (`max_retries=0`), so it never waits either.
"""

from __future__ import annotations

import time
from typing import Any

from agent_tui.agent.config import AgentConfig


def retry_delay(exc: BaseException, attempt: int, config: AgentConfig) -> float:
    """The server's `retry-after`, else exponential backoff from `retry_base_delay`."""
    asked: Any = getattr(exc, "retry_after", None)
    if isinstance(asked, int | float) and asked > 0:
        return float(asked)
    return config.retry_base_delay * 2.0 ** (attempt - 1)


def too_long(delay: float, config: AgentConfig) -> bool:
    return delay > config.max_retry_wait


def wait_text(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def try_again_at(delay: float, now: float | None = None) -> str:
    """The local time to try again at, with the date when it isn't today."""
    start = time.time() if now is None else now
    then = time.localtime(start + delay)
    same_day = time.localtime(start)[:3] == then[:3]
    return time.strftime("%H:%M %Z" if same_day else "%Y-%m-%d %H:%M %Z", then)


def gave_up(message: str, delay: float, config: AgentConfig) -> str:
    """What the person is told when the server asks for a wait longer than we will wait."""
    return (
        f"{message} The API asks to wait {wait_text(delay)} (more than the "
        f"{config.max_retry_wait:.0f} s agent-tui waits by itself): try again after "
        f"{try_again_at(delay)}."
    )
