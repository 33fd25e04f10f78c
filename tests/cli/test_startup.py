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
    # nor the form package (render's JSON equality lives in core/base), nor the session-file
    # writer without --record (nor a spill): ~10 ms of a cold `tools` between them
    assert "mcp_inspector.core.schema.form" not in modules
    assert "mcp_inspector.core.traffic.recording" not in modules
    assert "ctypes" not in modules  # the subreaper prctl goes through _ctypes (core/reaping.py): 2-12 ms less
    # stdlib modules a plain `tools` never uses: shutil (argparse's width, stdio's which) brings bz2 and
    # lzma, tempfile brings random; difflib (tool diffs), fractions/decimal (multipleOf): ~15 ms in all
    for unused in ("shutil", "tempfile", "bz2", "lzma", "difflib", "fractions", "decimal"):
        assert unused not in modules, f"{unused} is imported by a cold `tools`"
    # what only a tool call or an HTTP server uses: schema validation and the result analysis,
    # URL elicitation, the HTTP exchange log (~7 ms of a cold stdio `tools` between them)
    for unused in TOOL_CALL_ONLY + ("mcp_inspector.core.traffic.http_log",):
        assert unused not in modules, f"{unused} is imported by a cold stdio `tools`"


TOOL_CALL_ONLY = (
    "mcp_inspector.core.schema.validation",
    "mcp_inspector.core.session.results",
    "mcp_inspector.core.session.url_elicitation",
)


def test_cold_http_tools_imports_no_ui_nor_what_only_a_tool_call_uses(sdk_http_stateful_url):
    modules = imported_modules("--url", sdk_http_stateful_url, "tools")
    for heavy in ("textual", "rich", "pydantic", "mcp_types", "jsonschema"):
        assert heavy not in modules, f"{heavy} is imported by a cold `--url ... tools`"
    # (shutil and tempfile come with httpx2: its __version__ asks importlib.metadata)
    for unused in TOOL_CALL_ONLY + ("difflib", "fractions", "decimal", "ctypes"):
        assert unused not in modules, f"{unused} is imported by a cold `--url ... tools`"
    # the HTTP+SSE transport (--transport sse, or a fall-back) and html (an HTML error page)
    # and anyio.from_thread (the CLI's OAuth prompt reads a pasted URL in a thread with it)
    for unused in ("mcp_inspector.core.transport.legacy_sse", "html", "anyio.from_thread"):
        assert unused not in modules, f"{unused} is imported by a cold Streamable HTTP `tools`"
    # the OAuth client (its model, token store, flow): made at the first challenge when the token
    # store is empty (this test's own state dir) and no OAuth option was given (core/auth/deferred.py)
    for unused in ("model", "manager", "store", "http", "opener"):
        assert f"mcp_inspector.core.auth.{unused}" not in modules, f"core.auth.{unused} is imported by `--url tools`"


def test_call_imports_no_ui_or_models():
    modules = imported_modules("call", "echo", "text=hi", "--", *raw())
    for heavy in ("textual", "rich", "pydantic", "mcp_types"):
        assert heavy not in modules, f"{heavy} is imported by `call`"
    assert "jsonschema" in modules  # arguments are validated against inputSchema


def test_the_collector_paused_for_start_up_is_on_again_in_the_session():
    """main.py pauses the cyclic collector while a cold command imports (gc_pause.py); a
    session (a pipe, a subscribe may run for hours) must run with it on again."""
    import gc

    from mcp_inspector.cli import gc_pause
    from mcp_inspector.cli.runner import RunOptions, run
    from mcp_inspector.core.config.servers import ServerSpec

    seen: dict[str, bool] = {}

    async def body(session, context) -> int:
        seen["enabled"] = gc.isenabled()
        return 0

    assert gc.isenabled()
    gc_pause.pause()
    try:
        assert not gc.isenabled()
        code = run(ServerSpec(name="raw", command=raw()), RunOptions(quiet=True), body)
    finally:
        gc_pause.resume()
        gc.enable()
    assert code == 0
    assert seen == {"enabled": True}


def test_a_command_without_a_session_turns_the_collector_on_again(tmp_path):
    """``query`` reads a file of any size without a session: the collector is on while it runs."""
    import gc

    from mcp_inspector.cli import gc_pause
    from mcp_inspector.cli.dispatch import run_command_line

    session = tmp_path / "s.jsonl"
    session.write_text("")
    gc_pause.pause()
    try:
        run_command_line(["query", str(session), ".", "--count"])
        assert gc.isenabled()
    finally:
        gc_pause.resume()
        gc.enable()
