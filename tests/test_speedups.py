"""The speed-ups to Textual's internals (`agent_tui/speedups/`): all apply on the pinned Textual,
they touch at most `BUDGET` private functions in all, each stands down with one log line (kept
for `/doctor`) when what it touches changed or a person turned it off, each names the symptom
it is for, and its figures live in BENCHMARKS.md, not in its docstring."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from agent_tui import speedups
from agent_tui.speedups import guard
from agent_tui.speedups.guard import OFF_VARIABLE, Patch, digest, fits, resolve

MODULES = speedups.modules()
ROOT = Path(__file__).resolve().parents[1]
#: what is not a patch: the package's registry, the guard, and the collector's hold
NOT_PATCHES = {"__init__", "guard", "collect_after"}


@pytest.fixture
def undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    """No verdict decided yet in this "process" (restored after the test)."""
    monkeypatch.setattr(guard, "verdicts", {})


def test_every_patch_module_is_listed() -> None:
    found = {p.stem for p in Path(speedups.__file__).parent.glob("*.py")} - NOT_PATCHES
    assert found == set(speedups.TEXTUAL)


def test_at_most_the_budget_of_private_functions_is_touched() -> None:
    """Every function a patch replaces or relies on counts, each once however many use it."""
    touched = {target for patch in speedups.patches() for target in patch.targets}
    assert len(touched) <= speedups.BUDGET, sorted(touched)
    assert all(target.startswith("textual.") for target in touched)


@pytest.mark.parametrize("module", MODULES, ids=speedups.TEXTUAL)
def test_each_patch_applies_on_the_pinned_textual(module: object) -> None:
    patch: Patch = module.PATCH  # type: ignore[attr-defined]
    assert patch.library == "Textual"
    assert patch.version == version("textual"), "pinned Textual moved: check and re-digest"
    assert fits(patch)  # (decided before it applied: applied, a target digests as the patch)
    assert module.apply()  # type: ignore[attr-defined]


@pytest.mark.parametrize("module", MODULES, ids=speedups.TEXTUAL)
def test_each_patch_names_its_symptom_and_its_upstream_fix(module: object) -> None:
    doc = module.__doc__ or ""
    patch: Patch = module.PATCH  # type: ignore[attr-defined]
    assert f"(Textual {patch.version})" in doc.split("\n\n")[0]
    assert re.search(r"^Upstream: \S", doc, re.M), "end with the one-line upstream fix"
    assert patch.symptom and not re.search(r"\d", patch.symptom)


#: a measured figure: "12 ms", "0.5 MB", "3x", "40 %"…
FIGURE = re.compile(r"\b\d[\d,.]*\s*(?:ms|s|MB|KB|kB|%|x|×)(?!\w)")


@pytest.mark.parametrize("module", MODULES, ids=speedups.TEXTUAL)
def test_figures_live_in_benchmarks_md_not_in_the_code(module: object) -> None:
    source = Path(module.__file__).read_text("utf-8")  # type: ignore[attr-defined]
    assert FIGURE.findall(source) == []
    benchmarks = (ROOT / "BENCHMARKS.md").read_text("utf-8")
    section = benchmarks[benchmarks.index("## Speed-ups: what each one is for") :]
    patch: Patch = module.PATCH  # type: ignore[attr-defined]
    assert f"`{patch.name}`" in section


def test_apply_textual_applies_them_all() -> None:
    assert speedups.apply_textual() == dict.fromkeys(speedups.TEXTUAL, True)


@pytest.mark.usefixtures("undecided")
def test_a_patch_stands_down_with_one_log_line_and_says_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    real = digest(resolve("textual.strip:Strip.crop"))
    changed = Patch(
        "changed_crop", "Textual", "8.2.8", "a symptom", {"textual.strip:Strip.crop": real + 1}
    )
    gone = Patch("gone", "Textual", "8.2.8", "a symptom", {"textual.strip:Strip.nothing": 1})
    with caplog.at_level(logging.WARNING, logger="agent_tui.speedups"):
        assert not fits(changed) and not fits(gone)
        assert not fits(changed)  # decided once: one line, not one per call
    assert [r.getMessage() for r in caplog.records] == [
        "Textual patch changed_crop stands down: textual.strip:Strip.crop changed since "
        "Textual 8.2.8 (a symptom)",
        "Textual patch gone stands down: textual.strip:Strip.nothing changed since "
        "Textual 8.2.8 (a symptom)",
    ]
    assert not guard.verdicts["gone"].applies
    assert "Strip.nothing changed" in guard.verdicts["gone"].why


@pytest.mark.usefixtures("undecided")
def test_a_person_turns_patches_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.speedups import render_caches, textual_privates

    monkeypatch.setenv(OFF_VARIABLE, "render_caches, geometry_caches")
    assert not fits(render_caches.PATCH)
    assert guard.verdicts["render_caches"].why == f"turned off by {OFF_VARIABLE}"
    assert fits(textual_privates.PATCH)  # (one that replaces nothing: checked again here)
    monkeypatch.setattr(guard, "verdicts", {})
    monkeypatch.setenv(OFF_VARIABLE, "all")
    assert not any(fits(module.PATCH) for module in MODULES)


@pytest.mark.usefixtures("undecided")
def test_a_patch_that_stands_down_leaves_textual_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from textual._styles_cache import StylesCache
    from textual.widgets import Static

    from agent_tui.speedups import render_caches, textual_privates

    monkeypatch.setenv(OFF_VARIABLE, "render_caches,textual_privates")
    cleared: list[bool] = []
    monkeypatch.setattr(StylesCache, "clear", lambda self: cleared.append(True))
    render_caches.forget_lines(Static())
    assert cleared == []  # Textual's private cache left alone
    assert textual_privates.layout_key(Static()) is None  # its privates not read


def test_importing_the_ui_changes_no_process_wide_setting() -> None:
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
