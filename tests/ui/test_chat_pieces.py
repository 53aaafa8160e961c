"""A streaming answer paints each block once (`markdown_pieces`) and takes a fast stream in
bounded steps (`AssistantMessage._take_pending`); neither may change what is shown. Their speed
is measured in benchmarks/bench_callbacks.py, not here."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agent_tui.ui.chat import messages as chat
from agent_tui.ui.chat.markdown_pieces import PieceCache, pieces
from agent_tui.ui.chat.messages import AssistantMessage, ChatView, MarkdownSegment
from tests.ui.test_chat_perf import BLOCKS, ChatApp, lines, painted

WORDS = [
    "the",
    "stream",
    "paints",
    "each",
    "block",
    "once",
    "while",
    "a",
    "table",
    "code",
    "list",
    "or",
    "quote",
    "grows",
]


def make_answer(size: int, seed: int) -> str:
    """A markdown mix (prose, lists, tables, code fences, quotes), every section different."""
    rng = random.Random(seed)
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        n = len(parts)
        prose = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))).capitalize()
        parts.append(f"## Part {n}\n\n{prose}.\n\n")
        kind = n % 4
        if kind == 0:
            parts.append("".join(f"- item {n}.{i}: {rng.choice(WORDS)}\n" for i in range(5)))
        elif kind == 1:
            rows = "".join(f"| {i} | {rng.choice(WORDS)} |\n" for i in range(6))
            parts.append(f"| n | word |\n|---|---|\n{rows}")
        elif kind == 2:
            code = "".join(f"    value_{i} = step({i}, {n})\n" for i in range(8))
            parts.append(f"```python\ndef part_{n}():\n{code}```\n")
        else:
            parts.append(f"> {prose[:80]}\n")
        parts.append("\n")
    return "".join(parts)


async def streamed(app: Any, pilot: Any, answer: str, step: int) -> AssistantMessage:
    """A new answer in the chat, `answer` written into it `step` characters at a time with a
    frame between writes (not finished: the caller finishes it)."""
    message = AssistantMessage()
    await app.query_one(ChatView).add(message)
    for n in range(0, len(answer), step):
        message.write(answer[n : n + step])
        await pilot.pause()
    return message


def texts() -> list[str]:
    rng = random.Random(5)
    mixed = ["\n\n".join(rng.choice(BLOCKS) for _ in range(8)) + "\n" for _ in range(60)]
    return [make_answer(4000, seed=seed) for seed in range(3)] + mixed


async def test_pieces_paint_exactly_the_lines_and_styles_of_the_whole() -> None:
    app = ChatApp()
    async with app.run_test(size=(90, 30)) as pilot:
        whole, piecewise = MarkdownSegment("x"), MarkdownSegment("x", pieces=PieceCache())
        await app.query_one(ChatView).mount_all([whole, piecewise])
        await pilot.pause()
        for text in texts():
            whole.update(text)
            piecewise.update(text)
            for width in (37, 88):
                assert piecewise._render_at(width) == whole._render_at(width), text


def test_a_text_with_a_link_reference_is_one_piece() -> None:
    """`[text][ref]` resolves across the whole document: such a text is not cut."""
    text = "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com\n"
    assert pieces(text) == [text]
    assert len(pieces("One.\n\nTwo.\n")) == 2


async def test_each_block_is_rendered_once_while_it_streams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The settled blocks are not rendered again when one more completes, nor when they are
    frozen into a segment."""
    rendered: list[str] = []
    original = PieceCache.lines

    def spy(self: PieceCache, widget: Any, piece: str, width: int) -> Any:
        if (piece, width, widget.visual_style) not in self._lines:
            rendered.append(piece)
        return original(self, widget, piece, width)

    monkeypatch.setattr(PieceCache, "lines", spy)
    monkeypatch.setattr(chat, "SEGMENT_CHARS", 400)
    answer = "".join(f"Paragraph {n} says something about step {n}.\n\n" for n in range(60))
    app = ChatApp()
    async with app.run_test(size=(80, 30)) as pilot:
        message = await streamed(app, pilot, answer, 23)
        await message.finish()
        await pilot.pause()
        segments = list(message.query(MarkdownSegment))
        assert len(segments) > 3
        assert len(rendered) == len(set(rendered))  # no piece rendered twice at one width
        width = segments[0].size.width
        assert painted(segments, width) == lines(answer, width)
        assert all(s.pieces is None for s in segments)  # a finished answer keeps no pieces


async def test_a_burst_is_taken_in_bounded_steps_and_shown_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An answer written faster than it is painted (50 KB at once) is taken in steps of
    `INTAKE_CHARS`, each frozen segment painted in its step; nothing is lost or reordered."""
    taken: list[int] = []
    original = AssistantMessage._take_pending

    async def spy(self: AssistantMessage) -> None:
        before = len(self.text) - len("".join(self._pending))
        await original(self)
        taken.append(len(self.text) - len("".join(self._pending)) - before)

    monkeypatch.setattr(AssistantMessage, "_take_pending", spy)
    answer = make_answer(50_000, seed=11)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = AssistantMessage()
        await app.query_one(ChatView).add(message)
        message.write(answer)
        await message.finish()
        await pilot.pause()
        assert message.text == answer
        assert len(taken) >= len(answer) // chat.INTAKE_CHARS
        assert max(taken) <= chat.INTAKE_CHARS
        segments = list(message.query(MarkdownSegment))
        width = segments[0].size.width
        assert painted(segments, width) == lines(answer, width)


async def test_frozen_segments_are_grouped_and_keep_their_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A layout while a long answer streams measures a few groups, not every segment: frozen
    segments go into groups of `GROUP_SEGMENTS`, in order, the views after them."""
    monkeypatch.setattr(chat, "SEGMENT_CHARS", 300)
    answer = make_answer(20_000, seed=3)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = await streamed(app, pilot, answer, 500)
        groups = list(message.query(chat.SegmentGroup))
        assert len(groups) > 2
        assert all(0 < len(g.children) <= chat.GROUP_SEGMENTS for g in groups)
        assert list(message.children)[-2:] == [message._settled_view, message._live_view]
        await message.finish()
        await pilot.pause()
        segments = list(message.query(MarkdownSegment))
        assert message.text == answer
        width = segments[0].size.width
        assert painted(segments, width) == lines(answer, width)


async def test_the_boot_loads_the_markdown_renderer_ahead_of_the_first_answer(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first answer's markdown (parser, lexer, code theme: ~40 ms once) is loaded by the boot
    worker, after the app is ready, not in the first answer's frames."""
    import threading

    from app_helpers import wait_for

    from agent_tui.runtime import Options
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.chat import markdown_pieces

    warmed: list[str] = []
    original = markdown_pieces.warm_up_markdown

    def spy() -> None:
        warmed.append(threading.current_thread().name)
        original()

    monkeypatch.setattr(markdown_pieces, "warm_up_markdown", spy)
    app = AgentApp(Options(offline=True, cwd=tmp_path), record=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(warmed))
        assert app.agent is not None  # after the app was ready
        assert warmed != [threading.main_thread().name]  # in the boot worker


async def test_the_chat_overflowing_for_the_first_time_renders_nothing_again() -> None:
    """The chat keeps its scrollbar's column from the start: when an answer first overflows it,
    the scrollbar takes that column, and what was painted is not re-wrapped one column
    narrower (a fast first answer had every segment taken so far rendered again in one
    frame)."""
    from app_helpers import wait_for

    class Sized(ChatApp):
        CSS = "AssistantMessage { height: auto; }"  # as the app's stylesheet has it

    answer = make_answer(30_000, seed=7)
    app = Sized()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ChatView)
        width = view.scrollable_content_region.width
        message = AssistantMessage()
        await view.add(message)
        message.write(answer)
        await message.finish()
        await wait_for(pilot, lambda: view.show_vertical_scrollbar)
        await pilot.pause()
        assert view.scrollable_content_region.width == width
        segments = list(message.query(MarkdownSegment))
        assert len(segments) > 5
        assert all(list(s._heights) == [width] for s in segments)
        assert painted(segments, width) == lines(answer, width)


async def test_a_fast_answer_is_rendered_in_its_steps_not_in_its_layouts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the pump takes before the answer's first layout is rendered in its steps, at the
    width the chat will give the answer (the chat's, less the message's padding), so no layout
    renders markdown: a layout renders only what it has to, however fast the stream."""
    measured: list[int] = []  # segments rendered to be measured, by width
    original = MarkdownSegment.get_content_height

    def spy(self: MarkdownSegment, container: Any, viewport: Any, width: int) -> int:
        if not any(key[0] == width for key in self._renders):
            measured.append(width)
        return original(self, container, viewport, width)

    monkeypatch.setattr(MarkdownSegment, "get_content_height", spy)

    class Padded(ChatApp):
        CSS = "AssistantMessage { height: auto; padding: 0 2; }"

    answer = make_answer(30_000, seed=8)
    app = Padded()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ChatView)
        message = AssistantMessage()
        await view.add(message)
        message.write(answer)
        await message.finish()
        await pilot.pause()
        segments = list(message.query(MarkdownSegment))
        width = view.scrollable_content_region.width - 4
        assert segments[-1].size.width == width  # (the first: far above, its group parked)
        assert [w for w in measured if w] == []  # (0: measured before the first layout)
        assert painted(segments, width) == lines(answer, width)


async def test_no_collection_starts_inside_the_pumps_rendering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A young collection that falls due while an answer's views render runs right after, in a
    callback of its own (on top of the step it made it 10-20 ms longer under load); none is
    skipped, and what is shown is unchanged."""
    import gc

    started_inside: list[bool] = []  # per collection: did it start inside a view's update?
    rendering = [False]
    original = MarkdownSegment.update

    def spy(self: MarkdownSegment, *args: Any, **kwargs: Any) -> None:
        rendering[0] = True
        try:
            original(self, *args, **kwargs)
        finally:
            rendering[0] = False

    def on_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started_inside.append(rendering[0])

    monkeypatch.setattr(MarkdownSegment, "update", spy)
    answer = make_answer(12_000, seed=4)
    threshold = gc.get_threshold()
    gc.callbacks.append(on_collection)
    gc.set_threshold(100, 10, threshold[2])  # due in nearly every rendering
    try:
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            message = await streamed(app, pilot, answer, 300)
            await message.finish()
            await pilot.pause()
            segments = list(message.query(MarkdownSegment))
            width = segments[0].size.width
            shown = painted(segments, width)
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(on_collection)
    assert gc.isenabled()
    assert len(started_inside) > 10 and not any(started_inside)
    assert shown == lines(answer, width)


async def test_an_answer_removed_while_it_streams_stops_rendering_and_finishes_quietly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cleared, pruned, or the app closing while an answer streams: its pump stops (it went on
    mounting and rendering segments for a widget no longer on a screen: MountError, NoScreen),
    more text written and the turn's end are no error, and the text is all kept."""
    rendered_unattached: list[MarkdownSegment] = []
    render_at = MarkdownSegment._render_at

    def spy(self: MarkdownSegment, width: int) -> Any:
        if not self.is_attached:
            rendered_unattached.append(self)
        return render_at(self, width)

    monkeypatch.setattr(MarkdownSegment, "_render_at", spy)
    answer = make_answer(30_000, seed=3)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = await streamed(app, pilot, answer[:12_000], 3_000)
        pump = message._pump
        assert pump is not None and not pump.done()
        await message.remove()
        message.write(answer[12_000:])  # the model goes on meanwhile
        await message.finish()
        assert pump.cancelled()
        assert message.finished and message.text == answer
        await pilot.pause()
    assert rendered_unattached == []


async def test_a_segment_off_any_screen_renders_nothing_and_raises_nothing() -> None:
    """What the pump asks of a segment whose answer has just left the screen (the app closing
    between two of its steps) is skipped: rendering needs the screen's styles and selection."""
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = await streamed(app, pilot, make_answer(3_000, seed=4), 1_000)
        segment = MarkdownSegment("# gone\n\nwith its answer", classes="segment")
        await message.mount(segment)
        await message.finish()
        await segment.remove()
        segment.paint_ahead(80)
        segment.update("# still gone", width=80)
        assert segment._renders == {}
