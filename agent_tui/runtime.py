"""Assembling a session from options: provider, tools, permissions, store — shared by the TUI and
headless mode, and free of Textual."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.toml_file import TomlFileError, read_toml

if TYPE_CHECKING:  # the core is imported when a session is built, not with the options
    from collections.abc import Callable

    from agent_tui.agent.approvals import AskFn, PermissionChecker
    from agent_tui.agent.budget import SpendFn
    from agent_tui.agent.loop import Agent
    from agent_tui.permissions.types import Mode
    from agent_tui.providers.base import Provider
    from agent_tui.tools.base import Tool, ToolRegistry


@dataclass
class Options:
    """What a session is started with: the command line's choices, for the TUI and headless mode."""

    model: str | None = None
    small_model: str | None = None
    offline: bool = False
    cwd: Path = field(default_factory=Path.cwd)
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    mode: Mode = "default"
    resume: str | None = None  # a session id, or "" for "pick one"
    continue_: bool = False
    #: `--fork-session`: a resumed session goes on in a copy of it (a new session id)
    fork_session: bool = False
    headless: bool = False
    approve_asks: bool = False
    record: bool = True
    #: honour the project's own grants without asking (headless `--trust-project`)
    trust_project: bool = False
    #: spending cap in US dollars (`--max-cost`; else `[limits] max_cost` in user settings)
    max_cost: float | None = None
    #: `--thinking [TOKENS]`: None (the setting decides), -1 (on, the default budget) or a budget
    thinking: int | None = None
    #: `--mcp-config FILE` files, beside the user's and (when trusted) the project's
    mcp_configs: list[Path] = field(default_factory=list)
    #: `--sandbox off|on|auto`; None: `[sandbox] mode` in the user's settings, else "auto"
    sandbox: str | None = None
    #: the app's first prompt (`agent-tui "PROMPT"`), sent once the agent is ready
    initial_prompt: str | None = None
    #: `--system-prompt` (instead of our instructions) and `--append-system-prompt`
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    #: `--max-turns`: model responses a headless turn may take (None: no limit)
    max_turns: int | None = None
    #: `--add-dir` folders (and Claude Code's permissions.additionalDirectories), resolved
    add_dirs: list[Path] = field(default_factory=list)
    #: `--plugin-dir` folders, beside the person's plugins (`agent-tui plugin add`)
    plugin_dirs: list[Path] = field(default_factory=list)
    #: `--json-schema`: the headless answer's JSON Schema (`structured_output`), checked
    json_schema: dict[str, Any] | None = None


_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
_PLATFORMS = (
    "CLAUDE_CODE_USE_BEDROCK",
    "AGENT_TUI_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "AGENT_TUI_USE_VERTEX",
    "ANTHROPIC_FOUNDRY_RESOURCE",
    "AGENT_TUI_USE_FOUNDRY",
)


def offline_reason(options: Options) -> str | None:
    """Why this session runs on the built-in offline model (what the person is told), or None
    when it talks to an API. Only `--offline` or a bare environment (no key, no base URL, no
    Bedrock/Vertex/Foundry) mean offline: a person who named a server or a platform meant it."""
    if options.offline:
        return "Running on the built-in offline model (--offline)"
    if any(os.environ.get(name) for name in (*_KEYS, "ANTHROPIC_BASE_URL", *_PLATFORMS)):
        return None
    return "No ANTHROPIC_API_KEY: running on the built-in offline model"


def use_offline(options: Options) -> bool:
    return offline_reason(options) is not None


def setup_problem(options: Options) -> str | None:
    """Why the API this session would talk to can't be used, said before anything starts: a
    base URL without a key (the SDK would fail with a TypeError at the first request), or a
    platform whose extra is not installed."""
    if use_offline(options):
        return None
    from agent_tui.providers.anthropic import platform, platform_problem

    if platform() == "anthropic" and not any(os.environ.get(name) for name in _KEYS):
        return (
            "ANTHROPIC_BASE_URL is set but ANTHROPIC_API_KEY is not: set ANTHROPIC_API_KEY "
            "(any value for a keyless server), or run with --offline"
        )
    return platform_problem()


def make_provider(options: Options) -> tuple[Provider, str, str]:
    """The provider and the (main, small) model names it will be asked for."""
    if use_offline(options):
        from agent_tui.providers.offline import OFFLINE_MODEL, OfflineProvider

        return OfflineProvider(), OFFLINE_MODEL, OFFLINE_MODEL
    from agent_tui.models import default_model, resolve, small_model
    from agent_tui.permissions.claude_settings import model as claude_model
    from agent_tui.providers.anthropic import AnthropicProvider

    # `--model`, the environment (ours, then Claude Code's), Claude Code's settings, the table's
    # default; aliases (`opus`, `sonnet[1m]`) resolved
    named = options.model or os.environ.get("AGENT_TUI_MODEL") or os.environ.get("ANTHROPIC_MODEL")
    model = resolve(named or claude_model(options.cwd) or default_model())
    small = options.small_model or os.environ.get("AGENT_TUI_SMALL_MODEL")
    small = resolve(small or os.environ.get("ANTHROPIC_SMALL_FAST_MODEL") or small_model())
    return AnthropicProvider(model), model, small


def _built_in_tools(provider: Provider, model: str) -> list[Tool]:
    """The built-in tools (`tools.builtin`), loaded when the registry is first asked for them."""
    from agent_tui.tools.builtin import Offer, load

    return load(Offer(provider, model, user_setting))


def make_tools(provider: Provider, model: str) -> ToolRegistry:
    from agent_tui.tools.deferred import DeferringRegistry, deferral_mode

    # WebFetch and MCP tools are deferred: found with ToolSearch (see `tools.deferred`)
    tools = DeferringRegistry(deferral_mode(provider, model))
    tools.add_built_ins(partial(_built_in_tools, provider, model))
    return tools


def make_permissions(options: Options) -> Any:
    from agent_tui.permissions.claude_settings import additional_directories
    from agent_tui.permissions.engine import PermissionEngine
    from agent_tui.settings_check import project_table_warnings

    engine = PermissionEngine.load(
        options.cwd,
        mode=options.mode,
        allow=options.allow,
        deny=options.deny,
        trust_project=options.trust_project,
    )
    engine.add_dirs = tuple(
        dict.fromkeys([*options.add_dirs, *additional_directories(options.cwd)])
    )
    engine.load_warnings += project_table_warnings(options.cwd)  # said with the others
    return engine


def system_prompt(
    options: Options,
    model: str,
    permissions: PermissionChecker,
    git_status: Callable[[], str | None] | None = None,
) -> tuple[str, list[Any]]:
    """Today's date, the folder, the platform, git and the project's memory (a resumed session
    keeps the prompt it was started with: see `sessions.recorder.resume_into`)."""
    from agent_tui.agent.memory import find_memory
    from agent_tui.agent.system_prompt import build_system_prompt
    from agent_tui.paths import config_dir

    # Grants still withheld means the project isn't trusted (yet, or the person said ignore).
    trusted = not permissions.untrusted_grants
    memory = find_memory(options.cwd, config_dir())
    prompt = build_system_prompt(
        model, options.cwd, memory, project_trusted=trusted, git_status=git_status
    )
    if options.system_prompt is not None:  # instead of our instructions; the rest stays
        from agent_tui.agent.config import DEFAULT_SYSTEM

        prompt = prompt.replace(DEFAULT_SYSTEM, options.system_prompt.strip(), 1)
    if options.append_system_prompt:
        prompt += "\n\n" + options.append_system_prompt.strip()
    return prompt, memory


def _seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


def user_setting(table: str, key: str) -> Any:
    """One value from the user's own `settings.toml` (`[table] key`), or None. Cost, thinking and
    compaction are the person's choices: a project's settings can't set them."""
    from agent_tui.paths import config_dir

    try:
        data = read_toml(config_dir() / "settings.toml")
    except TomlFileError:
        return None
    if data is None:
        return None
    section = data.get(table)
    return section.get(key) if isinstance(section, dict) else None


def spending_cap(options: Options) -> float | None:
    """`--max-cost`, else the user's settings (`[limits] max_cost`)."""
    if options.max_cost is not None:
        return options.max_cost
    value = user_setting("limits", "max_cost")
    return float(value) if isinstance(value, int | float) and value > 0 else None


DEFAULT_THINKING_BUDGET = 8000


def thinking_budget(options: Options, model: str = "") -> tuple[int | None, int]:
    """(the budget to start with — None: thinking off —, the budget the toggle key turns on).
    From `--thinking [TOKENS]`, else `[model] thinking` and `thinking_budget`; with neither,
    on for a model with adaptive thinking (as Claude Code sends it), off for the others."""
    from agent_tui.models import thinks_adaptively

    value = user_setting("model", "thinking_budget")
    default = value if isinstance(value, int) and value >= 1024 else DEFAULT_THINKING_BUDGET
    if options.thinking is not None:
        budget = default if options.thinking < 0 else options.thinking
        return budget, budget
    setting = user_setting("model", "thinking")
    on = setting is True or (setting is None and thinks_adaptively(model))
    return (default if on else None), default


def compaction_mode() -> str:
    """`auto` (server-side on the first-party API, else on the client), `server`, `client` or
    `off`: `AGENT_TUI_COMPACTION`, else `[context] compaction` in the user's settings."""
    value = os.environ.get("AGENT_TUI_COMPACTION") or user_setting("context", "compaction")
    return value if value in ("auto", "server", "client", "off") else "auto"


def make_agent(
    options: Options,
    ask: AskFn | None = None,
    confirm_spend: SpendFn | None = None,
) -> Agent:
    """The agent for `options`. The system prompt's `git status` begins first
    (`agent.system_prompt.start_git_summary`) and the prompt is written last: git runs while
    the agent is built."""
    from agent_tui.agent.system_prompt import start_git_summary

    git_status = start_git_summary(options.cwd)
    from agent_tui.agent.config import AgentConfig
    from agent_tui.agent.loop import Agent
    from agent_tui.checkpoints.scratch import clean_stale
    from agent_tui.paths import config_dir, data_dir
    from agent_tui.tools.shells import ShellRegistry

    provider, model, small = make_provider(options)
    permissions = make_permissions(options)
    config = AgentConfig(
        stall_timeout=_seconds("AGENT_TUI_STALL_TIMEOUT", 90.0),
        model=model,
        small_model=small,
        cwd=options.cwd,
        data_dir=data_dir(),
        headless=options.headless,
        allow_asks=options.approve_asks,
        max_cost=spending_cap(options),
        compaction=compaction_mode(),
        sandbox=make_sandbox(options, permissions),
        shells=ShellRegistry(),
    )
    from agent_tui.hooks.runner import session_hooks

    config.hooks = session_hooks(options.cwd, permissions, config.sandbox)
    from agent_tui.plugins.session import attach_plugins

    attach_plugins(config, permissions, options.plugin_dirs, trust_all=options.trust_project)
    config.thinking_budget, config.thinking_default = thinking_budget(options, model)
    config.effort, config.max_turns = user_setting("model", "effort"), options.max_turns
    kwargs: dict[str, Any] = {"permissions": permissions}
    if ask is not None:
        kwargs["ask"] = ask
    if confirm_spend is not None:
        kwargs["confirm_spend"] = confirm_spend
    agent = Agent(provider, make_tools(provider, model), config, **kwargs)
    # undo's checkpoints (git snapshots, kept file contents): on unless turned off
    agent.checkpoints.enabled = os.environ.get("AGENT_TUI_CHECKPOINTS", "on").lower() != "off"
    clean_stale(data_dir())  # what killed runs left: temporary files, half-made restores
    add_subagents(agent, options, trusted=project_trusted(options, permissions))
    add_mcp(agent, options)
    from agent_tui.agent.skill_setup import attach_skills

    attach_skills(agent, options.cwd, config_dir())
    config.system, memory = system_prompt(options, model, permissions, git_status)
    agent.memory_files = tuple(memory)
    return agent


def make_sandbox(options: Options, permissions: Any) -> Any:
    """The session's OS sandbox (`sandbox.runner.Sandbox`), not probed yet: `start_notices`
    probes it (the TUI does so after the agent is ready, headless before the turn). Also reaps
    what a killed session left running."""
    from agent_tui.paths import config_dir, data_dir
    from agent_tui.sandbox.config import load_config
    from agent_tui.sandbox.reaper import reap
    from agent_tui.sandbox.runner import Sandbox

    reap(data_dir() / "running")
    config = load_config(config_dir(), options.cwd, options.sandbox, default="auto")
    sandbox = Sandbox(
        config,
        options.cwd,
        permissions,
        data_dir=data_dir(),
        app_dirs=(config_dir(), data_dir()),
    )
    return sandbox


def warm_up(agent: Agent) -> None:
    """Load ahead of the first turn what it will need (call from a worker thread once the app
    takes prompts): the tools' modules and schemas (pydantic), the shell analysis that checks the
    first command (tree-sitter), then the provider's SDK, the slowest."""
    agent.tools.schemas()
    from agent_tui.permissions import bash_check  # noqa: F401  (the command tables)
    from agent_tui.permissions.shell import analyze

    analyze("true")
    sdk = getattr(agent.provider, "warm_up", None)  # a capability: the SDK's providers have it
    if sdk is not None:
        sdk()


def project_trusted(options: Options, permissions: PermissionChecker) -> bool:
    """The person trusted this project (`--trust-project`, the dialog, a stored answer)."""
    return options.trust_project or permissions.project_trusted


def add_mcp(agent: Agent, options: Options) -> None:
    """The session's MCP servers (`mcp_servers.session_setup`), read, not started."""
    from agent_tui.mcp_servers.session_setup import attach_mcp

    trusted = project_trusted(options, agent.permissions)
    attach_mcp(agent, options.cwd, options.mcp_configs, trusted=trusted)


def add_subagents(agent: Agent, options: Options, *, trusted: bool) -> None:
    """The `Task` tool, with the sub-agent types of the user and (if trusted) the project."""
    from agent_tui.agent.subagents import attach_subagents
    from agent_tui.paths import config_dir

    attach_subagents(agent, options.cwd, config_dir(), trusted=trusted)
