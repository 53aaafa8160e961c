"""The Permissions view (`/permissions`): the rules in force, by where they come from, with how
often each decided a tool call in this project's sessions. `d` deletes the highlighted rule, at
once and from its settings file; `s` lists the sessions where it decided something; `t` tries a
rule typed in against this project's past calls (the rule simulator)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.permissions.settings import SettingsError, SourcedRule
from agent_tui.permissions.types import Behavior
from agent_tui.text import visible
from agent_tui.ui.screens.confirm import ConfirmScreen
from agent_tui.ui.widgets.key_hints import key_bar

#: the order sources are listed in, and what each is
SOURCES = {
    "cli": "command line (--allow / --deny)",
    "session": "this session only",
    "local": "project, personal (.agent-tui/settings.local.toml)",
    "project": "project, shared (.agent-tui/settings.toml)",
    "user": "your user settings",
}
_BEHAVIOR_STYLE = {"allow": "$text-success", "ask": "$text-warning", "deny": "$text-error"}


class PermissionsScreen(ModalScreen[str | None]):
    """Dismisses with a rule to filter the sessions by ("rule:<rule>"), or None."""

    CSS_PATH = "../styles/permissions.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d,delete", "delete", "Delete rule"),
        Binding("s", "sessions", "Sessions it decided"),
        Binding("t", "try_rule", "Try a rule"),
        Binding("escape,q", "dismiss(None)", "Close"),
    ]

    def __init__(
        self,
        engine: Any,
        counts: Callable[[], dict[str, int]],
        preview: Callable[[tuple[str, ...], Behavior], str] | None = None,
        own_write: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> None:
        super().__init__()
        #: the rule simulator (`ui/views/rule_preview.py`), run in a thread for a rule typed in
        self._preview = preview
        self.engine = engine
        #: wraps the settings write a deletion makes (an app's write, never a running call's)
        self.own_write = own_write
        #: rule text -> times it decided a call (read from the store in a thread)
        self._load_counts = counts
        self.counts: dict[str, int] = {}
        self.shown: list[SourcedRule | None] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="permissions") as box:
            box.border_title = "Permissions"
            yield Static(self._header(), id="permissions-mode")
            yield OptionList(id="permissions-list")
            yield Input(
                placeholder="a rule to try, e.g. Bash(git:*)  (ask: or deny: before it for those)",
                id="permissions-try",
            )
            yield Static("", id="permissions-tried")
            keys = key_bar(
                ("d", "delete rule"),
                ("s", "sessions it decided"),
                ("t", "try a rule"),
                ("esc", "close"),
            )
            yield Static(keys, id="permissions-keys")

    def _header(self) -> Content:
        parts = [Content.assemble("mode ", (str(self.engine.mode), "bold"))]
        withheld = len(getattr(self.engine, "untrusted_grants", ()))
        if withheld:
            parts.append(Content(f"{withheld} project grant(s) withheld: the project is untrusted"))
        for warning in getattr(self.engine, "load_warnings", ()):
            parts.append(Content.assemble(("⚠ ", "$text-warning"), visible(warning)))
        return Content("\n").join(parts)

    def on_mount(self) -> None:
        self._fill()
        self.run_worker(self._count, thread=True, exit_on_error=False)

    def _count(self) -> None:
        counts = self._load_counts()
        self.app.call_from_thread(self._counted, counts)

    def _counted(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self._fill()

    def _fill(self) -> None:
        listing = self.query_one(OptionList)
        at = listing.highlighted
        listing.clear_options()
        self.shown = []
        rules: tuple[SourcedRule, ...] = self.engine.rules
        for source, label in SOURCES.items():
            mine = [r for r in rules if r.source == source]
            if not mine:
                continue
            listing.add_option(Option(Content.styled(label, "bold"), disabled=True))
            self.shown.append(None)
            for r in mine:
                fired = self.counts.get(r.rule.text, 0)
                listing.add_option(
                    Option(
                        Content.assemble(
                            (f"  {r.behavior:<5} ", _BEHAVIOR_STYLE[r.behavior]),
                            visible(r.rule.text),
                            (f"   decided {fired}×" if fired else "   not used yet", "dim"),
                        )
                    )
                )
                self.shown.append(r)
        if not self.shown:
            listing.add_option(
                Option("No rules: every call that isn't read-only asks you.", disabled=True)
            )
            self.shown.append(None)
        selectable = [i for i, r in enumerate(self.shown) if r is not None]
        if selectable:
            listing.highlighted = at if at in selectable else selectable[0]
        listing.focus()

    @property
    def selected(self) -> SourcedRule | None:
        at = self.query_one(OptionList).highlighted
        return self.shown[at] if at is not None and at < len(self.shown) else None

    def action_delete(self) -> None:
        rule = self.selected
        if rule is None:
            return
        where = SOURCES.get(rule.source, rule.source)

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                with self.own_write():
                    self.engine.remove_rule(rule)
            except SettingsError as exc:
                self.notify(str(exc), severity="error", markup=False)
                return
            self.notify(f"Deleted {rule.behavior} rule {rule.rule.text}.", markup=False)
            self._fill()

        question = f"Delete the {rule.behavior} rule {rule.rule.text} ({where})? It stops now."
        self.app.push_screen(ConfirmScreen(question), answered)

    def action_try_rule(self) -> None:
        if self._preview is not None:
            self.query_one("#permissions-try", Input).focus()

    @on(Input.Submitted, "#permissions-try")
    def _try(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        behavior: Behavior = "allow"
        for kind in ("ask", "deny", "allow"):
            if text.lower().startswith(kind + ":"):
                behavior, text = kind, text[len(kind) + 1 :].strip()
        if not text or self._preview is None:
            return
        self.query_one("#permissions-tried", Static).update(f"trying {text} …")
        preview = self._preview
        self.run_worker(
            lambda: self.app.call_from_thread(self._tried, preview((text,), behavior)),
            thread=True,
            exit_on_error=False,
        )

    def _tried(self, report: str) -> None:
        if self.is_mounted:
            self.query_one("#permissions-tried", Static).update(Content(visible(report)))

    def action_sessions(self) -> None:
        rule = self.selected
        if rule is not None:
            self.dismiss(f"rule:{rule.rule.text}")
