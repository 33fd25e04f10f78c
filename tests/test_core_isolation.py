"""mcp_inspector.core must never pull in Textual or Rich (the CLI and benches share it)."""

from __future__ import annotations

import json
import subprocess
import sys

UI = ("textual", "rich")

SCRIPT = r"""
import importlib, json, pkgutil, sys
import mcp_inspector.core as core
names = [core.__name__]
for info in pkgutil.walk_packages(core.__path__, core.__name__ + "."):
    names.append(info.name)
for name in names:
    importlib.import_module(name)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
print(json.dumps({"modules": names, "ui": loaded}))
"""


def test_core_imports_neither_textual_nor_rich() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    modules = report["modules"]
    # The walk really covered the package, sub-packages included.
    for expected in (
        "mcp_inspector.core.protocol.rpc",
        "mcp_inspector.core.session.mcp_session",
        "mcp_inspector.core.transport.stdio",
        "mcp_inspector.core.traffic.recording",
        "mcp_inspector.core.schema.validation",
        "mcp_inspector.core.config.servers",
    ):
        assert expected in modules
    assert report["ui"] == [], f"core pulled in: {report['ui']}"


def test_no_core_module_names_textual_or_rich_anywhere() -> None:
    """The import above only runs module bodies; an import inside a function (or under
    TYPE_CHECKING) would slip by it, so every import statement in core is read too."""
    import ast
    from pathlib import Path

    import mcp_inspector.core

    core_dir = Path(mcp_inspector.core.__file__).resolve().parent
    found = []
    read = 0
    for path in sorted(core_dir.rglob("*.py")):
        read += 1
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            found += [f"{path.relative_to(core_dir)}:{node.lineno} {n}" for n in names if n.split(".")[0] in UI]
    assert read > 100
    assert found == [], f"core names a UI library: {found}"
