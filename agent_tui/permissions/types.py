"""The permission vocabulary shared by the engine, the agent loop and the approval UI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Behavior = Literal["allow", "ask", "deny"]
Mode = Literal["default", "accept-edits", "plan", "yolo"]
#: why a Bash command asks, by kind (`Decision.kinds`): "code" (it may run code the analyser can't
#: vouch for: no rule covers a part, an option or value runs another program), "write" (writes
#: inside the working directory without a rule), "outside" (writes outside it), "protected" (a
#: protected path), "destructive" (deletes or destroys data), "rule" (an ask rule, or a deny rule
#: that might match), "unclear" (the analysis is incomplete), "settings" (settings can't be read).
#: The OS sandbox's auto mode runs a command whose kinds are only "code"/"write" without asking.
AskKind = Literal[
    "code", "write", "outside", "protected", "destructive", "rule", "unclear", "settings"
]
MODES: tuple[Mode, ...] = ("default", "accept-edits", "plan", "yolo")


@dataclass(frozen=True, slots=True)
class Decision:
    """The engine's decision on one tool call: allow, ask or deny; what decided it, and why."""

    behavior: Behavior
    #: the rule that decided (e.g. "Bash(git status:*)"), or None when no rule matched
    rule: str | None = None
    #: why, in words for the person: "no rule allows `rm`", "ask rule Bash(git push:*)"
    reason: str = ""
    #: the allow rules an "always" answer would save (empty: "always" is not offered)
    suggestions: tuple[str, ...] = ()
    #: decided by "rule", "mode" or "default"
    source: str = "default"
    #: for a rule: the settings it came from ("user", "project", "local", "cli", "session")
    rule_source: str = ""
    #: what the call does that matters, in one plain line ("pushes to a remote"); "" if nothing
    risk: str = ""
    #: the parts of a long command that made it ask, to show without scrolling
    highlights: tuple[str, ...] = ()
    #: the call only reads (a read-only shell command): it changes no file
    read_only: bool = False
    #: for a Bash ask: every kind of reason it asks (see `AskKind`); empty for other decisions
    kinds: tuple[AskKind, ...] = ()


@dataclass(frozen=True, slots=True)
class ChoiceItem:
    """One thing of a request the person keeps or leaves out with space (a file of a command's
    change set): its title, what to show (a diff), and whether it starts ticked."""

    title: str
    body: str
    kept: bool = True
    #: why it is asked about, shown with the title ("" when nothing special)
    why: str = ""


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A tool call the person is asked about: what it will run or touch, the decision that asks, and
    what the dialog shows."""

    tool_use_id: str
    tool: str
    input: dict[str, Any]
    #: byte for byte what will run or be touched: the command, the path, the domain
    subject: str
    decision: Decision
    cwd: str
    #: a diff for Write/Edit, or other detail to show
    preview: str | None = None
    #: the settings file an "always" answer writes to (the engine's `local_settings`)
    save_to: str = ""
    #: who asks, when not the main agent: the sub-agent's label ("Task: find the tests")
    agent: str = ""
    #: a Write/Edit diff cut into hunks the person may keep or leave out one by one
    hunks: tuple[str, ...] = ()
    #: where the command, URL or path was seen in untrusted text before ("" nowhere)
    provenance: str = ""
    #: a change set to apply, file by file (the request is about changes already made in the
    #: sandbox: `y` applies the ticked ones, `n` none)
    items: tuple[ChoiceItem, ...] = ()
    #: the dialog may offer "allow, and review the change set before it lands" (`r`)
    can_review: bool = False
    #: what an "always" answer remembers when it is not a rule (a forwarded port); "" none
    remember: str = ""


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """The person's answer to an `ApprovalRequest`: once, for the session, always, or deny."""

    #: "session": allowed, and `saved_rules` apply until the app quits (nothing is saved)
    choice: Literal["once", "session", "always", "deny"]
    #: for a deny: what the model should do instead (sent in the tool_result)
    message: str = ""
    #: rules actually saved by an "always" answer (as the person left them in the dialog's
    #: editable line), or applied for the session by a "session" answer
    saved_rules: tuple[str, ...] = field(default_factory=tuple)
    #: the hunks to write (indexes into the request's `hunks`); None: the whole change
    hunks: tuple[int, ...] | None = None
    #: seconds from the dialog appearing to the answering key (None: not measured)
    took_s: float | None = field(default=None, compare=False)
    #: allowed, and its change set is held for review before any of it lands (`r`)
    review: bool = False


#: tools that act on nothing by themselves: allowed unless a rule says otherwise
UNGATED_TOOLS = {
    "TodoWrite": "it only updates the plan shown to you",
    "Task": "a sub-agent: each of its own tool calls is checked like any other",
    "ToolSearch": "it only loads the definitions of deferred tools for the model",
    "BashOutput": "it only reads a background shell's output",
    "KillShell": "it only stops a background shell this session started",
    "AskUserQuestion": "it only asks you a question",
    "Skill": "it only loads a skill's instructions (yours, or a trusted project's or plugin's)",
}
