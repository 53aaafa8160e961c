"""What a prompt's first character asks for, as in Claude Code: `!command` runs the command as
the person (they typed it: no approval, no sandbox) and shows it, its output joining the
conversation with the next prompt (after its text); `#note` appends the note to a memory file,
the project's or the person's own, chosen in a picker."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text
from textual.widgets import Static

from agent_tui.tools.processes import kill_group, signal_group
from agent_tui.ui.chat.messages import UserMessage

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.agent.loop import Agent
    from agent_tui.ui.chat.messages import ChatView
    from agent_tui.ui.widgets.status import StatusLine

#: a `!command` is stopped after this long (it runs unattended in the background)
TIMEOUT_S = 600
#: bytes of each output stream shown, and sent to the model (the middle of longer output is cut)
OUTPUT_LIMIT = 30_000
#: lines of a running command's output shown as it runs (all of it once it ends)
PROGRESS_LINES = 12
#: how often a running command's block shows its newest lines
PROGRESS_S = 0.25
#: a stopped command's group gets this long after SIGTERM before SIGKILL
STOP_GRACE_S = 1.0


class ShortcutHost(Protocol):
    agent: Agent | None

    @property
    def chat(self) -> ChatView: ...

    @property
    def status(self) -> StatusLine: ...


class CommandOutput(Static):
    """A `!command`'s output in the chat: the command's own text, shown literally. While it
    runs: its last lines so far, and that it runs (and that Esc stops it)."""

    RUNNING = "running… (esc stops it)"

    def __init__(self) -> None:
        super().__init__(Text(self.RUNNING), classes="message notice info")
        self.text = self.RUNNING
        #: the command ended (finished, failed or stopped) and `text` is what it printed
        self.done = False

    def progress(self, out: str, err: str) -> None:
        lines = f"{out.rstrip()}\n{err.rstrip()}".strip("\n").splitlines()[-PROGRESS_LINES:]
        text = "\n".join([*lines, self.RUNNING])
        if text != self.text and not self.done:
            self.text = text
            self.update(Text(text))

    def show(self, text: str, failed: bool) -> None:
        self.text, self.done = text, True
        self.set_classes(f"message notice {'warning' if failed else 'info'}")
        self.update(Text(text))


class Captured:
    """One of a command's output streams, bounded: its start and its end are kept, and how
    much was cut between them (a command that prints forever can't fill the memory)."""

    def __init__(self, limit: int = OUTPUT_LIMIT) -> None:
        self.half = limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.cut = 0

    def add(self, data: bytes) -> None:
        room = self.half - len(self.head)
        self.head += data[:room]
        self.tail += data[room:] if room > 0 else data
        if len(self.tail) > self.half:
            self.cut += len(self.tail) - self.half
            del self.tail[: len(self.tail) - self.half]

    @property
    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        return f"{head}\n[… {self.cut:,} bytes cut …]\n{tail}" if self.cut else head + tail


class PersonCommand:
    """A `!command` as it runs: its process group and output so far; `stop()` ends it (Esc)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.out, self.err = Captured(), Captured()
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    async def finish(self, timeout: float) -> str:
        """Wait until the command ends, is stopped or runs out of time; "" or why it stopped.
        Stopped, its whole process group goes (SIGTERM, a moment, SIGKILL)."""
        proc = self.proc
        assert proc.stdout is not None and proc.stderr is not None
        ended = asyncio.gather(
            _pump(proc.stdout, self.out), _pump(proc.stderr, self.err), proc.wait()
        )
        stop = asyncio.ensure_future(self._stop.wait())
        try:
            either: set[asyncio.Future[Any]] = {ended, stop}
            await asyncio.wait(either, timeout=timeout, return_when="FIRST_COMPLETED")
            if ended.done():
                return ""
            note = "[stopped]" if stop.done() else f"[stopped after {timeout:g} s]"
            await kill_group(proc.pid, grace=STOP_GRACE_S)
            # what it printed before it went (a process that left the group may hold a pipe)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(ended), STOP_GRACE_S)
            return note
        finally:
            stop.cancel()
            if not ended.done():  # the app quits (this task is cancelled), or a pipe is held
                signal_group(proc.pid, signal.SIGKILL)
                ended.add_done_callback(_settled)  # no "exception never retrieved" at exit
                ended.cancel()
                with contextlib.suppress(asyncio.CancelledError, ProcessLookupError):
                    await proc.wait()


def _settled(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: the pumps' cancellation is not an error to report


async def _pump(stream: asyncio.StreamReader, into: Captured) -> None:
    while chunk := await stream.read(65536):
        into.add(chunk)


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
        #: the `!command`s running now (Esc stops them), each with its text
        self.running: dict[PersonCommand, str] = {}

    def stop(self) -> bool:
        """Stop the running `!command`s (Esc, ctrl+c); False when none runs."""
        for command in self.running:
            command.stop()
        return bool(self.running)

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
        chat = self.host.chat
        chat.append(UserMessage(f"! {command}"))
        block = CommandOutput()
        chat.append(block)
        self.app.run_worker(self._run(command, block), group="shell-escape", exit_on_error=False)

    async def _run(self, command: str, block: CommandOutput) -> None:
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
                start_new_session=True,  # its own process group: stopping it stops all of it
            )
        except OSError as exc:
            block.show(f"Could not run the command: {exc}", failed=True)
            return
        running = PersonCommand(proc)
        self.running[running] = command
        self._show_running()
        ticker = self.app.set_interval(
            PROGRESS_S, lambda: block.progress(running.out.text, running.err.text)
        )
        try:
            note = await running.finish(TIMEOUT_S)
        finally:
            ticker.stop()
            self.running.pop(running, None)
            self._show_running()
        out, err = running.out.text, running.err.text
        code = None if note else proc.returncode  # a stopped command's is the signal's
        shown = (
            "\n".join(x for x in (out.rstrip("\n"), err.rstrip("\n"), note) if x) or "(no output)"
        )
        if code:
            shown += f"\n[exit code {code}]"
        block.show(shown, failed=bool(code or note))
        if agent is not None:  # as Claude Code: the model sees it with the next prompt
            agent.conversation.notes.append(
                f"<bash-input>{command}</bash-input>\n"
                f"<bash-stdout>{out}{note}</bash-stdout><bash-stderr>{err}</bash-stderr>"
                + (f"\n(exit code {code})" if code else "")
                + ("\n(the user stopped it before it finished)" if note == "[stopped]" else "")
            )

    def _show_running(self) -> None:
        """The status line says which commands run (beside a turn's activity, if one runs)."""
        if self.app.is_running:
            self.host.status.commands = tuple(self.running.values())

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
