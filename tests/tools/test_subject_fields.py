"""A tool's class declares the input fields that name its subject (`Tool.subject_fields`); a
resumed session draws its history before any tool module is imported, with the generic order.
For every built-in (and Task, ToolSearch, the server's `web_search`), the subject drawn before
its module is imported is the one drawn after, for every combination of its input fields —
checked in a fresh interpreter, so a resumed history reads the same as a live one."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from typing import Any

from agent_tui.tools.base import Tool
from agent_tui.tools.builtin import tool_classes
from agent_tui.tools.subject import ANY_TOOL, tool_subject
from agent_tui.tools.task import TaskTool
from agent_tui.tools.tool_search import ToolSearchTool

#: the server tool WebSearch's sub-request uses, drawn from its events: no class of ours
SERVER_TOOLS = {"web_search": ("query", "allowed_domains", "blocked_domains")}

CHILD = """
import json, sys
samples = json.load(sys.stdin)
import agent_tui.tools.subject as subject
ours = lambda: sorted(m for m in sys.modules if m.startswith("agent_tui.tools.")
                      and m not in ("agent_tui.tools.subject",))
before_modules = ours()
before = [subject.tool_subject(name, tool_input) for name, tool_input in samples]
pydantic_before = "pydantic" in sys.modules
from agent_tui.tools.builtin import tool_classes
import agent_tui.tools.task, agent_tui.tools.tool_search
tool_classes()  # imports every built-in's module
after = [subject.tool_subject(name, tool_input) for name, tool_input in samples]
print(json.dumps({"before_modules": before_modules, "pydantic": pydantic_before,
                  "before": before, "after": after}))
"""


def _fields(cls: type[Tool]) -> list[str]:
    return [f.alias or name for name, f in cls.input_model.model_fields.items()]


def _inputs(fields: list[str], declared: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every combination of the fields a subject may come from, alone and beside another field."""
    named = [f for f in dict.fromkeys([*declared, *fields]) if f in ANY_TOOL or f in declared]
    other = [f for f in fields if f not in named][:1]
    found = []
    for size in range(len(named) + 1):
        for chosen in itertools.combinations(named, size):
            base = {f: f"<{f}>" for f in chosen}
            found += [base, {**base, **{f: f"<{f}>" for f in other}}]
    return [sample for sample in found if sample]


def _samples() -> list[tuple[str, dict[str, Any]]]:
    classes = [*tool_classes(), TaskTool, ToolSearchTool]
    samples = [(c.name, s) for c in classes for s in _inputs(_fields(c), c.subject_fields)]
    samples += [(n, s) for n, fields in SERVER_TOOLS.items() for s in _inputs(list(fields), ())]
    todos = [{"content": "a", "status": "completed", "activeForm": "a-ing"}]
    return [*samples, ("TodoWrite", {"todos": todos}), ("AskUserQuestion", {"questions": []})]


def _declared(cls: type[Tool], tool_input: dict[str, Any]) -> str:
    """The subject as the class declares it, computed here without `tool_subject`."""
    for key in cls.subject_fields:
        if isinstance(tool_input.get(key), str) and tool_input[key]:
            return str(tool_input[key])
    return json.dumps(tool_input, ensure_ascii=False, default=str, separators=(", ", ": "))


def test_every_tool_draws_the_same_subject_before_and_after_its_module_is_imported() -> None:
    samples = _samples()
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=json.dumps(samples),
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["before_modules"] == []  # drawn with no tool module imported
    assert seen["pydantic"] is False
    mismatched = [
        (name, tool_input, b, a)
        for (name, tool_input), b, a in zip(samples, seen["before"], seen["after"], strict=True)
        if b != a
    ]
    assert mismatched == []
    assert len(samples) > 60  # every built-in, each with its combinations


def test_a_declared_subject_is_what_the_class_says() -> None:
    classes = [*tool_classes(), TaskTool, ToolSearchTool]
    declaring = [c for c in classes if c.subject_fields]
    assert {c.name for c in classes} - {c.name for c in declaring} == {
        "TodoWrite",  # its summary: "plan: 1/3 done"
        "AskUserQuestion",  # its input as JSON
    }
    for cls in declaring:
        for tool_input in _inputs(_fields(cls), cls.subject_fields):
            assert tool_subject(cls.name, tool_input) == _declared(cls, tool_input)


def test_a_tool_without_a_declaration_shows_its_input_or_the_generic_field() -> None:
    assert tool_subject("mcp__srv__lookup", {"query": "cats", "n": 2}) == "cats"
    assert tool_subject("mcp__srv__count", {"n": 2}) == '{"n": 2}'
    todos = [{"status": "completed"}, {"status": "pending"}]
    assert tool_subject("TodoWrite", {"todos": todos}) == "plan: 1/2 done"


def test_an_mcp_tool_is_about_its_path_before_its_pattern() -> None:
    """A filesystem server's search: the folder searched is what the call acts on (what the
    approval dialog shows, and what the provenance check traces), as before the built-ins'
    declarations."""
    call = {"path": "/home/me/.aws/credentials-dir", "pattern": "*.pem"}
    assert tool_subject("mcp__fs__search_files", call) == "/home/me/.aws/credentials-dir"
    assert tool_subject("Grep", {"path": "src", "pattern": "TODO"}) == "TODO"
