"""The rules an "always" answer would save for a Bash command: the narrowest sensible prefix.

`git log --oneline -5` -> `Bash(git log:*)`; `npm run test -- -u` -> `Bash(npm run test:*)`;
`pytest -q` -> `Bash(pytest:*)`. Interpreters, shells and commands that run other commands only
ever get the exact command (`Bash(python x.py)`): a prefix rule for them would allow any code.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_tui.permissions.analysis import INTERPRETER, SHELLS, Part
from agent_tui.permissions.rules import (
    Match,
    RuleError,
    format_bash_rule,
    match_command,
    parse_rule,
)
from agent_tui.permissions.settings import CODE_RUNNERS, restriction

# Tools whose first argument is a verb with its own meaning (`git log` vs `git push`).
VERB_TOOLS = frozenset(
    {"git", "cargo", "go", "docker", "podman", "kubectl", "helm", "pip", "pip3", "uv", "make"}
    | {"npm", "pnpm", "yarn", "bun", "deno", "gh", "poetry", "dotnet", "terraform", "brew"}
    | {"rustup", "conda", "mix", "bundle", "composer", "swift", "cmake", "just", "tox", "nox"}
)
# ...and those where `run X` names a project script: the script is part of the verb.
_PRIVILEGE = frozenset({"sudo", "doas", "su", "runuser", "pkexec"})
_RUN_VERBS = {"npm", "pnpm", "yarn", "bun", "uv", "poetry", "deno", "pdm", "hatch"}


def suggest_part(part: Part) -> str | None:
    """One rule covering this part (and commands like it), or None if none is sensible."""
    argv = part.argv
    name = argv[0]
    if name is None or part.privileged:
        return None
    base = name.rsplit("/", 1)[-1]
    if base in _PRIVILEGE:
        return None  # running as another user is never an "always"
    tokens: list[str] | None
    if base in VERB_TOOLS:
        tokens = _verb_prefix(argv)
    elif base in SHELLS or base in CODE_RUNNERS or INTERPRETER.fullmatch(base):
        tokens = None
    else:
        tokens = [name]
    if tokens is not None:
        rule = _checked(format_bash_rule(tokens, prefix=True), part)
        if rule:
            return rule
    return exact_rule(part)


def exact_rule(part: Part) -> str | None:
    if part.open_args or any(w is None for w in part.argv) or part.privileged:
        return None
    return _checked(format_bash_rule([w for w in part.argv if w is not None], prefix=False), part)


def _verb_prefix(argv: Sequence[str | None]) -> list[str] | None:
    name = argv[0]
    assert name is not None
    verb = argv[1] if len(argv) > 1 else None
    if verb is None or verb.startswith("-"):
        return None  # global options first (`git -C dir log`): only the exact command
    base = name.rsplit("/", 1)[-1]
    script = argv[2] if len(argv) > 2 else None
    if base in _RUN_VERBS and verb in ("run", "run-script", "exec", "x") and script:
        if script.startswith("-"):
            return None
        return [name, verb, script]
    return [name, verb]


def _checked(text: str, part: Part) -> str | None:
    """The rule text if it parses back, covers the part, and may be saved in the local file."""
    try:
        rule = parse_rule(text)
    except RuleError:
        return None
    if restriction(rule) is not None:
        return None
    if match_command(rule, part.argv, open_args=part.open_args) is not Match.YES:
        return None
    return rule.text


def suggest_parts(parts: Sequence[Part]) -> tuple[str, ...]:
    """Rules for every asked part, or () if any part has none.

    A part's rule may not also cover another asked part that got a different rule (then the
    exact command is used), so one answer never quietly allows more than what was shown.
    """
    chosen: list[str] = []
    for part in parts:
        rule = suggest_part(part)
        if rule is None:
            return ()
        chosen.append(rule)
    for i, part in enumerate(parts):
        parsed = parse_rule(chosen[i])
        for j, other in enumerate(parts):
            if j != i and chosen[j] != chosen[i] and _covers(parsed, other):
                exact = exact_rule(part)
                if exact is None or _covers(parse_rule(exact), other):
                    return ()
                chosen[i] = exact
                break
    return tuple(dict.fromkeys(chosen))


def _covers(rule, part: Part) -> bool:  # type: ignore[no-untyped-def]
    return match_command(rule, part.argv, open_args=part.open_args) is Match.YES
