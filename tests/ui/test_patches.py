"""Textual's patches (`agent_tui/ui/patches/`): all apply on the pinned Textual, each one stands
down with a log line when what it patches changed, and each says what it is for."""

from __future__ import annotations

import importlib
import logging
import re
from importlib.metadata import version
from pathlib import Path

import pytest

from agent_tui.ui import patches
from agent_tui.ui.patches import Patch, digest, fits, resolve

MODULES = [importlib.import_module(f"agent_tui.ui.patches.{name}") for name in patches.MODULES]


def test_every_patch_module_is_listed() -> None:
    found = {p.stem for p in Path(patches.__file__).parent.glob("*.py")} - {"__init__"}
    assert found == set(patches.MODULES)


@pytest.mark.parametrize("module", MODULES, ids=patches.MODULES)
def test_each_patch_applies_on_the_pinned_textual(module: object) -> None:
    patch: Patch = module.PATCH  # type: ignore[attr-defined]
    assert patch.version == version("textual"), "pinned Textual moved: check and re-digest"
    assert fits(patch)
    assert module.apply()  # type: ignore[attr-defined]
    assert patch.name not in patches.stood_down()


@pytest.mark.parametrize("module", MODULES, ids=patches.MODULES)
def test_each_patch_is_written_up_as_its_upstream_fix(module: object) -> None:
    doc = module.__doc__ or ""
    patch: Patch = module.PATCH  # type: ignore[attr-defined]
    assert f"(Textual {patch.version})" in doc.split("\n\n")[0]
    assert re.search(r"^Upstream: \S", doc, re.M), "end with the one-line upstream fix"
    for target in patch.targets:
        resolve(target)  # each target names a real function


def test_apply_all_applies_them_all() -> None:
    assert patches.apply_all() == dict.fromkeys(patches.MODULES, True)


def test_a_patch_stands_down_with_a_log_line_when_textual_changed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from textual.strip import Strip

    real = digest(resolve("textual.strip:Strip.crop"))
    changed = Patch("changed_crop", "8.2.8", "an example", {"textual.strip:Strip.crop": real + 1})
    gone = Patch("gone", "8.2.8", "an example", {"textual.strip:Strip.no_such_method": 1})
    with caplog.at_level(logging.WARNING, logger="agent_tui.ui.patches"):
        assert not fits(changed) and not fits(gone)
        assert not fits(changed)  # decided once: one line, not one per call
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "Textual patch changed_crop stands down: textual.strip:Strip.crop changed since "
        "Textual 8.2.8 (an example)",
        "Textual patch gone stands down: textual.strip:Strip.no_such_method changed since "
        "Textual 8.2.8 (an example)",
    ]
    assert {"changed_crop", "gone"} <= set(patches.stood_down())
    assert Strip.crop is not None


def test_a_patch_that_stands_down_leaves_textual_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual._styles_cache import StylesCache

    from agent_tui.ui.patches import css_parse_memo, render_caches

    monkeypatch.setattr(patches, "_verdicts", {"render_caches": False, "css_parse_memo": False})
    cleared: list[bool] = []
    monkeypatch.setattr(StylesCache, "clear", lambda self: cleared.append(True))
    from textual.app import App
    from textual.widgets import Static

    render_caches.forget_lines(Static())
    assert cleared == []  # Textual's private cache left alone
    assert css_parse_memo.memo(App().stylesheet) is None  # the stylesheet cache stands down too


def test_importing_the_ui_changes_no_process_wide_setting() -> None:
    import subprocess
    import sys

    code = (
        "import gc, sys; before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())\n"
        "import agent_tui.ui.app\n"
        "from textual.strip import Strip; from textual._compositor import Compositor\n"
        "patched = Strip.divide.__module__ != 'textual.strip' or "
        "Compositor._arrange_root.__module__ != 'textual._compositor'\n"
        "print(before == (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()), patched)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]
