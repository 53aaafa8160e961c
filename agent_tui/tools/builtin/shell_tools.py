"""`BashOutput` {bash_id, filter?} and `KillShell` {shell_id}: Claude Code's tools for the
background shells that Bash's `run_in_background` starts (`tools/shells.py`)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.shells import OUTPUT_KEPT, describe_output


class BashOutputInput(BaseModel):
    bash_id: str = Field(description="The ID of the background shell to retrieve output from")
    filter: str | None = Field(
        default=None,
        description=(
            "Optional regular expression to filter the output lines. Only lines matching this "
            "regex will be included in the result. Any lines that do not match will no longer "
            "be available to read."
        ),
    )


class KillShellInput(BaseModel):
    shell_id: str = Field(description="The ID of the background shell to kill")


def _unknown(ctx: ToolContext, shell_id: str) -> ToolOutput:
    shells = getattr(ctx.shells, "shells", {})
    known = ", ".join(shells) or "none"
    return ToolOutput(
        f"No background shell with ID {shell_id!r} (known: {known}).",
        is_error=True,
        summary="no such shell",
    )


class BashOutputTool(Tool):
    name: ClassVar[str] = "BashOutput"
    subject_fields: ClassVar[tuple[str, ...]] = ("bash_id",)
    order: ClassVar[int] = 110
    description: ClassVar[str] = (
        "Retrieves output from a running or completed background bash shell.\n"
        "- Takes a bash_id identifying the shell (Bash with `run_in_background` returns it)\n"
        "- Always returns only new output since the last check, with the shell's status\n"
        "- Supports optional regex filtering to show only lines matching a pattern\n"
        f"- Keeps the newest {OUTPUT_KEPT:,} characters of a shell's output; older unread "
        "output is dropped, and the answer says how much"
    )
    input_model: ClassVar[type[BaseModel]] = BashOutputInput
    read_only: ClassVar[bool] = True

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        p: BashOutputInput = params
        shell = ctx.shells.get(p.bash_id) if ctx.shells is not None else None
        if shell is None:
            return _unknown(ctx, p.bash_id)
        if shell.status == "running" and getattr(shell.run, "live", None) is not None:
            await ctx.shells.sync(shell)  # what it wrote so far lands before it is read about
        try:
            text = describe_output(shell, p.filter)
        except re.error as exc:
            return ToolOutput(f"Invalid filter regex: {exc}", is_error=True, summary="bad filter")
        return ToolOutput(text, summary=f"{shell.id}: {shell.status}")


class KillShellTool(Tool):
    name: ClassVar[str] = "KillShell"
    subject_fields: ClassVar[tuple[str, ...]] = ("shell_id",)
    order: ClassVar[int] = 120
    description: ClassVar[str] = (
        "Kills a running background bash shell by its ID.\n"
        "- Takes a shell_id parameter identifying the shell to kill\n"
        "- The shell's whole process group is stopped (SIGTERM, then SIGKILL)\n"
        "- Use this tool when you need to terminate a long-running shell"
    )
    input_model: ClassVar[type[BaseModel]] = KillShellInput

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        p: KillShellInput = params
        shell = ctx.shells.get(p.shell_id) if ctx.shells is not None else None
        if shell is None:
            return _unknown(ctx, p.shell_id)
        if shell.status != "running":
            return ToolOutput(
                f"Shell {shell.id} is not running (status: {shell.status}).",
                is_error=True,
                summary=f"{shell.id}: {shell.status}",
            )
        await ctx.shells.kill(shell)
        return ToolOutput(
            f"Successfully killed shell: {shell.id} ({shell.command})", summary=f"{shell.id} killed"
        )
