"""Startup cost guards: the headless path must not import what it does not need."""

from __future__ import annotations

import os
import subprocess
import sys

from cli_helpers import raw


def imported_modules(*args: str) -> set[str]:
    env = dict(os.environ)
    env.pop("MCP_INSPECTOR_NO_EARLY_START", None)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mcp_inspector", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    return {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_cold_tools_imports_no_ui_models_or_schema_validation():
    modules = imported_modules("tools", "--json", "--", *raw())
    for heavy in ("textual", "rich", "pydantic", "mcp_types", "jsonschema"):
        assert heavy not in modules, f"{heavy} is imported by a cold `tools`"
    # the form machinery answers an elicitation: loaded when one comes, not by every command
    assert "mcp_inspector.core.schema.elicitation_form" not in modules
    assert "ctypes" not in modules  # the subreaper prctl goes through _ctypes (core/reaping.py): 2-12 ms less
    # stdlib modules a plain `tools` never uses: shutil (argparse's width, stdio's which) brings bz2 and
    # lzma, tempfile brings random; difflib (tool diffs), fractions/decimal (multipleOf): ~15 ms in all
    for unused in ("shutil", "tempfile", "bz2", "lzma", "difflib", "fractions", "decimal"):
        assert unused not in modules, f"{unused} is imported by a cold `tools`"


def test_call_imports_no_ui_or_models():
    modules = imported_modules("call", "echo", "text=hi", "--", *raw())
    for heavy in ("textual", "rich", "pydantic", "mcp_types"):
        assert heavy not in modules, f"{heavy} is imported by `call`"
    assert "jsonschema" in modules  # arguments are validated against inputSchema
