"""The command palette's entries for actions that live on widgets or have no key of their own
(``InspectorApp.extra_commands``; tui/commands.py offers them), and the HTTP view's actions the
palette reaches from any view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.app import App


class PaletteApp(Protocol):
    """What the entries need of the app (tui/app.py's InspectorApp, which must not be imported
    here: it imports this module)."""

    @property
    def main(self) -> Any: ...
    @property
    def confirm_destructive(self) -> bool: ...
    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...
    def notify(self, message: str, *args: Any, **kwargs: Any) -> None: ...
    def toggle_confirm_destructive(self) -> None: ...
    def action_result_history(self) -> None: ...
    def open_http_exchange(self, exchange_id: int) -> None: ...


def _http_list(app: PaletteApp) -> Any:
    main = app.main
    return main.query_one("#view-http").exchange_list if main.has_view("view-http") else None


def _open_selected_exchange(app: PaletteApp) -> None:
    exchanges = _http_list(app)
    exchange = exchanges.cursor_exchange if exchanges is not None else None
    if exchange is None:
        app.notify("No HTTP exchange selected (see the HTTP view, key 6).", severity="warning")
        return
    app.open_http_exchange(exchange.id)


def _first_frame_of_exchange(app: PaletteApp) -> None:
    from .screens.traffic.http_detail import carried_seqs

    exchanges = _http_list(app)
    exchange = exchanges.cursor_exchange if exchanges is not None else None
    seqs = carried_seqs(exchange, app.main.store) if exchange is not None else []
    if not seqs:
        app.notify("No HTTP exchange with frames selected (see the HTTP view, key 6).", severity="warning")
        return
    app.run_worker(app.main.show_frame(seqs[0]), exit_on_error=False)


def _follow_exchanges(app: PaletteApp) -> None:
    async def follow() -> None:
        await app.main.show_view("http")
        _http_list(app).action_cursor_end()

    app.run_worker(follow(), exit_on_error=False)


def _open_frame_exchange(app: PaletteApp) -> None:
    log = (
        app.main.query_one("#view-traffic").log_view
        if app.main.has_view("view-traffic")
        else app.main.query_one("#live-traffic")
    )
    entry = log.cursor_entry
    exchange_id = app.main.store.exchange_of(entry) if entry is not None else None
    if exchange_id is None:
        app.notify("The selected frame was not carried over HTTP.", severity="warning")
        return
    app.open_http_exchange(exchange_id)


def extra_commands(app: PaletteApp) -> list[tuple[str, Callable[[], Any], str]]:
    """Palette commands for actions that live on widgets or have no key of their own."""
    import json

    from .clipboard import copy_text

    main = app.main
    commands: list[tuple[str, Callable[[], Any], str]] = [
        ("request: send the composer's request", main.action_send_request, "key: ctrl+s"),
        (
            "request: cancel the newest call in flight",
            lambda: app.run_worker(main.inflight.action_cancel_request()),
            "sends notifications/cancelled",
        ),
        (
            "request: switch the composer between form and JSON",
            main.composer.action_toggle_view,
            "key: ctrl+t in the composer",
        ),
        (
            "request: send untouched schema defaults (on/off)",
            main.composer.toggle_send_defaults,
            "the composer's 'send defaults' switch (tab to it, space); per tool",
        ),
        (
            "tools: widen the tool list (on/off)",
            main.tool_list.action_widen,
            "key: ctrl+z in the tool list",
        ),
        ("result: save the whole result to a file", main.result_panel.action_save_result, "key: s in the result"),
        ("result: open the whole result in $PAGER", main.result_panel.action_open_pager, "key: p in the result"),
        ("result: query the result with jq", main.result_panel.action_query_result, "key: | in the result"),
        (
            "result: clear the jq query of the result",
            main.result_panel.action_clear_result_query,
            "key: x in the result",
        ),
        (
            "settings: confirm before calling a destructive tool (on/off)",
            app.toggle_confirm_destructive,
            f"now {'on' if app.confirm_destructive else 'off'}",
        ),
        (
            "watch: re-run the last call after a restart (on/off)",
            main.file_watch.toggle_rerun,
            f"now {'on' if main.file_watch.rerun else 'off'}; --rerun",
        ),
    ]
    live_log = main.query_one("#live-traffic")
    for title, action, help_text in (
        ("traffic: copy the selected frame", "copy_frame", "key: c in the traffic log"),
        ("traffic: copy the selected tools/call as a CLI command", "copy_cli", "key: C in the traffic log"),
        ("traffic: export the session (JSONL)", "export_session", "key: e in the traffic log"),
        ("traffic: export the session (JSON)", "export_json", "key: E in the traffic log"),
        ("traffic: mark the selected frame (to diff another with it)", "mark_frame", "key: m in the traffic log"),
        (
            "traffic: diff the selected frame with the marked one, side by side",
            "diff_frames",
            "key: = in the traffic log",
        ),
    ):
        commands.append((title, getattr(live_log, f"action_{action}"), help_text))
    commands.append(
        (
            "result: diff two results of the selected tool (F10, then m marks one, = diffs)",
            app.action_result_history,
            "key: m and = in the result history",
        )
    )
    commands += [
        (
            "http: show the selected exchange's detail",
            lambda: _open_selected_exchange(app),
            "key: enter in the HTTP view",
        ),
        ("http: follow the newest exchange", lambda: _follow_exchanges(app), "key: end in the HTTP view"),
        (
            "http: the selected exchange's first frame in the traffic log",
            lambda: _first_frame_of_exchange(app),
            "key: t in the exchange detail",
        ),
        (
            "traffic: open the selected frame's HTTP exchange",
            lambda: _open_frame_exchange(app),
            "key: h in the frame detail",
        ),
    ]
    from .screens.answer.rules import rules_command
    from .view_commands import view_commands
    from .widgets.views.auth.view import palette_commands as auth_commands
    from .widgets.views.traffic.query import palette_commands as query_commands

    commands += auth_commands(app)
    commands += query_commands(app)
    commands += view_commands(app)
    commands.append(rules_command(app))
    if main.spec is not None:
        spec = main.spec
        commands.append(
            (
                "copy: server command line",
                lambda: copy_text(_as_app(app), spec.describe(), "the command line"),
                spec.describe(),
            )
        )
    if main.current_tool is not None:
        tool = main.current_tool
        commands.append(
            (
                "copy: selected tool definition (JSON)",
                lambda: copy_text(_as_app(app), json.dumps(tool, indent=2), "the tool definition"),
                str(tool.get("name")),
            )
        )
    return commands


def _as_app(app: PaletteApp) -> App[Any]:
    assert isinstance(app, App)
    return app
