"""Places where bash runs code that a plain walk of tree-sitter-bash's tree would miss.

Two kinds, both reported as *problems* (the command asks, whatever rule matched):

- **Hidden code**: tree-sitter-bash leaves some of what bash expands as plain text: a backtick
  inside `${x:-...}`, `$(...)` in a `${x#...}` pattern, backticks in an unquoted heredoc body.
  `hidden_code` scans the source for every `` ` ``, `$(`, `$[`, `${`, `<(` and `>(` and accepts
  each only where the parser understood it (the opening of a substitution or expansion node) or
  where bash takes it literally (single quotes, `$'...'`, comments, quoted heredocs, a backslash).
  Anything else means the parser's view and bash's differ: ask.
- **Values evaluated as code**: bash evaluates a variable's *value* as an arithmetic expression
  in `$((x))`, `((x))`, `let`, `[[ x -eq 1 ]]`, array subscripts and substring offsets, and an
  array subscript inside that value runs command substitutions (`x='a[$(cmd)]'; echo $((x))`).
  Prompt expansion `${x@P}` and indirect expansion `${!x}` do the same. `code_evaluation` says why
  a node does this with a value not written literally in the command.
"""

from __future__ import annotations

import re

import tree_sitter

from agent_tui.permissions.analysis import ARITH_TEST_OPS, EVALUATES
from agent_tui.permissions.words import node_text

_OPENERS = (b"`", b"$(", b"$[", b"${", b"<(", b">(")
_OPENER_TOKENS = frozenset({"`", "$(", "$((", "$[", "${", "<(", ">(", "))", "]", ")"})
_UNDERSTOOD = frozenset(
    {"command_substitution", "process_substitution", "arithmetic_expansion", "expansion"}
)
_LITERAL = frozenset({"raw_string", "ansi_c_string", "comment"})
# Text that is only numbers and operators: evaluating it can't run anything.
_PURE_ARITHMETIC = re.compile(r"[0-9\s+\-*/%<>=!&|^~?:(),]*")
_SAFE_TRANSFORMS = frozenset("QUuLaEAKk")
_INDIRECT_LISTING = re.compile(r"\$\{!\w+(?:[*@]|\[[*@]\])\}")
_SAFE_SUBSCRIPT = re.compile(r"\[\s*(?:[@*]|[0-9+\-*/ ]+)\s*\]")


def hidden_code(root: tree_sitter.Node, source: bytes) -> str | None:
    """Why some code in `source` is invisible to the walk, or None when the parser saw it all."""
    for opener in _OPENERS:
        start = 0
        while (i := source.find(opener, start)) != -1:
            start = i + 1
            if _escaped(source, i) or _understood_or_literal(root, i):
                continue
            snippet = source[i : i + 24].decode("utf-8", "replace")
            return f"`{snippet}…` is code the command parser can't see into"
    return None


def _escaped(source: bytes, i: int) -> bool:
    n = 0
    while i - n - 1 >= 0 and source[i - n - 1] == ord("\\"):
        n += 1
    return n % 2 == 1


def _understood_or_literal(root: tree_sitter.Node, i: int) -> bool:
    node = root.descendant_for_byte_range(i, i + 1)
    if node is None:
        return False
    if not node.is_named and node.type in _OPENER_TOKENS:
        parent = node.parent
        if parent is not None and parent.type in _UNDERSTOOD | {"heredoc_redirect"}:
            return True
    walker: tree_sitter.Node | None = node
    while walker is not None:
        if walker.type in _LITERAL:
            return True
        if walker.type == "heredoc_body" and _quoted_heredoc(walker):
            return True
        walker = walker.parent
    return False


def _quoted_heredoc(body: tree_sitter.Node) -> bool:
    redirect = body.parent
    if redirect is None:
        return False
    start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
    return start is not None and any(q in (start.text or b"") for q in (b"'", b'"', b"\\"))


def code_evaluation(node: tree_sitter.Node) -> str | None:
    """Why bash would evaluate a runtime value as code at this node, or None."""
    t = node.type
    text = node_text(node)
    if t == "expansion":
        return _expansion(node, text)
    if t == "arithmetic_expansion" or (t == "compound_statement" and text.startswith("((")):
        inner = text.removeprefix("$").removeprefix("((").removeprefix("[")
        return _arithmetic(inner.removesuffix("))").removesuffix("]"), text)
    if t == "c_style_for_statement":
        head = text[text.find("((") + 2 : text.find("))")]
        return _arithmetic(head, "for ((...))")
    if t == "subscript":
        return _subscript(text)
    if t == "test_command":
        return _double_bracket(node, text)
    if t == "unset_command":
        args = node.named_children
        if any(c.type not in ("word", "raw_string", "string") or "[" in node_text(c) for c in args):
            return f"`{text}`: unset of an array element {EVALUATES} (its subscript)"
    if t == "declaration_command":
        flags = "".join(
            node_text(c)[1:] for c in node.named_children if node_text(c).startswith("-")
        )
        if "i" in flags or "n" in flags:
            return f"`{text}`: an integer or name-reference variable {EVALUATES}"
    return None


def _expansion(node: tree_sitter.Node, text: str) -> str | None:
    kids = node.children
    types = [c.type for c in kids]
    if len(kids) > 1 and types[1] == "!" and not _INDIRECT_LISTING.fullmatch(text):
        return f"`{text}`: indirect expansion {EVALUATES}"
    for i, ty in enumerate(types):
        if ty == "@" and i + 1 < len(kids):
            op = node_text(kids[i + 1])
            if op not in _SAFE_TRANSFORMS:
                return f"`{text}`: the @{op} transformation {EVALUATES}"
        if ty == ":" and i == 2:
            # `${v:offset:length}`: both are arithmetic expressions.
            rest = text[text.index(":") + 1 : -1]
            if not _PURE_ARITHMETIC.fullmatch(rest):
                return f"`{text}`: a substring offset {EVALUATES}"
    return None


def _arithmetic(expr: str, text: str) -> str | None:
    if _PURE_ARITHMETIC.fullmatch(expr):
        return None
    return f"`{text}`: arithmetic on a variable {EVALUATES}"


def _subscript(text: str) -> str | None:
    bracket = text.find("[")
    if bracket == -1 or _SAFE_SUBSCRIPT.fullmatch(text[bracket:]):
        return None
    return f"`{text}`: an array subscript {EVALUATES}"


def _double_bracket(node: tree_sitter.Node, text: str) -> str | None:
    stack = [node]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type != "test_operator":
            continue
        op = node_text(n)
        if op in ("-v", "-R"):
            return f"`{text}`: `{op}` on a variable name {EVALUATES}"
        if op in ARITH_TEST_OPS:
            parent = n.parent
            operands = [c for c in (parent.named_children if parent else []) if c is not n]
            if any(c.type != "number" for c in operands):
                return f"`{text}`: `{op}` compares as arithmetic and {EVALUATES}"
    return None
