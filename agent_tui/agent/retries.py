"""How long to wait before retrying a failed request, and when not to wait at all.

A server may ask for any wait in `retry-after` (a day, say). Waiting that long would look like a
hang, so the loop waits at most `AgentConfig.max_retry_wait` seconds; past that it stops and says
when to try again. The SDK's own retries are off (`max_retries=0`), so it never waits either.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from agent_tui.agent.config import AgentConfig
from agent_tui.redact import redact
from agent_tui.text import clause


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


@dataclass(frozen=True, slots=True)
class AfterFailure:
    """What a failed request leads to: a wait of `delay` seconds and a try again (`text` says
    so), or (`delay` None) the turn's failure, said by `text`."""

    text: str
    retryable: bool
    delay: float | None = None


def after_failure(
    exc: BaseException, attempts: int, got_content: bool, config: AgentConfig
) -> AfterFailure:
    """After the request failed with `exc`, tried again `attempts` times so far. Never again
    once content arrived (it would be said twice). A failure after retries says how many tries
    there were: a screen drops the retries' lines, which said the same (`Notice.retrying`)."""
    retryable = bool(getattr(exc, "retryable", getattr(exc, "kind", "") == "overloaded_error"))
    message = redact(str(getattr(exc, "message", exc)))
    limit = getattr(exc, "max_retries", None)
    limit = config.max_retries if limit is None else limit
    if not retryable or got_content or attempts >= limit:
        tried = f"{clause(message)}. Tried {attempts + 1} times." if attempts else message
        return AfterFailure(tried, retryable)
    delay = retry_delay(exc, attempts + 1, config)
    if too_long(delay, config):
        return AfterFailure(gave_up(message, delay, config), True)
    waiting = f"Retrying in {delay:.0f}s (attempt {attempts + 1} of {limit})…"
    return AfterFailure(f"{message} {waiting}", True, delay)
