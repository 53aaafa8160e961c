"""The questions a sandboxed call asks the person after it was allowed: whether a port a
background shell listens on may reach this machine, and which files of a change set land (the
gate's protected ones, conflicts, or a review the person asked for). Functions of `Approvals`,
kept apart from the call-by-call policy (`self`: the session's `Approvals`)."""

from __future__ import annotations

from typing import Any

from agent_tui.permissions.types import ApprovalRequest, ChoiceItem, Decision
from agent_tui.protocol.events import ApprovalRequested, Notice


async def ask_forward(self: Any, shell: str, port: int) -> str:
    """A background shell listens on `port` in the sandbox: may the person's loopback reach
    it? "once", "always" (this project, later sessions too) or "deny"."""
    decision = Decision(
        "ask",
        reason=f"{shell} listens on {port} inside the sandbox; forwarded, your browser and "
        f"other programs on this machine reach it at 127.0.0.1:{port}",
        risk=f"{shell} listens on {port} — forward it to this machine?",
        source="sandbox",
    )
    request = ApprovalRequest(
        "",
        "Bash",
        {"forward_port": port, "shell": shell},
        f"{shell}: port {port}",
        decision,
        str(self.cwd),
        remember=f"port {port} for this project",
    )
    answer = await self.ask(request)
    return answer.choice if answer.choice != "session" else "once"


async def review_changes(
    self: Any, tool_use_id: str, tool: str, review: Any
) -> tuple[int, ...] | None:
    """A sandboxed call's change set needs the person (protected files, conflicts, or a
    review they asked for): the indexes of the files to apply. Said in the chat after."""

    items = tuple(
        ChoiceItem(f"{i.title} ({i.action})" if i.action else i.title, i.diff, i.kept, i.why)
        for i in review.items
    )
    protected = [i for i in review.items if i.why and i.kept]
    if review.kind == "held":
        reason = "a command's changes that were never applied (y applies the ticked files)"
    elif review.kind == "review":
        reason = "you asked to review this command's changes before they land"
    elif protected:
        reason = "the command changed files that make later commands run code"
    else:
        reason = "the command changed files you changed while it ran"
    risk = (
        "git, your shell or Python would run what these files say, outside the sandbox"
        if protected
        else ""
    )
    decision = Decision("ask", reason=reason, risk=risk, source="sandbox")
    request = ApprovalRequest(
        tool_use_id,
        tool,
        {"command": review.command, "review": review.kind},
        review.command,
        decision,
        str(self.cwd),
        items=items,
    )
    self.emit(ApprovalRequested(tool_use_id, tool, review.command, reason))
    answer = await self.ask(request)
    if answer.choice == "deny" and review.kind == "held":
        self.emit(Notice("info", "The held changes stay held: /changes shows them again."))
        return None
    if answer.choice == "deny":
        chosen: tuple[int, ...] = ()
    elif answer.hunks is None:
        chosen = tuple(range(len(items)))
    else:
        chosen = tuple(answer.hunks)
    applied = [review.items[n].title for n in chosen]
    left = [i.title for n, i in enumerate(review.items) if n not in chosen]
    text = f"{tool}'s changes: applied {', '.join(applied) or 'none'}"
    if left:
        text += f"; left out {', '.join(left)}"
    self.emit(Notice("info" if not left else "warning", text))
    return chosen
