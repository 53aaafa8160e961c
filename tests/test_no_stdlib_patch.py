"""No module of ours patches or shadows anything in the standard library: during a whole start
in a fresh interpreter and after it (the TUI through `cli.main` until its agent is ready and warmed
up, a page converted; a headless turn), every function, method and module global of every
standard-library module loaded is the standard library's own, no builtin is shadowed by a global of
ours, and every standard-library module is the one on Python's own path."""

from __future__ import annotations

import json
import subprocess
import sys

from fresh_interpreter import UNTIL_BOOTED, child_env

# The checks, in the child: `check()` at a moment of the start, and once it is done (`REPORT`).
CHECK = r"""
import builtins, inspect, json, sys, sysconfig, types
from pathlib import Path

import agent_tui

OURS = str(Path(agent_tui.__file__).resolve().parent)
STDLIB = {str(Path(sysconfig.get_paths()[k]).resolve()) for k in ("stdlib", "platstdlib")}


def of_ours(value):
    # An object of ours, a class of ours, or a function of ours (or one wrapping ours, as
    # `functools.wraps` leaves it) — read without running any of the value's own code.
    if type(value).__module__.startswith("agent_tui"):
        return True
    if isinstance(value, type):
        return str(vars(value).get("__module__", "")).startswith("agent_tui")
    if isinstance(value, classmethod | staticmethod):
        value = value.__func__
    elif isinstance(value, property):
        value = value.fget
    for _ in range(10):
        if not isinstance(value, types.FunctionType):
            return False
        if value.__code__.co_filename.startswith(OURS) or str(value.__module__).startswith(
            "agent_tui"
        ):
            return True
        value = vars(value).get("__wrapped__")
    return False


def stdlib_modules():
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in sys.stdlib_module_names:
            continue
        yield name, module


def check():
    found = []
    for name, module in stdlib_modules():
        where = getattr(module, "__file__", None)
        if where and not any(str(Path(where).resolve()).startswith(s) for s in STDLIB):
            found.append(f"{name} is {where}, not the standard library's")
        for attr, value in list(vars(module).items()):
            if of_ours(value):
                found.append(f"{name}.{attr}")
            if inspect.isclass(value) and value.__module__ == name:
                for member, inner in list(vars(value).items()):
                    if of_ours(inner):
                        found.append(f"{name}.{attr}.{member}")
    for attr, value in vars(builtins).items():
        if of_ours(value):
            found.append(f"builtins.{attr}")
    for hook in (*sys.meta_path, *sys.path_hooks):
        if of_ours(hook) or type(hook).__module__.startswith("agent_tui"):
            found.append(f"import hook {hook!r}")

    import collections, dataclasses, re, typing
    named = {
        "dataclasses._create_fn": dataclasses._create_fn.__module__,
        "re._compiler.compile": re._compiler.compile.__module__,
        "typing.compile": "compile" in vars(typing),
        "collections.eval": "eval" in vars(collections),
    }
    return {"found": found, "named": named, "modules": sum(1 for _ in stdlib_modules())}
"""

# The TUI as a person starts it (`agent-tui --offline`), headless, until the boot worker is done
# (the agent built, the speed-ups applied, the tools and the SDK warmed up); then a page
# converted as WebFetch does; then the checks.
REPORT = """
print(json.dumps({"during": during, "after": check()}))
"""

TUI = (
    CHECK
    + UNTIL_BOOTED
    + r"""
start = BootFlow.start
during = {}

def started(self):  # the first frame is painted; the agent not built yet
    during.update(check())
    start(self)

BootFlow.start = started
from agent_tui.cli import main
assert main(["--offline"]) == 0
from agent_tui.web.convert import html_to_markdown
html_to_markdown("<html><body><article><p>" + "Some text. " * 200 + "</p></article></body></html>")
"""
    + REPORT
)

HEADLESS = (
    CHECK
    + r"""
import agent_tui.headless
run_headless = agent_tui.headless.run_headless
during = {}

def checked(*args, **kwargs):  # the command line has done its part: the turn is next
    during.update(check())
    return run_headless(*args, **kwargs)

agent_tui.headless.run_headless = checked
from agent_tui.cli import main
assert main(["-p", "hello", "--offline"]) == 0
"""
    + REPORT
)


def _checked(script: str, tmp_path: object) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=180,
        env=child_env(AGENT_TUI_HOME=str(tmp_path), AGENT_TUI_OFFLINE_DELAY="0"),
        cwd=str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


ORIGINALS = {
    "dataclasses._create_fn": "dataclasses",
    "re._compiler.compile": "re._compiler",
    "typing.compile": False,
    "collections.eval": False,
}


def test_a_whole_tui_start_leaves_the_standard_library_as_it_is(tmp_path: object) -> None:
    result = _checked(TUI, tmp_path)
    for moment in ("during", "after"):  # (a patch taken out again at the end is one too)
        assert result[moment]["found"] == [], moment
        assert result[moment]["named"] == ORIGINALS, moment
    assert int(result["after"]["modules"]) > 200  # the check saw the start's standard library


def test_a_headless_turn_leaves_the_standard_library_as_it_is(tmp_path: object) -> None:
    result = _checked(HEADLESS, tmp_path)
    for moment in ("during", "after"):
        assert result[moment]["found"] == [], moment
        assert result[moment]["named"] == ORIGINALS, moment


def test_the_check_sees_a_patch_of_ours() -> None:
    """The checker itself: a standard-library function replaced by one of ours is found."""
    script = (
        "import textwrap, typing\nimport agent_tui.text as t\n"
        "textwrap.dedent = t.one_line\ntextwrap.TextWrapper.wrap = t.one_line\n"
        "typing.compile = t.one_line\n" + CHECK + "print(json.dumps(check()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=child_env()
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"textwrap.dedent", "textwrap.TextWrapper.wrap", "typing.compile"} <= set(
        result["found"]
    )
    assert result["named"]["typing.compile"] is True
