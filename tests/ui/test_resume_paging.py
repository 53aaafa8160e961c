"""`--resume` of a long session paints what the chat shows, not a whole page of answers above it:
the first page is the newest messages that fill the view (estimated from their text), and of a
long answer at its top only the end; the rest pages in as the person scrolls up, and a page that
doesn't fill the view loads the next."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from app_helpers import make_app, wait_for

from agent_tui.sessions.store import SessionStore
from agent_tui.ui.chat.messages import MarkdownSegment, UserMessage
from agent_tui.ui.controllers.sessions import RESUME_TAIL
from agent_tui.ui.widgets.history import EarlierMessages

pytestmark = pytest.mark.usefixtures("offline_env")


def recorded(tmp_path: Path, turns: int, answer: str) -> str:
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        messages.append({"role": "user", "content": f"question {n}"})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    (tmp_path / "work").mkdir(exist_ok=True)
    with SessionStore.open_default() as store:
        session_id = store.sessions.create(tmp_path / "work", "offline", title="long")
        store.messages.extend(session_id, messages)
    return session_id


@asynccontextmanager
async def resumed(
    tmp_path: Path, turns: int, answer: str, size: tuple[int, int] = (100, 30)
) -> AsyncIterator[tuple[Any, Any]]:
    """The app resuming a session of `turns` turns answered by `answer`, once its agent holds
    the conversation: (app, pilot)."""
    app = make_app(tmp_path, record=True, resume=recorded(tmp_path, turns, answer))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.agent.messages, timeout=30)
        yield app, pilot


def shown(app: Any) -> int:
    return len(app.chat.query(UserMessage)) + len(app.chat.query(MarkdownSegment))


async def test_a_long_session_resumes_with_what_fills_the_view(tmp_path: Path) -> None:
    answer = "\n".join(f"Line {n} of a long answer, with enough words to read." for n in range(30))
    async with resumed(tmp_path, 500, answer) as (app, pilot):
        await pilot.pause()
        row = app.chat.header
        assert isinstance(row, EarlierMessages)
        # two screens of 31-line answers: a few messages, not the page of 40 it was
        assert 2 <= shown(app) < RESUME_TAIL // 4
        assert app.chat.max_scroll_y > 0  # the view is full: there is something above
        assert [str(m.render()) for m in app.chat.query(UserMessage)][-1] == "question 499"
        hidden = row.pager.hidden
        row.load_page()  # what scrolling to the top does
        await wait_for(pilot, lambda: row.pager.hidden < hidden)
        assert row.pager.hidden == hidden - RESUME_TAIL


async def test_short_messages_are_paged_in_until_the_view_is_full(tmp_path: Path) -> None:
    async with resumed(tmp_path, 200, "ok", size=(100, 60)) as (app, pilot):
        await wait_for(pilot, lambda: app.chat.max_scroll_y > 0)
        row = app.chat.header
        assert isinstance(row, EarlierMessages) and row.pager.hidden > 0


def long_answer(parts: int) -> str:
    """Markdown of `parts` sections (a heading, prose, code, a list): many screens long."""
    return "".join(
        f"## Part {n}\n\nSome prose about part {n}, long enough to wrap once or twice on a "
        f"terminal of a hundred columns, with `code` and **bold** words in it.\n\n"
        f"```python\ndef part_{n}() -> int:\n    return {n}\n```\n\n"
        f"- one point about {n}\n- another\n\n"
        for n in range(parts)
    )


def lines_of(segment: MarkdownSegment) -> list[str]:
    """What `segment` paints, line by line (a blank line's trailing spaces aside)."""
    return [segment.render_line(y).text.rstrip() for y in range(segment.size.height)]


async def test_a_long_answer_resumes_with_its_end_and_its_start_pages_in(tmp_path: Path) -> None:
    answer = long_answer(40)  # ~600 lines at this width: one answer, many screens
    async with resumed(tmp_path, 3, answer) as (app, pilot):
        await pilot.pause()
        row = app.chat.header
        assert isinstance(row, EarlierMessages) and row.pager.cut > 0
        rest = app.chat.query(MarkdownSegment).last()
        # its end only: from a point a piece may start at, and enough to fill the view
        assert answer.endswith(rest.markdown) and len(rest.markdown) < len(answer) // 4
        assert answer[: row.pager.cut].endswith("\n\n") and rest.markdown[:1].isalnum() | (
            rest.markdown.startswith("#")
        )
        assert app.chat.max_scroll_y > 0
        view = app.chat.size.height  # about two screens of it: what is seen, and some above
        assert view < rest.size.height <= 3 * view
        assert "this answer's start and 5 earlier messages" in str(row.render())
        on_screen = rest.region.y

        row.load_page()  # what scrolling to the top does
        await wait_for(pilot, lambda: row.pager.cut == 0 and len(app.chat.query(UserMessage)) == 3)
        await pilot.pause()
        start = rest.parent.children[rest.parent.children.index(rest) - 1]
        assert isinstance(start, MarkdownSegment)
        assert start.markdown + rest.markdown == answer
        assert rest.region.y == on_screen  # the view stayed on what it showed
        assert rest.region.y == start.region.y + start.region.height  # no margin between
        assert not row.display  # nothing left above

        # the two look exactly like the answer painted whole
        whole = MarkdownSegment(answer, classes="message assistant")
        await app.chat.mount(whole)
        await wait_for(pilot, lambda: whole.size.height > 0)
        assert lines_of(start) + lines_of(rest) == lines_of(whole)


def test_an_answer_is_cut_only_where_its_pieces_look_like_the_whole() -> None:
    from agent_tui.ui.chat.markdown_split import _safe_split
    from agent_tui.ui.widgets.history import answer_cut

    answer = {"role": "assistant", "content": [{"type": "text", "text": long_answer(40)}]}
    cut = answer_cut(answer, rows=40, width=96)
    text = long_answer(40)
    assert 0 < cut < len(text) and _safe_split(text[: text.index("\n", cut) + 1]) == cut
    assert answer_cut(answer, rows=40, width=96) < answer_cut(answer, rows=20, width=96)
    # whole: not long enough, not an answer, an answer that begins with a tool call, one block
    assert answer_cut(answer, rows=10_000, width=96) == 0
    assert answer_cut({"role": "user", "content": text}, rows=40, width=96) == 0
    called = {"type": "tool_use", "id": "t", "name": "Bash", "input": {}}
    assert answer_cut({"role": "assistant", "content": [called]}, rows=1, width=96) == 0
    fence = "```\n" + "x = 1\n\n" * 500 + "```\n"
    assert answer_cut({"role": "assistant", "content": fence}, rows=40, width=96) == 0
    # a text that defines a link reference is shown whole: `[text][ref]` resolves across it
    referenced = "See [the docs][docs].\n\n" + text + "\n[docs]: https://example.com/docs\n"
    assert answer_cut({"role": "assistant", "content": referenced}, rows=40, width=96) == 0
    # thinking and blank text, which the history doesn't draw, before the text: cut all the same
    thought = {"type": "thinking", "thinking": "hmm", "signature": "s"}
    blank = {"type": "text", "text": "  "}
    after = {"role": "assistant", "content": [thought, blank, {"type": "text", "text": text}]}
    assert answer_cut(after, rows=40, width=96) == cut


def test_the_start_of_a_cut_answer_comes_with_the_page_before_it() -> None:
    from agent_tui.ui.widgets.history import HistoryPager

    text = long_answer(40)
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "short"},
        {"role": "user", "content": "second"},
        {"role": "assistant", "content": [{"type": "text", "text": text}]},
    ]
    pager = HistoryPager(messages, page=40, offset=10)
    shown = pager.first_page(rows=40, width=96)
    assert len(shown) == 1 and isinstance(shown[0], MarkdownSegment)
    assert pager.start == 13 and pager.cut > 0 and pager.can_page
    cut = pager.cut
    earlier = pager.previous_page()
    assert [type(w).__name__ for w in earlier] == [
        "UserMessage",
        "MarkdownSegment",
        "UserMessage",
        "MarkdownSegment",
    ]
    beginning = earlier[-1]
    assert isinstance(beginning, MarkdownSegment) and beginning.markdown == text[:cut]
    assert pager.cut == 0 and not pager.can_page  # reached the offset: the rest is the agent's
    pager.cut = cut
    pager.hide_before(12)  # a live chat pruned to a prompt: shown whole from there
    assert (pager.start, pager.cut) == (12, 0)


def test_an_answer_that_thought_first_is_cut_in_its_text() -> None:
    from agent_tui.ui.widgets.history import HistoryPager

    text = long_answer(40)
    thought = {"type": "thinking", "thinking": "hmm", "signature": "s"}
    answer = {"role": "assistant", "content": [thought, {"type": "text", "text": text}]}
    pager = HistoryPager([{"role": "user", "content": "q"}, answer], page=40)
    (rest,) = pager.first_page(rows=40, width=96)
    assert isinstance(rest, MarkdownSegment) and pager.cut > 0
    assert rest.markdown == text[pager.cut :]
    *_, beginning = pager.previous_page()
    assert isinstance(beginning, MarkdownSegment) and beginning.markdown + rest.markdown == text
