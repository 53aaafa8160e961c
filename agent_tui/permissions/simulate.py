"""The rule simulator: what a proposed rule would have changed about the calls already made.

Every stored call of a project (`PastCall`, one per distinct tool and input, with how often it was
made) is decided twice by the permission engine, in default mode: under the rules in force, and
under those rules plus the proposed ones. The calls whose answer differs are the simulation's
`changes`: "`Bash(git:*)` would have allowed 41 past calls unasked, including 2 × `git push
--force` (destructive)". For calls an allow rule would let through, the rules the suggestion logic
(`suggest.py`) would have offered instead are counted, the narrower choice.

Fast by construction: calls are deduplicated by the store's query, only calls of a tool the rule
covers are decided (no other can change), and each distinct command is parsed once for both
decisions.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import Rule, parse_rule
from agent_tui.permissions.settings import SourcedRule
from agent_tui.permissions.types import Behavior, Decision
from agent_tui.text import one_line

if TYPE_CHECKING:
    from agent_tui.permissions.analysis import Analysis

#: tools whose calls only read (the engine's `read_only` for them)
READ_ONLY_TOOLS = frozenset({"Read", "Grep", "Glob", "WebFetch", "WebSearch", "Task", "TodoWrite"})
#: text that may spell a command word without writing it (expansions, globs, escapes)
_OPAQUE = re.compile(r"[$`\\{}*?\[\]~%]")
#: how many notable calls the summary names
NAMED = 3
SUBJECT_CHARS = 60


@dataclass(frozen=True, slots=True)
class PastCall:
    """One distinct stored call: the tool, its input, how many times it was made and the
    newest session it was made in."""

    tool: str
    input: dict[str, Any]
    count: int = 1
    session_id: str = ""


@dataclass(frozen=True, slots=True)
class Change:
    call: PastCall
    before: Decision
    after: Decision
    #: what makes it worth a second look: "destructive: git push --force", "runs another program"
    note: str = ""
    #: what the call acts on (the command, the path, the URL), as the caller's `SubjectFn` says
    subject: str = ""

    @property
    def destructive(self) -> bool:
        return self.note.startswith("destructive")

    def line(self) -> str:
        """One line for the command line: count, tool, before → after, subject, note."""
        note = f"  [{self.note}]" if self.note else ""
        subject = one_line(self.subject, 200)
        return (
            f"{self.call.count:>4} × {self.call.tool:<9} {self.before.behavior} → "
            f"{self.after.behavior}  {subject}{note}"
        )


@dataclass
class Simulation:
    rules: tuple[str, ...]
    behavior: Behavior
    #: stored calls looked at (counting repeats), and how many were distinct
    calls: int = 0
    distinct: int = 0
    changes: list[Change] = field(default_factory=list)
    #: rules the suggestion logic would have offered for the calls an allow rule lets through
    narrower: list[tuple[str, int]] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(c.call.count for c in self.changes)

    def summary(self) -> str:
        names = ", ".join(f"`{r}`" for r in self.rules)
        if not self.calls:  # a first session: nothing to try the rules on yet
            return f"no stored calls yet to try {names} on"
        if not self.changes:
            stored = "the stored call" if self.calls == 1 else f"the {self.calls} stored calls"
            return f"{names} would change nothing about {stored}"
        verb = {
            "allow": "would have allowed {n} past call{s} unasked",
            "ask": "would have asked before {n} past call{s} that ran without asking",
            "deny": "would have denied {n} past call{s}",
        }[self.behavior]
        n = self.changed
        text = f"{names} " + verb.format(n=n, s="" if n == 1 else "s")
        notable = sorted(
            (c for c in self.changes if c.note), key=lambda c: (not c.destructive, -c.call.count)
        )[:NAMED]
        if notable:
            shown = [
                f"{c.call.count} × `{one_line(c.subject, SUBJECT_CHARS)}` ({c.note.split(':')[0]})"
                for c in notable
            ]
            text += ", including " + (
                shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
            )
        return text

    def narrower_text(self) -> str:
        if not self.narrower:
            return ""
        picks = [f"`{rule}` ({n})" for rule, n in self.narrower[:NAMED]]
        return "narrower: " + ", ".join(picks)


class _Engine(PermissionEngine):
    """The engine as it is, deciding commands from a shared parse cache."""

    def __init__(
        self,
        base: PermissionEngine,
        extra: Sequence[SourcedRule],
        cache: Any,
        paths: dict[str, tuple[Path, Path]],
    ) -> None:
        super().__init__(
            base.cwd,
            [*base.rules, *extra],
            mode="default",
            fallback=base._fallback,  # broken settings ask here too
            preapproved=base.preapproved,
            config_dir=base.config_dir,
        )
        self._analysed = cache
        self._paths: dict[str, tuple[Path, Path]] = paths

    def paths_of(self, raw: str) -> tuple[Path, Path]:
        # resolved once a run for both engines: the files don't move while it runs
        if raw not in self._paths:
            self._paths[raw] = super().paths_of(raw)
        return self._paths[raw]

    def _bash(self, input: dict[str, Any], read_only: bool) -> Decision:
        from agent_tui.permissions import bash_check

        command = input.get("command")
        if not isinstance(command, str) or not command.strip():
            return bash_check.decide(self, input)
        return bash_check.decide_analysed(self, self._analysed(command))


def parse_proposed(texts: Iterable[str]) -> tuple[Rule, ...]:
    """The proposed rules, parsed (raises `RuleError` for one that can't be)."""
    return tuple(parse_rule(t) for t in texts)


#: a stored call as the store's `past_calls` gives it: tool, input JSON, times made, newest session
Row = tuple[str, str, int, str]
#: what a call acts on, from its tool and input (`tools.subject.tool_subject`: the tools say it)
SubjectFn = Callable[[str, dict[str, Any]], str]


def simulate(
    engine: PermissionEngine,
    proposed: Sequence[str],
    rows: Iterable[Row],
    behavior: Behavior = "allow",
    *,
    subject: SubjectFn,
) -> Simulation:
    """What adding `proposed` (as `behavior` rules) to `engine`'s rules would have changed."""
    rules = parse_proposed(proposed)
    from agent_tui.permissions.shell import analyze

    analysed = lru_cache(maxsize=None)(analyze)
    paths: dict[str, tuple[Path, Path]] = {}
    before = _Engine(engine, (), analysed, paths)
    after = _Engine(engine, [SourcedRule(r, behavior, "session") for r in rules], analysed, paths)
    sim = Simulation(tuple(r.text for r in rules), behavior)
    suggested: Counter[str] = Counter()
    covered: dict[str, bool] = {}
    for tool, raw, count, session_id in rows:
        sim.calls += count
        sim.distinct += 1
        if tool not in covered:
            covered[tool] = any(_affects(r, tool) for r in rules)
        if not covered[tool]:
            continue  # a rule for another tool can't change this call: its input isn't read
        try:
            tool_input = json.loads(raw)
        except ValueError:
            continue
        call = PastCall(tool, tool_input if isinstance(tool_input, dict) else {}, count, session_id)
        if tool == "Bash" and not _may_change(rules, behavior, call.input, analysed):
            continue
        read_only = call.tool in READ_ONLY_TOOLS
        was = before.check(call.tool, call.input, read_only=read_only)
        now = after.check(call.tool, call.input, read_only=read_only)
        if was.behavior == now.behavior:
            continue
        sim.changes.append(
            Change(call, was, now, _note(call, analysed), subject(call.tool, call.input))
        )
        if now.behavior == "allow":
            suggested.update({s: call.count for s in was.suggestions if s not in sim.rules})
    sim.changes.sort(key=lambda c: (not c.destructive, -c.call.count, c.subject))
    sim.narrower = suggested.most_common()
    return sim


def _affects(rule: Rule, tool: str) -> bool:
    """Whether a rule can take part in deciding a call of `tool` (Edit rules decide a command's
    redirections; Read rules the read-only tools that take a path)."""
    if rule.covers(tool):
        return True
    return (rule.tool == "Edit" and tool == "Bash") or (
        rule.tool == "Read" and tool in READ_ONLY_TOOLS
    )


def _may_change(
    rules: Sequence[Rule],
    behavior: Behavior,
    tool_input: dict[str, Any],
    analysed: Callable[[str], Analysis],
) -> bool:
    """False when no proposed rule matches any part of the command: then neither decision can
    differ, and neither is made (most commands, for a narrow rule)."""
    from agent_tui.permissions.part_rules import allows, match_restricting
    from agent_tui.permissions.rules import Match

    command = tool_input.get("command")
    if not isinstance(command, str):
        return True
    if all(r.tool == "Bash" and not r.bare for r in rules) and not _OPAQUE.search(command):
        # Not parsed at all when no rule's command word is in its text: bash can't run a
        # program whose name it doesn't see (quotes aside; expansions, globs and escapes parse)
        plain = command.replace("'", "").replace('"', "")
        if not any(r.tokens[0].rsplit("/", 1)[-1] in plain for r in rules):
            return False
    a = analysed(command)
    for r in rules:
        if r.tool == "Edit" and (a.writes or a.operand_writes):
            return True  # it may decide a redirection or a file the command writes
        if r.tool != "Bash":
            continue
        if r.bare:
            return True
        if behavior == "allow" and any(allows(r, p) for p in a.parts):
            return True
        if behavior != "allow" and any(match_restricting(r, p) is not Match.NO for p in a.parts):
            return True
    return False


def _note(call: PastCall, analysed: Callable[[str], Analysis]) -> str:
    if call.tool != "Bash" or not isinstance(call.input.get("command"), str):
        return ""
    a = analysed(call.input["command"])
    if a.destructive:
        return "destructive: " + a.destructive[0]
    if a.risks or a.problems:
        return "runs another program" if a.risks else "can't be checked statically"
    return ""


def load_engine(project: Path) -> PermissionEngine:
    """The rules in force for `project` (user, trusted project and local settings)."""
    return PermissionEngine.load(project)


def report(sim: Simulation, lines: int = 5) -> str:
    """The summary, the narrower rules, and the first changed calls, for a screen."""
    out = [sim.summary()]
    if sim.narrower_text():
        out.append(sim.narrower_text())
    out += [c.line().strip() for c in sim.changes[:lines]]
    if len(sim.changes) > lines:
        out.append(f"… {len(sim.changes) - lines} more (agent-tui rules try on the command line)")
    return "\n".join(out)


def preview(
    engine: Any,
    rows: Callable[[], Iterable[Row]],
    rules: Sequence[str],
    behavior: Behavior,
    subject: SubjectFn,
) -> str:
    """`report` of a simulation against the live engine (run it in a thread); "" when the
    engine isn't the permission engine (tests of the loop alone)."""
    if not isinstance(engine, PermissionEngine):
        return ""
    return report(simulate(engine, rules, rows(), behavior, subject=subject))
