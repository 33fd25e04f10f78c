"""Copy text: OSC 52 through ``App.copy_to_clipboard`` (works over ssh), plus
pyperclip in a thread where OSC 52 is known not to work (macOS Terminal.app)
or when asked. Every copy is confirmed with a toast."""

from __future__ import annotations

import os

from textual.app import App


def needs_pyperclip() -> bool:
    return os.environ.get("TERM_PROGRAM") == "Apple_Terminal" or os.environ.get("MCP_INSPECTOR_PYPERCLIP") == "1"


def copy_text(app: App, text: str, what: str = "text") -> None:
    app.copy_to_clipboard(text)
    if needs_pyperclip():
        app.run_worker(lambda: _pyperclip(app, text), thread=True, group="clipboard", exit_on_error=False)
    preview = text if len(text) <= 80 else text[:77] + "…"
    app.notify(preview, title=f"Copied {what} ({len(text)} characters)", markup=False, timeout=3)


def _pyperclip(app: App, text: str) -> None:
    try:
        import pyperclip

        pyperclip.copy(text)
    except Exception as exc:  # no clipboard tool on this system
        app.notify(f"pyperclip could not copy: {exc}", severity="warning", markup=False)
