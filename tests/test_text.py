"""agent_tui.text.visible: what an approval dialog shows is exactly what will run."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_tui.text import is_visible, visible


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("git status", "git status"),
        ("line1\nline2\tx", "line1\nline2\tx"),
        ("echo \x1b[31mred\x1b[0m", "echo \\x1b[31mred\\x1b[0m"),
        ("rm -rf / \r# harmless", "rm -rf / \\x0d# harmless"),
        ("a\x00b\x07c\x7fd\x85e", "a\\x00b\\x07c\\x7fd\\x85e"),
        ("ls \u202eexe.txt", "ls <U+202E>exe.txt"),
        ("ls \u2066x\u2069", "ls <U+2066>x<U+2069>"),
        ("r\u200bm", "r<U+200B>m"),
        ("a\u200d\u200c\u2060\ufeffb", "a<U+200D><U+200C><U+2060><U+FEFF>b"),
        ("soft\u00adhyphen", "soft<U+00AD>hyphen"),
        ("nbsp\u00a0here", "nbsp<U+00A0>here"),
        ("line\u2028sep", "line<U+2028>sep"),
        ("tag\U000e0041", "tag<U+E0041>"),
        ("hangul\u3164filler", "hangul<U+3164>filler"),
        ("vs\ufe0f", "vs<U+FE0F>"),
        ("é 中 😀 [bold]x[/]", "é 中 😀 [bold]x[/]"),
    ],
)
def test_visible(raw: str, shown: str) -> None:
    assert visible(raw) == shown
    assert is_visible(raw) is (raw == shown)


@given(st.text())
def test_visible_output_has_nothing_hidden(text: str) -> None:
    out = visible(text)
    assert all(c in "\n\t" or (c.isprintable() and is_visible(c)) for c in out)
    assert visible(out) == out  # idempotent
    if text.isprintable() and is_visible(text):
        assert out == text
