"""The bash-oracle property again, with the analyser replaced by "allow everything" and the
sandbox on: every generated command (the same grammar as tests/permissions/test_bash_oracle.py)
runs, unasked, inside the sandbox; no payload may ever create its marker outside the project.
Each command first runs in plain bash, so only commands that really run the payload count.

The marker and the project live under /var/tmp: the sandbox's /tmp is private, and a marker
there would be out of reach for a reason that proves less."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from permissions.test_bash_oracle import (
    BASH,
    evaluated_value,
    expanded_word,
    prefix_rule_feature,
    sink,
)

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.transaction import remove_folder
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool

pytestmark = [needs_bwrap, pytest.mark.skipif(BASH is None, reason="bash is the oracle")]
STATS = {"generated": 0, "ran_payload": 0}


class Contained:
    def __init__(self, root: Path) -> None:
        self.work, self.outside = root / "work", root / "outside"
        self.work.mkdir()
        self.outside.mkdir()
        (self.work / "f").write_text("a\nb\n")
        subprocess.run(["git", "init", "-q", str(self.work)], check=True, capture_output=True)
        self.marker = self.outside / "M"
        engine = PermissionEngine(self.work)  # consulted by nothing: everything runs
        self.sandbox = Sandbox(SandboxConfig(mode="on"), self.work, engine, data_dir=root / "data")
        self.tool = BashTool()

    @property
    def payload(self) -> str:
        return f"touch {self.marker}"

    def plain(self, command: str) -> bool:
        self.marker.unlink(missing_ok=True)
        env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C"}
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(
                [BASH or "bash", "-c", command], cwd=self.work, env=env,
                stdin=subprocess.DEVNULL, capture_output=True, timeout=10,
            )  # fmt: skip
        found = self.marker.exists()
        self.marker.unlink(missing_ok=True)
        return found

    def sandboxed(self, command: str) -> bool:
        ctx = ToolContext(cwd=self.work, data_dir=self.work, sandbox=self.sandbox)
        params = BashInput(command=command, timeout_ms=10_000)
        asyncio.run(self.tool.run(params, ctx))
        return self.marker.exists()


@pytest.fixture(scope="module")
def box() -> Iterator[Contained]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-oracle-", dir="/var/tmp"))
    contained = Contained(root)
    try:
        yield contained
    finally:
        contained.sandbox.close()
        remove_folder(root)
    print(f"\nsandbox oracle: {STATS['generated']} commands, {STATS['ran_payload']} ran it plain")
    if STATS["generated"] >= 60:
        assert STATS["ran_payload"] * 3 >= STATS["generated"]


def check(box: Contained, command: str) -> None:
    STATS["generated"] += 1
    if not box.plain(command):
        return
    STATS["ran_payload"] += 1
    assert not box.sandboxed(command), f"the payload got out of the sandbox: {command!r}"


SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(data=st.data())
def test_expansions_never_escape(box: Contained, data: st.DataObject) -> None:
    check(box, data.draw(sink(data.draw(expanded_word(box.payload)))))


@SETTINGS
@given(data=st.data())
def test_evaluated_values_never_escape(box: Contained, data: st.DataObject) -> None:
    check(box, data.draw(evaluated_value(box.payload)))


@SETTINGS
@given(data=st.data())
def test_prefix_rule_features_never_escape(box: Contained, data: st.DataObject) -> None:
    check(box, data.draw(prefix_rule_feature(box.payload, str(box.marker))))


def test_the_oracle_is_meaningful(box: Contained) -> None:
    assert box.plain(box.payload)
    assert not box.sandboxed(box.payload)
    assert box.sandboxed(f"touch {box.work}/in && test -e {box.work}/in") is False
    assert (box.work / "in").exists()  # inside the project it writes
