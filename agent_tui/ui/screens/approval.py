"""The approval dialog: one keystroke to allow, always allow, or deny a tool call.

`ApprovalScreen` shows one `ApprovalRequest` and dismisses with an `ApprovalAnswer`; the queue
that shows them one at a time is `controllers/approval_queue.py`. An "always" answer carries the
rules the person agreed to in `saved_rules` (the request's `decision.suggestions`); the caller
writes them to the file the request names (`save_to`, the permission engine's local settings).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult, ScreenStackError
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest
from agent_tui.text import visible
from agent_tui.ui.controllers.stamp_guard import Pause
from agent_tui.ui.controllers.type_ahead import TypeAheadGuard
from agent_tui.ui.widgets import approval_parts as parts
from agent_tui.ui.widgets import review_lines
from agent_tui.ui.widgets.approval_parts import DEFAULT_GUARD_S, plain, warm_up_dialog  # noqa: F401
from agent_tui.ui.widgets.diff_view import diff_content
from agent_tui.ui.widgets.hunks import HunkPicker
from agent_tui.ui.widgets.key_hints import Key, KeyLine
from agent_tui.ui.widgets.rule_line import RuleLine, rule_problem


class ApprovalScreen(ModalScreen[ApprovalAnswer]):
    """Asks the person to allow or deny one tool call. Dismisses only through its own keys."""

    CSS_PATH = "../styles/approval.tcss"
    AUTO_FOCUS = "#body"
    # Our own key bar shows the keys; the guard and tell mode decide what each key does.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", show=False),
        Binding("up", "move_hunk(-1)", show=False, priority=True),
        Binding("down", "move_hunk(1)", show=False, priority=True),
    ]
    #: the answering keys, each decided in `on_key` in the order typed: a binding runs only
    #: once the keys typed after it in a burst (a busy moment) have been through `on_key`, so
    #: `t` then "no" lost the "no", and `e` then a rule's "a" took it for `a` (save)
    KEYS: ClassVar[dict[str, str]] = {
        "y": "once",
        "a": "always",
        "s": "session",
        "e": "edit_rule",
        "n": "deny",
        "t": "tell",
        "r": "review",
        "enter": "confirm",
        "space": "toggle_hunk",
    }

    #: how many more requests are queued behind this one
    waiting: reactive[int] = reactive(0)

    def __init__(
        self,
        request: ApprovalRequest,
        *,
        waiting: int = 0,
        position: int = 1,
        guard_s: float = DEFAULT_GUARD_S,
        pause: Pause | None = None,
        simulate: Callable[[tuple[str, ...]], str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_answer: Callable[[ApprovalAnswer], None] | None = None,
        type_ahead: Callable[[str], object] | None = None,
        typed_at: Callable[[], float | None] = lambda: None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.request = request
        self._clock = clock
        self._guard = TypeAheadGuard(guard_s, clock, typed_at, type_ahead)
        self._on_answer = on_answer
        #: the rubber-stamp guard's pause (`stamp_guard.py`): keys wait until `_paused_until`
        self.pause = pause
        #: the rule simulator, run in a thread for the "always" rules (`ui/views/rule_preview.py`)
        self._simulate = simulate
        self._paused_until: float | None = None
        self._first_shown: float | None = None
        self._telling = False
        #: the "always" rule line has the focus (its keys are typing)
        self._editing = False
        #: `a` was pressed once: a lasting change waits for a confirming `a` or Enter
        self._confirming = False
        self._done = False
        #: the person's answer, once given
        self.answer: ApprovalAnswer | None = None
        #: this dialog's place among those asked one after the other (1: the first)
        self.position = position
        self.set_reactive(ApprovalScreen.waiting, waiting)
        #: the keys that answer, at the foot of the dialog (held, not looked up: when the app
        #: closes as the dialog comes up, it is resumed with its parts not mounted)
        self._key_bar = KeyLine(self._keys(), id="keys")

    @property
    def can_always(self) -> bool:
        return bool(self.request.decision.suggestions or self.request.remember)

    @property
    def armed(self) -> bool:
        """Whether keys answer yet: the dialog is on screen, typing meant for the prompt has
        paused (the type-ahead guard), and any rubber-stamp pause has passed."""
        return self._guard.armed and not self.paused

    @property
    def paused(self) -> bool:
        return self._paused_until is not None and self._clock() < self._paused_until

    def compose(self) -> ComposeResult:
        request, decision = self.request, self.request.decision
        asked_by_rule = decision.behavior == "ask" and decision.rule is not None
        with Vertical(id="dialog") as dialog:
            who = f" for the sub-agent {visible(request.agent)}" if request.agent else ""
            if request.items:
                dialog.border_title = Content(f"Apply {visible(request.tool)}'s changes?")
            else:
                dialog.border_title = Content(f"Allow {visible(request.tool)}{who}?")
            if asked_by_rule:
                hint = Content.assemble("ask rule ", (visible(decision.rule or ""), "bold"))
                hint = hint.append(" — always confirm")
            elif decision.source == "mode":
                hint = Content("the current mode asks for this")
            else:
                hint = Content("no rule allows this")
            # The risk comes first: what the call does, in one plain line, above the command.
            serious = decision.risk not in ("", "runs a command", "writes files")
            risky = "-ask-rule" if asked_by_rule or serious else "-no-rule"
            # docked at the top, as the footer at the bottom: the body scrolls in what is left
            with Vertical(id="head"):
                yield Static(
                    plain(decision.risk) if decision.risk else hint, id="risk", classes=risky
                )
                if decision.risk:
                    yield Static(hint, id="hint")
                if request.provenance:
                    yield Static(plain(request.provenance), id="provenance")
                if self.pause is not None:
                    yield Static(review_lines.pause_content(self.pause, None), id="pause")
                    if self.pause.previous:
                        yield Static(review_lines.differs_content(self.pause), id="differs")
                if decision.highlights and parts.is_long(request.subject):
                    yield Static("what made it ask", classes="label")
                    yield Static(parts.highlights_content(decision.highlights), id="highlights")
            with VerticalScroll(id="body"):
                # a sandboxed command reaching a new host: the domain, as WebFetch asks it
                host = "host" in request.input and request.tool != "WebFetch"
                label = "domain" if host else parts.SUBJECT_LABELS.get(request.tool, "subject")
                yield Static(label, classes="label")
                shown = parts.command_content("" if host else request.tool, request.subject)
                yield Static(shown, id="subject")
                yield Static("in", classes="label")
                yield Static(plain(request.cwd), id="cwd")
                if decision.reason:
                    yield Static("why", classes="label")
                    yield Static(plain(decision.reason), id="reason")
                if request.items:
                    yield Static("its changes: space ticks a file, ↑/↓ move", classes="label")
                    yield parts.items_picker(request)
                elif len(request.hunks) > 1:
                    yield Static("changes: space keeps or leaves out a hunk", classes="label")
                    yield HunkPicker(request.hunks, id="hunks")
                elif request.preview:
                    diff, note = diff_content(request.preview)
                    yield Static("changes", classes="label")
                    yield Static(diff, id="preview")
                    if note:
                        yield Static(note, id="preview-note")
            with Vertical(id="footer"):
                yield from parts.always_widgets(
                    request, can_always=self.can_always, simulated=self._simulate is not None
                )
                # (the rules' editable line and the tell box: mounted when first wanted)
                with Horizontal(id="keybar"):
                    yield self._key_bar
                    yield Static(self._waiting_text(), id="waiting")

    def on_mount(self) -> None:
        if self.request.decision.suggestions and self._simulate is not None:
            self.run_worker(self._simulation, thread=True, exit_on_error=False)

    def _simulation(self) -> None:
        assert self._simulate is not None
        rules = self.request.decision.suggestions
        if self._editing:
            rules = self.query_one(RuleLine).rules
        text = review_lines.simulation_text(self._simulate, rules)
        self.app.call_from_thread(self._show_simulation, text)

    def _show_simulation(self, text: str) -> None:
        if self.is_mounted and not self._done:
            self.query_one("#simulation", Static).update(review_lines.simulation_content(text))

    def _keys(self) -> list[Key]:
        return parts.key_line(
            self.request,
            telling=self._telling,
            confirming=self._confirming,
            can_always=self.can_always,
        )

    def _waiting_text(self) -> str:
        """Where this dialog is among those asked together: "1 of 3" (nothing when alone)."""
        total = self.position + self.waiting
        return f"{self.position} of {total}" if total > 1 else ""

    def watch_waiting(self) -> None:
        if self.is_mounted:
            self.query_one("#waiting", Static).update(self._waiting_text())

    def _tick_pause(self) -> None:
        assert self.pause is not None and self._paused_until is not None
        left = self._paused_until - self._clock()
        self.query_one("#pause", Static).update(review_lines.pause_content(self.pause, left))
        if self.paused:
            self.set_timer(0.1, self._tick_pause)
        else:
            self.remove_class("-paused")
            self._show_armed()

    def on_screen_resume(self) -> None:
        parts.first_frame_without_collections()
        # Keys answer once the dialog is painted on top (each time it comes to the top): keys
        # typed before it was visible were meant for whatever was on screen then.
        self._guard.hidden()
        self._show_keys_armed(False)
        self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        if not self.is_current:
            return
        shown = self._guard.painted()
        if self._first_shown is None:
            self._first_shown = shown
            if self.pause is not None:  # the rubber-stamp pause runs once, from first sight
                self._paused_until = shown + self.pause.seconds
                self.add_class("-paused")
                self._tick_pause()
        self._show_keys_armed(self.armed)
        if not self.armed:
            self.set_timer(max(self._guard.guard_s, 0.05), self._show_armed)

    def _show_armed(self) -> None:
        if self.armed:
            self._show_keys_armed(True)
        else:  # an injected clock may lag the timer; look again shortly
            self.set_timer(0.05, self._show_armed)

    def _show_keys_armed(self, armed: bool) -> None:
        """The key bar's own class (the screen's would restyle every widget of the dialog)."""
        self._key_bar.set_class(armed, "-armed")

    def _ready(self) -> bool:
        if self._done or not self.armed:
            return False
        self._show_keys_armed(True)
        return True

    def on_key(self, event: events.Key) -> None:
        if self._done:
            return
        if self._telling or self._editing:
            self._type_into_box(event)
            return
        if self.paused:  # the rubber-stamp pause: keys do nothing, the countdown runs on
            event.stop()
            event.prevent_default()
            return
        if not self.armed:  # typed for the prompt, not for this dialog: handed back
            event.stop()
            event.prevent_default()
            self._guard.hand_back(event)
            self.set_timer(max(self._guard.guard_s, 0.05), self._show_armed)
            self._show_keys_armed(False)
            return
        if self._confirming and event.key not in ("a", "e", "enter"):
            self._set_confirming(False)  # any other key takes the "always" back
        action = self.KEYS.get(event.key)
        if action is not None:
            event.stop()
            event.prevent_default()
            getattr(self, f"action_{action}")()

    def _type_into_box(self, event: events.Key) -> None:
        """A key typed on the heels of `t` or `e`, before the box they open has the focus
        (Textual moves it a moment later): into the box, in order, not lost."""
        box = self.query_one("#tell", Input) if self._telling else self.query_one(RuleLine)
        if box.has_focus or event.key == "escape":
            return
        if event.key == "enter":
            box.post_message(Input.Submitted(box, box.value))
        elif event.key == "backspace":
            box.action_delete_left()
        elif event.is_printable and event.character:
            box.insert_text_at_cursor(event.character)
        else:
            return
        event.stop()
        event.prevent_default()

    def _finish(self, answer: ApprovalAnswer) -> None:
        if self._first_shown is not None:
            answer = replace(answer, took_s=round(self._clock() - self._first_shown, 3))
        self._done = True
        self.answer = answer
        if self._on_answer is not None:
            self._on_answer(answer)
        self.dismiss(answer)

    @property
    def hunks_chosen(self) -> tuple[int, ...] | None:
        pickers = self.query(HunkPicker)
        return pickers.first().chosen if pickers else None

    def action_toggle_hunk(self) -> None:
        for picker in self.query(HunkPicker):
            picker.toggle()

    def on_resize(self) -> None:
        for picker in self.query(HunkPicker):  # the view's height changed: keep the hunk shown
            picker.call_after_refresh(picker.show_cursor, False)

    def action_move_hunk(self, delta: int) -> None:
        pickers = self.query(HunkPicker)
        if pickers:
            pickers.first().move(delta)
        else:
            self.query_one("#body", VerticalScroll).scroll_relative(y=delta, animate=False)

    def action_once(self) -> None:
        if self._ready() and not self._telling:
            if self.request.items:
                picker = self.query_one(HunkPicker)
                self._finish(ApprovalAnswer("once", hunks=picker.ticked))
                return
            self._finish(ApprovalAnswer("once", hunks=self.hunks_chosen))

    def action_review(self) -> None:
        """Allow, and hold the command's change set for review before any of it lands."""
        if self._ready() and not self._telling and self.request.can_review:
            self._finish(ApprovalAnswer("once", review=True))

    def action_always(self) -> None:
        if not (self._ready() and not self._telling and self.can_always):
            return
        if not self._confirming:
            if not self.request.remember and not self.query(RuleLine):
                footer = self.query_one("#footer")
                footer.mount(*parts.rule_widgets(self.request), after="#always")
            self._set_confirming(True)  # a lasting change: one more keystroke to be sure
            return
        self.action_confirm()

    def action_confirm(self) -> None:
        if self._ready() and self._confirming and self.request.remember:
            self._finish(ApprovalAnswer("always"))
            return
        if self._ready() and self._confirming:
            rules = self.query_one(RuleLine).rules
            problem = rule_problem(rules)
            if problem:
                self.query_one("#rule-problem", Static).update(plain(f"can't save: {problem}"))
                return
            answer = ApprovalAnswer("always", saved_rules=rules, hunks=self.hunks_chosen)
            self._finish(answer)

    def action_session(self) -> None:
        """Allow, and the same rules until the app quits: nothing is saved."""
        if self._ready() and not self._telling and self.can_always and not self.request.remember:
            rules = self.request.decision.suggestions
            self._finish(ApprovalAnswer("session", saved_rules=rules, hunks=self.hunks_chosen))

    def action_edit_rule(self) -> None:
        if self._ready() and self._confirming and not self.request.remember:
            self._editing = True
            self.query_one(RuleLine).focus()

    @on(Input.Submitted, "#rule")
    def _submit_rule(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_confirm()

    @on(Input.Changed, "#rule")
    def _rule_changed(self, event: Input.Changed) -> None:
        self.query_one("#rule-problem", Static).update("")
        if self._simulate is not None and self._editing:
            self.run_worker(self._simulation, thread=True, exit_on_error=False, exclusive=True)

    def _set_confirming(self, confirming: bool) -> None:
        self._confirming = confirming
        self.set_class(confirming, "-confirming")
        self._key_bar.show(self._keys())

    def action_deny(self) -> None:
        if self._ready() and not self._telling:
            self._finish(ApprovalAnswer("deny"))

    def action_escape(self) -> None:
        if not self._ready():
            return
        if self._editing:
            self._editing = False
            self.query_one("#body").focus()
        elif self._telling:
            self._set_telling(False)
        else:
            self._finish(ApprovalAnswer("deny"))

    def action_tell(self) -> None:
        if self._ready() and not self._telling and not self.request.items:
            if not self.query("#tell"):
                self.query_one("#footer").mount(parts.tell_input(), before="#keybar")
            self._set_telling(True)

    def _set_telling(self, telling: bool) -> None:
        self._telling = telling
        self.set_class(telling, "-telling")
        self._key_bar.show(self._keys())
        tell = self.query_one("#tell", Input)
        if telling:
            tell.focus()
        else:
            tell.clear()
            self.query_one("#body").focus()

    @on(Input.Submitted, "#tell")
    def _submit_tell(self, event: Input.Submitted) -> None:
        event.stop()
        if self._ready() and self._telling:
            self._finish(ApprovalAnswer("deny", message=event.value.strip()))

    def close(self) -> None:
        """Take the dialog away without an answer (the request was cancelled)."""
        if self._done:
            return
        self._done = True
        try:
            if self in self.app.screen_stack:
                self.pop_until_active()
                self.dismiss()
        except ScreenStackError:
            pass  # the app is shutting down; nothing left to close
