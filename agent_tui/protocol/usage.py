"""Token and server-tool usage, as the API reports it (kept apart from the events that carry it)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any


def _count(value: Any) -> int:
    """A token count from the wire; anything that is not a number counts as 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0
    if isinstance(value, float) and abs(value) == float("inf"):
        return 0
    return int(value)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token and server-tool usage; `+` sums usage across the requests of a turn."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    web_search_requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            *(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self))
        )

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )

    @classmethod
    def from_api(cls, usage: dict[str, Any] | None) -> Usage:
        """Build from an API `usage` object (missing or null fields count as 0)."""
        if not isinstance(usage, dict):
            return cls()
        server = usage.get("server_tool_use")
        if not isinstance(server, dict):
            server = {}
        return cls(
            input_tokens=_count(usage.get("input_tokens")),
            output_tokens=_count(usage.get("output_tokens")),
            cache_creation_input_tokens=_count(usage.get("cache_creation_input_tokens")),
            cache_read_input_tokens=_count(usage.get("cache_read_input_tokens")),
            web_search_requests=_count(server.get("web_search_requests")),
        )

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)
