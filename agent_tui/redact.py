"""Keep secrets out of anything written to disk.

`redact(text)` replaces the values of environment variables named `*_API_KEY` / `*_TOKEN` (at least
8 characters, so `TOKEN=1` does not blank every "1"), anything that looks like an Anthropic key
(`sk-ant-…`) and the values of `Authorization` / `x-api-key` style headers. `redact_obj(obj)` does
the same through a JSON-like structure and drops such headers' values wherever they are keys.

Both are cheap when there is nothing to redact: plain substring checks run first, and unchanged
objects are returned as they are (no copy), so callers can redact everything they write.

Opaque, signed fields (`signature`, `encrypted_content`, `encrypted_index`, a `redacted_thinking`
block's `data`) are never touched: altering them would make the API reject a resumed conversation,
and they are ciphertext anyway.
"""

from __future__ import annotations

import os
import re
from typing import Any

REDACTED = "[REDACTED]"

_ENV_SUFFIXES = ("_API_KEY", "_TOKEN")
_RAW_SUFFIXES = (b"_API_KEY", b"_TOKEN", b"_api_key", b"_token")
_MIN_SECRET_LEN = 8

_ANTHROPIC_KEY = re.compile(r"sk-ant-[A-Za-z0-9_\-]{6,}")
# `Authorization: Bearer x`, `"x-api-key": "x"`, `authorization=x` — the header name stays.
_HEADER_VALUE = re.compile(
    r"""(?i)(\b(?:proxy-)?authorization\b|\bx-api-key\b)(["']?\s*[:=]\s*["']?)([^\r\n"',}]+)"""
)
_HEADER_HINTS = ("uthorization", "UTHORIZATION", "pi-key", "PI-KEY", "pi-Key", "PI-Key")
_SECRET_KEYS = frozenset({"authorization", "proxy-authorization", "x-api-key"})
_OPAQUE_KEYS = frozenset({"signature", "encrypted_content", "encrypted_index"})


_extra: set[str] = set()
_cache_raw: tuple[Any, ...] | None = None
_cache_values: tuple[str, ...] = ()


def add_secret(value: str) -> None:
    """Also redact `value` (e.g. an API key read from a config file rather than the environment)."""
    global _cache_raw
    if len(value) >= _MIN_SECRET_LEN:
        _extra.add(value)
        _cache_raw = None


def secret_values() -> tuple[str, ...]:
    """The current secret values, longest first (so a value containing another wins).

    The environment is re-read on every call, so a key set after start-up is still caught. Reading
    the raw mapping (no decoding) keeps that to a few microseconds; the decoded, sorted tuple is
    rebuilt only when the raw values change.
    """
    global _cache_raw, _cache_values
    env = getattr(os.environ, "_data", None)
    if isinstance(env, dict) and all(isinstance(k, bytes) for k in list(env)[:1]):
        raw = tuple(v for k, v in env.items() if k.endswith(_RAW_SUFFIXES))
    else:  # Windows, or an unusual os.environ: the decoded mapping.
        raw = tuple(v for k, v in os.environ.items() if k.upper().endswith(_ENV_SUFFIXES))
    if raw != _cache_raw:
        decoded = {os.fsdecode(v) if isinstance(v, bytes) else v for v in raw}
        found = {v for v in decoded | _extra if len(v) >= _MIN_SECRET_LEN}
        _cache_values = tuple(sorted(found, key=len, reverse=True))
        _cache_raw = raw
    return _cache_values


def _has_header_hint(text: str) -> bool:
    return any(h in text for h in _HEADER_HINTS)


def _redact(text: str, values: tuple[str, ...]) -> str:
    if "sk-ant-" in text:
        text = _ANTHROPIC_KEY.sub(REDACTED, text)
    for value in values:
        if value in text:
            text = text.replace(value, REDACTED)
    if _has_header_hint(text):
        text = _HEADER_VALUE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    return text


def redact(text: str, secrets: tuple[str, ...] | None = None) -> str:
    """`text` with secrets replaced by `[REDACTED]` (the same object when there are none).

    Pass `secrets=secret_values()` when redacting many values in a row, to read the environment
    once.
    """
    return _redact(text, secret_values() if secrets is None else secrets)


def redact_obj(obj: Any, secrets: tuple[str, ...] | None = None) -> Any:
    """A JSON-like value with every string redacted; unchanged parts are returned as-is."""
    return _redact_obj(obj, secret_values() if secrets is None else secrets)


def _redact_obj(obj: Any, values: tuple[str, ...]) -> Any:
    if isinstance(obj, str):
        return _redact(obj, values)
    if isinstance(obj, dict):
        out: dict[str, Any] | None = None
        opaque_data = obj.get("type") == "redacted_thinking"
        for key, value in obj.items():
            if key in _OPAQUE_KEYS or (opaque_data and key == "data"):
                continue
            if isinstance(key, str) and key.lower() in _SECRET_KEYS:
                new: Any = REDACTED
            else:
                new = _redact_obj(value, values)
            if new is not value:
                if out is None:
                    out = dict(obj)
                out[key] = new
        return obj if out is None else out
    if isinstance(obj, list | tuple):
        items: list[Any] | None = None
        for i, value in enumerate(obj):
            new = _redact_obj(value, values)
            if new is not value:
                if items is None:
                    items = list(obj)
                items[i] = new
        return obj if items is None else items
    return obj
