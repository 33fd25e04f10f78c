"""No module of mcp_inspector reaches into another module's private names.

Read with ast, not by importing: ``from .resolve import _label``, ``pending._resolve(...)`` and
``getattr(proc, "_transport")`` in a module that does not define ``_label``, ``_resolve`` or
``_transport`` itself are reaches. (ruff's SLF001 sees only the attribute form, and only when
nobody wrote ``noqa``.) Private internals of Textual live in ``tui/textual_compat.py``, which
may touch them and is tested against each upgrade; what is not fixed yet is listed below, each
with its reason, and the test fails on anything new and on a listed entry that is gone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import mcp_inspector

PACKAGE_DIR = Path(mcp_inspector.__file__).resolve().parent

# Modules whose job is to touch another library's internals, each with its own upgrade test.
COMPAT_MODULES = {"tui/textual_compat.py"}

# Documented names that begin with an underscore.
PUBLIC_UNDERSCORED = {"os._exit"}

# "module: name" -> why it is still there (issue 22). Fix one and drop it.
KNOWN_REACHES: dict[str, str] = {
    "core/reaping.py: _ctypes": "ctypes' C module, for the base class below",
    "core/reaping.py: _SimpleCData": "ctypes.c_int's own base class, to declare a 32-bit int field",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _own_names(tree: ast.AST) -> set[str]:
    """Names this module defines: functions, classes, assigned names and attributes."""
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            own.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.arg):
            own.add(node.arg)
    return own


def reaches(source: str) -> Iterator[tuple[int, str, str]]:
    """(line, private name, how) for each reach into a private name defined elsewhere."""
    tree = ast.parse(source)
    own = _own_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            hidden = [part for part in (node.module or "").split(".") if _private(part)]
            if hidden:  # from textual.widgets._footer import FooterKey
                yield node.lineno, hidden[-1], "from "
            for alias in node.names:
                if _private(alias.name):
                    yield node.lineno, alias.name, f"from {'.' * node.level}{node.module or ''} import"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(_private(part) for part in alias.name.split(".")):
                    yield node.lineno, alias.name.rpartition(".")[2], "import"
        elif isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own:
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            if f"{ast.unparse(owner)}.{node.attr}" in PUBLIC_UNDERSCORED:
                continue
            yield node.lineno, node.attr, f"{ast.unparse(owner)[:40]}."
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
            and node.args[1].value not in own
        ):
            yield node.lineno, node.args[1].value, f"{node.func.id}(…)"


def test_no_module_reaches_into_another_modules_private_names() -> None:
    found: dict[str, list[str]] = {}
    modules = sorted(PACKAGE_DIR.rglob("*.py"))
    assert len(modules) > 200
    for path in modules:
        where = path.relative_to(PACKAGE_DIR).as_posix()
        if where in COMPAT_MODULES:
            continue
        for line, name, how in reaches(path.read_text(encoding="utf-8")):
            found.setdefault(f"{where}: {name}", []).append(f"{where}:{line} {how}{name}")
    new = sorted(line for key, lines in found.items() if key not in KNOWN_REACHES for line in lines)
    assert new == [], "private names of another module: " + "; ".join(new)
    gone = sorted(set(KNOWN_REACHES) - set(found))
    assert gone == [], f"fixed, drop from KNOWN_REACHES: {gone}"


def test_each_kind_of_reach_is_found() -> None:
    source = """
from .resolve import _label, public
import textual._ansi_sequences
from textual import _wait
from textual.widgets._footer import FooterKey

class Owner:
    def __init__(self):
        self._mine = 1

    def use(self, other, pending):
        super()._setup()
        pending._resolve(1)
        other._mine = 2  # the module defines _mine: its own class, another instance
        other._theirs = 3
        getattr(other, "_transport", None)
        getattr(other, "_mine")
        return self._mine, cls_name._hidden
"""
    assert sorted((name, how) for _line, name, how in reaches(source)) == [
        ("_ansi_sequences", "import"),
        ("_footer", "from "),
        ("_hidden", "cls_name."),
        ("_label", "from .resolve import"),
        ("_resolve", "pending."),
        ("_theirs", "other."),
        ("_transport", "getattr(…)"),
        ("_wait", "from textual import"),
    ]
