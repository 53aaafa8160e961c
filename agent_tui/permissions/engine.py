"""The permission engine: one decision per tool call, from rules, mode and a few safe defaults.

Order, for every tool: deny rules (from every source, matched against every part of a command) →
plan mode's restriction → fail-closed fallbacks from broken settings → yolo → ask rules → allow
rules and defaults → ask. No rule means ask, except reading inside the working directory and the
tiny read-only command list (`readonly.py`). Paths are resolved, symlinks included, before any
check; outside the working directory Read/Write/Edit always ask and are never "always"-able.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from agent_tui.paths import config_dir as default_config_dir
from agent_tui.pathutil import resolve
from agent_tui.permissions import settings as settings_mod
from agent_tui.permissions.decisions import by_rule, edit_rule, plan_denied, read_rule_covers
from agent_tui.permissions.hosts import PreapprovedHosts, default_preapproved
from agent_tui.permissions.protected import protected
from agent_tui.permissions.rules import (
    Rule,
    RuleError,
    match_path,
    parse_rule,
)
from agent_tui.permissions.settings import ALL_TOOLS, LoadedRules, SourcedRule
from agent_tui.permissions.trust import ProjectTrust, TrustStore, TrustSubject, describe_shaping
from agent_tui.permissions.types import MODES, UNGATED_TOOLS, Behavior, Decision, Mode

_PATH_KEYS = ("path", "file_path")
#: read-only tools that search a folder (the working directory when no path is given)
SEARCH_TOOLS = ("Grep", "Glob")


def _grant_text(r: SourcedRule, files: dict[str, Path], cwd: Path) -> str:
    where = r.path.relative_to(cwd) if r.path and r.path.is_relative_to(cwd) else r.path
    return f"{r.rule.text}  ({where or files.get(r.source, r.source)})"


class PermissionEngine:
    def __init__(
        self,
        cwd: Path,
        rules: Iterable[SourcedRule] = (),
        *,
        mode: Mode = "default",
        local_settings: Path | None = None,
        warnings: Iterable[str] = (),
        fallback: Iterable[tuple[str, str]] = (),
        preapproved: PreapprovedHosts | None = None,
        config_dir: Path | None = None,
    ) -> None:
        self.cwd = cwd.resolve()
        #: the user's settings directory (writing there is protected)
        self.config_dir = config_dir.resolve() if config_dir else None
        self._rules: list[SourcedRule] = list(rules)
        self.mode = mode
        self.local_settings = local_settings or (
            self.cwd / settings_mod.PROJECT_DIR / settings_mod.LOCAL_FILE
        )
        self.load_warnings: tuple[str, ...] = tuple(warnings)
        self._fallback = list(fallback)
        self.preapproved = preapproved if preapproved is not None else default_preapproved()
        #: why the last `save_always` couldn't write the local file, or None
        self.save_error: str | None = None
        #: project grants withheld until the person trusts the project
        self.untrusted_grants: tuple[SourcedRule, ...] = ()
        #: the project's MCP servers (`.mcp.json`), as the trust dialog lists them, until trusted
        self.untrusted_servers: tuple[str, ...] = ()
        #: the project's hooks, as the trust dialog lists them, until trusted
        self.untrusted_hooks: tuple[str, ...] = ()
        #: the project's sub-agent types, slash commands and skills (`.claude/`), until trusted
        self.untrusted_files: tuple[str, ...] = ()
        self.trust: ProjectTrust | None = None
        #: folders the file tools treat as the working directory's (`--add-dir`, Claude Code's
        #: additionalDirectories from the person's own settings), resolved
        self.add_dirs: tuple[Path, ...] = ()
        #: what the session does once the person trusts the project (its sub-agent types load)
        self.on_trusted: list[Callable[[], None]] = []
        #: what waits at the same gate from outside the project (the session's plugins)
        self.subjects: list[TrustSubject] = []

    @classmethod
    def load(
        cls,
        cwd: Path,
        mode: Mode = "default",
        allow: Iterable[str] = (),
        deny: Iterable[str] = (),
        config_dir: Path | None = None,
        trust_project: bool = False,
    ) -> PermissionEngine:
        """Read user, project and local settings plus `--allow`/`--deny`; never raises on them.

        The project's own grants apply only if the project is trusted (a stored answer, or
        `trust_project`); otherwise they wait in `untrusted_grants` for the person to decide.
        """
        cwd = cwd.resolve()
        config_dir = config_dir or default_config_dir()
        store = TrustStore.at(config_dir)
        files = store.files(cwd)
        state = "trusted" if trust_project else store.state(files)
        trusted = ("project", "local") if state == "trusted" else ()
        from agent_tui.permissions.claude_rules import read_all

        loaded: LoadedRules = settings_mod.load_rules(
            cwd,
            config_dir,
            allow,
            deny,
            trusted,
            own=store.own_rules(cwd),
            more=[partial(read_all, cwd)],
        )
        paths = settings_mod.settings_paths(cwd, config_dir)
        engine = cls(
            cwd,
            loaded.rules,
            mode=mode,
            local_settings=paths["local"],
            warnings=loaded.warnings,
            fallback=loaded.fallback,
            config_dir=config_dir,
        )
        engine.untrusted_grants = tuple(loaded.untrusted)
        if state != "trusted":
            engine.untrusted_files = describe_shaping(cwd)
        engine.trust = ProjectTrust(store, files, state)
        return engine

    # --- project trust ---

    @property
    def trust_question(self) -> tuple[str, ...]:
        """What the trust dialog lists: the project's grants, then what each waiting subject (a
        plugin) brings; empty when there is nothing to decide."""
        return self._project_question() + tuple(s for x in self.subjects for s in x.waiting)

    def _project_question(self) -> tuple[str, ...]:
        withheld = (self.untrusted_grants, self.untrusted_servers, self.untrusted_hooks)
        if not any(withheld) and not self.untrusted_files:
            return ()
        if self.trust is None or self.trust.state is not None:
            return ()
        files = {
            source: path.relative_to(self.cwd)
            for source, path in (
                ("project", self.local_settings.with_name(settings_mod.PROJECT_FILE)),
                ("local", self.local_settings),
            )
            if path.is_relative_to(self.cwd)
        }
        grants = tuple(_grant_text(r, files, self.cwd) for r in self.untrusted_grants)
        return grants + self.untrusted_servers + self.untrusted_hooks + self.untrusted_files

    @property
    def project_trusted(self) -> bool:
        """The person trusted this project (its grants and MCP servers apply)."""
        return self.trust is not None and self.trust.state == "trusted"

    def decide_trust(self, trusted: bool) -> None:
        """The person's answer to what the dialog listed: apply the withheld grants (trust) or
        keep ignoring them (a project answered before keeps its answer); subjects get it too."""
        for subject in self.subjects:
            subject.decide(trusted)
        if self.trust is not None and self.trust.state is not None:
            return
        if trusted:
            self._rules.extend(self.untrusted_grants)
            self.untrusted_grants = ()
            self.untrusted_servers = self.untrusted_hooks = self.untrusted_files = ()
            for then in self.on_trusted:
                then()
        if self.trust is not None:
            self.trust.state = "trusted" if trusted else "ignored"
            with contextlib.suppress(OSError):
                self.trust.store.record(self.trust.files, self.trust.state)

    # --- state ---

    @property
    def mode(self) -> Mode:
        return self._mode

    @mode.setter
    def mode(self, value: Mode) -> None:
        if value not in MODES:
            raise ValueError(f"unknown mode {value!r}; expected one of {', '.join(MODES)}")
        self._mode = value

    @property
    def settings_broken(self) -> bool:
        """A settings file or a deny/ask rule couldn't be read: some tools ask until it's fixed."""
        return bool(self._fallback)

    @property
    def rules(self) -> tuple[SourcedRule, ...]:
        return tuple(self._rules)

    @property
    def explicit_hosts(self) -> frozenset[str]:
        """Hosts the person named in `WebFetch(domain:...)` allow rules of their own (user
        settings or the command line, never the project's), in canonical spelling: only these
        may reach loopback, private, link-local or metadata addresses."""
        return frozenset(
            r.rule.domain
            for r in self._rules
            if r.behavior == "allow"
            and r.rule.tool == "WebFetch"
            and r.source in ("user", "cli")
            and r.rule.domain
            and r.rule.canonical
            and not r.rule.domain.startswith("*.")
        )

    def add_rules(self, texts: Iterable[str], behavior: Behavior, source: str = "session") -> None:
        """Add rules for this process only; raises RuleError for a malformed one."""
        parsed = [parse_rule(t) for t in texts]
        self._rules.extend(SourcedRule(r, behavior, source) for r in parsed)

    def remove_rule(self, r: SourcedRule) -> None:
        """Drop a rule now, and from the settings file it came from (raises SettingsError when
        that file can't be changed; the rule then stays)."""
        if r.path is not None:
            from agent_tui.permissions.claude_rules import remove_json_rule

            remove_json_rule(r.path, r.behavior, r.rule.text)
        elif r.source in ("user", "project", "local"):
            where = settings_mod.settings_paths(self.cwd, self.config_dir or default_config_dir())
            settings_mod.remove_rule(where[r.source], r.behavior, r.rule.text)
        self._rules = [x for x in self._rules if x != r]

    def save_always(self, rules: Iterable[str]) -> tuple[str, ...]:
        """Apply allow rules at once and append them to the local settings file.

        Returns the rules saved. Raises ValueError (and changes nothing) for a rule that is
        malformed or that the local file may not hold. If only the write fails, the rules still
        apply for this session, () is returned and `save_error` says why.
        """
        parsed: list[Rule] = []
        for text in rules:
            try:
                rule = parse_rule(text)
            except RuleError as e:
                raise ValueError(str(e)) from None
            refused = settings_mod.restriction(rule)
            if refused:
                raise ValueError(f"{rule.text}: {refused}")
            parsed.append(rule)
        known = {r.rule.text for r in self._rules if r.behavior == "allow"}
        self._rules.extend(SourcedRule(r, "allow", "local") for r in parsed if r.text not in known)
        texts = tuple(dict.fromkeys(r.text for r in parsed))
        created = not self.local_settings.exists()
        try:
            settings_mod.append_allow_rules(self.local_settings, texts)
            if created:
                with contextlib.suppress(OSError):
                    settings_mod.ignore_in_git(self.cwd, self.local_settings)
        except (settings_mod.SettingsError, OSError) as e:
            self.save_error = str(e)
            return ()
        self.save_error = None
        if self.trust is not None:  # what the app wrote for the person needs no trust
            with contextlib.suppress(OSError):
                self.trust.store.record_own_rules(self.cwd, texts, self.trust.state)
        return texts

    # --- deciding ---

    def check(self, tool: str, input: dict[str, Any], *, read_only: bool) -> Decision:
        try:
            return self._check(tool, input if isinstance(input, dict) else {}, read_only)
        except Exception as e:  # fail closed: a bug here must never allow
            return Decision("ask", reason=f"the permission check failed ({type(e).__name__}: {e})")

    def read_denied(self, path: Path) -> bool:
        """A deny rule keeps `path` from being read (Grep and Glob leave it out)."""
        return read_rule_covers(self._rules, "deny", lambda: self.paths_of(str(path)), self.cwd)

    def read_allowed(self, path: Path) -> bool:  # a rule of the person's own names the place
        return read_rule_covers(self._rules, "allow", lambda: (path,), self.cwd)

    def _check(self, tool: str, input: dict[str, Any], read_only: bool) -> Decision:
        if tool in SEARCH_TOOLS and not input.get("path"):
            input = {**input, "path": "."}  # they search the working directory by default
        if tool == "Bash":
            return self._bash(input, read_only)
        if tool in ("Read", "Write", "Edit") or (
            read_only and any(isinstance(input.get(k), str) for k in _PATH_KEYS)
        ):
            return self._file(tool, input, read_only)
        if tool == "WebFetch":
            return self._webfetch(input, read_only)
        return self._plain(tool, read_only)

    def rules_of(self, behavior: Behavior, tool: str) -> Iterator[SourcedRule]:
        return (r for r in self._rules if r.behavior == behavior and r.rule.covers(tool))

    def fallback_reason(self, tool: str) -> str | None:
        key = "Edit" if tool == "Write" else tool
        return next((why for t, why in self._fallback if t in (ALL_TOOLS, key)), None)

    def gate(self, tool: str, read_only: bool) -> Decision | None:
        """The checks between deny rules and ask rules: plan mode, broken settings, yolo."""
        if self.mode == "plan" and not read_only:
            return plan_denied(tool)
        why = self.fallback_reason(tool)
        if why:
            return Decision("ask", reason=f"{why}: asking until it is fixed", source="default")
        if self.mode == "yolo":
            return Decision("allow", reason="yolo mode allows everything not denied", source="mode")
        return None

    def _plain(self, tool: str, read_only: bool) -> Decision:
        """WebSearch and any other tool: bare-name rules only."""
        for r in self.rules_of("deny", tool):
            if r.rule.bare:
                return by_rule("deny", r)
        gate = self.gate(tool, read_only)
        if gate:
            return gate
        for behavior in ("ask", "allow"):
            for r in self.rules_of(behavior, tool):
                if r.rule.bare:
                    return by_rule(behavior, r)
        if tool in UNGATED_TOOLS:
            return Decision("allow", reason=UNGATED_TOOLS[tool])
        return Decision("ask", reason=f"no rule allows {tool}", suggestions=(tool,))

    # --- files ---

    def paths_of(self, raw: str) -> tuple[Path, Path]:
        """(resolved, lexical): rules that restrict match either; allow rules the resolved one."""
        lexical = Path(os.path.normpath(self.cwd / os.path.expanduser(raw)))
        return resolve(raw, self.cwd), lexical

    def _file(self, tool: str, input: dict[str, Any], read_only: bool) -> Decision:
        editing = tool in ("Write", "Edit")
        kind = "Edit" if editing else "Read"
        raw = next((input[k] for k in _PATH_KEYS if isinstance(input.get(k), str)), None)
        if raw is None or not raw or "\x00" in raw:
            if any(r.rule.bare for r in self.rules_of("deny", tool)):
                return by_rule("deny", next(r for r in self.rules_of("deny", tool) if r.rule.bare))
            return Decision("ask", reason=f"{tool} without a usable path")
        resolved, lexical = self.paths_of(raw)

        def hits(behavior: Behavior, *paths: Path) -> SourcedRule | None:
            return self._file_rule(behavior, tool, kind, paths)

        denied = hits("deny", resolved, lexical)
        if denied:
            return by_rule("deny", denied)
        gate = self.gate(tool, read_only or not editing)
        if gate:
            return gate
        asked = hits("ask", resolved, lexical)
        if asked:
            return by_rule("ask", asked)
        why = protected([resolved, lexical], self.config_dir) if editing else None
        if why:
            return Decision("ask", reason=f"a protected file: {why}", risk=f"changes {why}")
        if not any(resolved.is_relative_to(d) for d in (self.cwd, *self.add_dirs)):
            from agent_tui.permissions.outside import in_system_folder  # loaded when first used

            if not editing and (in_system_folder(resolved) or self.read_allowed(resolved)):
                return Decision("allow", reason=f"reading {resolved}, which may be read anywhere")
            return Decision("ask", reason=f"{resolved} is outside the working directory {self.cwd}")
        allowed = hits("allow", resolved)
        if allowed:
            return by_rule("allow", allowed)
        if not editing:
            return Decision("allow", reason="reading inside the working directory")
        if self.mode == "accept-edits":
            return Decision(
                "allow",
                reason="accept-edits mode allows edits in the working directory",
                source="mode",
            )
        rel = edit_rule(resolved, self.cwd)
        return Decision(
            "ask", reason=f"no rule allows editing {resolved}", suggestions=(rel,) if rel else ()
        )

    def _file_rule(
        self, behavior: Behavior, tool: str, kind: str, paths: tuple[Path, ...]
    ) -> SourcedRule | None:
        """The first `behavior` rule for `kind` (Read or Edit; a bare rule covering `tool`
        too) that matches one of `paths`."""
        for r in self._rules:
            if r.behavior != behavior:
                continue
            if (r.rule.tool == kind or (r.rule.bare and r.rule.covers(tool))) and any(
                match_path(r.rule, p, self.cwd) for p in paths
            ):
                return r
        return None

    def _webfetch(self, input: dict[str, Any], read_only: bool) -> Decision:
        from agent_tui.permissions.web_decision import webfetch_decision

        return webfetch_decision(self, input, read_only)

    def _bash(self, input: dict[str, Any], read_only: bool) -> Decision:
        # bash_check.py: imported with the first command (tree-sitter, the tables), not at start.
        from agent_tui.permissions import bash_check

        return bash_check.decide(self, input)

    # --- shared with bash_check ---

    def edit_rule_for(
        self, behavior: Behavior, resolved: Path | None, lexical: Path | None = None
    ) -> SourcedRule | None:
        paths = [p for p in (resolved, lexical) if p is not None]
        for r in self.rules_of(behavior, "Edit"):
            if any(match_path(r.rule, p, self.cwd) for p in paths):
                return r
        return None
