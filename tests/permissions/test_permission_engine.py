"""The engine beyond Bash: deny > ask > allow across sources, modes, path confinement, web."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.permissions.engine import PermissionEngine


def make(cwd: Path, allow=(), deny=(), ask=(), mode="default") -> PermissionEngine:  # type: ignore[no-untyped-def]
    engine = PermissionEngine.load(cwd, mode=mode, allow=allow, deny=deny, config_dir=cwd / "cfg")
    if ask:
        engine.add_rules(ask, "ask")
    return engine


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("s")
    return work


# --- precedence ---


def test_deny_beats_ask_beats_allow(cwd: Path) -> None:
    e = make(cwd, allow=["Bash(git:*)"], ask=["Bash(git push:*)"])
    assert e.check("Bash", {"command": "git push"}, read_only=False).behavior == "ask"
    e.add_rules(["Bash(git push --force:*)"], "deny")
    d = e.check("Bash", {"command": "git push --force"}, read_only=False)
    assert (d.behavior, d.rule, d.source) == ("deny", "Bash(git push --force:*)", "rule")


def test_precedence_holds_across_sources(cwd: Path) -> None:
    user = cwd / "cfg"
    user.mkdir()
    (user / "settings.toml").write_text('[permissions]\nallow = ["Bash(rm:*)"]\n')
    (cwd / ".agent-tui").mkdir()
    (cwd / ".agent-tui" / "settings.toml").write_text('[permissions]\ndeny = ["Bash(rm -rf:*)"]\n')
    e = PermissionEngine.load(cwd, config_dir=user)
    assert e.check("Bash", {"command": "rm x"}, read_only=False).behavior == "allow"
    d = e.check("Bash", {"command": "rm -rf x"}, read_only=False)
    assert d.behavior == "deny" and "project" in d.reason


def test_no_rule_asks_and_reason_says_so(cwd: Path) -> None:
    d = make(cwd).check("Bash", {"command": "make"}, read_only=False)
    assert d.behavior == "ask" and d.rule is None and "make" in d.reason
    assert d.suggestions == ("Bash(make)",)


# --- modes ---


def test_mode_is_settable_and_validated(cwd: Path) -> None:
    e = make(cwd)
    e.mode = "accept-edits"
    assert e.check("Write", {"path": "src/new.py"}, read_only=False).behavior == "allow"
    with pytest.raises(ValueError):
        e.mode = "reckless"  # type: ignore[assignment]


def test_accept_edits_only_inside_cwd(cwd: Path) -> None:
    e = make(cwd, mode="accept-edits")
    d = e.check("Edit", {"path": "src/a.py"}, read_only=False)
    assert (d.behavior, d.source) == ("allow", "mode")
    out = e.check("Write", {"path": "../outside/x"}, read_only=False)
    assert out.behavior == "ask" and out.suggestions == ()


def test_plan_mode_allows_only_read_only_tools(cwd: Path) -> None:
    e = make(cwd, allow=["Bash(pytest:*)", "Edit(src/**)"], mode="plan")
    assert e.check("Read", {"path": "src/a.py"}, read_only=True).behavior == "allow"
    for tool, inp in [("Write", {"path": "src/a.py"}), ("Bash", {"command": "pytest"})]:
        d = e.check(tool, inp, read_only=False)
        assert d.behavior == "deny" and "plan mode" in d.reason and d.source == "mode"
    assert e.check("Bash", {"command": "git status"}, read_only=False).behavior == "allow"
    assert e.check("WebSearch", {"query": "x"}, read_only=True).behavior == "ask"


def test_yolo_allows_all_but_deny(cwd: Path) -> None:
    e = make(cwd, deny=["Read(**/.env)", "WebFetch(domain:evil.example)"], mode="yolo")
    assert e.check("Write", {"path": "/etc/passwd"}, read_only=False).behavior == "allow"
    assert e.check("WebFetch", {"url": "https://x.example/"}, read_only=True).behavior == "allow"
    assert e.check("Read", {"path": "sub/.env"}, read_only=True).behavior == "deny"
    assert e.check("WebFetch", {"url": "https://evil.example/"}, read_only=True).behavior == "deny"


# --- paths ---


def test_read_inside_cwd_defaults_to_allow(cwd: Path) -> None:
    d = make(cwd).check("Read", {"path": "src/a.py"}, read_only=True)
    assert (d.behavior, d.source) == ("allow", "default")


@pytest.mark.parametrize("path", ["../outside/secret", "src/../../outside/secret", "/etc/hosts"])
def test_outside_cwd_always_asks_without_always(cwd: Path, path: str) -> None:
    e = make(cwd, allow=["Read", "Edit"], mode="accept-edits")
    for tool in ("Read", "Write", "Edit"):
        d = e.check(tool, {"path": path}, read_only=tool == "Read")
        assert d.behavior == "ask" and d.suggestions == () and "outside" in d.reason


def test_sibling_with_common_prefix_is_outside(cwd: Path) -> None:
    evil = cwd.parent / (cwd.name + "-evil")
    evil.mkdir()
    d = make(cwd).check("Read", {"path": str(evil / "x")}, read_only=True)
    assert d.behavior == "ask"


def test_symlink_out_of_cwd_is_outside(cwd: Path) -> None:
    (cwd / "link").symlink_to(cwd.parent / "outside")
    e = make(cwd, mode="accept-edits")
    assert e.check("Read", {"path": "link/secret"}, read_only=True).behavior == "ask"
    assert e.check("Write", {"path": "link/new"}, read_only=False).behavior == "ask"
    assert e.check("Bash", {"command": "echo x > link/new"}, read_only=False).behavior == "ask"


def test_symlink_inside_cwd_is_checked_at_its_target(cwd: Path) -> None:
    (cwd / "docs").mkdir()
    (cwd / "docs" / "alias.py").symlink_to(cwd / "src" / "a.py")
    e = make(cwd, allow=["Edit(docs/**)"], deny=["Read(src/**)"])
    # allowed by path as written, but it writes src/a.py: only the target counts for allow
    assert e.check("Edit", {"path": "docs/alias.py"}, read_only=False).behavior == "ask"
    # restricting rules see both the path as written and its target
    assert e.check("Read", {"path": "docs/alias.py"}, read_only=True).behavior == "deny"


def test_edit_rules_cover_write_and_suggest_relative_path(cwd: Path) -> None:
    e = make(cwd, allow=["Edit(src/**)"])
    assert e.check("Write", {"path": "src/new.py"}, read_only=False).behavior == "allow"
    d = e.check("Write", {"path": "notes.md"}, read_only=False)
    assert d.behavior == "ask" and d.suggestions == ("Edit(./notes.md)",)
    nested = e.check("Edit", {"file_path": "docs/x/y.md"}, read_only=False)
    assert nested.suggestions == ("Edit(docs/x/y.md)",)


def test_read_deny_and_ask_rules(cwd: Path) -> None:
    e = make(cwd, deny=["Read(.env)"], ask=["Read(src/**)"])
    assert e.check("Read", {"path": "deep/.env"}, read_only=True).behavior == "deny"
    assert e.check("Read", {"path": "src/a.py"}, read_only=True).behavior == "ask"


def test_other_read_only_tools_get_the_read_default(cwd: Path) -> None:
    e = make(cwd, deny=["Read(secret/**)"])
    assert e.check("Grep", {"path": "src"}, read_only=True).behavior == "allow"
    assert e.check("Grep", {"path": "../outside"}, read_only=True).behavior == "ask"
    assert e.check("Grep", {"path": "secret/x"}, read_only=True).behavior == "deny"


def test_missing_path_asks(cwd: Path) -> None:
    assert make(cwd).check("Write", {}, read_only=False).behavior == "ask"


# --- web ---


def test_webfetch_rules_and_suggestion(cwd: Path) -> None:
    e = make(cwd, allow=["WebFetch(domain:example.com)"])
    assert e.check("WebFetch", {"url": "https://EXAMPLE.com/a"}, read_only=True).behavior == "allow"
    d = e.check("WebFetch", {"url": "https://other.org/x?y"}, read_only=True)
    assert d.behavior == "ask" and d.suggestions == ("WebFetch(domain:other.org)",)
    assert e.check("WebFetch", {"url": "ftp://example.com/"}, read_only=True).behavior == "ask"
    assert e.check("WebFetch", {"url": 3}, read_only=True).behavior == "ask"


def test_userinfo_does_not_fool_the_host(cwd: Path) -> None:
    e = make(cwd, allow=["WebFetch(domain:example.com)"])
    d = e.check("WebFetch", {"url": "https://example.com@evil.org/"}, read_only=True)
    assert d.behavior == "ask" and d.suggestions == ("WebFetch(domain:evil.org)",)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://docs.python.org/3/library/", "allow"),
        ("https://github.com/anthropics", "allow"),
        ("https://github.com/anthropics/claude-code/issues", "allow"),
        ("https://github.com/anthropics-evil/x", "ask"),
        ("https://github.com/other", "ask"),
        ("https://github.com/anthropics/../evil", "ask"),
        ("https://github.com/anthropics/%2e%2e/evil", "ask"),
        ("https://vercel.com/docs/x", "allow"),
        ("https://vercel.com/blog", "ask"),
        ("https://docs.python.org:8443/3/", "ask"),
        ("https://docs.python.org.evil.com/", "ask"),
    ],
)
def test_preapproved_hosts(cwd: Path, url: str, expected: str) -> None:
    assert make(cwd).check("WebFetch", {"url": url}, read_only=True).behavior == expected


def test_preapproved_is_for_webfetch_only_and_deny_wins(cwd: Path) -> None:
    e = make(cwd, deny=["WebFetch(domain:docs.python.org)"])
    assert e.check("WebFetch", {"url": "https://docs.python.org/"}, read_only=True).behavior == (
        "deny"
    )
    d = e.check("Bash", {"command": "curl https://docs.python.org/"}, read_only=False)
    assert d.behavior == "ask"


def test_loopback_hosts_get_no_always(cwd: Path) -> None:
    d = make(cwd).check("WebFetch", {"url": "http://127.0.0.1:8000/"}, read_only=True)
    assert d.behavior == "ask" and d.suggestions == ()


def test_explicit_hosts(cwd: Path) -> None:
    e = make(
        cwd,
        allow=["WebFetch(domain:LocalHost)", "WebFetch(domain:docs.example)", "WebFetch"],
        deny=["WebFetch(domain:bad.example)"],
    )
    assert e.explicit_hosts == frozenset({"localhost", "docs.example"})
    e.save_always(["WebFetch(domain:new.example)"])
    # saved to the project's local file: a grant, but never an exemption from the address checks
    assert "new.example" not in e.explicit_hosts


def test_websearch_and_other_tools(cwd: Path) -> None:
    e = make(cwd)
    d = e.check("WebSearch", {"query": "q"}, read_only=True)
    assert d.behavior == "ask" and d.suggestions == ("WebSearch",)
    e.add_rules(["WebSearch"], "allow")
    assert e.check("WebSearch", {"query": "q"}, read_only=True).behavior == "allow"
    e.add_rules(["WebSearch"], "deny")
    assert e.check("WebSearch", {"query": "q"}, read_only=True).behavior == "deny"


def test_check_never_raises(cwd: Path) -> None:
    e = make(cwd)
    for tool, inp in [("Bash", {"command": None}), ("Read", {"path": 5}), ("X", None)]:
        assert e.check(tool, inp, read_only=False).behavior == "ask"  # type: ignore[arg-type]


# --- suggestions ---


@pytest.mark.parametrize(
    ("command", "suggestions"),
    [
        ("git fetch -q", ("Bash(git fetch:*)",)),
        ("pytest -q", ("Bash(pytest:*)",)),
        ("npm run build --prod", ("Bash(npm run build:*)",)),
        ("pnpm install", ("Bash(pnpm install:*)",)),
        ("cargo test --all", ("Bash(cargo test:*)",)),
        ("go test ./...", ("Bash(go test:*)",)),
        ("docker ps -a", ("Bash(docker ps:*)",)),
        ("kubectl get pods", ("Bash(kubectl get:*)",)),
        ("uv run pytest", ("Bash(uv run pytest:*)",)),
        ("pip install -e .", ("Bash(pip install:*)",)),
        ("make test", ("Bash(make test:*)",)),
        ("git push && git pull", ()),
        ("pytest a && pytest b", ("Bash(pytest:*)",)),
        ("node build.js", ("Bash(node build.js)",)),
        ("bash -c 'pytest -q'", ("Bash(pytest:*)",)),
        ("timeout 60 pytest", ("Bash(pytest:*)",)),
        ("sudo apt update", ()),
        ("eval 'pytest'", ()),
        ("pytest $(cat files)", ()),
        ("python3 $SCRIPT", ()),
    ],
)
def test_always_suggestions(cwd: Path, command: str, suggestions: tuple[str, ...]) -> None:
    d = make(cwd, allow=["Bash(cat:*)"]).check("Bash", {"command": command}, read_only=False)
    assert d.behavior == "ask"
    assert d.suggestions == suggestions


def test_saving_a_suggestion_allows_the_same_command_next_time(cwd: Path) -> None:
    e = make(cwd)
    command = {"command": "git log --oneline -5 && pytest -q"}
    d = e.check("Bash", command, read_only=False)
    assert d.behavior == "ask"
    assert e.save_always(d.suggestions) == d.suggestions
    assert e.check("Bash", command, read_only=False).behavior == "allow"
    assert e.check("Bash", {"command": "git push"}, read_only=False).behavior == "ask"


def test_git_log_suggests_its_verb() -> None:
    # `git log` itself is on the read-only list, so ask the suggester directly.
    from agent_tui.permissions.shell import analyze
    from agent_tui.permissions.suggest import suggest_parts

    assert suggest_parts(analyze("git log --oneline -5").parts) == ("Bash(git log:*)",)
