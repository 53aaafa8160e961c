"""Slash commands: the built-in ones (what the app does when a prompt is `/name args`) and the
person's own, in Claude Code's format: markdown files in `<config>/commands/`,
`~/.claude/commands/` and, in a trusted project, `.claude/commands/` (a sub-folder makes a
`folder:name` command), with optional front matter (`description`, `argument-hint`) and
`$ARGUMENTS` (or `$1`, `$2`, …) in the body where the words after the command go. Claude Code's
skills (`~/.claude/skills/NAME/SKILL.md`, a trusted project's `.claude/skills/`) are commands
too: `/NAME` sends the skill's instructions; a trusted plugin's commands and skills are
`/plugin:NAME`. No Textual here: the UI runs what `parse`
recognises, and a headless run what `headless_prompt` makes of its prompt."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui import front_matter

#: a command word: `/name` or `/folder:name` (so `/etc/hosts …` is a prompt, not a command)
_COMMAND = re.compile(r"/([A-Za-z][A-Za-z0-9_-]*(?::[A-Za-z0-9_-]+)*)")
_POSITIONAL = re.compile(r"\$([1-9])")


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str
    help: str
    args: str = ""
    #: a user command's prompt template (None: a built-in the app runs)
    body: str | None = None
    source: str = "built-in"


BUILT_IN: tuple[SlashCommand, ...] = (
    SlashCommand("help", "keys, modes and these commands"),
    SlashCommand("new", "start a new session (this one stays in the sessions list)"),
    SlashCommand("clear", "the same as /new"),
    SlashCommand("model", "switch the model from the next request on", "[name]"),
    SlashCommand("compact", "summarise the older turns now to free context", "[instructions]"),
    SlashCommand("copy", "copy the last answer (or its Nth code block) to the clipboard", "[N]"),
    SlashCommand("cost", "what this session has cost, and its tokens"),
    SlashCommand("context", "how full the context window is, and how it is compacted"),
    SlashCommand("memory", "the AGENTS.md / CLAUDE.md files the model was given"),
    SlashCommand("mode", "the permission mode: default, accept-edits, plan, yolo", "[mode]"),
    SlashCommand("thinking", "extended thinking on / off"),
    SlashCommand("permissions", "the rules in force, where each comes from, how often it fired"),
    SlashCommand("mcp", "the MCP servers and their state"),
    SlashCommand("sandbox", "the OS sandbox: backend, mode, what commands may write, read, reach"),
    SlashCommand("bashes", "the running background shells: choose one, k kills it (f2)"),
    SlashCommand("undo", "put back the files the last turn changed (with a preview)"),
    SlashCommand("changes", "sandboxed commands' file changes that wait for you, file by file"),
    SlashCommand("rewind", "go back to an earlier prompt: files, conversation or both"),
    SlashCommand("resume", "find a past session to resume or replay"),
    SlashCommand("export", "write this session's transcript as Markdown", "[path]"),
    SlashCommand("init", "ask the model to write an AGENTS.md for this project"),
    SlashCommand("doctor", "versions, the speed-ups to Textual (which stood down, why), the log"),
)

INIT_PROMPT = (
    "Please analyse this repository and write an AGENTS.md file at its root for future agents "
    "working here: what the project is, how it is laid out, how to install, build, run and "
    "test it (the exact commands), its code style and conventions, and anything surprising. "
    "Read the README, the build and CI files and a sample of the code first; keep it concise. "
    "If an AGENTS.md or CLAUDE.md exists already, improve it instead of starting over."
)


def parse(text: str) -> tuple[str, str] | None:
    """(name, arguments) when the prompt is a slash command, else None."""
    stripped = text.strip()
    first, _, rest = stripped.partition(" ")
    if "\n" in first:
        first, _, more = first.partition("\n")
        rest = more + (" " + rest if rest else "")
    m = _COMMAND.fullmatch(first)
    return (m.group(1), rest.strip()) if m else None


def expand(body: str, arguments: str) -> str:
    """A user command's prompt: `$ARGUMENTS` is everything after the command, `$1`… its words;
    without either placeholder the arguments follow the body."""
    words = arguments.split()
    if "$ARGUMENTS" not in body and not _POSITIONAL.search(body):
        return body + (f"\n\n{arguments}" if arguments else "")
    out = body.replace("$ARGUMENTS", arguments)
    return _POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", out
    )


def _read(path: Path, name: str, source: str) -> SlashCommand | None:
    found = front_matter.read(path)
    if found is None:
        return None
    fields, body = found
    help_text = front_matter.summary(fields, body, 80)
    return SlashCommand(name, help_text, fields.get("argument-hint", ""), body, source)


def _files(
    cwd: Path, config_dir: Path, project_trusted: bool, plugins: Any
) -> list[tuple[Path, str, str]]:
    """(file, command name, source), later ones winning on a name: the person's commands (ours,
    then Claude Code's), the trusted project's, the trusted plugins' (`plugin:name`), then the
    skills (`skills.skill_files`). In a folder, `a/b.md` is `a:b`."""
    from agent_tui.permissions.claude_settings import claude_dir

    folders = [(config_dir / "commands", "user"), (claude_dir() / "commands", "user")]
    if project_trusted:
        folders.append((cwd / ".claude" / "commands", "project"))
    found = [
        (p, ":".join(p.relative_to(folder).with_suffix("").parts), source)
        for folder, source in folders
        if folder.is_dir()
        for p in sorted(folder.rglob("*.md"))
    ]
    if plugins is not None:
        found += [(p, name, f"plugin {name.split(':')[0]}") for p, name in plugins.command_files()]
    from agent_tui.skills import skill_files

    skills = skill_files(cwd, config_dir, project_trusted=project_trusted, plugins=plugins)
    return found + [(p, name, f"{source} skill") for p, name, source in skills]


def commands_signature(
    cwd: Path, config_dir: Path, *, project_trusted: bool, plugins: Any = None
) -> tuple[Any, ...]:
    """What the command files look like now (names, sizes, times): a change means they are read
    again, so a command added or edited while the app runs is found without a restart."""
    seen: list[Any] = [project_trusted, len(plugins.trusted) if plugins is not None else 0]
    for path, _name, _source in _files(cwd, config_dir, project_trusted, plugins):
        try:
            st = path.stat()
        except OSError:
            continue
        seen.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(seen)


def load_user_commands(
    cwd: Path, config_dir: Path, *, project_trusted: bool, plugins: Any = None
) -> list[SlashCommand]:
    """The person's commands, then (trusted only) the project's and the plugins'; a project
    command takes the name of a user one; none can take a built-in's name. A skill whose
    front matter says `user-invocable: false` is the model's alone."""
    from agent_tui.skills import read_skill

    found: dict[str, SlashCommand] = {}
    reserved = {c.name for c in BUILT_IN}
    for path, name, source in _files(cwd, config_dir, project_trusted, plugins):
        if name in reserved or not _COMMAND.fullmatch("/" + name):
            continue
        if source.endswith("skill"):
            skill = read_skill(path, name, source)
            if skill is None or not skill.user_invocable:
                continue
        command = _read(path, name, source)
        if command is not None:
            found[name] = command
    return list(found.values())


def headless_prompt(prompt: str, commands: list[SlashCommand]) -> tuple[str, str | None]:
    """What a headless run sends for `prompt`, and a problem (None: none). The person's own
    commands expand as in the app, `/init` too; another built-in is the app's screen's (a
    problem); any other `/word` goes as it was typed (a path, `/etc/hosts …`, is a prompt)."""
    parsed = parse(prompt)
    if parsed is None:
        return prompt, None
    name, args = parsed
    command = next((c for c in commands if c.name == name), None)
    if command is not None and command.body is not None:
        return expand(command.body, args), None
    if name == "init":
        return INIT_PROMPT, None
    if command is not None:
        return prompt, f"/{name} is a command of the app's screen; it does nothing with -p"
    return prompt, None


def headless_command(
    prompt: str, cwd: Path, *, project_trusted: bool, plugins: Any = None
) -> tuple[str, str | None]:
    """`headless_prompt` with the person's (and, trusted, the project's and plugins') commands."""
    if parse(prompt) is None:
        return prompt, None
    from agent_tui.paths import config_dir

    mine = load_user_commands(cwd, config_dir(), project_trusted=project_trusted, plugins=plugins)
    return headless_prompt(prompt, [*BUILT_IN, *mine])


def matching(prefix: str, commands: list[SlashCommand]) -> list[SlashCommand]:
    """The commands a half-typed `/pre` may mean: those starting with it first, then the rest
    containing it."""
    prefix = prefix.lstrip("/").lower()
    starts = [c for c in commands if c.name.lower().startswith(prefix)]
    contains = [c for c in commands if prefix in c.name.lower() and c not in starts]
    return starts + contains


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1[`~]*[ \t]*$", re.M | re.S)


def code_blocks(markdown: str) -> list[str]:
    """The fenced code blocks of a Markdown answer, their contents only, in order."""
    return [m.group(2) for m in _FENCE.finditer(markdown)]


def last_answer(messages: list[dict[str, Any]]) -> str:
    """The text of the last assistant message with text (tool calls and thinking left out)."""
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            text = content
        else:
            text = "".join(
                b.get("text", "")
                for b in content or ()
                if isinstance(b, dict) and b.get("type") == "text"
            )
        if text.strip():
            return text
    return ""


def copy_target(messages: list[dict[str, Any]], args: str) -> tuple[str, str]:
    """`/copy [N]`: (the text to copy, what it is) — or ("", why not)."""
    answer = last_answer(messages)
    if not answer:
        return "", "Nothing to copy yet: there is no answer in this session."
    if not args.strip():
        return answer.strip() + "\n", "the last answer"
    blocks = code_blocks(answer)
    if not args.strip().isdigit() or not 1 <= int(args) <= len(blocks):
        have = f"it has {len(blocks)}" if blocks else "it has none"
        return "", f"/copy N copies the Nth code block of the last answer; {have}."
    return blocks[int(args) - 1], f"code block {int(args)} of {len(blocks)}"
