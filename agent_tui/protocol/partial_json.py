"""Incremental extraction of one top-level string field from a JSON object that arrives in pieces.

Used to show a web search's query while its `input_json_delta`s stream in. Each character is looked
at once, so the cost is linear in the input however it is chunked (re-parsing the whole buffer on
every delta would be quadratic).
"""

from __future__ import annotations

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class PartialStringField:
    def __init__(self, name: str) -> None:
        self.name = name
        self.value: str | None = None
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._unicode: str | None = None  # hex digits of a \uXXXX escape being read
        self._expect_key = False  # at depth 1, the next string is a key
        self._key_parts: list[str] = []
        self._last_key: str | None = None
        self._capturing = False
        self._pending_surrogate: int | None = None
        self._out: list[str] = []

    def feed(self, chunk: str) -> bool:
        """Consume more JSON text; returns True when the field's value grew."""
        out: list[str] = []
        self._out = out
        for ch in chunk:
            if self._in_string:
                self._string_char(ch)
                continue
            if ch == '"':
                self._start_string()
            elif ch in "{[":
                self._depth += 1
                self._expect_key = ch == "{" and self._depth == 1
            elif ch in "}]":
                self._depth -= 1
            elif ch == "," and self._depth == 1:
                self._expect_key = True
            elif ch == ":" and self._depth == 1:
                self._expect_key = False
        if out:
            self.value = (self.value or "") + "".join(out)
            return True
        return False

    def _start_string(self) -> None:
        self._in_string = True
        self._key_parts = []
        if self._depth == 1 and not self._expect_key and self._last_key == self.name:
            self._capturing = True
            if self.value is None:
                self.value = ""

    def _end_string(self) -> None:
        self._in_string = False
        if self._depth == 1 and self._expect_key:
            self._last_key = "".join(self._key_parts)
        elif self._capturing:
            self._capturing = False
            self._last_key = None

    def _put(self, text: str) -> None:
        """Route decoded string text: into the value being captured, or into a key."""
        if not text:
            return
        if self._capturing:
            self._out.append(text)
        elif self._expect_key and self._depth == 1:
            self._key_parts.append(text)

    def _flush_surrogate(self) -> str:
        """A high surrogate not followed by a low one stands alone, as `json.loads` keeps it."""
        if self._pending_surrogate is None:
            return ""
        high, self._pending_surrogate = self._pending_surrogate, None
        return chr(high)

    def _string_char(self, ch: str) -> None:
        """Decode one character inside a string."""
        if self._unicode is not None:
            self._unicode += ch
            if len(self._unicode) < 4:
                return
            try:
                code = int(self._unicode, 16)
            except ValueError:
                code = 0xFFFD
            self._unicode = None
            if 0xD800 <= code <= 0xDBFF:
                self._put(self._flush_surrogate())
                self._pending_surrogate = code
                return
            if 0xDC00 <= code <= 0xDFFF and self._pending_surrogate is not None:
                high, self._pending_surrogate = self._pending_surrogate, None
                self._put(chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)))
                return
            self._put(self._flush_surrogate() + chr(code))
            return
        if self._escape:
            self._escape = False
            if ch == "u":
                self._unicode = ""
                return
            self._put(self._flush_surrogate() + _ESCAPES.get(ch, ch))
            return
        if ch == "\\":
            self._escape = True
            return
        self._put(self._flush_surrogate())
        if ch == '"':
            self._end_string()
            return
        self._put(ch)
