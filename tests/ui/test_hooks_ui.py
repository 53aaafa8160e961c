"""A UserPromptSubmit hook that blocks a prompt in the TUI: the person reads why, nothing is sent,
and the next prompt works as usual."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")

HOOK = (
    "[[hooks.UserPromptSubmit]]\n"
    'hooks = [{ type = "command", command = '
    "\"grep -q secret && { echo 'no secrets in prompts' >&2; exit 2; } || true\" }]\n"
)


async def test_a_blocked_prompt_is_said_and_the_next_one_runs(tmp_path: Path) -> None:
    home = Path(os.environ["AGENT_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.toml").write_text(HOOK)
    app = make_app(tmp_path, sandbox="off")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("the secret is 42"))
        notices = lambda: [n.text for n in app.query(NoticeMessage)]  # noqa: E731
        await wait_for(pilot, lambda: any("no secrets in prompts" in t for t in notices()), 30)
        await wait_for(pilot, lambda: not app.turns.running, 30)
        assert app.agent.messages == []  # nothing was sent
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: len(app.agent.messages) >= 2 and not app.turns.running, 30)
        assert "hello" in str(app.agent.messages[0])
        await app.action_quit()
