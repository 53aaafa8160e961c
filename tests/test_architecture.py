"""The shape of the code base, checked: no import cycles (function-local and TYPE_CHECKING imports
included), no Textual below `ui/`, and small modules."""

from __future__ import annotations

import ast
from pathlib import Path

import agent_tui

ROOT = Path(agent_tui.__file__).parent
#: a module may be this long; the few that are longer say why here
MAX_LINES = 420
LONGER: dict[str, str] = {}


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


def test_the_core_never_imports_textual() -> None:
    for name, path in modules().items():
        if name.startswith("agent_tui.ui"):
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


def test_modules_stay_small() -> None:
    long = {
        name: n
        for name, path in modules().items()
        if (n := len(path.read_text("utf-8").splitlines())) > MAX_LINES and name not in LONGER
    }
    assert long == {}


def test_the_checker_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
