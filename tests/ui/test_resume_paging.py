"""`--resume` of a long session paints what the chat shows, not a whole page of answers above it:
the first page is the newest messages that fill the view (estimated from their text); the rest
pages in as the person scrolls up, and a page that doesn't fill the view loads the next."""

from __future__ import annotations

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


def shown(app: Any) -> int:
    return len(app.chat.query(UserMessage)) + len(app.chat.query(MarkdownSegment))


async def test_a_long_session_resumes_with_what_fills_the_view(tmp_path: Path) -> None:
    answer = "\n".join(f"Line {n} of a long answer, with enough words to read." for n in range(30))
    session_id = recorded(tmp_path, 500, answer)
    app = make_app(tmp_path, record=True, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.agent.messages, timeout=30)
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
    session_id = recorded(tmp_path, 200, "ok")
    app = make_app(tmp_path, record=True, resume=session_id)
    async with app.run_test(size=(100, 60)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.agent.messages, timeout=30)
        await wait_for(pilot, lambda: app.chat.max_scroll_y > 0)
        row = app.chat.header
        assert isinstance(row, EarlierMessages) and row.pager.hidden > 0
