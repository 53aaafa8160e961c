"""Slash commands without a screen: what counts as a command, `$ARGUMENTS` and `$1`, the
person's and (trusted only) the project's command files, and completion order."""

from __future__ import annotations

from pathlib import Path

from agent_tui.slash_commands import BUILT_IN, expand, load_user_commands, matching, parse


def test_what_is_a_command() -> None:
    assert parse("/compact keep the file names") == ("compact", "keep the file names")
    assert parse("  /cost  ") == ("cost", "")
    assert parse("/frontend:component Button") == ("frontend:component", "Button")
    assert parse("/review\nthe whole diff") == ("review", "the whole diff")
    assert parse("/etc/hosts: what is in it?") is None  # a path, so a prompt
    assert parse("hello /cost") is None
    assert parse("/") is None


def test_arguments_fill_the_template() -> None:
    assert expand("Review $ARGUMENTS carefully.", "src/app.py") == "Review src/app.py carefully."
    assert expand("Compare $1 with $2.", "a.py b.py") == "Compare a.py with b.py."
    assert expand("Compare $1 with $2.", "a.py") == "Compare a.py with ."
    assert expand("Run the tests.", "fast only") == "Run the tests.\n\nfast only"


def test_command_files_user_and_trusted_project(tmp_path: Path) -> None:
    config, project = tmp_path / "cfg", tmp_path / "project"
    (config / "commands").mkdir(parents=True)
    (config / "commands" / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: <path>\n---\nReview $ARGUMENTS.\n"
    )
    (config / "commands" / "cost.md").write_text("a built-in's name is never taken\n")
    frontend = project / ".claude" / "commands" / "frontend"
    frontend.mkdir(parents=True)
    (frontend / "component.md").write_text("# Make a component\nCreate $1.\n")
    untrusted = load_user_commands(project, config, project_trusted=False)
    assert [(c.name, c.help, c.args, c.source) for c in untrusted] == [
        ("review", "Review a file", "<path>", "user")
    ]
    trusted = {c.name: c for c in load_user_commands(project, config, project_trusted=True)}
    assert set(trusted) == {"review", "frontend:component"}
    assert trusted["frontend:component"].help == "Make a component"
    assert trusted["frontend:component"].source == "project"


def test_completion_puts_prefix_matches_first() -> None:
    names = [c.name for c in matching("/co", list(BUILT_IN))]
    assert names[:4] == ["compact", "copy", "cost", "context"]
    assert [c.name for c in matching("/xyz", list(BUILT_IN))] == []


def test_copy_takes_the_last_answer_or_its_nth_code_block() -> None:
    from agent_tui.slash_commands import code_blocks, copy_target

    answer = "Here:\n```python\nprint(1)\n```\nand\n~~~\nls -l\n~~~\n"
    assert code_blocks(answer) == ["print(1)\n", "ls -l\n"]
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": answer}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash"}]},
    ]
    assert copy_target(messages, "") == (answer.strip() + "\n", "the last answer")
    assert copy_target(messages, "2") == ("ls -l\n", "code block 2 of 2")
    assert copy_target(messages, "3")[0] == "" and "it has 2" in copy_target(messages, "3")[1]
    assert copy_target([], "")[0] == ""
