"""A small reader for `text/event-stream` bodies (offline scripts and test fixtures).

Yields each event's `data:` JSON as a dict; an `event:` name with no JSON data is skipped the way
the SDK skips it. Invalid JSON raises `ValueError` naming the line, like a broken wire would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def iter_sse(text: str) -> Iterator[dict[str, Any]]:
    data_lines: list[str] = []
    line_no = 0
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line:
            if data_lines:
                yield _decode(data_lines, line_no)
                data_lines = []
            continue
        if line.startswith("data:"):
            data_lines.append(line[5:].lstrip(" "))
    if data_lines:
        yield _decode(data_lines, line_no)


def _decode(lines: list[str], line_no: int) -> dict[str, Any]:
    try:
        value = json.loads("\n".join(lines))
    except ValueError as exc:
        raise ValueError(f"invalid JSON in SSE data before line {line_no}: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"SSE data before line {line_no} is not a JSON object")
    return value
