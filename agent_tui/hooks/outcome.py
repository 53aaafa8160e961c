"""What hooks decided, from their exit codes and output, as Claude Code documents it:

- exit 0: success; stdout may be a JSON object (below); for `UserPromptSubmit` and
  `SessionStart` plain stdout is context for the model;
- exit 2: blocking; stderr is the reason (to the model for `PreToolUse`, `PostToolUse` and `Stop`;
  to the person for `UserPromptSubmit` and `Notification`);
- any other exit, a timeout, a hook that can't start (exit 126/127: not found, not executable), or
  one killed by a signal: a failure. A hook whose `onFailure` is "block" (a PreToolUse hook's
  default) blocks, with one line saying which hook failed and how; "continue" is a warning.

JSON output: `continue: false` (+ `stopReason`) ends the turn; `systemMessage` is shown to the
person; `decision: "block"` + `reason` blocks (`"approve"` allows, for `PreToolUse`, as Claude
Code's older form); `hookSpecificOutput.permissionDecision` `allow|deny|ask` (+
`permissionDecisionReason`) and `updatedInput` (the call's input, rewritten) for `PreToolUse`;
`hookSpecificOutput.additionalContext` adds context for the model.
Several hooks: deny beats ask beats allow.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent_tui.hooks.runner import HookRun

_RANK = {"deny": 3, "ask": 2, "allow": 1}


@dataclass
class Verdict:
    """What the hooks run for one event decided, taken together (deny beats ask beats allow)."""

    #: why the hooks block (exit 2's stderr, or a JSON "block"'s reason); None: not blocked
    block: str | None = None
    #: PreToolUse: "allow", "deny" or "ask" (None: the hooks didn't say)
    decision: str | None = None
    reason: str = ""
    #: text for the model (additionalContext; UserPromptSubmit's plain stdout)
    context: list[str] = field(default_factory=list)
    #: one line each, for the person (failures, timeouts, systemMessage)
    notices: list[str] = field(default_factory=list)
    #: `continue: false`: why the turn stops
    stop: str | None = None
    #: PreToolUse: the tool input as a hook rewrote it (`hookSpecificOutput.updatedInput`)
    updated_input: dict[str, Any] | None = None

    def _decide(self, decision: str, reason: str) -> None:
        if self.decision is None or _RANK[decision] > _RANK[self.decision]:
            self.decision, self.reason = decision, reason


def failure(run: HookRun) -> str | None:
    """How the hook failed, in a few words ("could not start: …", "timed out after 20s"), or
    None when it ran to exit 0 or 2."""
    if run.timed_out:
        return f"timed out after {run.hook.timeout:g}s and was stopped"
    if run.error:
        return run.error
    if run.exit_code in (0, 2):
        return None
    first = (run.stderr.strip().splitlines() or [""])[0]
    said = f": {first}" if first else ""
    if run.exit_code in (126, 127):
        return f"could not start (exit {run.exit_code}{said})"
    return f"failed (exit {run.exit_code}{said})"


def judge(event: str, runs: list[HookRun]) -> Verdict:
    verdict = Verdict()
    for run in runs:
        name = run.hook.command
        failed = failure(run)
        if failed is not None and run.hook.blocks_on_failure:
            what = "the call is blocked" if event == "PreToolUse" else "it blocks"
            why = f"{event} hook {failed}, so {what} (onFailure: block): {name}"
            verdict.block = why if verdict.block is None else f"{verdict.block}\n{why}"
            if event == "PreToolUse":
                verdict._decide("deny", why)
        elif failed is not None:
            verdict.notices.append(f"{event} hook {failed}: {name}")
        elif run.exit_code == 2:
            why = run.stderr.strip() or f"blocked by a {event} hook ({name})"
            verdict.block = why if verdict.block is None else f"{verdict.block}\n{why}"
            if event == "PreToolUse":
                verdict._decide("deny", why)
        else:
            _read_json(event, run, verdict)
    return verdict


def _read_json(event: str, run: HookRun, verdict: Verdict) -> None:
    text = run.stdout.strip()
    data: Any = None
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
    if not isinstance(data, dict):
        if event in ("UserPromptSubmit", "SessionStart") and text:
            verdict.context.append(text)
        return
    if data.get("continue") is False:
        verdict.stop = str(data.get("stopReason") or f"a {event} hook stopped the turn")
    if isinstance(data.get("systemMessage"), str):
        verdict.notices.append(data["systemMessage"])
    decision, reason = data.get("decision"), str(data.get("reason") or "")
    if decision == "block":
        why = reason or f"blocked by a {event} hook ({run.hook.command})"
        verdict.block = why if verdict.block is None else f"{verdict.block}\n{why}"
        if event == "PreToolUse":
            verdict._decide("deny", why)
    elif decision == "approve" and event == "PreToolUse":
        verdict._decide("allow", reason)
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict):
        _read_specific(event, run, verdict, specific)


def _read_specific(event: str, run: HookRun, verdict: Verdict, specific: dict[str, Any]) -> None:
    """`hookSpecificOutput`: PreToolUse's decision and rewritten input; context for all."""
    chosen = specific.get("permissionDecision")
    if event == "PreToolUse" and chosen in _RANK:
        why = str(specific.get("permissionDecisionReason") or "")
        verdict._decide(chosen, why)
        if chosen == "deny":
            verdict.block = why or f"denied by a PreToolUse hook ({run.hook.command})"
    updated = specific.get("updatedInput")
    if event == "PreToolUse" and isinstance(updated, dict):
        if verdict.updated_input is not None and verdict.updated_input != updated:
            verdict.notices.append(
                f"PreToolUse hooks rewrote the input differently; the first one's is used "
                f"(not {run.hook.command}'s)"
            )
        else:
            verdict.updated_input = updated
    extra = specific.get("additionalContext")
    if isinstance(extra, str) and extra.strip():
        verdict.context.append(extra.strip())
