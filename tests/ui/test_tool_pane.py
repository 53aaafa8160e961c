"""Pilot and snapshot tests of the tool-progress pane, fed domain events by a tiny App."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot

import agent_tui
from agent_tui.protocol.events import (
    ApprovalDecided,
    ApprovalRequested,
    Event,
    SearchQueryUpdate,
    SearchResultsReceived,
    ToolCallReady,
    ToolCallStarted,
    ToolFinished,
    ToolProgress,
    TurnFinished,
    TurnStarted,
    Usage,
)
from agent_tui.ui.views.tool_activity import (
    MAX_LINE_CHARS,
    MAX_RAW_PARTIAL,
    SEARCH_ERROR_TEXT,
    TAIL_LINES,
    Phase,
    ToolActivity,
)
from agent_tui.ui.widgets.tool_pane import ToolEntry, ToolPane

SIZE = (100, 30)
PANE_TCSS = Path(agent_tui.__file__).parent / "ui" / "styles" / "tool_pane.tcss"


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class PaneApp(App[None]):
    CSS_PATH = [PANE_TCSS]

    def __init__(self, clock: FakeClock | None = None, **pane_kwargs: object) -> None:
        super().__init__()
        self.clock = clock or FakeClock()
        self.pane_kwargs = pane_kwargs

    def compose(self) -> ComposeResult:
        kwargs = {"animate": False, **self.pane_kwargs}
        yield ToolPane(clock=self.clock, id="pane", **kwargs)  # type: ignore[arg-type]

    @property
    def pane(self) -> ToolPane:
        return self.query_one(ToolPane)


async def feed(pilot: Pilot[None], *events: Event) -> None:
    pane = pilot.app.query_one(ToolPane)
    for event in events:
        pane.handle(event)
    await pilot.pause()


def lines(pane: ToolPane, tool_use_id: str) -> list[str]:
    entry = pane.entry(tool_use_id)
    assert entry is not None, f"no entry for {tool_use_id}"
    return entry.text.split("\n")


def on_screen(entry: ToolEntry) -> list[str]:
    """What the entry actually drew, border and padding stripped."""
    width, height = entry.size
    strips = entry.render_lines(Region(0, 0, width, height))
    return [strip.text[2:].rstrip() for strip in strips]


def search_call(tool_id: str = "toolu_s", query: str = "textual") -> ToolCallReady:
    return ToolCallReady(index=1, tool_use_id=tool_id, tool="WebSearch", input={"query": query})


def bash_call(tool_id: str = "toolu_b", command: str = "seq 10000") -> ToolCallReady:
    return ToolCallReady(index=1, tool_use_id=tool_id, tool="Bash", input={"command": command})


def allowed(command: str, tool_id: str = "toolu_b", by: str = "rule") -> ApprovalDecided:
    """The call may run (every client call is decided before it runs)."""
    return ApprovalDecided(tool_id, "Bash", command, "allow", by, "Bash")


# --- searches ------------------------------------------------------------------------------------


async def test_searching_line_appears_and_grows_with_each_query_update() -> None:
    query = "textual progress pane"
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(pilot, ToolCallStarted(index=1, tool_use_id="toolu_s", tool="WebSearch"))
        entry = app.pane.entry("toolu_s")
        assert entry is not None
        await feed(pilot, search_call())
        seen: list[str] = []
        for n in range(1, len(query) + 1):
            await feed(pilot, SearchQueryUpdate("toolu_s", query[:n]))
            seen.append(on_screen(entry)[1])
        assert seen == [f"  searching: {query[:n]}".rstrip() for n in range(1, len(query) + 1)]
        # Updated in place: still the one widget, no remounts.
        assert app.pane.entry("toolu_s") is entry
        assert len(app.pane.query(ToolEntry)) == 1


@pytest.mark.parametrize("numbered", [False, True], ids=["heuristic", "search_index"])
async def test_two_searches_show_counts_then_the_tool_summary(numbered: bool) -> None:
    def idx(n: int) -> int:
        return n if numbered else 0

    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            search_call(query="rust async"),
            SearchQueryUpdate("toolu_s", "rust", search_index=idx(0)),
            SearchQueryUpdate("toolu_s", "rust async", search_index=idx(0)),
        )
        assert lines(app.pane, "toolu_s")[1:] == ["  searching: rust async"]
        await feed(
            pilot,
            SearchResultsReceived("toolu_s", "rust async", 3, search_index=idx(0)),
            SearchQueryUpdate("toolu_s", "tok", search_index=idx(1)),
        )
        assert lines(app.pane, "toolu_s")[1:] == [
            "  searching: rust async  3 results",
            "  searching: tok",
        ]
        await feed(
            pilot,
            SearchQueryUpdate("toolu_s", "tokio runtime", search_index=idx(1)),
            SearchResultsReceived("toolu_s", "tokio runtime", 1, search_index=idx(1)),
            ToolFinished("toolu_s", "WebSearch", False, "Did 2 searches in 3.1s", 3.1),
        )
        assert lines(app.pane, "toolu_s") == [
            "✓ WebSearch  rust async",
            "  searching: rust async  3 results",
            "  searching: tokio runtime  1 result",
            "  Did 2 searches in 3.1s",
        ]
        assert app.pane.entry("toolu_s").has_class("-done")  # type: ignore[union-attr]


async def test_search_summary_computed_from_injected_duration_when_not_given() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            search_call(),
            SearchQueryUpdate("toolu_s", "a"),
            SearchResultsReceived("toolu_s", "a", 2),
            SearchQueryUpdate("toolu_s", "b"),
            SearchResultsReceived("toolu_s", "b", 2),
            ToolFinished("toolu_s", "WebSearch", False, "", duration_s=3.14),
        )
        assert lines(app.pane, "toolu_s")[-1] == "  Did 2 searches in 3.1s"


async def test_results_without_streamed_query_and_pause_turn_continuation() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            search_call(),
            SearchQueryUpdate("toolu_s", "first"),
            SearchResultsReceived("toolu_s", "first", 4),
            SearchQueryUpdate("toolu_s", "second"),
            # pause_turn: the result of the second search arrives in the continued request.
            SearchResultsReceived("toolu_s", "second", 2),
            # A result whose query never streamed (e.g. replay) still gets its own line.
            SearchResultsReceived("toolu_s", "third", 0),
        )
        assert lines(app.pane, "toolu_s")[1:] == [
            "  searching: first  4 results",
            "  searching: second  2 results",
            "  searching: third  0 results",
        ]


@pytest.mark.parametrize("code", sorted(SEARCH_ERROR_TEXT))
async def test_search_error_codes_in_human_words_and_warning_colour(code: str) -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            search_call(),
            SearchQueryUpdate("toolu_s", "q"),
            SearchResultsReceived("toolu_s", "q", 0, error_code=code),
        )
        entry = app.pane.entry("toolu_s")
        assert entry is not None
        phrase = SEARCH_ERROR_TEXT[code]
        assert lines(app.pane, "toolu_s")[1] == f"  searching: q  {phrase}"
        content = entry.render()
        start = content.plain.index(phrase)
        assert any(
            span.start <= start
            and span.end >= start + len(phrase)
            and span.style == ".tool--warning"
            for span in content.spans
        )
        # And the warning colour is what gets drawn, not the query's colour.
        strip = entry.render_lines(Region(0, 1, entry.size.width, 1))[0]
        colours = {seg.text.strip(): seg.style.color for seg in strip if seg.text.strip()}
        assert colours[phrase] != colours["q"]


async def test_unknown_search_error_code_is_shown_sanitised() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            search_call(),
            SearchResultsReceived("toolu_s", "q", 0, error_code="weird\x1b[2J[b]code"),
        )
        # one policy for untrusted text: controls spelled out, never silently dropped
        expected = "  searching: q  search failed: weird\\x1b[2J[b]code"
        assert lines(app.pane, "toolu_s")[1] == expected


# --- Bash ----------------------------------------------------------------------------------------


def _numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(n))


@pytest.mark.parametrize("chunking", ["per-line", "one-chunk", "ragged"])
async def test_bash_tail_stays_bounded_after_ten_thousand_lines(chunking: str) -> None:
    text = _numbered(10_000)
    if chunking == "per-line":
        chunks = text.splitlines(keepends=True)
    elif chunking == "one-chunk":
        chunks = [text]
    else:  # boundaries anywhere, lines split across chunks
        chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(pilot, bash_call())
        pane = app.pane
        for n, chunk in enumerate(chunks):
            pane.handle(ToolProgress("toolu_b", "Bash", output=chunk))
            if n % 2_000 == 0:  # let the UI draw in between, as a live stream would
                await pilot.pause()
        await pilot.pause()
        activity = pane.activities[0]
        assert activity.lines_seen == 10_000
        assert len(activity.tail) <= TAIL_LINES
        assert activity.output_tail() == [f"line {i}" for i in range(10_000 - TAIL_LINES, 10_000)]
        shown = lines(pane, "toolu_b")
        assert shown[1] == f"  … {10_000 - TAIL_LINES:,} earlier lines"
        assert len(shown) <= TAIL_LINES + 3
        entry = pane.entry("toolu_b")
        assert entry is not None and entry.size.height == len(shown)

        await feed(
            pilot, ToolFinished("toolu_b", "Bash", False, "exit 0 · 10000 lines · 0.4s", 0.4)
        )
        assert lines(pane, "toolu_b")[-1] == "  exit 0 · 10000 lines · 0.4s"


async def test_bash_command_is_one_truncated_line_and_unterminated_output_is_bounded() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        command = "for i in $(seq 3); do\n  echo $i\ndone  " + "x" * 1000
        await feed(
            pilot,
            bash_call(command=command),
            *(ToolProgress("toolu_b", "Bash", output="y" * 10_000) for _ in range(100)),
        )
        activity = app.pane.activities[0]
        assert activity.subject == "for i in $(seq 3); do …"
        assert len(activity._partial) <= MAX_RAW_PARTIAL
        assert all(len(line) <= MAX_LINE_CHARS for line in activity.output_tail())
        entry = app.pane.entry("toolu_b")
        assert entry is not None
        # Drawn as single lines cut at the pane's width, not wrapped.
        assert entry.size.height == len(lines(app.pane, "toolu_b"))


async def test_markup_in_query_command_and_output_is_shown_literally() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            search_call(query="[bold]x"),
            SearchQueryUpdate("toolu_s", "[bold red]textual[/] [link=http://e.vil]y[/link]"),
            bash_call(command="echo '[b]hi[/b]' [/]"),
            ToolProgress("toolu_b", "Bash", output="[red]not red[/red]\n[@click=app.quit]x[/]\n"),
        )
        search = app.pane.entry("toolu_s")
        bash = app.pane.entry("toolu_b")
        assert search is not None and bash is not None
        assert (
            on_screen(search)[1] == "  searching: [bold red]textual[/] [link=http://e.vil]y[/link]"
        )
        assert on_screen(bash)[0].endswith("Bash  echo '[b]hi[/b]' [/]")
        assert on_screen(bash)[1:3] == ["  [red]not red[/red]", "  [@click=app.quit]x[/]"]


async def test_escape_sequences_and_controls_are_spelled_out_carriage_returns_resolved() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            bash_call(command="make \x1b[2Jall"),
            ToolProgress(
                "toolu_b", "Bash", output="\x1b[31mred\x1b[0m \x1b]0;title\x07ok\x07\x08\n"
            ),
            ToolProgress("toolu_b", "Bash", output="10%\r50%\r100%\n"),
            ToolProgress("toolu_b", "Bash", output="crlf\r"),
            ToolProgress("toolu_b", "Bash", output="\n\ttab\u202eevil\n"),
            ToolProgress("toolu_b", "Bash", output="cut \x1b[3"),
        )
        activity = app.pane.activities[0]
        assert activity.subject == "make \\x1b[2Jall"
        assert activity.output_tail() == [
            "\\x1b[31mred\\x1b[0m \\x1b]0;title\\x07ok\\x07\\x08",
            "100%",
            "crlf",
            "    tab<U+202E>evil",
            "cut \\x1b[3",
        ]


# --- other tools ---------------------------------------------------------------------------------


async def test_webfetch_shows_url_then_status_size_time_cached() -> None:
    url = "https://docs.python.org/3/library/asyncio.html"
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            ToolCallReady(1, "toolu_f", "WebFetch", {"url": url, "prompt": "summarise"}),
            ToolProgress("toolu_f", "WebFetch", status=f"fetching: {url}"),
        )
        assert lines(app.pane, "toolu_f") == [f"● WebFetch  {url}", f"  fetching: {url}"]
        await feed(
            pilot,
            ToolProgress("toolu_f", "WebFetch", status="200 · 48.2 KB · 0.4s · cached"),
            ToolFinished("toolu_f", "WebFetch", False, "200 · 48.2 KB · 0.4s · cached", 0.4),
        )
        assert lines(app.pane, "toolu_f") == [
            f"✓ WebFetch  {url}",
            "  200 · 48.2 KB · 0.4s · cached",
        ]


@pytest.mark.parametrize(
    ("name", "tool_input", "summary"),
    [
        ("Read", {"path": "README.md"}, "42 lines"),
        ("Write", {"path": "notes/todo.md", "content": "x"}, "wrote 1 line"),
        ("Edit", {"file_path": "src/app.py", "old": "a", "new": "b"}, "1 replacement"),
    ],
)
async def test_file_tools_show_subject_and_summary(
    name: str, tool_input: dict[str, str], summary: str
) -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            ToolCallReady(1, "toolu_r", name, tool_input),
            ToolFinished("toolu_r", name, False, summary, 0.01, content="file text"),
        )
        subject = tool_input.get("path") or tool_input["file_path"]
        assert lines(app.pane, "toolu_r") == [f"✓ {name}  {subject}", f"  {summary}"]


async def test_error_state_is_marked_and_coloured() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            ToolCallReady(1, "toolu_r", "Read", {"path": "missing.txt"}),
            ToolFinished("toolu_r", "Read", True, "no such file", 0.0),
            ToolCallReady(2, "toolu_x", "Bash", {}, input_error="invalid JSON at [1]"),
        )
        entry = app.pane.entry("toolu_r")
        assert entry is not None and entry.has_class("-error") and not entry.has_class("-running")
        assert lines(app.pane, "toolu_r") == ["✗ Read  missing.txt", "  no such file"]
        assert lines(app.pane, "toolu_x") == ["✗ Bash", "  invalid input: invalid JSON at [1]"]


async def test_approval_wait_and_denial() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            bash_call(command="rm -rf build"),
            ApprovalRequested("toolu_b", "Bash", "rm -rf build", "no rule allows rm"),
        )
        assert lines(app.pane, "toolu_b") == ["○ Bash  rm -rf build", "  awaiting approval"]
        await feed(
            pilot,
            ApprovalDecided("toolu_b", "Bash", "rm -rf build", "deny", "user", message="[no]"),
        )
        assert lines(app.pane, "toolu_b")[1] == "  denied: [no]"
        assert app.pane.activities[0].phase is Phase.ERROR


async def test_a_call_waiting_its_turn_shows_as_waiting_with_no_clock() -> None:
    """Calls are ready as the answer streams, then run one by one, each once allowed: until
    then a call waits (○, no spinner, no clock), and its clock counts the run alone."""
    clock = FakeClock()
    app = PaneApp(clock, animate=True)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.pane
        assert pane._ticker is not None
        await feed(pilot, TurnStarted("clean up"), bash_call("toolu_1", "rm -rf build"))
        await feed(pilot, bash_call("toolu_2", "make"))
        clock.now += 3
        await feed(pilot, ApprovalRequested("toolu_1", "Bash", "rm -rf build", "no rule allows rm"))
        assert lines(pane, "toolu_1") == ["○ Bash  rm -rf build", "  awaiting approval"]
        assert lines(pane, "toolu_2") == ["○ Bash  make"]  # queued behind it
        assert not pane._ticker._active.is_set()  # nothing runs: no spinner turns
        clock.now += 20  # the person reads the dialog
        assert lines(pane, "toolu_2") == ["○ Bash  make"]
        await feed(pilot, allowed("rm -rf build", "toolu_1", by="user"))
        assert pane._ticker._active.is_set()
        clock.now += 2
        await feed(pilot, ToolProgress("toolu_1", "Bash", output="removed\n"))
        assert lines(pane, "toolu_1")[0].endswith("Bash  rm -rf build  2.0s")
        assert lines(pane, "toolu_2") == ["○ Bash  make"]  # still waiting its turn
        await feed(pilot, ToolFinished("toolu_1", "Bash", False, "exit 0", 2.0))
        await feed(pilot, allowed("make", "toolu_2"))
        clock.now += 1.5
        await feed(pilot, ToolProgress("toolu_2", "Bash", output="cc main.c\n"))
        assert lines(pane, "toolu_2")[0].endswith("Bash  make  1.5s")  # not 26.5 s


def test_server_tools_run_from_their_ready_event() -> None:
    """The API runs its own tools (web_search) as it streams: running, clock started, at once."""
    activity = ToolActivity("srvtoolu_1", "web_search")
    activity.apply(ToolCallReady(0, "srvtoolu_1", "web_search", {"query": "x"}, server=True), 5.0)
    assert activity.phase is Phase.RUNNING and activity.started_at == 5.0
    client = ToolActivity("toolu_b", "Bash")
    client.apply(bash_call(), 5.0)
    assert client.phase is Phase.PENDING and client.elapsed(9.0) is None


async def test_elapsed_from_injected_clock_while_running() -> None:
    clock = FakeClock()
    app = PaneApp(clock)
    async with app.run_test(size=SIZE) as pilot:
        await feed(pilot, bash_call(command="sleep 3"), allowed("sleep 3"))
        assert lines(app.pane, "toolu_b")[0] == "● Bash  sleep 3"  # under a second: no clock
        clock.now += 2.5
        await feed(pilot, ToolProgress("toolu_b", "Bash", output="tick\n"))
        assert lines(app.pane, "toolu_b")[0] == "● Bash  sleep 3  2.5s"
        await feed(pilot, ToolFinished("toolu_b", "Bash", False, "exit 0 · 1 line · 3.0s", 3.0))
        assert lines(app.pane, "toolu_b")[0] == "✓ Bash  sleep 3"


async def test_spinner_turns_only_while_something_runs() -> None:
    app = PaneApp(animate=True)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.pane
        assert pane._ticker is not None and not pane._ticker._active.is_set()
        await feed(pilot, bash_call(command="sleep 1"))
        assert not pane._ticker._active.is_set()  # ready, not yet allowed: nothing runs
        await feed(pilot, allowed("sleep 1"))
        assert pane._ticker._active.is_set()
        first = lines(pane, "toolu_b")[0][0]
        pane._tick()  # driven by hand: no wall-clock waits in tests
        assert lines(pane, "toolu_b")[0][0] != first
        await feed(pilot, ToolFinished("toolu_b", "Bash", False, "exit 0", 1.0))
        assert lines(pane, "toolu_b")[0][0] == "✓"
        assert not pane._ticker._active.is_set()


# --- the pane as a whole -------------------------------------------------------------------------


async def test_newest_last_last_turn_kept_until_next_turn_starts() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            TurnStarted("first"),
            bash_call("toolu_1", "ls"),
            ToolCallReady(2, "toolu_2", "Read", {"path": "a.txt"}),
            ToolFinished("toolu_1", "Bash", False, "exit 0", 0.1),
            TurnFinished("end_turn", Usage(), 0.0, 1, cancelled=True),
        )
        entries = list(app.pane.query(ToolEntry))
        assert [e.activity.id for e in entries] == ["toolu_1", "toolu_2"]
        assert lines(app.pane, "toolu_2") == ["■ Read  a.txt", "  cancelled"]
        await feed(pilot, TurnStarted("second"))
        assert app.pane.activities == []
        assert len(app.pane.query(ToolEntry)) == 0
        await feed(pilot, bash_call("toolu_3", "pwd"))
        assert [e.activity.id for e in app.pane.query(ToolEntry)] == ["toolu_3"]


async def test_server_tool_blocks_do_not_get_entries_of_their_own() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            pilot,
            search_call(),
            ToolCallStarted(0, "srvtoolu_1", "web_search", server=True),
            ToolCallReady(0, "srvtoolu_1", "web_search", {"query": "x"}, server=True),
            SearchQueryUpdate("toolu_s", "x"),
        )
        assert [a.id for a in app.pane.activities] == ["toolu_s"]


async def test_hidden_pane_only_keeps_state_and_catches_up_when_shown() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        app.pane.display = False
        await pilot.pause()
        await feed(
            pilot,
            search_call(),
            SearchQueryUpdate("toolu_s", "hidden query"),
            bash_call(),
            ToolProgress("toolu_b", "Bash", output=_numbered(10_000)),
        )
        assert len(app.pane.query(ToolEntry)) == 0  # nothing mounted or rendered
        assert [a.id for a in app.pane.activities] == ["toolu_s", "toolu_b"]
        app.pane.display = True
        await pilot.pause()
        await pilot.pause()
        assert lines(app.pane, "toolu_s")[1] == "  searching: hidden query"
        assert lines(app.pane, "toolu_b")[-1] == "  line 9999"


async def test_entries_beyond_the_cap_drop_the_oldest() -> None:
    app = PaneApp(max_entries=5)
    async with app.run_test(size=SIZE) as pilot:
        await feed(pilot, *(bash_call(f"toolu_{n}", f"echo {n}") for n in range(12)))
        ids = [e.activity.id for e in app.pane.query(ToolEntry)]
        assert ids == [f"toolu_{n}" for n in range(7, 12)]


def test_activity_model_needs_no_app() -> None:
    activity = ToolActivity("toolu_b", "Bash")
    assert activity.apply(bash_call(), now=0.0)
    assert not activity.apply(TurnStarted("x"), now=0.0)  # not the model's business
    activity.apply(ToolProgress("toolu_b", "Bash", output="a\nb"), now=0.0)
    assert activity.output_tail() == ["a", "b"]
    assert activity.phase is Phase.RUNNING


# --- snapshots -----------------------------------------------------------------------------------


def test_snapshot_pane_mid_search(snap_compare) -> None:  # type: ignore[no-untyped-def]
    url = "https://textual.textualize.io/widgets/"

    async def run_before(pilot: Pilot[None]) -> None:
        await feed(
            pilot,
            TurnStarted("find docs"),
            ToolCallReady(1, "toolu_f", "WebFetch", {"url": url}),
            ToolProgress("toolu_f", "WebFetch", status="200 · 48.2 KB · 0.4s · cached"),
            ToolFinished("toolu_f", "WebFetch", False, "200 · 48.2 KB · 0.4s · cached", 0.4),
            bash_call(command="pytest -q tests/ui [snapshot]"),
            ToolProgress(
                "toolu_b", "Bash", output=_numbered(40) + "\x1b[32m12 passed\x1b[0m in 0.8s\n"
            ),
            ToolFinished("toolu_b", "Bash", False, "exit 0 · 41 lines · 0.8s", 0.8),
            search_call(query="textual [bold]markup[/bold] escaping"),
            SearchQueryUpdate("toolu_s", "textual markup escaping"),
            SearchResultsReceived("toolu_s", "textual markup escaping", 5),
            SearchQueryUpdate("toolu_s", "textual Content [b]"),
            SearchQueryUpdate("toolu_s", "textual Content [b]vs Te"),
        )

    assert snap_compare(PaneApp(), terminal_size=SIZE, run_before=run_before)


# --- the toolset: plan, sub-agents, MCP ----------------------------------------------------------

TODOS = [
    {"content": "Find the TODOs", "status": "completed", "activeForm": "Finding the TODOs"},
    {"content": "Inspect the handler", "status": "in_progress", "activeForm": "Inspecting it"},
    {"content": "Write a note", "status": "pending", "activeForm": "Writing a note"},
]
TOOLSET_EVENTS: list[Event] = [
    TurnStarted("fix the TODOs"),
    ToolCallReady(1, "toolu_todo", "TodoWrite", {"todos": TODOS}),
    ToolFinished("toolu_todo", "TodoWrite", False, "1/3 done · Inspecting it", 0.0),
    ToolCallReady(2, "toolu_task", "Task", {"description": "inspect handler", "prompt": "…"}),
    ToolProgress("toolu_task", "Task", output="▸ Grep TODO\n  ✓ 2 files\n"),
    ToolProgress("toolu_task", "Task", output="▸ Read src/app.py\n"),
    ToolCallReady(3, "toolu_mcp", "mcp__notes__add_note", {"name": "todo", "text": "wire it"}),
    ToolProgress("toolu_mcp", "mcp__notes__add_note", status="calling notes"),
]


async def test_the_plan_stays_on_top_and_a_finished_task_folds_to_one_line() -> None:
    app = PaneApp()
    async with app.run_test(size=SIZE) as pilot:
        await feed(pilot, *TOOLSET_EVENTS)
        pane = app.pane
        plan = str(pane.plan.render())
        assert plan.splitlines() == [
            "Plan · 1/3 done",
            "☑ Find the TODOs",
            "▶ Inspecting it…",
            "☐ Write a note",
        ]
        assert pane.children[0] is pane.plan
        running = [line.strip() for line in lines(pane, "toolu_task")]
        assert running[1:] == ["▸ Grep TODO", "✓ 2 files", "▸ Read src/app.py"]
        await feed(pilot, ToolFinished("toolu_task", "Task", False, "3 steps · $0.0120", 2.0))
        assert lines(pane, "toolu_task")[1:] == ["  3 steps · $0.0120"]
        # a new turn clears the calls but keeps the plan
        await feed(pilot, TurnStarted("next"))
        assert pane.entry("toolu_task") is None and pane.plan.display


def test_snapshot_pane_with_plan_subagent_and_mcp(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[None]) -> None:
        await feed(pilot, *TOOLSET_EVENTS)

    assert snap_compare(PaneApp(), terminal_size=SIZE, run_before=run_before)


async def test_two_long_searches_stay_apart_in_a_narrow_pane() -> None:
    """At 120 columns the pane is ~45 wide: two queries that differ near their end were both
    cut to the same text (issue 50). Cut in the middle, each keeps its end, and its count."""
    from agent_tui.protocol.events import SearchQueryUpdate, SearchResultsReceived

    first = "textual markdown streaming performance tips for large documents"
    second = "textual markdown streaming performance tips for code blocks"
    app = PaneApp()
    async with app.run_test(size=(45, 20)) as pilot:
        for tool_id, query in (("toolu_1", first), ("toolu_2", second)):
            await feed(
                pilot,
                ToolCallStarted(index=1, tool_use_id=tool_id, tool="WebSearch"),
                search_call(tool_id, query),
                SearchQueryUpdate(tool_id, query),
                SearchResultsReceived(tool_id, query, 5),
            )
        entries = [app.pane.entry(t) for t in ("toolu_1", "toolu_2")]
        drawn = [str(e.render()).split("\n") for e in entries if e is not None]
        assert drawn[0] != drawn[1]
        for rows in drawn:
            header, search = rows[0], next(r for r in rows if "searching" in r)
            assert len(header) <= 41 and len(search) <= 41  # the pane's content width
            assert "…" in header and header.endswith(("documents", "blocks"))
            assert search.endswith("5 results"), rows
