"""agent-tui's events and questions in the Agent Client Protocol's terms (no I/O here).

- the answer's text and thinking stream as `agent_message_chunk` / `agent_thought_chunk`;
- a tool call is a `tool_call` (pending, its kind, title and input) when the model has written
  it, and a `tool_call_update` (completed or failed, with its result) when it ends; TodoWrite's
  list is also a `plan`;
- an approval request is a `session/request_permission` for that tool call: its content carries
  the dialog's lines (why it asks, the risk line, where the text was seen before, the diff), its
  options the dialog's keys — allow once, allow always (when a rule would be saved, named in the
  option), deny; the chosen option is the same `ApprovalAnswer` the dialog gives, with how long
  the person took, so the store records the call as from the TUI;
- AskUserQuestion's questions are permission requests too, one per question, whose options are
  the question's.
"""

from __future__ import annotations

from typing import Any

from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest
from agent_tui.protocol.events import Event, TextDelta, ThinkingDelta, ToolCallReady, ToolFinished
from agent_tui.tools.subject import tool_subject

#: characters of a tool's result sent in its update (the whole result stays in the store)
RESULT_CHARS = 20_000
KINDS = {
    "Read": "read",
    "Write": "edit",
    "Edit": "edit",
    "Bash": "execute",
    "BashOutput": "execute",
    "KillShell": "execute",
    "Grep": "search",
    "Glob": "search",
    "ToolSearch": "search",
    "WebFetch": "fetch",
    "WebSearch": "fetch",
    "TodoWrite": "think",
    "Task": "think",
    "Skill": "read",
}
#: our stop reasons in the protocol's words
STOP_REASONS = {
    "max_tokens": "max_tokens",
    "max_turns": "max_turn_requests",
    "refusal": "refusal",
    "max_cost": "max_turn_requests",
}


def kind(tool: str) -> str:
    return KINDS.get(tool, "other")


def title(tool: str, params: dict[str, Any]) -> str:
    subject = str(tool_subject(tool, params) or "").strip().splitlines()
    return f"{tool}: {subject[0][:200]}" if subject else tool


def updates(event: Event) -> list[Any]:
    """The protocol's session updates for one of our events (most events have none)."""
    import acp

    if isinstance(event, TextDelta) and event.text:
        return [acp.update_agent_message_text(event.text)]
    if isinstance(event, ThinkingDelta) and event.text:
        return [acp.update_agent_thought_text(event.text)]
    if isinstance(event, ToolCallReady) and not event.server:
        found: list[Any] = [
            acp.start_tool_call(
                event.tool_use_id,
                title(event.tool, event.input),
                kind=kind(event.tool),  # type: ignore[arg-type]
                status="pending",
                raw_input=event.input,
            )
        ]
        todos = event.input.get("todos") if event.tool == "TodoWrite" else None
        if isinstance(todos, list):
            entries = [
                acp.plan_entry(str(t.get("content", "")), status=t.get("status", "pending"))
                for t in todos
                if isinstance(t, dict)
            ]
            found.append(acp.update_plan(entries))
        return found
    if isinstance(event, ToolFinished):
        text = (event.content or event.summary)[:RESULT_CHARS]
        return [
            acp.update_tool_call(
                event.tool_use_id,
                status="failed" if event.is_error else "completed",
                content=[acp.tool_content(acp.text_block(text))] if text else None,
            )
        ]
    return []


def permission(request: ApprovalRequest) -> tuple[Any, list[Any]]:
    """(the tool call, the options) of a `session/request_permission` for `request`."""
    import acp
    from acp.schema import PermissionOption, ToolCallUpdate

    decision = request.decision
    lines = [f"{request.agent}: " if request.agent else "", f"Asks because {decision.reason}."]
    if decision.risk:
        lines.append(f"Risk: {decision.risk}")
    if request.provenance:
        lines.append(request.provenance)
    if request.items:
        lines += [f"- {i.title}" + (f" ({i.why})" if i.why else "") for i in request.items]
    text = "\n".join(x for x in lines if x)
    content: list[Any] = [acp.tool_content(acp.text_block(text))]
    if request.preview:
        content.append(acp.tool_content(acp.text_block(request.preview[:RESULT_CHARS])))
    call = ToolCallUpdate(
        tool_call_id=request.tool_use_id,
        title=title(request.tool, request.input) if request.subject else request.tool,
        kind=kind(request.tool),  # type: ignore[arg-type]
        status="pending",
        raw_input=request.input,
        content=content,
    )
    options = [PermissionOption(option_id="once", name="Allow once (y)", kind="allow_once")]
    rules = decision.suggestions
    if rules or request.remember:
        always = ", ".join(rules) or request.remember
        options.append(
            PermissionOption(option_id="always", name=f"Always allow {always}", kind="allow_always")
        )
    options.append(PermissionOption(option_id="deny", name="Deny (n)", kind="reject_once"))
    return call, options


def answer(request: ApprovalRequest, outcome: Any, took_s: float) -> ApprovalAnswer:
    """The dialog's answer for the option the client chose (cancelled: deny)."""
    chosen = getattr(outcome, "option_id", None) if outcome.outcome == "selected" else None
    if chosen == "always":
        return ApprovalAnswer("always", saved_rules=request.decision.suggestions, took_s=took_s)
    if chosen == "once":
        kept = tuple(n for n, item in enumerate(request.items) if item.kept)
        return ApprovalAnswer("once", hunks=kept if request.items else None, took_s=took_s)
    return ApprovalAnswer("deny", took_s=took_s)


def question(tool_use_id: str, q: dict[str, Any]) -> tuple[Any, list[Any]]:
    """One AskUserQuestion question as a permission request whose options are its options."""
    import acp
    from acp.schema import PermissionOption, ToolCallUpdate

    text = q["question"] + "".join(
        f"\n{n}. {o['label']} — {o.get('description', '')}" for n, o in enumerate(q["options"], 1)
    )
    call = ToolCallUpdate(
        tool_call_id=tool_use_id,
        title=f"Question: {q.get('header') or q['question']}",
        kind="other",
        status="pending",
        content=[acp.tool_content(acp.text_block(text))],
    )
    options = [
        PermissionOption(option_id=str(n), name=o["label"], kind="allow_once")
        for n, o in enumerate(q["options"])
    ]
    return call, options
