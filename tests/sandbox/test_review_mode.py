"""Review before it lands (issue 44): with `[sandbox] apply = "review"`, or `r` in the approval
dialog for one command, a command's whole change set waits for the person, file by file, and
only the ticked files reach the project; the model is told what was left out."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap
from textual.app import App

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest, ChoiceItem, Decision
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.settle import ChangeReview
from agent_tui.sandbox.transaction import remove_folder
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool
from agent_tui.ui.screens.approval import ApprovalScreen


@pytest.fixture
def project() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-review-", dir="/var/tmp"))
    (root / "p").mkdir()
    (root / "p" / "keep.txt").write_text("old\n")
    try:
        yield root / "p"
    finally:
        remove_folder(root)


@needs_bwrap
@pytest.mark.parametrize("how", ["setting", "dialog key"])
async def test_only_the_ticked_files_land(project: Path, how: str) -> None:
    reviews: list[ChangeReview] = []

    async def person(review: ChangeReview) -> tuple[int, ...] | None:
        reviews.append(review)
        return tuple(n for n, i in enumerate(review.items) if i.title in ("a.txt", "keep.txt"))

    config = SandboxConfig(mode="on", apply="review" if how == "setting" else "auto")
    sandbox = Sandbox(config, project, PermissionEngine(project), data_dir=project.parent / "d")
    ctx = ToolContext(
        cwd=project,
        data_dir=project.parent,
        sandbox=sandbox,
        review_changes=person,
        review=how == "dialog key",
    )
    try:
        command = "echo a > a.txt; echo b > b.txt; echo new > keep.txt; echo x > .envrc"
        out = await BashTool().run(BashInput(command=command), ctx)
    finally:
        sandbox.close()
    [review] = reviews
    assert review.kind == "review"
    titles = {i.title: i for i in review.items}
    assert set(titles) == {"a.txt", "b.txt", "keep.txt", ".envrc"}
    assert titles[".envrc"].why and titles["a.txt"].diff.startswith("---")
    assert (project / "a.txt").read_text() == "a\n"
    assert (project / "keep.txt").read_text() == "new\n"
    assert not (project / "b.txt").exists() and not (project / ".envrc").exists()
    assert "left out by the person: b.txt, .envrc" in out.content


class Dialog(App[None]):
    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        self.answer: ApprovalAnswer | None = None

    def on_mount(self) -> None:
        self.push_screen(ApprovalScreen(self.request, guard_s=0.0), self.answered)

    def answered(self, answer: ApprovalAnswer | None) -> None:
        self.answer = answer


def change_set_request() -> ApprovalRequest:
    items = (
        ChoiceItem("a.txt (created)", "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n"),
        ChoiceItem(".envrc (created)", "+x\n", True, "direnv runs it on entering the directory"),
        ChoiceItem("both.txt (changed)", "+mine\n", False, "you changed it while the command ran"),
    )
    decision = Decision("ask", reason="the command changed files", source="sandbox")
    return ApprovalRequest("t1", "Bash", {"command": "make"}, "make", decision, "/p", items=items)


async def test_the_dialog_ticks_files_and_applies_the_ticked() -> None:
    app = Dialog(change_set_request())
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        await pilot.pause()
        titles = [str(t.render()) for t in screen.query(".hunk-title")]
        assert "[x] a.txt (created): apply" in titles[0]
        assert "[ ] both.txt (changed) — you changed it while the command ran" in titles[2]
        keys = str(screen.query_one("#keys").render())
        assert "apply the ticked" in keys and "none of them" in keys
        await pilot.press("down", "space")  # leave out .envrc
        await pilot.press("y")
        await pilot.pause()
    assert app.answer is not None and app.answer.choice == "once"
    assert app.answer.hunks == (0,)


async def test_r_allows_a_command_and_holds_its_change_set_for_review() -> None:
    decision = Decision("ask", reason="no rule allows `make`", suggestions=("Bash(make:*)",))
    request = ApprovalRequest("t1", "Bash", {"command": "make"}, "make", decision, "/p")
    plain = Dialog(request)
    async with plain.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert "review its changes" not in str(plain.screen.query_one("#keys").render())
        await pilot.press("r")  # not offered: nothing happens
        await pilot.pause()
        assert plain.answer is None
    reviewable = Dialog(replace(request, can_review=True))
    async with reviewable.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert " r review" in str(reviewable.screen.query_one("#keys").render())
        await pilot.press("r")
        await pilot.pause()
    assert reviewable.answer == ApprovalAnswer("once", review=True)
