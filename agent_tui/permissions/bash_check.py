"""The Bash decision, in its phases: deny → plan → fallbacks → yolo → ask → allow.

Deny and ask rules are matched against each part's normalised form (`command_risks.normalize`:
wrappers unwrapped by the analyser, global options and the command word's path removed, aliases
resolved), and against every wrapper it was unwrapped from; where normalising isn't certain (an
unknown global option, `git -c alias.x=push x`) a deny rule that might match makes the command ask.
Allow rules grant a command's ordinary use: risks (options and script features that run another
program), values evaluated as code, and writes outside the working directory or to protected
paths ask whatever rule matched.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from agent_tui.pathutil import resolve
from agent_tui.permissions.builtins import runs_written_file
from agent_tui.permissions.command_risks import normalize
from agent_tui.permissions.decisions import by_rule, edit_rule, plan_denied, rule_reason
from agent_tui.permissions.git_check import git_risk
from agent_tui.permissions.links import made_links, through_made_link
from agent_tui.permissions.meanings import outside_words
from agent_tui.permissions.outside import Reach
from agent_tui.permissions.part_rules import allows, match_restricting
from agent_tui.permissions.protected import protected
from agent_tui.permissions.readonly import runs_unasked
from agent_tui.permissions.risk import DELETERS, Highlights, risk_line
from agent_tui.permissions.rules import Match
from agent_tui.permissions.settings import SourcedRule
from agent_tui.permissions.shell import Analysis, Part, Word, analyze, show
from agent_tui.permissions.suggest import suggest_parts
from agent_tui.permissions.tracers import project_options
from agent_tui.permissions.types import AskKind, Behavior, Decision


class PermissionEngine(Protocol):
    """What the Bash check needs from the engine (`engine.PermissionEngine`)."""

    cwd: Path
    config_dir: Path | None
    add_dirs: tuple[Path, ...]

    @property
    def mode(self) -> str: ...

    def rules_of(self, behavior: Behavior, tool: str) -> Iterator[SourcedRule]: ...

    def paths_of(self, raw: str) -> tuple[Path, Path]: ...

    def fallback_reason(self, tool: str) -> str | None: ...

    def read_denied(self, path: Path) -> bool: ...

    def read_allowed(self, path: Path) -> bool: ...

    def edit_rule_for(
        self, behavior: Behavior, resolved: Path | None, lexical: Path | None = None
    ) -> SourcedRule | None: ...


@dataclass(frozen=True, slots=True)
class _Write:
    target: Word
    #: the part that writes it (redirections: the redirection)
    text: str
    resolved: Path | None
    lexical: Path | None
    #: True for a redirection or `tee`, False for a file named in a command's arguments
    redirect: bool


def decide(engine: PermissionEngine, input: dict[str, Any]) -> Decision:
    command = input.get("command")
    if not isinstance(command, str) or not command.strip():
        return Decision("ask", reason="no command given", kinds=("unclear",))
    return decide_analysed(engine, analyze(command))


def decide_analysed(engine: PermissionEngine, a: Analysis) -> Decision:
    """`decide` for a command already analysed (the rule simulator parses each one once)."""
    return _Check(engine, a).run()


class _Check:
    def __init__(self, engine: PermissionEngine, a: Analysis) -> None:
        self.e = engine
        self.a = a
        self.deny = list(engine.rules_of("deny", "Bash"))
        self.writes = [self._write(w, w, True) for w in a.writes] + [
            self._write(w, text, False) for w, text in a.operand_writes
        ]
        self.hl = Highlights()
        #: a deny rule that might match a part that can't be normalised for certain
        self.maybe_deny: SourcedRule | None = None
        #: why the phase that asked asks (`Decision.kinds`; `kinds` adds what holds anyway)
        self.asks: list[AskKind] = []
        self._dirs: list[Path] | bool | None = False
        self._git: str | bool | None = False

    def _write(self, target: Word, text: str, redirect: bool) -> _Write:
        if target is None:
            return _Write(None, text, None, None, redirect)
        if self.a.changes_dir and not os.path.isabs(os.path.expanduser(target)):
            return _Write(target, text, None, None, redirect)  # relative to an unknown directory
        resolved, lexical = self.e.paths_of(target)
        return _Write(target, text, resolved, lexical, redirect)

    def decision(self, behavior: str, reason: str, **kw: Any) -> Decision:
        risk = risk_line(self.a, [w.target for w in self.writes if self._outside(w)], self.hl)
        return Decision(behavior, reason=reason, risk=risk, highlights=self.hl.items(), **kw)  # type: ignore[arg-type]

    def _outside(self, w: _Write) -> bool:
        return w.resolved is None or not w.resolved.is_relative_to(self.e.cwd)

    def run(self) -> Decision:
        d = self.denied() or self.gated() or self.asked() or self.allowed()
        return replace(d, kinds=self.kinds()) if d.behavior == "ask" else d

    def ask(self, *kinds: AskKind) -> None:
        self.asks.extend(kinds)

    def kinds(self) -> tuple[AskKind, ...]:
        """Every kind of reason the command asks: the asking phase's, plus whatever else it does
        that must never pass unasked (destroys data, writes outside or to a protected path)."""
        a, found = self.a, list(self.asks)
        if a.truncated:
            found.append("unclear")
        names = [normalize(p.argv).argv[:1] for p in a.parts]
        if a.destructive or any(n and n[0] and os.path.basename(n[0]) in DELETERS for n in names):
            found.append("destructive")
        if any(self._outside(w) for w in self.writes):
            found.append("outside")
        if protected([p for w in self.writes for p in (w.resolved, w.lexical)], self.e.config_dir):
            found.append("protected")
        return tuple(dict.fromkeys(found)) or ("code",)

    # 1. deny: any rule matching any part (or a wrapper around it) denies the whole, in every mode.
    def denied(self) -> Decision | None:
        maybe: SourcedRule | None = None
        for part in self.a.parts:
            for r in self.deny:
                m = match_restricting(r.rule, part)
                if m is Match.YES:
                    return _by_rule(
                        "deny", r, f"deny rule {r.rule.text} matches `{show(part.argv)}`"
                    )
                if m is Match.MAYBE and maybe is None:
                    maybe = r
                    self.hl.add(part.text)
        if any(r.rule.bare for r in self.deny):
            return _by_rule("deny", next(r for r in self.deny if r.rule.bare))
        for w in self.writes:
            denied = self.e.edit_rule_for("deny", w.resolved, w.lexical)
            if denied:
                return _by_rule("deny", denied, f"deny rule {denied.rule.text} covers `{w.target}`")
        self.maybe_deny = maybe
        return None

    # 2. plan mode, broken settings, a deny rule that might match, yolo.
    def gated(self) -> Decision | None:
        a, e = self.a, self.e
        if e.mode == "plan" and not self.read_only():
            return plan_denied("Bash")
        why = e.fallback_reason("Bash")
        if why:
            self.ask("settings")
            return self.decision("ask", f"{why}: asking until it is fixed")
        if self.maybe_deny:
            self.ask("rule")
            r = self.maybe_deny
            return self.decision(
                "ask",
                "part of the command can't be matched for certain and might match deny rule "
                + r.rule.text,
                rule=r.rule.text,
                source="rule",
            )
        if e.mode == "yolo":
            # Without a full view of the command, deny rules can't be proven not to match.
            unclear = a.truncated or ((a.problems or a.risks) and self.deny)
            if unclear:
                why = (a.problems or a.risks)[0] if (a.problems or a.risks) else "too large"
                self.hl.extend(a.problems + a.risks)
                self.ask("unclear")
                return self.decision("ask", f"{why}; deny rules can't be checked")
            return Decision("allow", reason="yolo mode allows everything not denied", source="mode")
        return None

    def read_only(self) -> bool:
        """Plan mode's test: nothing written, run or destroyed, every part a reader."""
        a = self.a
        changes = a.problems or a.risks or a.writes or a.operand_writes or a.destructive
        return (
            not changes
            and all(self.runs_by_default(p) for p in a.parts)
            and self.git_configured() is None
        )

    def git_configured(self) -> str | None:
        """Why git in this command may run a program its repository configures (or a tracer
        take options from a file where it runs: `tracers.project_options`)."""
        if self._git is False:
            targets = [w.target for w in self.writes]
            parts, dirs = self.a.parts, self.dirs()
            self._git = git_risk(parts, dirs, targets) or project_options(parts, dirs)
        return self._git  # type: ignore[return-value]

    # 3. ask rules, protected paths, and whatever can't be known statically or runs code.
    def asked(self) -> Decision | None:
        a, e = self.a, self.e
        for part in a.parts:
            for r in e.rules_of("ask", "Bash"):
                if match_restricting(r.rule, part) is not Match.NO:
                    self.hl.add(part.text)
                    self.ask("rule")
                    return _by_rule(
                        "ask", r, f"ask rule {r.rule.text} matches `{show(part.argv)}`", self
                    )
        for w in self.writes:
            asked = e.edit_rule_for("ask", w.resolved, w.lexical)
            if asked:
                self.ask("rule")
                return _by_rule("ask", asked, f"ask rule {asked.rule.text} covers `{w.target}`")
        for w in self.writes:
            why = protected([w.resolved, w.lexical], e.config_dir)
            if why:
                self.hl.add(w.text)
                self.ask("protected")
                return self.decision("ask", f"writes a protected file: {why}")
        targets = [(w.target, w.text) for w in self.writes]
        why = through_made_link(a, lambda t: self.e.paths_of(t)[1], targets)
        if why:
            self.ask("outside")
            return self.decision("ask", why)
        why = self.git_configured()
        if why:
            self.hl.extend(p.text for p in a.parts if p.argv[:1] == ("git",))
            self.ask("code")
            return self.decision("ask", why)
        why = runs_written_file(a, lambda t: self.e.paths_of(t)[1])
        if why:
            self.ask("code")
            return self.decision("ask", why)
        if a.problems or a.risks:
            self.ask("code")
            self.hl.extend(a.risks + a.problems)
            self.hl.extend(
                p.text
                for p in a.parts
                if self.allow_rule(p) is None and not self.runs_by_default(p)
            )
            return self.decision("ask", (a.risks + a.problems)[0])
        return None

    def allow_rule(self, part: Part) -> SourcedRule | None:
        return next((r for r in self.e.rules_of("allow", "Bash") if allows(r.rule, part)), None)

    def runs_by_default(self, part: Part) -> bool:
        """No rule needed, in every mode: a reader of project files (`readonly.py`)."""
        dirs = self.dirs()
        if dirs is None or made_links(self.a):
            return False  # relative paths from an unknown folder, or through links made here
        redirected = Part(("cat", *self.a.reads), "")  # `< F`: read like cat's operands
        reach = self.reach(dirs)
        if self.a.reads and not runs_unasked(redirected, reach):
            return False
        return runs_unasked(part, reach)

    def reach(self, dirs: list[Path]) -> Reach:
        e = self.e
        return Reach(e.cwd, dirs, e.read_denied, e.read_allowed, e.add_dirs)

    def leads_outside(self, part: Part) -> list[str]:
        """What in a part a rule allows reads or may change outside the project (meanings.py)."""
        dirs = self.dirs()
        return outside_words(part, self.reach(dirs) if dirs is not None else None)

    def dirs(self) -> list[Path] | None:
        """The directories relative paths may be taken from: the working directory and every
        place a `cd` may lead (None: one isn't known)."""
        if self._dirs is False:
            found: list[Path] | None = [self.e.cwd]
            for target in self.a.cd_targets:
                if target is None or target == "-" or found is None or len(found) > 16:
                    found = None
                    break
                found = list(dict.fromkeys([*found, *(resolve(target, d) for d in found)]))
            self._dirs = found
        return self._dirs  # type: ignore[return-value]

    # 4. allow: every part and every write, each on its own.
    def allowed(self) -> Decision:
        a, e = self.a, self.e
        used: list[str] = []
        sources: list[str] = []
        asked_parts: list[Part] = []
        redirected = Part(("cat", *a.reads), "")  # `< F` is read like cat's operands
        strays = [f"reads {w}, outside the project" for w in self.leads_outside(redirected)]
        for part in a.parts:
            rule = self.allow_rule(part)
            leading = self.leads_outside(part) if rule else []
            if leading and not self.runs_by_default(part):
                strays += [f"`{show(part.argv)}` reaches outside the project: {w}" for w in leading]
                asked_parts.append(part)
            elif rule:
                used.append(rule.rule.text)
                sources.append(rule.source)
            elif not self.runs_by_default(part):
                asked_parts.append(part)
        asked_writes: list[_Write] = []
        by_mode = False
        for w in self.writes:
            if self._outside(w):
                asked_writes.append(w)
            elif not w.redirect:
                continue  # a file the command names, inside the project: its rule covers it
            elif rule := e.edit_rule_for("allow", w.resolved):
                used.append(rule.rule.text)
                sources.append(rule.source)
            elif e.mode == "accept-edits":
                by_mode = True
            else:
                asked_writes.append(w)
        if not asked_parts and not asked_writes and not strays:
            names = ", ".join(dict.fromkeys(used))
            if names:
                return Decision(
                    "allow",
                    rule=names,
                    reason=f"allowed by {names}",
                    source="rule",
                    rule_source=", ".join(dict.fromkeys(sources)),
                )
            if by_mode:
                return Decision(
                    "allow",
                    reason="accept-edits mode allows writes in the working directory",
                    source="mode",
                )
            return Decision("allow", reason="a read-only command", read_only=True)
        return self.ask_for(asked_parts, asked_writes, strays)

    def ask_for(self, parts: list[Part], writes: list[_Write], strays: list[str]) -> Decision:
        a, e = self.a, self.e
        self.hl.extend([p.text for p in parts] + [w.text for w in writes])
        if strays:
            self.ask("outside")
        if any(self.allow_rule(p) is None for p in parts):
            self.ask("code")
        self.ask(*("outside" if self._outside(w) else "write" for w in writes))
        reasons = strays + [
            f"no rule allows `{show(p.argv)}`" for p in parts if self.allow_rule(p) is None
        ]
        reasons += [
            f"writes outside the project: {w.target or '(a path not known statically)'}"
            if self._outside(w)
            else f"writes to {w.target}"
            for w in writes
        ]
        # "Always" is offered only when every asked part and write gets a rule of its own, and
        # never for a destructive command.
        suggestions: tuple[str, ...] = ()
        unsafe = bool(a.has_substitution or a.destructive or strays)
        unsafe = unsafe or any(self._outside(w) for w in writes)
        if not unsafe:
            part_rules = suggest_parts(parts) if parts else ()
            edit_rules = [edit_rule(w.resolved, e.cwd) for w in writes if w.resolved]
            if (part_rules or not parts) and all(edit_rules):
                suggestions = part_rules + tuple(r for r in edit_rules if r)
        return self.decision(
            "ask", "; ".join(reasons), suggestions=tuple(dict.fromkeys(suggestions))
        )


def _by_rule(
    behavior: Behavior, r: SourcedRule, reason: str = "", check: _Check | None = None
) -> Decision:
    """A decision by rule; with `check`, carrying the risk line and highlights too."""
    if check is None:
        return by_rule(behavior, r, reason)
    text = rule_reason(behavior, r, reason)
    return check.decision(behavior, text, rule=r.rule.text, source="rule")
