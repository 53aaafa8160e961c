"""Parsed stylesheets kept for the next start, through `Stylesheet._parse_cache` (Textual 8.2.8).

Textual memoises the rules parsed from each source per process in the stylesheet's private
`_parse_cache` (consulted by `Stylesheet._parse_rules`). `ui/startup/css_cache.py` fills that memo
from
the last run's file before anything is styled, and saves it after the first frame (~15 ms of a
~300 ms first frame, see BENCHMARKS.md, start-up). This module is the one place that touches the
memo: `memo(stylesheet)` gives it while `_parse_rules` is the one this was written for.

Upstream: a public `Stylesheet.parse_cache` (or an `App` hook) through which an app can keep and
restore parsed rules.
"""

from __future__ import annotations

from typing import Any, Protocol

from agent_tui.ui.patches import Patch, fits

PATCH = Patch(
    name="css_parse_memo",
    version="8.2.8",
    fixes="every start parses the same stylesheets again",
    targets={"textual.css.stylesheet:Stylesheet._parse_rules": 318809041},
)


class ParseMemo(Protocol):
    """What of Textual's `LRUCache` the stylesheet cache uses."""

    def keys(self) -> Any: ...

    def get(self, key: Any) -> Any: ...

    def set(self, key: Any, value: Any) -> None: ...

    def __contains__(self, key: object) -> bool: ...


def memo(stylesheet: Any) -> ParseMemo | None:
    """The stylesheet's memo of parsed sources, if it is the one this was written for."""
    found = getattr(stylesheet, "_parse_cache", None)
    if found is None or not all(hasattr(found, name) for name in ("keys", "get", "set")):
        return None
    return found if fits(PATCH) else None


def apply() -> bool:
    return fits(PATCH)
