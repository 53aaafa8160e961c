"""Splitting a shell command into every simple command it runs, with tree-sitter-bash.

`analyze(command)` walks the whole syntax tree, so lists, pipelines, subshells, groups, `$(...)`,
backticks, process substitutions and the bodies of if/for/while/case/functions are all reached by
the same walk. Commands that run other commands are unwrapped (wrappers.py: each with its option
table; `find -exec`; `sh -c` / `eval` strings are parsed again). Whatever can't be known
statically (a parse error, a command word with expansions, an interpreter reading its program from
stdin, `eval "$x"`, ...) becomes a *problem*: such a command is asked, never allowed by a rule.

The work is bounded (input length, nodes visited, nesting); running out is a problem too, so
pathological input fails closed. Matching against rules is the engine's job; this module only says
what would run and what would be written.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

from agent_tui.permissions.analysis import (
    INTERPRETER,
    SHELLS,
    Analysis,
    Argv,
    Part,
    Word,
    has_program,
    show,
)
from agent_tui.permissions.command_risks import effects
from agent_tui.permissions.expansions import code_evaluation, hidden_code
from agent_tui.permissions.find_exec import find_actions
from agent_tui.permissions.tracers import unwrap
from agent_tui.permissions.variables import (
    assignment_name,
    assignment_problems,
    assignment_value,
    exported_is_harmless,
    exporting_set,
)
from agent_tui.permissions.words import node_text as _text
from agent_tui.permissions.words import static_word, word_gap
from agent_tui.permissions.wrappers import Unclear, Unwrapped, shell_invocation, sudo_command

__all__ = ["INTERPRETER", "SHELLS", "Analysis", "Argv", "Part", "Word", "analyze", "show"]

MAX_CHARS = 100_000
MAX_NODES = 200_000
MAX_DEPTH = 250  # syntax-tree nesting handled by the recursive walk
MAX_REPARSE = 8  # nested `sh -c` / `eval` strings
MAX_WRAPPERS = 32  # `nice nice nice ... cmd`

_WRITE_OPS = frozenset({">", ">>", "&>", "&>>", ">|", "<>", ">&"})
_HARMLESS_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_TOKEN_LEVEL = frozenset(
    {"command", "variable_assignment", "concatenation", "file_redirect", "herestring_redirect"}
    | {"declaration_command", "unset_command", "command_name", "word", "number"}
)
_UNPARSEABLE = re.compile("[\U000e0000-\U000e007f\ud800-\udfff]")
# Nodes where bash may evaluate a runtime value as code (see expansions.py).
_EVALUATING = frozenset(
    {"expansion", "arithmetic_expansion", "compound_statement", "c_style_for_statement"}
    | {"subscript", "test_command", "unset_command", "declaration_command"}
)


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def analyze(command: str) -> Analysis:
    a = _Analyzer()
    a.run(command, reparse=0)
    return Analysis(
        parts=tuple(a.parts),
        writes=tuple(a.writes),
        problems=tuple(dict.fromkeys(a.problems)),
        has_substitution=a.substitution,
        changes_dir=a.changes_dir,
        truncated=a.truncated,
        risks=tuple(dict.fromkeys(a.risks)),
        operand_writes=tuple(a.operand_writes),
        destructive=tuple(dict.fromkeys(a.destructive)),
        cd_targets=tuple(a.cd_targets),
        reads=tuple(a.reads),
    )


# --- the walk ---------------------------------------------------------------------------------


@dataclass
class _Ctx:
    outer: tuple[Argv, ...] = ()
    assignments: tuple[str, ...] = ()
    privileged: bool = False
    open_args: bool = False
    #: source texts of the words of the command being unwrapped
    raw: tuple[str, ...] = ()
    #: text read at run time is appended as arguments (xargs without -I)
    appends: bool = False


@dataclass
class _Analyzer:
    parts: list[Part] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    substitution: bool = False
    changes_dir: bool = False
    truncated: bool = False
    budget: int = MAX_NODES
    risks: list[str] = field(default_factory=list)
    operand_writes: list[tuple[Word, str]] = field(default_factory=list)
    destructive: list[str] = field(default_factory=list)
    cd_targets: list[Word] = field(default_factory=list)
    reads: list[Word] = field(default_factory=list)

    def problem(self, why: str) -> None:
        self.problems.append(why)

    def run(self, source: str, reparse: int, ctx: _Ctx | None = None) -> None:
        if len(source) > MAX_CHARS:
            self.truncated = True
            self.problem(f"the command is too long to check ({len(source)} characters)")
            return
        if reparse > MAX_REPARSE:
            self.truncated = True
            self.problem("commands nested too deeply in `sh -c` / `eval` strings")
            return
        if _UNPARSEABLE.search(source) or any(
            unicodedata.category(c) in ("Cn", "Co", "Cs") for c in source if ord(c) > 0x7F
        ):
            # tree-sitter-bash's scanner crashes on some of these (e.g. `{` + U+F8BA6); none has
            # a use in a command, so they are never parsed.
            self.truncated = True
            self.problem("the command contains unassigned, private-use or tag characters")
            return
        if "\x00" in source:
            self.problem("the command contains a NUL character")
        if any(c in source for c in "\r\v\f"):
            # bash treats these as word characters, tree-sitter as blanks: the two would disagree.
            self.problem("the command contains a carriage return or other unusual blank")
        encoded = source.encode("utf-8", "surrogateescape")
        tree = _parser().parse(encoded)
        root = tree.root_node
        if root.has_error:
            self.problem("the command could not be parsed")
        hidden = hidden_code(root, encoded)
        if hidden:
            self.problem(hidden)
        self.visit(root, 0, reparse, ctx or _Ctx())

    def visit(self, node: tree_sitter.Node, depth: int, reparse: int, ctx: _Ctx) -> None:
        self.budget -= 1
        if self.budget < 0 or depth > MAX_DEPTH:
            if not self.truncated:
                self.truncated = True
                self.problem("the command is too large or too deeply nested to check")
            return
        t = node.type
        if t in _TOKEN_LEVEL:
            gap = word_gap(node)
            if gap:
                self.problem(gap)
        if t in _EVALUATING:
            why = code_evaluation(node)
            if why:
                self.problem(why)
        parent = node.parent.type if node.parent is not None else None
        misplaced = t in (";;", ";&", ";;&") and parent != "case_item"  # bash: an error
        if t == "ERROR" or node.is_missing or misplaced:
            self.problem("the command could not be parsed")
        elif t in ("command_substitution", "process_substitution"):
            self.substitution = True
        elif t == "command":
            self.command(node, depth, reparse, ctx)
            return
        elif t == "file_redirect":
            self.redirect(node)
        elif t in ("variable_assignment", "for_statement", "declaration_command"):
            self.problems.extend(assignment_problems(node))
        elif t == "function_definition":
            # The name is not a command; the body is walked below like any other.
            pass
        for child in node.children:
            self.visit(child, depth + 1, reparse, ctx)

    def walk_children(self, node: tree_sitter.Node, depth: int, reparse: int, ctx: _Ctx) -> None:
        for child in node.children:
            self.visit(child, depth + 1, reparse, ctx)

    def redirect(self, node: tree_sitter.Node) -> None:
        op = next((c.type for c in node.children if c.type in _WRITE_OPS | {"<", "<&"}), None)
        dest = node.child_by_field_name("destination")
        if dest is None:
            dest = node.named_children[-1] if node.named_children else None
        duplicate = (
            op == "<&" and dest is not None and (dest.type == "number" or _text(dest) == "-")
        )
        if op in ("<", "<&") and dest is not None and dest.type != "process_substitution":
            self.reads.extend(() if duplicate else (static_word(dest),))  # read like an operand
        if op not in _WRITE_OPS:
            return
        if dest is None:
            self.problem(f"`{_text(node)}`: a redirection without a target")
            return
        if dest.type == "process_substitution":
            return  # not a file: the walk analyzes the commands inside
        if op == ">&" and (dest.type == "number" or _text(dest) == "-"):
            return  # duplicating or closing a descriptor
        self.add_write(static_word(dest), _text(node))

    def add_write(self, target: Word, text: str) -> None:
        if target is None:
            self.problem(f"`{text}` writes to a path that isn't known statically")
        elif target not in _HARMLESS_SINKS:
            self.writes.append(target)

    def command(self, node: tree_sitter.Node, depth: int, reparse: int, ctx: _Ctx) -> None:
        assignments: list[str] = []
        words: list[tree_sitter.Node] = []
        for child in node.children:
            if child.type == "variable_assignment":
                name = assignment_name(child)
                assignments.append(name or "?")
                if name is None or not exported_is_harmless(name, assignment_value(child)):
                    self.problem(f"`{_text(node)}` sets {name or '?'}, which can change what runs")
            elif child.type == "command_name":
                words.extend(child.children)
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                pass  # walked below
            else:
                words.append(child)
        # Substitutions inside any word or redirection are commands too.
        self.walk_children(node, depth, reparse, ctx)
        argv = tuple(static_word(w) for w in words)
        if not argv:
            return  # only assignments or redirections
        sub = _Ctx(ctx.outer, ctx.assignments + tuple(assignments), ctx.privileged, ctx.open_args)
        sub.raw = tuple(_text(w) for w in words)
        self.simple(argv, _text(node), reparse, sub)

    # --- one simple command, wrappers unwrapped ---

    def simple(self, argv: Argv, text: str, reparse: int, ctx: _Ctx) -> None:
        for _ in range(MAX_WRAPPERS):
            nxt = self.step(argv, text, reparse, ctx)
            if nxt is None:
                return
            argv, ctx = nxt
        self.truncated = True
        self.problem("too many nested wrapper commands")

    def emit(self, argv: Argv, text: str, ctx: _Ctx) -> None:
        raw = ctx.raw[-len(argv) :] if len(ctx.raw) >= len(argv) else ()
        self.parts.append(
            Part(argv, text, ctx.outer, ctx.assignments, ctx.open_args, ctx.privileged, raw)
        )
        fx = effects(argv, raw, ctx.appends)
        self.risks.extend(f"{r}: `{text}`" if len(text) < 80 else r for r in fx.runs)
        self.operand_writes.extend((w, text) for w in fx.writes if w not in _HARMLESS_SINKS)
        self.destructive.extend(fx.destructive)
        for why in fx.unknown:
            self.problem(f"{why}: `{text}`" if len(text) < 80 else why)

    def step(self, argv: Argv, text: str, reparse: int, ctx: _Ctx) -> tuple[Argv, _Ctx] | None:
        """Handle one layer: emit a part, or return the wrapped command to look at next."""
        name = argv[0]
        if name is None:
            self.problem(f"the command name in `{text}` isn't a plain word")
            self.emit(argv, text, ctx)
            return None
        base = name.rsplit("/", 1)[-1]
        inner = _Ctx((*ctx.outer, argv), ctx.assignments, ctx.privileged, ctx.open_args, ctx.raw)

        if base in ("cd", "pushd", "popd"):
            self.changes_dir = True
            operands = [w for w in argv[1:] if w is None or not w.startswith("-")]
            known = base != "popd" and len(operands) == 1 and argv[-1] == operands[0]
            self.cd_targets.append(operands[0] if known else None)
        if base == "tee":
            self.tee(argv, text)
        if base in SHELLS:
            return self.shell(argv, text, reparse, ctx, inner)
        if INTERPRETER.fullmatch(base) and not has_program(argv[1:]):
            self.problem(f"`{text}`: {base} would read its program from standard input")
        if base == "eval":
            self.substitution = True
            if any(w is None for w in argv[1:]):
                self.problem(f"`{text}`: eval of text that isn't known statically")
                self.emit(argv, text, ctx)
                return None
            self.run(" ".join(w for w in argv[1:] if w is not None), reparse + 1, inner)
            return None
        if base == "find":
            self.emit(argv, text, ctx)
            actions = find_actions(argv)
            self.problems.extend(f"`{text}`: {why}" for why in actions.problems)
            for target in actions.writes:
                self.add_write(target, text)
            for payload, raw in actions.payloads:
                payload_ctx = _Ctx(inner.outer, inner.assignments, inner.privileged, True, raw)
                self.simple(payload, text, reparse, payload_ctx)
            return None
        if base in ("sudo", "doas"):
            return self.sudo(argv, text, ctx, inner)
        if base == "set":
            why = exporting_set(list(argv[1:]))
            if why:
                self.problem(f"`{text}`: {why}")

        # bash's own `time` keyword: unquoted, first in a pipeline, not reached through a wrapper
        keyword = not ctx.outer and bool(ctx.raw) and ctx.raw[0] == "time"
        try:
            u = unwrap(base, argv, keyword)
        except Unclear as e:
            self.problem(f"`{text}`: {e}")
            self.emit(argv, text, ctx)
            return None
        if u is None:
            self.emit(argv, text, ctx)
            return None
        return self.unwrapped(base, u, argv, text, reparse, ctx, inner)

    def unwrapped(
        self, base: str, u: Unwrapped, argv: Argv, text: str, reparse: int, ctx: _Ctx, inner: _Ctx
    ) -> tuple[Argv, _Ctx] | None:
        self.operand_writes.extend((w, text) for w in u.writes if w not in _HARMLESS_SINKS)
        if u.chdir:
            self.changes_dir = True
            self.cd_targets.append(None)
        for name, value in u.assigned:
            if not exported_is_harmless(name, value):
                self.problem(f"`{text}` sets {name}, which can change what runs")
        inner.assignments = inner.assignments + tuple(n for n, _ in u.assigned)
        if u.code != "":
            self.emit(argv, text, ctx)
            if u.code is None:
                self.problem(f"`{text}`: a command string that isn't known statically")
            else:
                self.run(u.code, reparse + 1, inner)
            return None
        start = u.start
        if base == "xargs":
            inner.open_args = True
            inner.appends = u.appends
            if start is not None and start >= len(argv):
                return ("echo",), inner  # xargs' default command
        if start is None or start >= len(argv):
            if base != "exec":  # a bare `exec` only applies its redirections
                self.emit(argv, text, ctx)
            return None
        payload = argv[start:]
        if u.replace:
            # `xargs -I{} sh -c 'echo {}'`: the text read at run time lands inside these words
            payload = _filled_at_run_time(payload, u.replace)
        return payload, inner

    def shell(
        self, argv: Argv, text: str, reparse: int, ctx: _Ctx, inner: _Ctx
    ) -> tuple[Argv, _Ctx] | None:
        how, i = shell_invocation(argv)
        if how == "unclear":
            self.problem(f"`{text}`: shell arguments that aren't known statically")
        elif how == "string":
            if i >= len(argv) or argv[i] is None:
                self.problem(f"`{text}`: `-c` with a command string that isn't known statically")
            else:
                self.run(argv[i] or "", reparse + 1, inner)
                return None
        elif how == "stdin":
            self.problem(f"`{text}`: the shell would read commands from standard input")
        self.emit(argv, text, ctx)  # a script file: the shell command itself needs a rule
        return None

    def sudo(self, argv: Argv, text: str, ctx: _Ctx, inner: _Ctx) -> tuple[Argv, _Ctx] | None:
        # sudo itself is a part (it needs its own rule) and its payload runs privileged.
        self.emit(argv, text, ctx)
        try:
            u = sudo_command(argv)
        except Unclear as e:
            self.problem(f"`{text}`: {e}")
            return None
        for name, value in u.assigned:
            if not exported_is_harmless(name, value):
                self.problem(f"`{text}` sets {name}, which can change what runs")
        if u.start is None or u.start >= len(argv):
            return None
        inner.privileged = True
        return argv[u.start :], inner

    def tee(self, argv: Argv, text: str) -> None:
        options = True
        for a in argv[1:]:
            if a is None:
                self.add_write(None, text)
            elif options and a == "--":
                options = False
            elif options and a.startswith("-") and a != "-":
                continue
            else:
                self.add_write(a, text)


def _filled_at_run_time(argv: Argv, marker: str) -> Argv:
    """Words holding `marker` get text known only at run time: their value is unknown."""
    return tuple(None if w is not None and marker in w else w for w in argv)
