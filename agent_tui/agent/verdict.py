"""How one tool call was decided, as a value: `Approvals.authorize` returns a `Verdict`, and the
runner runs the call as the verdict says (or sends the model its denial)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_tui.tools.base import ToolOutput

#: a partly approved Write/Edit: (the hunks the person kept, the hunks they were shown)
HunkChoice = tuple[tuple[int, ...], tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a call runs, with what input, and who or what decided it."""

    allowed: bool
    #: the is_error result the model gets instead of a run (None when allowed)
    denial: ToolOutput | None = None
    #: the input the call runs with (a PreToolUse hook's `updatedInput`, else as sent) and its
    #: validated form
    input: dict[str, Any] = field(default_factory=dict)
    params: Any = None
    #: "user", "rule", "mode", "default", "sandbox", "hook", "headless", … ("" when nothing
    #: decided: a hook's rewrite the tool can't use)
    decided_by: str = ""
    rule: str | None = None
    rule_source: str | None = None
    #: allowed as a read-only command: no checkpoint is needed
    read_only: bool = False
    hunks: HunkChoice | None = None
    #: the person asked to review the call's change set before it lands
    review: bool = False
    #: what PreToolUse hooks added for the model (`additionalContext`)
    hook_context: tuple[str, ...] = ()

    def how(self) -> dict[str, Any]:
        """How it was decided, in the fields PostToolUse hooks get."""
        return {"decided_by": self.decided_by, "rule": self.rule, "rule_source": self.rule_source}
