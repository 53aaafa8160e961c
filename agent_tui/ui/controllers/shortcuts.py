"""What a prompt's first character asks for, as in Claude Code: `!command` runs the command as
the person (they typed it: no approval, no sandbox) and shows it, its output joining the
conversation with the next prompt (after its text); `#note` appends the note to a memory file,
the project's or the person's own, chosen in a picker."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text
from textual.widgets import Static

from agent_tui.ui.widgets.chat import NoticeMessage, UserMessage

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.agent.loop import Agent
    from agent_tui.ui.widgets.chat import ChatView

#: a `!command` is stopped after this long (it runs unattended in the background)
TIMEOUT_S = 600
#: characters of its output shown, and sent to the model (the middle of longer output is cut)
OUTPUT_LIMIT = 30_000


class ShortcutHost(Protocol):
    agent: Agent | None

    @property
    def chat(self) -> ChatView: ...


class CommandOutput(Static):
    """A `!command`'s output in the chat: the command's own text, shown literally."""

    def __init__(self, text: str, failed: bool) -> None:
        super().__init__(Text(text), classes=f"message notice {'warning' if failed else 'info'}")
        self.text = text


def _cut(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    half = OUTPUT_LIMIT // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half:,} characters cut …]\n{text[-half:]}"


def memory_target(folder: Path) -> Path:
    """The memory file a note goes to in `folder`: the AGENTS.md or CLAUDE.md there, else a new
    AGENTS.md."""
    from agent_tui.agent.memory import NAMES

    return next((folder / n for n in NAMES if (folder / n).is_file()), folder / NAMES[0])


def append_note(path: Path, note: str) -> None:
    """Append `note` to `path` as a list item, on a line of its own."""
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    gap = "" if not before or before.endswith("\n") else "\n"
    with path.open("a", encoding="utf-8") as f:
        f.write(f"{gap}- {note}\n")


class PromptShortcuts:
    def __init__(self, app: App[Any], host: ShortcutHost) -> None:
        self.app = app
        self.host = host

    def handle(self, text: str) -> bool:
        """Run `text` if it is a `!command` or a one-line `#note`; False for anything else."""
        body = text[1:].strip()
        if text.startswith("!") and body:
            self.run_command(body)
            return True
        if text.startswith("#") and body and "\n" not in body:
            self.note(body)
            return True
        return False

    # --- !command ---

    def run_command(self, command: str) -> None:
        self.host.chat.append(UserMessage(f"! {command}"))
        self.app.run_worker(self._run(command), group="shell-escape", exit_on_error=False)

    async def _run(self, command: str) -> None:
        agent = self.host.agent
        cwd = agent.config.cwd if agent is not None else Path.cwd()
        try:
            proc = await asyncio.create_subprocess_exec(
                "bash",
                "-c",
                command,
                cwd=cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group: a timeout stops all of it
            )
        except OSError as exc:
            self.host.chat.append(NoticeMessage(f"Could not run the command: {exc}", "error"))
            return
        note = ""
        try:
            async with asyncio.timeout(TIMEOUT_S):
                out_b, err_b = await proc.communicate()
        except (TimeoutError, asyncio.CancelledError) as exc:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            if isinstance(exc, asyncio.CancelledError):
                raise
            out_b, err_b, note = b"", b"", f"[stopped after {TIMEOUT_S} s]"
        out = _cut(out_b.decode("utf-8", errors="replace"))
        err = _cut(err_b.decode("utf-8", errors="replace"))
        code = proc.returncode
        shown = (
            "\n".join(x for x in (out.rstrip("\n"), err.rstrip("\n"), note) if x) or "(no output)"
        )
        if code:
            shown += f"\n[exit code {code}]"
        self.host.chat.append(CommandOutput(shown, failed=bool(code or note)))
        if agent is not None:  # as Claude Code: the model sees it with the next prompt
            agent.conversation.notes.append(
                f"<bash-input>{command}</bash-input>\n"
                f"<bash-stdout>{out}{note}</bash-stdout><bash-stderr>{err}</bash-stderr>"
                + (f"\n(exit code {code})" if code else "")
            )

    # --- #note ---

    def note(self, note: str) -> None:
        from agent_tui.paths import config_dir
        from agent_tui.ui.screens.confirm import ChoiceScreen

        agent = self.host.agent
        cwd = agent.config.cwd if agent is not None else Path.cwd()
        places = {"project": memory_target(cwd), "user": memory_target(config_dir())}
        choices = [
            ("project", f"{places['project']} (shared with the project)"),
            ("user", f"{places['user']} (yours, every project)"),
        ]

        def chosen(where: str | None) -> None:
            if where not in places:
                self.app.notify("Note not saved.")
                return
            path = places[where]
            try:
                append_note(path, note)
            except OSError as exc:
                self.app.notify(f"Could not save the note to {path}: {exc}", severity="error")
                return
            if agent is not None:  # the model knows it from the next prompt on
                agent.conversation.notes.append(f"<user-memory-input>{note}</user-memory-input>")
            self.app.notify(f"Noted in {path}.")

        self.app.push_screen(
            ChoiceScreen(f"Save “{note}” to which memory file?", choices, ""), chosen
        )
