"""What loads on the way to a ready app, checked in fresh interpreters: the first frame and the
agent's build leave the heavy modules (pydantic, tree-sitter, pygments, the SDK, trafilatura) to
the warm-up that follows, and the warm-up does load what the first turn needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.providers.offline import OfflineProvider
from agent_tui.runtime import make_tools
from agent_tui.tools.base import ToolRegistry
from agent_tui.tools.builtin.todo import TodoWriteTool

HEAVY = ("pydantic", "tree_sitter_bash", "pygments", "anthropic", "trafilatura", "lxml")

PROBE = """
import json, sys
from pathlib import Path
from agent_tui.runtime import Options, make_agent, warm_up
import agent_tui.ui.app  # everything the first frame imports
heavy = {heavy!r}
loaded = lambda: sorted(m for m in heavy if m in sys.modules)
first_frame = loaded()
agent = make_agent(Options(offline=True, cwd=Path({cwd!r})))
built = loaded()
warm_up(agent)
print(json.dumps({{"first_frame": first_frame, "built": built, "warm": loaded()}}))
"""


def test_the_agent_is_built_without_the_heavy_modules_and_warm_up_loads_them(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")}
    env.pop("ANTHROPIC_API_KEY", None)
    code = PROBE.format(heavy=HEAVY, cwd=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["first_frame"] == []
    assert seen["built"] == []
    # What the first turn needs: the tools' input models, and the shell analysis.
    assert {"pydantic", "tree_sitter_bash"} <= set(seen["warm"])
    assert "trafilatura" not in seen["warm"]  # the first fetch loads it, not the start


#: the order the built-in tools are offered in (each declares its `order`)
OFFERED = (
    *("Bash", "Read", "Write", "Edit", "Grep", "Glob", "TodoWrite", "AskUserQuestion"),
    *("WebFetch", "WebSearch", "BashOutput", "KillShell"),
)


def test_built_in_tools_are_made_on_first_use_and_keep_their_order() -> None:
    tools = make_tools(OfflineProvider(delay_scale=0), "offline")
    assert tools.names() == list(OFFERED)
    assert tools.get("Bash") is tools.get("Bash")  # made once
    schemas = tools.schemas()
    # The offline model defers on the client: WebFetch is held back, ToolSearch comes last.
    shown = [n for n in tools.names() if n != "WebFetch"]
    assert [s["name"] for s in schemas] == [*shown, "ToolSearch"]
    assert all(tools.get(name).name == name for name in tools.names())  # type: ignore[union-attr]


def test_a_lazy_tool_must_be_what_it_was_registered_as() -> None:
    registry = ToolRegistry()
    registry.add_lazy("Bash", TodoWriteTool)
    with pytest.raises(ValueError, match="TodoWrite"):
        registry.get("Bash")
    assert registry.get("Nope") is None


def test_schemas_built_while_a_tool_is_added_are_not_kept_stale() -> None:
    """The boot thread builds the schemas while an MCP server's tools may arrive on the UI's
    loop: a list built from the table as it was must not stay cached after the table changed."""
    from agent_tui.tools.builtin.read import ReadTool

    registry = ToolRegistry()

    def todo_that_sees_a_tool_arrive() -> TodoWriteTool:
        registry.add(ReadTool())  # another thread's `add`, in the middle of the build
        return TodoWriteTool()

    registry.add_lazy("TodoWrite", todo_that_sees_a_tool_arrive)
    registry.schemas()
    assert [s["name"] for s in registry.schemas()] == ["TodoWrite", "Read"]
