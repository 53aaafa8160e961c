"""The model's questions (AskUserQuestion) on screen: its dialog (`screens.question`), with the
status line saying the app waits for the person meanwhile. The agent reaches it through
`AgentConfig.ask_user`, set once the agent is ready (`startup.boot`)."""

from __future__ import annotations

import asyncio
from typing import Any

from agent_tui.ui.views import activity


async def ask_question(
    app: Any, host: Any, questions: list[dict[str, Any]]
) -> dict[str, str] | None:
    """The answers ({question: answer}), or None when the person declined."""
    from agent_tui.ui.screens.question import QuestionScreen

    answered: asyncio.Future[dict[str, str] | None] = asyncio.get_running_loop().create_future()
    activity.asked_a_question(host.status)
    app.push_screen(QuestionScreen(questions), answered.set_result)
    try:
        return await answered
    finally:
        activity.working(host.status)
