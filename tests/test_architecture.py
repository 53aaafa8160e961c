"""The shape of the code base, checked: no import cycles (function-local and TYPE_CHECKING imports
included), imports that point down the layers only, no Textual below `ui/` (but for the speed-ups
to it), and small modules."""

from __future__ import annotations

import ast
from pathlib import Path

import agent_tui

ROOT = Path(agent_tui.__file__).parent
#: a module may be this long (what keeps one concept together; complexity is limited per function,
#: by ruff's C901); the few that are longer say why here
MAX_LINES = 600
LONGER: dict[str, str] = {
    # the event vocabulary: many small classes, each with its docstring (issue 34)
    "agent_tui.protocol.events": "one short, documented class per event",
}


def modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Every agent_tui module `path` imports, wherever the import statement is."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports(path, name, known) for name, path in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    assert cycles(graph()) == []


#: The layers, lowest first. A unit is a package under agent_tui/ or a module at its top; a module
#: imports from its own unit or from a unit of a lower layer, never from its layer's other units
#: nor from above (function-local and TYPE_CHECKING imports included). A new unit is placed here.
LAYERS: tuple[tuple[str, ...], ...] = (
    # the ground: pure helpers that import nothing of ours
    (
        *("agent_tui", "protocol", "text", "redact", "diffs", "paths", "pathutil", "toml_file"),
        *("models", "git_run", "front_matter", "piped_input", "structured_output"),
    ),
    # what decides and what streams: the permission engine, the providers, the settings' checks;
    # the debug log, and the speed-ups to Textual (behind their guard)
    ("permissions", "providers", "settings_check", "headless_gc", "headless_denials"),
    ("debug_log", "speedups"),
    # what stands on the engine: pages, undo, Claude Code's skills, flags and worktrees
    ("web", "checkpoints", "skills", "claude_flags", "worktree"),
    ("sandbox", "slash_commands"),
    ("tools",),
    ("hooks", "mcp_servers"),
    # the turn, and the plugins that bring hooks and servers to it
    ("agent", "plugins"),
    # a session built from options; Claude Code's stream-json lines of a turn
    ("runtime", "stream_json"),
    # what records a session; the person's status command
    ("sessions", "status_line"),
    # the front ends
    ("headless", "acp", "ui"),
    ("cli",),
    ("__main__",),
)


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def upward(g: dict[str, set[str]], layers: tuple[tuple[str, ...], ...]) -> list[str]:
    """Every import that doesn't point down a layer ("a -> b"), and every unit without one."""
    rank = {u: i for i, layer in enumerate(layers) for u in layer}
    found = [f"{unit(m)}: no layer" for m in g if unit(m) not in rank]
    for module, imported in g.items():
        for other in imported:
            a, b = unit(module), unit(other)
            if a != b and a in rank and b in rank and rank[b] >= rank[a]:
                found.append(f"{module} -> {other}")
    return sorted(set(found))


def test_imports_point_down_the_layers() -> None:
    assert upward(graph(), LAYERS) == []


def test_the_layer_checker_sees_an_upward_import_and_an_unplaced_unit() -> None:
    g = {"x.low.a": {"x.high.b"}, "x.high.b": set(), "x.peer": {"x.low.a"}, "x.new": set()}
    layers = (("low",), ("high", "peer"))
    assert upward(g, layers) == ["new: no layer", "x.low.a -> x.high.b"]


#: the one place outside `ui/` that imports Textual: the speed-ups to it, behind their guard
TEXTUAL_SPEEDUPS = "agent_tui.speedups."


def test_the_core_never_imports_textual() -> None:
    for name, path in modules().items():
        if name.startswith(("agent_tui.ui", TEXTUAL_SPEEDUPS)):
            continue
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n.split(".")[0] == "textual" for n in names), name


def _names_of_ours(tree: ast.AST) -> set[str]:
    """Every name a module of ours defines, binds or stores as an attribute."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add(node.asname or node.name.split(".")[-1])
        elif isinstance(node, ast.arg):
            found.add(node.arg)
    return found


def private_reads(prefix: str) -> dict[str, list[str]]:
    """`obj._name` read in the modules under `prefix` where no module of ours (the speed-ups
    aside) defines `_name`: someone else's private -> where."""
    trees = {
        name: ast.parse(path.read_text("utf-8"))
        for name, path in modules().items()
        if not name.startswith(TEXTUAL_SPEEDUPS)
    }
    ours = set().union(*(_names_of_ours(tree) for tree in trees.values()))
    found: dict[str, list[str]] = {}
    for name, tree in trees.items():
        if not name.startswith(prefix):
            continue
        for node in ast.walk(tree):
            attr = node.attr if isinstance(node, ast.Attribute) else ""
            if attr.startswith("_") and not attr.startswith("__") and attr not in ours:
                found.setdefault(attr, []).append(f"{name}:{node.lineno}")
    return found


def test_the_ui_reads_no_textual_private_outside_the_speedups() -> None:
    """What the chat reads of Textual's internals (`_layout_updates`, `_nodes._updates`,
    `styles._cache_key`, the driver) is read through `speedups.textual_privates`, behind the
    guard: nowhere else in `ui/`."""
    assert private_reads("agent_tui.ui") == {}


def test_the_private_read_check_sees_one() -> None:
    tree = ast.parse("def f(widget):\n    return widget._layout_updates\n")
    assert "_layout_updates" not in _names_of_ours(tree)
    assert "_mine" in _names_of_ours(
        ast.parse("class A:\n    def f(self):\n        self._mine = 1\n")
    )


def test_modules_stay_small() -> None:
    long = {
        name: n
        for name, path in modules().items()
        if (n := len(path.read_text("utf-8").splitlines())) > MAX_LINES and name not in LONGER
    }
    assert long == {}


def test_the_checker_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


#: the one module that starts git (its neutral settings; `git_config.project_programs` guards)
GIT_RUNNER = "agent_tui.git_run"
_SPAWNERS = frozenset(
    {"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
    | {"create_subprocess_exec", "create_subprocess_shell", "system", "popen", "spawn"}
    | {"execv", "execvp", "execvpe", "execl", "execlp", "posix_spawn", "posix_spawnp"}
)


def git_spawns(source: str) -> list[int]:
    """Lines where `source` starts git itself: an argv whose first word is "git" (a list or tuple,
    wherever it is built — compared tuples aside), `which("git")`, or a shell line running git."""
    tree = ast.parse(source)
    compared = {
        id(side)
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        for side in (node.left, *node.comparators)
    }
    found: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple) and id(node) not in compared:
            first = node.elts[0] if node.elts else None
            if isinstance(first, ast.Constant) and first.value == "git":
                found.append(node.lineno)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            words = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if name == "which" and "git" in words:
                found.append(node.lineno)
            shell_git = any(isinstance(w, str) and w.split()[:1] == ["git"] for w in words)
            if name in _SPAWNERS and shell_git:
                found.append(node.lineno)
    return found


def test_only_the_git_runner_starts_git() -> None:
    """Git the app runs on its own goes through `agent_tui.git_run` (settings that run nothing;
    repositories that configure a program passed by): no other module starts it."""
    starts = {
        name: lines
        for name, path in modules().items()
        if name != GIT_RUNNER and (lines := git_spawns(path.read_text("utf-8")))
    }
    assert starts == {}
    assert git_spawns((ROOT / "git_run.py").read_text("utf-8"))  # the checker sees its argv


def test_the_git_checker_sees_each_way_of_starting_git() -> None:
    assert git_spawns('subprocess.run(["git", "-C", d, "status"])') == [1]
    assert git_spawns('args = [\n    "git",\n    "ls-files",\n]\nPopen(args)') == [1]
    assert git_spawns('g = shutil.which("git")') == [1]
    assert git_spawns('os.system("git add -A")') == [1]
    assert git_spawns("await asyncio.create_subprocess_exec(*('git', 'status'))") == [1]
    assert git_spawns('ok = p.argv[:1] == ("git",)') == []
    assert git_spawns('if name == "git": pass') == []
