"""The built-in tools are the modules of `agent_tui.tools.builtin`: a tool is one module that
declares its name, schema, subject fields and order, found without a table naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.providers.offline import OfflineProvider
from agent_tui.tools.base import Tool, ToolRegistry
from agent_tui.tools.builtin import Offer, load
from agent_tui.tools.subject import tool_subject

PROBE_TOOL = """
from typing import ClassVar
from pydantic import BaseModel
from agent_tui.tools.base import Tool, ToolOutput

class ProbeInput(BaseModel):
    target: str
    command: str = ""

class ProbeTool(Tool):
    name: ClassVar[str] = "Probe"
    description: ClassVar[str] = "A tool that only a test offers."
    input_model: ClassVar[type[BaseModel]] = ProbeInput
    subject_fields: ClassVar[tuple[str, ...]] = ("target",)
    order: ClassVar[int] = 5

    async def run(self, params, ctx):
        return ToolOutput(f"probed {params.target}")
"""


def _package(
    path: Path, name: str, modules: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """A package of tool modules under `path`, importable as `name` for this test."""
    package = path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module, source in modules.items():
        (package / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(path))
    return name


def _offer(provider: Any = None) -> Offer:
    return Offer(provider or OfflineProvider(delay_scale=0), "offline", lambda table, key: None)


def test_a_module_dropped_into_the_package_is_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _package(tmp_path, "more_tools", {"probe": PROBE_TOOL}, monkeypatch)
    registry = ToolRegistry()
    registry.add_built_ins(lambda: load(_offer(), package=package))
    assert registry.names() == ["Probe"]
    probe = registry.get("Probe")
    assert probe is not None
    assert [s["name"] for s in registry.schemas()] == ["Probe"]
    assert registry.schemas()[0]["input_schema"]["required"] == ["target"]
    # its own subject field, not the usual order's first (`command`)
    assert tool_subject("Probe", {"command": "ls", "target": "the moon"}) == "the moon"


def test_the_built_ins_come_in_their_declared_order_and_only_where_offered() -> None:
    names = [tool.name for tool in load(_offer())]
    assert names == [
        *("Bash", "Read", "Write", "Edit", "Grep", "Glob", "TodoWrite", "AskUserQuestion"),
        *("WebFetch", "WebSearch", "BashOutput", "KillShell"),
    ]

    class NoSearch:
        def supports_web_search(self, model: str) -> bool:
            return False

    assert "WebSearch" not in [tool.name for tool in load(_offer(NoSearch()))]


def test_a_tool_registered_by_name_keeps_its_own_over_a_built_in() -> None:
    class MyBash(Tool):
        name = "Bash"
        description = "mine"

        async def run(self, params: Any, ctx: Any) -> Any:
            raise AssertionError

    registry = ToolRegistry()
    registry.add_built_ins(lambda: load(_offer()))
    mine = MyBash()
    registry.add(mine)
    assert registry.get("Bash") is mine
    assert registry.names()[0] == "Bash" and "Read" in registry  # the built-ins' order kept


def test_two_tools_of_one_name_in_the_package_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _package(tmp_path, "twice_tools", {"one": PROBE_TOOL, "two": PROBE_TOOL}, monkeypatch)
    with pytest.raises(ValueError, match="more than one tool named Probe"):
        load(_offer(), package=package)


def test_a_module_that_fails_to_load_leaves_the_others_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    broken = {"probe": PROBE_TOOL, "broken": "import a_module_nobody_installed\n"}
    package = _package(tmp_path, "broken_tools", broken, monkeypatch)
    assert [tool.name for tool in load(_offer(), package=package)] == ["Probe"]
    assert "broken_tools.broken failed to load" in caplog.text


def test_a_tool_made_while_the_built_ins_load_may_ask_the_registry() -> None:
    registry = ToolRegistry()
    seen: list[list[str]] = []

    def built_ins() -> list[Tool]:
        seen.append(registry.names())  # re-entered: the registry answers, without them
        return load(_offer())

    registry.add_built_ins(built_ins)
    assert "Bash" in registry
    assert seen == [[]]
