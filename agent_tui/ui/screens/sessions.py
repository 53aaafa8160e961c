"""The session browser: find a past session, look into it, then resume, replay, export or delete it.

`SessionBrowser` dismisses with a `BrowserChoice` (resume / replay a session) or None; exporting
and deleting happen inside it. Every store call runs in a thread worker, so a big database never
blocks the UI. Everything shown from the store (titles, prompts, output) is untrusted: it is put on
screen as plain `Text` with control characters spelled out, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from agent_tui.sessions.export import export_dir as default_export_dir
from agent_tui.sessions.export import export_file_name, write_markdown
from agent_tui.sessions.faults import STORE_ERRORS, describe
from agent_tui.sessions.records import StoredMessage
from agent_tui.sessions.session_lock import SessionInUse, holding
from agent_tui.sessions.store import SessionStore
from agent_tui.text import one_line
from agent_tui.ui.screens.confirm import AskTextScreen, ConfirmScreen
from agent_tui.ui.views.session_rows import (
    MARK_CLOSE,
    MARK_OPEN,
    PREVIEW_MESSAGES,
    BrowserChoice,
    Row,
    preview,
    session_row,
)
from agent_tui.ui.widgets.key_footer import KeyFooter

__all__ = ["PAGE", "BrowserChoice", "ConfirmScreen", "SessionBrowser"]


FILTER_NAMES = {
    "unreviewed": "a tool call ran without your review",
    "denied": "a tool call was denied",
}


def filter_name(review: str) -> str:
    """The audit filter in words (`rule:<rule>` is "approved by rule X")."""
    if review.startswith("rule:"):
        return f"rule {review[5:]} decided a tool call"
    return FILTER_NAMES[review]


#: sessions listed per page; the next page loads when the cursor reaches the end
PAGE = 100
#: search hits fetched (several may belong to one session)
SEARCH_HITS = 200
#: typing pauses this long before a search runs
SEARCH_DEBOUNCE_S = 0.15
NO_SESSIONS = (
    "No sessions yet.\n\nEvery conversation you have with the agent is saved here as it "
    "happens; come back to review, resume or replay it."
)
#: the header's keys, where they fit beside it (the keys line has them too)
KEYS_HINT = (
    "\u00a0\u00a0 Enter resume · r replay · e export · d delete · f filter · / search · Esc close"
)


class SessionBrowser(Screen[BrowserChoice | None]):
    """Newest sessions first; `/` searches; Enter resumes, r replays, e exports, d deletes."""

    CSS_PATH = "../styles/sessions.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("slash", "focus_search", "Search"),
        Binding("enter", "resume", "Resume", show=True),
        Binding("r", "replay", "Replay"),
        Binding("e", "export", "Export"),
        Binding("c", "changes", "Changes"),
        Binding("d", "delete", "Delete"),
        Binding("f", "cycle_filter", "Filter"),
        # While the search box has focus, arrows still move through the list.
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(
        self,
        open_store: Callable[[], SessionStore],
        *,
        cwd: Path,
        current_session: str | None = None,
        export_dir: Path | None = None,
        review: str | None = None,
    ) -> None:
        super().__init__()
        self._open_store = open_store
        self._store: SessionStore | None = None
        self.cwd = cwd
        #: where exports are offered by default: the data dir, not the project (which may be
        #: a repository the transcript shouldn't land in)
        self.export_dir = export_dir or default_export_dir()
        self.current_session = current_session
        self.rows: list[Row] = []
        self.query_text = ""
        self.loaded = False  # the first listing has arrived (tests and the empty state use it)
        #: why the sessions can't be listed (the database won't open), if they can't
        self.store_error: str | None = None
        self._more = False
        self._debounce: Timer | None = None
        #: the audit filter: None (all), "unreviewed" (a call ran without your review), "denied",
        #: or "rule:<rule>" (a call that rule decided)
        self.review: str | None = review

    def compose(self) -> ComposeResult:
        yield Static("Sessions", id="sessions-header")
        yield Input(placeholder="/ search prompts, answers, commands, output", id="session-search")
        with Horizontal(id="sessions-body"):
            with Vertical(id="session-list-pane"):
                yield OptionList(id="session-list")
                yield Static("", id="session-empty")
            with VerticalScroll(id="session-preview-pane"):
                yield Static("", id="session-preview", markup=False)
        yield KeyFooter()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#session-list", OptionList)

    def on_mount(self) -> None:
        self.option_list.focus()
        self._reload()

    def store(self) -> SessionStore:
        """The store, opened on first use (called in worker threads)."""
        if self._store is None:
            self._store = self._open_store()
        return self._store

    @property
    def selected(self) -> Row | None:
        index = self.option_list.highlighted
        if index is None or not 0 <= index < len(self.rows):
            return None
        return self.rows[index]

    # --- loading ---------------------------------------------------------------------------

    def _reload(self) -> None:
        self.run_worker(
            lambda: self._load(self.query_text), thread=True, group="list", exclusive=True
        )

    def _load(self, text: str, offset: int = 0) -> None:
        try:
            rows, more = self._fetch(text, offset)
        except STORE_ERRORS as exc:  # said in the browser; the file is left as it is
            self.store_error = describe(exc)
            self.app.call_from_thread(self._show_rows, text, [], False, False)
            return
        self.store_error = None  # it opens now (the file was moved aside meanwhile)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_rows, text, rows, more, offset > 0)

    def _fetch(self, text: str, offset: int) -> tuple[list[Row], bool]:
        store = self.store()
        rows: list[Row]
        more = False
        if text.strip():
            # the audit filter (f) holds while searching: matches in the sessions it finds
            hits = store.sessions.search(
                text, SEARCH_HITS, marks=(MARK_OPEN, MARK_CLOSE), review=self.review
            )
            seen: dict[str, str] = {}
            for hit in hits:  # newest match first: keep each session's best snippet
                seen.setdefault(hit.session_id, hit.snippet)
            found = ((store.sessions.get(sid), snippet) for sid, snippet in seen.items())
            rows = [Row(info, snippet) for info, snippet in found if info is not None]
        else:
            infos = store.sessions.recent(limit=PAGE + 1, offset=offset, review=self.review)
            more = len(infos) > PAGE
            rows = [Row(info) for info in infos[:PAGE]]
        return rows, more

    def _show_rows(self, text: str, rows: list[Row], more: bool, append: bool) -> None:
        if text != self.query_text:
            return  # a newer search is on its way
        option_list = self.option_list
        keep = self.selected.info.id if self.selected and not append else None
        if append:
            self.rows.extend(rows)
            option_list.add_options(Option(session_row(r), id=r.info.id) for r in rows)
        else:
            self.rows = rows
            option_list.clear_options()
            option_list.add_options(Option(session_row(r), id=r.info.id) for r in rows)
            ids = [r.info.id for r in rows]
            option_list.highlighted = ids.index(keep) if keep in ids else (0 if rows else None)
        self._more = more
        self.loaded = True
        self._update_empty()
        if not rows:
            self._show_preview(None)

    def _update_empty(self) -> None:
        empty = self.query_one("#session-empty", Static)
        has_rows = bool(self.rows)
        self.option_list.display = has_rows
        empty.display = not has_rows
        self.query_one("#session-preview-pane").display = has_rows
        if self.store_error:
            empty.update(Text(f"Sessions can't be listed: {self.store_error}."))
        elif self.review and not self.query_text.strip():
            empty.update(Text(f"No sessions where {filter_name(self.review)} (f: next filter)."))
        elif self.query_text.strip():
            empty.update(Text(f"No sessions match “{one_line(self.query_text, 80, sep=' ')}”."))
        else:
            empty.update(Text(NO_SESSIONS))
        count = len(self.rows)
        header = "Sessions" if not count else f"Sessions · {count}{'+' if self._more else ''}"
        if self.review:
            header += f" · {filter_name(self.review)}"
        if self.query_text.strip():
            header += f" matching “{one_line(self.query_text, 40, sep=' ')}”"
        fits = has_rows and len(header) + len(KEYS_HINT) <= self.size.width - 2
        self.query_one("#sessions-header", Static).update(
            Text.assemble(header, (KEYS_HINT if fits else "", "dim"))
        )

    @on(OptionList.OptionHighlighted, "#session-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        row = self.selected
        if row is None:
            return
        self.run_worker(
            partial(self._load_preview, row), thread=True, group="preview", exclusive=True
        )
        if self._more and event.option_index >= len(self.rows) - 1 and not self.query_text.strip():
            self._more = False  # one page request at a time
            offset = len(self.rows)
            self.run_worker(lambda: self._load("", offset), thread=True, group="page")

    def _load_preview(self, row: Row) -> None:
        try:
            messages = self.store().messages.tail(row.info.id, PREVIEW_MESSAGES)
        except STORE_ERRORS as exc:
            self._store_failed(exc)
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_preview, row, messages)

    def _show_preview(self, row: Row | None, messages: list[StoredMessage] | None = None) -> None:
        if row is not None and row is not self.selected:
            return
        content = Text() if row is None else preview(row.info, messages or [], row.snippet)
        self.query_one("#session-preview", Static).update(content)

    # --- search ----------------------------------------------------------------------------

    @on(Input.Changed, "#session-search")
    def _search_changed(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(SEARCH_DEBOUNCE_S, lambda: self._search(event.value))

    def _search(self, text: str) -> None:
        self._debounce = None
        if text == self.query_text:
            return
        self.query_text = text
        self._reload()

    @on(Input.Submitted, "#session-search")
    def _search_submitted(self) -> None:
        if self._debounce is not None:  # Enter right after typing: search now
            self._debounce.stop()
            self._search(self.query_one("#session-search", Input).value)
        self.option_list.focus()

    def action_focus_search(self) -> None:
        self.query_one("#session-search", Input).focus()

    def action_move(self, delta: int) -> None:
        option_list = self.option_list
        if delta > 0 and isinstance(self.focused, Input):
            option_list.focus()  # Down from the search box goes into the list
            if option_list.highlighted is None and option_list.option_count:
                option_list.highlighted = 0
            return
        if delta > 0:
            option_list.action_cursor_down()
        else:
            option_list.action_cursor_up()

    # --- actions ---------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#session-list")
    def _selected(self) -> None:
        self.action_resume()

    def action_resume(self) -> None:
        row = self.selected
        if row is None:
            return
        if row.info.id == self.current_session:
            self.notify("That is the session you are in.")  # and the browser stays open
            return
        self.dismiss(BrowserChoice("resume", row.info.id))

    def action_replay(self) -> None:
        row = self.selected
        if row is not None:
            self.dismiss(BrowserChoice("replay", row.info.id))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_changes(self) -> None:
        """The files the highlighted session changed, per turn, with diffs."""
        from agent_tui.ui.screens.changes import ChangesScreen

        row = self.selected
        if row is None:
            return
        from agent_tui.checkpoints.restore import blob_reader
        from agent_tui.checkpoints.shadow import readable_work_tree
        from agent_tui.paths import data_dir

        kept, session, cwd = self.store().checkpoints, row.info.id, Path(row.info.cwd)
        # a change made by a command: the repository (or, outside git, the shadow) has it
        read_blob = blob_reader(
            kept.get_blob, lambda: readable_work_tree(cwd, data_dir()) if cwd.is_dir() else None
        )
        title = row.info.title or session
        self.app.push_screen(
            ChangesScreen(title, cwd, lambda: kept.file_events(session), read_blob)
        )

    def action_export(self) -> None:
        row = self.selected
        if row is None:
            return
        session_id = row.info.id
        default = str(self.export_dir / export_file_name(session_id))

        def chosen(where: str | None) -> None:
            if where:
                path = Path(where).expanduser()
                self.run_worker(lambda: self._export(session_id, path), thread=True)

        self.app.push_screen(AskTextScreen("Export the transcript (Markdown) to:", default), chosen)

    def _export(self, session_id: str, path: Path) -> None:
        try:
            write_markdown(self.store(), session_id, path)
        except STORE_ERRORS as exc:
            self._store_failed(exc, "Export failed: ")
            return
        self.app.call_from_thread(self.notify, f"Exported to {path}", markup=False)

    def _store_failed(self, exc: BaseException, what: str = "The session store failed: ") -> None:
        """From a worker thread: the store (or the file written) failed; one line says why."""
        why = str(exc) if isinstance(exc, OSError) else describe(exc)
        self.app.call_from_thread(self.notify, what + why, severity="error", markup=False)

    def action_cycle_filter(self) -> None:
        """All sessions → those where a call ran without your review → those with a denial."""
        order: list[str | None] = [None, "unreviewed", "denied"]
        at = order.index(self.review) if self.review in order else -1
        self.review = order[(at + 1) % len(order)]
        self._reload()

    def action_delete(self) -> None:
        row = self.selected
        if row is None:
            return
        if row.info.id == self.current_session:
            self.notify("That is the session you are in; it can't be deleted from here.")
            return
        title = one_line(row.info.title, 60, sep=" ") or row.info.id

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(lambda: self._delete(row), thread=True, group="delete")

        self.app.push_screen(
            ConfirmScreen(f"Delete session “{title}” and everything recorded in it?"), answered
        )

    def _delete(self, row: Row) -> None:
        try:
            store = self.store()
            with holding(store.path, row.info.id):  # not from under an agent recording it
                deleted = store.sessions.delete(row.info.id)
        except SessionInUse as exc:
            self.app.call_from_thread(self.notify, f"{exc}: not deleted.", markup=False)
            return
        except STORE_ERRORS as exc:
            self._store_failed(exc)
            return
        self.app.call_from_thread(self._deleted, row, deleted)

    def _deleted(self, row: Row, deleted: bool) -> None:
        if row in self.rows:
            index = self.rows.index(row)
            self.rows.pop(index)
            self.option_list.remove_option_at_index(index)
            self._update_empty()
            if not self.rows:
                self._show_preview(None)
        self.notify("Session deleted." if deleted else "That session was already gone.")
