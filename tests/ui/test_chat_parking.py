"""Finished answers far from the view are parked at a resize (`chat_parking`): laid out as their
height alone. Nothing a person sees may change: every answer is whole, wrapped at the new width,
when scrolled to; a parked answer is never painted; parking doesn't move anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import wait_for
from textual.app import App, ComposeResult

from agent_tui.ui.chat import messages as chat
from agent_tui.ui.chat import parking as chat_parking
from agent_tui.ui.chat.messages import AssistantMessage, ChatView, MarkdownSegment
from tests.ui.test_chat_perf import lines, painted


class ChatApp(App[None]):
    CSS_PATH = [
        Path(chat.__file__).parent.parent / "styles" / "app.tcss"
    ]  # answers as tall as their text

    def compose(self) -> ComposeResult:
        yield ChatView()


def answer_text(n: int) -> str:
    """An answer of prose, a list, a table and a code fence, every line its own."""
    parts = [f"# Answer {n}"]
    for k in range(14):
        parts.append(f"Paragraph {n}.{k} says word{n}x{k} " + "and goes on a little " * 4 + ".")
        parts.append("\n".join(f"- item {n}.{k}.{i} of the list" for i in range(3)))
        parts.append(f"| col {n} | val {k} |\n|---|---|\n| a{k} | b{n} |")
        parts.append("```python\n" + "".join(f"x_{n}_{k}_{i} = {i}\n" for i in range(4)) + "```")
    return "\n\n".join(parts) + "\n"


def segments(answer: AssistantMessage) -> list[MarkdownSegment]:
    return list(answer.query(MarkdownSegment))


def placed(widget: Any) -> bool:
    return bool(widget.region.area)


def groups(answer: AssistantMessage) -> list[chat.SegmentGroup]:
    return list(answer.query(chat.SegmentGroup))


def placed_tops(answer: AssistantMessage) -> dict[Any, int]:
    """Where the answer's shelves and groups placed now are, in its own space (a group on a
    parked shelf is not placed: it has no place to compare)."""
    tops = {}
    for widget in [*answer.query(chat.SegmentShelf), *groups(answer)]:
        if placed(widget) or widget.parent is answer:
            y, node = 0, widget
            while node is not answer:
                y += node.virtual_region.y
                node = node.parent
            tops[widget] = y
    return tops


def in_view(view: ChatView, widgets: list[Any]) -> list[Any]:
    """Those of `widgets` the view shows (by their place in the chat's virtual space)."""
    top, bottom = view.scroll_y, view.scroll_y + view.size.height
    shown = []
    for widget in widgets:
        y, node = 0, widget
        while node is not view:
            y += node.virtual_region.y
            node = node.parent
        if y < bottom and y + widget.outer_size.height > top:
            shown.append(widget)
    return shown


async def chat_of_answers(app: App[None], pilot: Any, count: int) -> list[AssistantMessage]:
    view = app.query_one(ChatView)
    answers = []
    for n in range(count):
        answer = AssistantMessage()
        await view.add(answer)
        answer.write(answer_text(n))
        await answer.finish()
        answers.append(answer)
    await pilot.pause()
    view.scroll_end(animate=False)
    await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y)
    return answers


async def streaming_answer(app: App[None], copies: int) -> tuple[ChatView, AssistantMessage, str]:
    """A chat with one answer streaming: `copies` of the first answer's text, written at once
    (the answer takes it in as deltas would come). Returns the chat, the answer and its text."""
    view = app.query_one(ChatView)
    streaming = AssistantMessage()
    await view.add(streaming)
    text = answer_text(0) * copies
    streaming.write(text)
    return view, streaming, text


@pytest.fixture
def short_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    """Segments of ~300 characters: each answer is a dozen segments in groups."""
    monkeypatch.setattr(chat, "SEGMENT_CHARS", 300)
    monkeypatch.setattr(chat, "INTAKE_CHARS", 300)


async def resized(pilot: Any, view: ChatView, width: int, height: int) -> int:
    """Resize the terminal and wait for the chat's layout at the new size; the answers' width."""
    await pilot.resize_terminal(width, height)
    await wait_for(pilot, lambda: view.outer_size == (width, height))
    await pilot.pause()
    return (
        view.scrollable_content_region.width
        - view.query(AssistantMessage).first().styles.gutter.width
    )


@pytest.mark.usefixtures("short_segments")
async def test_after_resizes_every_answer_is_whole_at_the_new_width_when_scrolled_to() -> None:
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ChatView)
        answers = await chat_of_answers(app, pilot, 8)
        assert all(len(segments(answer)) > 8 for answer in answers)  # in groups
        for size in [(60, 24), (140, 40), (70, 30)]:
            width = await resized(pilot, view, *size)
        parked = [answer.parked for answer in answers]
        assert parked[0] and not parked[-1]  # far above the view: parked; the view's: not
        assert not any(placed(segment) for segment in segments(answers[0]))
        last = answers[-1]  # partly in view: its groups far from the view stay parked
        assert [group.parked for group in groups(last)][:2] == [True, False]
        assert all(placed(segment) for segment in in_view(view, segments(last)))
        for n, answer in enumerate(answers):
            answer.scroll_visible(animate=False, top=True)
            await wait_for(pilot, lambda a=answer: not a.parked)  # type: ignore[misc]
            for segment in segments(answer):
                segment.scroll_visible(animate=False)
                await wait_for(
                    pilot,
                    lambda s=segment: (  # type: ignore[misc]
                        s.size.width == width and s.size.height == len(s._render_at(width))
                    ),
                )
            assert painted(segments(answer), width) == lines(answer_text(n), width)
            assert answer.text == answer_text(n)


@pytest.mark.usefixtures("short_segments")
async def test_a_parked_answer_is_never_painted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jumping straight to the top after a resize unparks the answers there in the layout
    before that frame, so no frame shows a parked (blank) answer."""
    painted_parked: list[Any] = []
    # an answer, a shelf of its groups, or a group of its segments
    for kind in (AssistantMessage, chat.SegmentShelf, chat.SegmentGroup):

        def spy(self: Any, y: int, render_line: Any = kind.render_line) -> Any:
            if self.parked:
                painted_parked.append(self)
            return render_line(self, y)

        monkeypatch.setattr(kind, "render_line", spy)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ChatView)
        answers = await chat_of_answers(app, pilot, 8)
        await resized(pilot, view, 60, 24)
        assert answers[0].parked
        view.scroll_home(animate=False)
        await wait_for(pilot, lambda: all(placed(s) for s in segments(answers[0])[:2]))
        assert not answers[0].parked and segments(answers[0])[0]._renders  # painted
        for _ in range(12):  # through answers partly parked (their groups far from the view)
            view.scroll_page_down(animate=False)
            await pilot.pause()
        view.scroll_end(animate=False)
        await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y)
        assert painted_parked == []


@pytest.mark.usefixtures("short_segments")
@pytest.mark.parametrize("width", [30, 57, 90])
async def test_a_parked_answer_is_as_tall_as_its_layout(width: int) -> None:
    """The height a parked answer is laid out at is the one its own layout finds (the same
    segment heights), so unparking it moves nothing."""
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ChatView)
        answers = await chat_of_answers(app, pilot, 4)
        await resized(pilot, view, 70, 30)
        for answer in answers:
            container = view.scrollable_content_region.size
            answer.parked = True
            as_parked = answer.get_content_height(container, container, width)
            answer.parked = False
            as_laid_out = answer.get_content_height(container, container, width)
            assert as_parked == as_laid_out > 0
            assert chat_parking.content_height(answer, container, width) == as_parked


@pytest.mark.usefixtures("short_segments")
async def test_scrolling_near_a_parked_answer_unparks_it_without_moving_anything() -> None:
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ChatView)
        answers = await chat_of_answers(app, pilot, 8)
        # back to a width every segment was rendered at: no height is estimated (an estimated
        # one is corrected when painted, which may move what follows: that is not parking)
        await resized(pilot, view, 60, 30)
        await resized(pilot, view, 100, 30)
        parked = [answer for answer in answers if answer.parked]
        assert parked
        nearest = parked[-1]  # the closest to the view, above it
        tops = [answer.virtual_region.y for answer in answers]
        total = view.virtual_size.height
        # scroll up until it is within a view's height, but not yet in view
        view.scroll_to(y=nearest.virtual_region.bottom + view.size.height // 2, animate=False)
        await wait_for(pilot, lambda: not nearest.parked)
        assert placed(segments(nearest)[-1])  # its end, near the view
        # where its shelves of groups are (a group on a parked shelf is not placed at all)
        group_tops = [shelf.virtual_region.y for shelf in nearest.children]
        assert groups(nearest)[0].parked  # its start, far from it
        assert [answer.virtual_region.y for answer in answers] == tops
        # on up to its first group: unparked, and again nothing moves
        first = groups(nearest)[0]
        view.scroll_to(y=nearest.virtual_region.y + first.virtual_region.bottom, animate=False)
        await wait_for(pilot, lambda: not first.parked and placed(segments(nearest)[0]))
        assert [shelf.virtual_region.y for shelf in nearest.children] == group_tops
        assert [answer.virtual_region.y for answer in answers] == tops
        assert view.virtual_size.height == total


@pytest.mark.usefixtures("short_segments")
async def test_a_streaming_answer_places_only_its_groups_near_the_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While an answer streams, its full groups far from the view are laid out as their height
    alone (each layout placed every segment: its cost grew with the answer, once a frame); the
    group being filled never is; scrolled to while it streams, a group is placed before it is
    painted, and nothing moves."""
    painted_parked: list[Any] = []

    def spy(self: Any, y: int, render_line: Any = chat.SegmentGroup.render_line) -> Any:
        if self.parked:
            painted_parked.append(self)
        return render_line(self, y)

    monkeypatch.setattr(chat.SegmentGroup, "render_line", spy)

    def shown(answer: AssistantMessage) -> list[MarkdownSegment]:  # an empty one is never placed
        return [s for s in in_view(view, segments(answer)) if s.outer_size.height]

    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view, streaming, text = await streaming_answer(app, 3)
        await wait_for(pilot, lambda: streaming.text == text and len(groups(streaming)) > 3)
        view.scroll_end(animate=False)
        first = groups(streaming)[0]
        await wait_for(pilot, lambda: first.parked)
        assert not streaming.parked and not streaming.finished
        assert not groups(streaming)[-1].parked  # the one being filled
        assert not any(placed(segment) for segment in first.query(MarkdownSegment))
        assert all(placed(segment) for segment in shown(streaming))
        tops = placed_tops(streaming)
        view.scroll_home(animate=False)  # up to its start while it streams
        await wait_for(pilot, lambda: not first.parked)
        await wait_for(pilot, lambda: all(placed(s) for s in shown(streaming)))
        # (more groups may have come meanwhile: the ones there have not moved)
        now = placed_tops(streaming)
        assert set(tops) & set(now) and all(now[w] == y for w, y in tops.items() if w in now)
        streaming.write("The end.\n")
        await streaming.finish()
        assert streaming.text == text + "The end.\n"
        view.scroll_end(animate=False)
        await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y)
    assert painted_parked == []


@pytest.mark.usefixtures("short_segments")
async def test_a_long_streaming_answer_places_its_shelves_not_all_its_groups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its groups sit on shelves (`SHELF_GROUPS` each): a layout while it streams places the
    shelves, and the groups only of those near the view (the last one's among them); every
    group was placed before, one more for each in every layout, once a frame."""
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view, streaming, text = await streaming_answer(app, 8)
        await wait_for(pilot, lambda: streaming.text == text and not streaming._pending)
        view.scroll_end(animate=False)
        shelves = list(streaming.query_children(chat.SegmentShelf))
        await wait_for(pilot, lambda: shelves[0].parked)
        all_groups = groups(streaming)
        assert len(shelves) >= 4 and len(all_groups) > 3 * chat.SHELF_GROUPS
        assert all(len(shelf.children) <= chat.SHELF_GROUPS for shelf in shelves)
        streaming.write("More words.\n\n")  # a layout as the answer streams
        await wait_for(pilot, lambda: streaming.text == text + "More words.\n\n")
        await pilot.pause()
        in_map = app.screen._compositor._full_map
        assert all(shelf in in_map for shelf in shelves)
        placed_groups = [group for group in all_groups if group in in_map]
        assert not shelves[-1].parked and set(shelves[-1].children) <= set(placed_groups)
        assert len(placed_groups) <= 2 * chat.SHELF_GROUPS  # those near the view
        assert not any(group in in_map for group in shelves[0].children)
        # a parked shelf's (or group's) height is summed once, not again in every layout
        summed: list[Any] = []
        content_height = chat_parking.content_height

        def counted(widget: Any, container: Any, width: int) -> int | None:
            summed.append(widget)
            return content_height(widget, container, width)

        monkeypatch.setattr(chat_parking, "content_height", counted)
        for n in range(3):
            streaming.write(f"Line {n} of more.\n\n")
            await pilot.pause()
            app.screen._refresh_layout(app.screen.size)
        # (one parked for the first time meanwhile is summed, once)
        assert len(summed) == len(set(summed)) < len(shelves)
        await streaming.finish()
        assert streaming.text.startswith(text + "More words.\n\n")


async def test_an_answer_still_streaming_is_never_parked() -> None:
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ChatView)
        streaming = AssistantMessage()
        await view.add(streaming)
        streaming.write(answer_text(0) * 3)
        await wait_for(pilot, lambda: streaming.text == answer_text(0) * 3)
        await view.add(chat.UserMessage("and then?\n" * 80))
        view.scroll_end(animate=False)
        await resized(pilot, view, 60, 24)
        assert not streaming.parked
        assert groups(streaming) and not groups(streaming)[-1].parked  # the one being filled
        streaming.write("The end.\n")
        await streaming.finish()
        assert streaming.text.endswith("The end.\n")
        await resized(pilot, view, 80, 24)
        assert streaming.parked  # finished, and far from the view
