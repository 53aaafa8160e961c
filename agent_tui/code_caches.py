"""What a start compiles and the next start takes as it is: the dataclass code cache
(`dataclass_code_cache`), the regular expression code cache (`regex_code_cache`) and the
expression code cache (`expression_code_cache`: forward references' and named tuples' texts),
installed together before the modules that make dataclasses, patterns, forward references and
named tuples are imported (`cli.main`), and saved together once the agent is ready (the TUI's boot
worker, or the end of a headless run)."""

from __future__ import annotations

from pathlib import Path

from agent_tui import dataclass_code_cache, expression_code_cache, regex_code_cache

#: every code cache, each with its own file in the cache folder
CACHES = (dataclass_code_cache.CACHE, regex_code_cache.CACHE, expression_code_cache.CACHE)


def install(cache_dir: Path) -> None:
    """Take the last start's code from `cache_dir`, compiling what isn't there."""
    for cache in CACHES:
        cache.install(cache_dir)


def save_and_stop() -> None:
    """Keep what this start compiled for the next one, and compile as usual from now on."""
    for cache in CACHES:
        cache.save_and_stop()
