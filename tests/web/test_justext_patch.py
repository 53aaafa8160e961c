"""jusText's speed-ups (`agent_tui/web/justext_speedups.py`) are guarded as Textual's patches
are: they apply on the installed (pinned) jusText, and stand down with one log line, leaving
jusText as shipped, when a function they replace or rely on has changed."""

from __future__ import annotations

import dataclasses
import logging
import re
from importlib.metadata import version
from pathlib import Path

import pytest

from agent_tui.patch_guard import digest, resolve
from agent_tui.web import justext_speedups

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_applies_on_the_installed_justext() -> None:
    patch = justext_speedups.PATCH
    assert patch.version == version("jusText"), "jusText moved: check the speed-ups, re-digest"
    for target, expected in patch.targets.items():
        assert digest(resolve(target)) == expected, target
    assert justext_speedups.install()
    assert patch.name not in [n for n, ok in justext_speedups._verdicts.items() if not ok]


def test_justext_is_pinned_to_the_release_the_patch_was_written_for() -> None:
    pins = re.findall(r'"justext==([^"]+)"', PYPROJECT.read_text(encoding="utf-8"), re.I)
    assert pins == [justext_speedups.PATCH.version]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """jusText as shipped and the guard undecided (restored after the test)."""
    from justext import core, paragraph, utils

    monkeypatch.setattr(core, "Paragraph", paragraph.Paragraph)
    monkeypatch.setattr(paragraph, "normalize_whitespace", utils.normalize_whitespace)
    monkeypatch.setattr(justext_speedups, "_installed", False)
    monkeypatch.setattr(justext_speedups, "_verdicts", {})


@pytest.mark.usefixtures("fresh")
@pytest.mark.parametrize("target", sorted(justext_speedups.PATCH.targets))
def test_stands_down_with_one_log_line_when_a_target_changed(
    target: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from justext import core, paragraph, utils

    patch = justext_speedups.PATCH
    changed = dict(patch.targets, **{target: patch.targets[target] + 1})
    monkeypatch.setattr(justext_speedups, "PATCH", dataclasses.replace(patch, targets=changed))
    with caplog.at_level(logging.WARNING, logger="agent_tui.web.justext_speedups"):
        assert not justext_speedups.install()
        assert not justext_speedups.install()  # decided once: one line, not one per page
    assert [r.getMessage() for r in caplog.records] == [
        f"jusText patch justext_speedups stands down: {target} changed since jusText "
        f"{patch.version} ({patch.fixes})"
    ]
    assert core.Paragraph is paragraph.Paragraph  # jusText left as shipped
    assert paragraph.normalize_whitespace is utils.normalize_whitespace


@pytest.mark.usefixtures("fresh")
def test_stands_down_when_the_whitespace_pattern_changed(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from justext import core, paragraph, utils

    monkeypatch.setattr(utils, "MULTIPLE_WHITESPACE_PATTERN", re.compile(r"[ \t]+"))
    with caplog.at_level(logging.WARNING, logger="agent_tui.web.justext_speedups"):
        assert not justext_speedups.install()
    assert len(caplog.records) == 1
    assert "MULTIPLE_WHITESPACE_PATTERN changed" in caplog.records[0].getMessage()
    assert core.Paragraph is paragraph.Paragraph


@pytest.mark.usefixtures("fresh")
def test_a_paragraph_class_someone_else_put_in_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    from justext import core, paragraph

    class Theirs(paragraph.Paragraph):
        pass

    monkeypatch.setattr(core, "Paragraph", Theirs)
    assert not justext_speedups.install()
    assert core.Paragraph is Theirs


@pytest.mark.usefixtures("fresh")
def test_installs_when_undecided() -> None:
    from justext import core, paragraph

    assert justext_speedups.install()
    assert core.Paragraph is not paragraph.Paragraph
    assert issubclass(core.Paragraph, paragraph.Paragraph)
