"""The static value of a shell word: what bash would pass as the argument when the word has no
expansion, no unquoted glob and no brace expansion; None when it can't be known before running."""

from __future__ import annotations

import itertools
import re

import tree_sitter

from agent_tui.permissions.analysis import Word

_GLOB_CHARS = frozenset("*?[")
_DIR_STACK_TILDE = re.compile(r"~[+-]?\d*(/|$)(?<!~/)(?<!~$)")
_BRACE = re.compile(r"\{[^}]*(,|\.\.)[^}]*\}")


def _chars(node: tree_sitter.Node) -> list[tuple[str, bool]] | None:
    """The characters of a word as (char, quoted), or None when it has any expansion."""
    t = node.type
    text = node_text(node)
    if t == "word":
        out: list[tuple[str, bool]] = []
        i = 0
        while i < len(text):
            if text[i] == "\\" and i + 1 < len(text):
                if text[i + 1] != "\n":
                    out.append((text[i + 1], True))
                i += 2
            else:
                out.append((text[i], False))
                i += 1
        return out
    if t == "number":
        return [(c, False) for c in text]
    if t == "raw_string":
        return [(c, True) for c in text[1:-1]]
    if t == "string":
        if any(c.type not in ('"', "string_content") for c in node.children):
            return None
        return [(c, True) for c in _unescape_dquoted(text[1:-1])]
    if t == "concatenation":
        out = []
        for child in node.children:
            part = _chars(child)
            if part is None:
                return None
            out.extend(part)
        return out
    return None


def _unescape_dquoted(s: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in '$`"\\\n':
            if s[i + 1] != "\n":
                out.append(s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def static_word(node: tree_sitter.Node) -> Word:
    """The word's value if it is a literal: no expansions, no unquoted glob or brace expansion."""
    chars = _chars(node)
    if chars is None:
        return None
    if any(c in _GLOB_CHARS and not q for c, q in chars):
        return None
    masked = "".join("\x00" if q else c for c, q in chars)
    if _BRACE.search(masked):
        return None
    if _DIR_STACK_TILDE.match(masked):
        return None  # `~-` is $OLDPWD, `~+` $PWD, `~2` the directory stack: not known here
    return "".join(c for c, _ in chars)


def node_text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


# a newline not escaped by a backslash (an odd run of backslashes before it escapes it)
_RAW_NEWLINE = re.compile(rb"(?<!\\)(?:\\\\)*\n")


def word_gap(node: tree_sitter.Node) -> str | None:
    """Why tree-sitter-bash and bash would split this node's words differently, or None.

    tree-sitter-bash takes a raw newline, or a backslash-newline with no blank beside it,
    as a blank inside one command; bash ends the command at the newline and joins words
    across the continuation (`a=1\\<newline>git log` runs `log`).
    """
    src = node.text or b""
    base = node.start_byte
    if node.type in ("word", "number") and _RAW_NEWLINE.search(src):
        return "a line break inside a word: the command can't be parsed reliably"
    for left, right in itertools.pairwise(node.children):
        gap = src[left.end_byte - base : right.start_byte - base]
        if not gap:
            continue
        reduced = gap.replace(b"\\\n", b"")
        if reduced.strip(b" \t") or (reduced != gap and not reduced):
            return "a line break inside a command: it can't be parsed reliably"
    return None
