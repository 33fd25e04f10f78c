"""No import cycles in mcp_inspector, between modules or between folders, counting imports made
inside functions too.

A cycle hidden in a function-level import still ties two modules together (neither
can be read, tested or moved without the other), so every ``import`` statement
anywhere in a module counts, ``TYPE_CHECKING`` blocks included. Shared pieces go
to a module both sides can import (e.g. ``core/traffic/entry.py``,
``tui/text/traffic_text.py``).

Folders depend one way too. At each level of the tree, the sub-folders of one package form a
graph (``core/transport`` -> ``core/base`` when a module anywhere under ``transport`` imports one
anywhere under ``base``) that must have no cycle; a package's own modules (``tui/app.py``,
``tui/messages.py``) are its shell and are not checked against its sub-folders. The layers of
``core`` today, bottom up: ``base`` (JSON text, JSON-RPC model, framing, errors, masking, safe
files) < ``traffic``, ``transport`` < ``auth`` < ``config`` < ``protocol`` < ``session`` < the rest.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mcp_inspector

PACKAGE_DIR = Path(mcp_inspector.__file__).resolve().parent


def module_names(package_dir: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package) for every module under ``package_dir``."""
    found = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = (path, is_package)
    return found


def _known(name: str, modules: dict) -> str | None:
    """The module itself, or the nearest enclosing package that is one of ours."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (anywhere in its body)."""
    modules = module_names(package_dir)
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(_known(alias.name, modules) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    targets.add(submodule if submodule in modules else _known(base, modules))
        targets.discard(None)
        targets.discard(name)
        graph[name] = targets  # type: ignore[assignment]
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def describe(component: list[str], graph: dict[str, set[str]]) -> str:
    inside = set(component)
    return "; ".join(f"{name} -> {', '.join(sorted(graph[name] & inside))}" for name in component)


def test_the_package_has_no_import_cycles() -> None:
    graph = import_graph(PACKAGE_DIR)
    # The walk really covered the package, sub-packages and function-level imports included.
    assert "mcp_inspector.core.traffic.store" in graph["mcp_inspector.core.traffic.export"]
    assert "mcp_inspector.tui.widgets.views.overview" in graph["mcp_inspector.tui.screens.main.view_switcher"]
    found = cycles(graph)
    assert found == [], "import cycles: " + " | ".join(describe(c, graph) for c in found)


def test_a_cycle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from .sub.b import thing\n")
    (package / "sub" / "b.py").write_text("def thing():\n    from .. import a\n    return a\n")
    (package / "c.py").write_text("import pkg.a\n")
    graph = import_graph(package)
    assert graph["pkg.sub.b"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b"]]


# Folder cycles that were there when the check came in (issue 22), each with why it is still
# there. The test fails on any other cycle, and on an entry here that no longer is one (drop it).
# (tui.screens <-> tui.widgets is gone: widgets open screens through the app's dialogs, widgets/dialogs.py.)
KNOWN_FOLDER_CYCLES: dict[frozenset[str], str] = {}


def _folder(name: str, modules: dict[str, tuple[Path, bool]]) -> list[str]:
    _path, is_package = modules[name]
    return (name if is_package else name.rpartition(".")[0]).split(".")


def folder_graph(package_dir: Path) -> tuple[dict[str, set[str]], dict[tuple[str, str], list[tuple[str, str]]]]:
    """Sibling folder -> sibling folders it imports from, and the module imports behind each edge.

    An import from ``a.b.x.m`` of ``a.b.y.z.n`` is an edge ``a.b.x -> a.b.y`` (the folders just
    below where their paths part); an import between a package's own modules and its sub-folders
    (one path is a prefix of the other) is not an edge.
    """
    modules = module_names(package_dir)
    graph: dict[str, set[str]] = {}
    why: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for importer, targets in import_graph(package_dir).items():
        here = _folder(importer, modules)
        for target in targets:
            there = _folder(target, modules)
            depth = 0
            while depth < min(len(here), len(there)) and here[depth] == there[depth]:
                depth += 1
            if depth in (len(here), len(there)):
                continue
            edge = (".".join(here[: depth + 1]), ".".join(there[: depth + 1]))
            graph.setdefault(edge[0], set()).add(edge[1])
            graph.setdefault(edge[1], set())
            why.setdefault(edge, []).append((importer, target))
    return graph, why


def describe_folders(component: list[str], graph: dict[str, set[str]], why: dict) -> str:
    inside = set(component)
    return "; ".join(
        f"{a} -> {b} ({', '.join(sorted(f'{m} imports {t}' for m, t in why[a, b])[:3])})"
        for a in component
        for b in sorted(graph[a] & inside)
    )


def test_folders_depend_one_way() -> None:
    graph, why = folder_graph(PACKAGE_DIR)
    # The walk saw the layers of core and the TUI.
    assert "mcp_inspector.core.base" in graph["mcp_inspector.core.transport"]
    assert "mcp_inspector.core.transport" in graph["mcp_inspector.core.auth"]
    assert "mcp_inspector.tui.widgets" in graph["mcp_inspector.tui.screens"]
    found = {frozenset(c): c for c in cycles(graph)}
    new = [describe_folders(c, graph, why) for key, c in found.items() if key not in KNOWN_FOLDER_CYCLES]
    assert new == [], "folder cycles: " + " | ".join(new)
    gone = [sorted(key) for key in KNOWN_FOLDER_CYCLES if key not in found]
    assert gone == [], f"no longer a cycle, drop it from KNOWN_FOLDER_CYCLES: {gone}"


def test_a_folder_cycle_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    for folder in ("low", "high", "high/deep"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "shell.py").write_text("from .high.deep import d\nfrom .low import a\n")
    (package / "low" / "a.py").write_text("from .. import shell\n")  # a package's own modules: no edge
    (package / "high" / "deep" / "d.py").write_text("from ...low import a\n")
    graph, _why = folder_graph(package)
    assert graph == {"pkg.high": {"pkg.low"}, "pkg.low": set()}
    assert cycles(graph) == []
    (package / "low" / "b.py").write_text("def late():\n    from ..high.deep import d\n")
    graph, why = folder_graph(package)
    assert cycles(graph) == [["pkg.high", "pkg.low"]]
    assert why["pkg.low", "pkg.high"] == [("pkg.low.b", "pkg.high.deep.d")]
