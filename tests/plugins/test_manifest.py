"""A plugin folder read as Claude Code lays it out: the default folders and the manifest's extra
paths, `${CLAUDE_PLUGIN_ROOT}` in hooks and servers, what can't be a plugin (said in one line),
and the digest that changes with any file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_tui.plugins.manifest import PluginError, digest, read_plugin

SAMPLE = Path(__file__).parents[1] / "fixtures" / "sample_plugin"


def make(tmp_path: Path, manifest: object) -> Path:
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    return root


def test_the_sample_plugin_is_read_whole(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    plugin = read_plugin(root)
    assert (plugin.name, plugin.version) == ("sample", "1.0.0")
    assert [name for _p, name in plugin.commands] == ["sample:greet"]
    assert [p.parent.name for p in plugin.skills] == ["haiku"]
    assert [p.name for p in plugin.agents] == ["reviewer.md"]
    [prompt, bash] = plugin.hooks
    assert prompt.event == "UserPromptSubmit" and bash.matcher == "Bash"
    assert prompt.command == f"sh {root.resolve()}/scripts/mark.sh prompt"
    assert dict(prompt.env) == {"CLAUDE_PLUGIN_ROOT": str(root.resolve())} and prompt.own
    [server] = plugin.servers
    assert server.name == "plugin_sample_stamp" and server.source == "plugin"
    assert server.args == (f"{root.resolve()}/server.py",)
    assert plugin.key == f"plugin:{root.resolve()}" and not plugin.warnings


def test_manifest_paths_add_to_the_defaults_and_stay_inside(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "name": "extra",
            "commands": ["./more/deploy.md", "../outside.md"],
            "skills": "./kit",
            "hooks": {"hooks": {"Stop": [{"hooks": [{"command": "${CLAUDE_PLUGIN_ROOT}/s"}]}]}},
            "mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db"}},
            "lspServers": "./.lsp.json",
        },
    )
    (root / "commands").mkdir()
    (root / "commands" / "a.md").write_text("A")
    (root / "more").mkdir()
    (root / "more" / "deploy.md").write_text("Deploy")
    (root / "kit" / "lint").mkdir(parents=True)
    (root / "kit" / "lint" / "SKILL.md").write_text("Lint it")
    plugin = read_plugin(root)
    assert [n for _p, n in plugin.commands] == ["extra:a", "extra:deploy"]
    assert [p.parent.name for p in plugin.skills] == ["lint"]
    assert plugin.hooks[0].command == f"{root.resolve()}/s"
    assert plugin.servers[0].command == f"{root.resolve()}/db"
    assert any("'../outside.md' is outside the plugin" in w for w in plugin.warnings)
    assert "plugin extra: LSP servers (not used by agent-tui)" in plugin.describe()


@pytest.mark.parametrize(
    ("manifest", "said"),
    [(None, "has no .claude-plugin/plugin.json"), ([], "is not a JSON object"),
     ({"name": "has space"}, '"name" must be'), ({}, '"name" must be')],
)  # fmt: skip
def test_what_is_no_plugin_is_said(tmp_path: Path, manifest: object, said: str) -> None:
    root = tmp_path / "p"
    root.mkdir()
    if manifest is not None:
        root = make(tmp_path, manifest)
    with pytest.raises(PluginError, match=said):
        read_plugin(root)


def test_the_digest_changes_with_any_file(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    before = digest(root)
    assert digest(root) == before
    (root / "scripts" / "mark.sh").write_text("echo changed\n")
    assert digest(root) != before
    changed = digest(root)
    (root / "scripts" / "new.sh").write_text("")
    assert digest(root) != changed
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    after_new = digest(root)
    (root / ".git" / "HEAD").write_text("other")
    assert digest(root) == after_new  # .git is left out


def test_a_linked_script_counts_wherever_it_is(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    outside = tmp_path / "real.sh"
    outside.write_text("echo one\n")
    (root / "scripts" / "linked.sh").symlink_to(outside)
    before = digest(root)
    outside.write_text("echo two\n")  # the plugin's own files unchanged
    assert digest(root) != before
