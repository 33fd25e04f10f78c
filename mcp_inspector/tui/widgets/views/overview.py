"""The server overview: who it is, which protocol version, its instructions
(Markdown) and its capabilities, each explained."""

from __future__ import annotations

import json

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from ...messages import ServerFacts, era_label
from ...server.capabilities import explain_capabilities, render_value
from ...text.icon_text import describe_icons
from ...text.traffic_text import clean


def server_table(facts: ServerFacts) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    info = facts.server_info
    rows = [
        ("Name", info.get("name")),
        ("Title", info.get("title")),
        ("Version", info.get("version")),
        ("Website", info.get("websiteUrl")),
        ("Description", info.get("description")),
        ("Protocol version", facts.protocol_version),
    ]
    for label, value in rows:
        if value is not None:
            table.add_row(label, Text(str(value)))
    extra = {k: v for k, v in info.items() if k not in ("name", "title", "version", "websiteUrl", "description")}
    for key, value in extra.items():
        if key == "icons" and isinstance(value, list):
            table.add_row("Icons", Text(describe_icons(value)))  # not a raw data: URI
            continue
        table.add_row(key, Text(json.dumps(value, ensure_ascii=False)[:400], style="dim"))
    return table


def _short(value: object, limit: int = 60) -> str:
    """A value the server sent, safe and short for one line."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = clean(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_cache(cache: dict, depth: int = 0) -> str:
    """``ttlMs``/``cacheScope`` per result (``{"server/discover": {"ttlMs": 60000, ...}}``) or flat."""
    if not cache:
        return ""
    if depth == 0 and all(isinstance(v, dict) for v in cache.values()):
        return "; ".join(f"{_short(name, 40)}: {describe_cache(value, 1)}" for name, value in list(cache.items())[:12])
    parts = []
    if "ttlMs" in cache:
        parts.append(f"ttlMs {_short(cache['ttlMs'], 20)}")
    if "cacheScope" in cache:
        parts.append(f"cacheScope {_short(cache['cacheScope'], 20)}")
    parts += [f"{_short(k, 30)} {_short(v)}" for k, v in list(cache.items())[:8] if k not in ("ttlMs", "cacheScope")]
    return ", ".join(parts)


def describe_ack(ack: dict) -> str:
    """The subset of the ``subscriptions/listen`` filter the server agreed to honour."""
    honoured = [_short(key, 40) for key, value in list(ack.items())[:20] if value is True]
    resources = ack.get("resourceSubscriptions")
    if isinstance(resources, list) and resources:
        shown = ", ".join(_short(uri, 80) for uri in resources[:5])
        honoured.append(f"resourceSubscriptions ({len(resources)}: {shown}{'…' if len(resources) > 5 else ''})")
    return ", ".join(honoured) if honoured else "nothing (the server honours no change notifications)"


def connection_table(facts: ServerFacts) -> Table | Text:
    """How the connection runs: transport, era and why, HTTP session, caching, subscriptions, excluded tools."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1)
    rows: list[tuple[str, Text]] = []
    if facts.transport:
        rows.append(("Transport", Text(facts.transport + (f" · {facts.url}" if facts.url else ""))))
    era = era_label(facts.era, facts.protocol_version)
    if facts.era:
        line = Text()
        line.append(era, style="bold")
        if facts.era_reason:
            line.append(f"\n{_short(facts.era_reason, 400)}", style="dim")
        rows.append(("Era", line))
    if facts.transport in ("http", "streamable-http"):
        session = facts.http_session_id
        rows.append(
            (
                "HTTP session",
                Text(_short(session, 200)) if session else Text("none (the server keeps no session)", style="dim"),
            )
        )
    if facts.cache_info:
        rows.append(("Caching", Text(describe_cache(facts.cache_info))))
    if facts.subscription_ack is not None:
        rows.append(("subscriptions/listen", Text(describe_ack(facts.subscription_ack))))
    elif facts.era == "modern":
        rows.append(("subscriptions/listen", Text("not acknowledged (yet)", style="dim")))
    if facts.excluded_tools:
        excluded = Text()
        for number, (name, reason) in enumerate(sorted(facts.excluded_tools.items())[:50]):
            excluded.append(("\n" if number else "") + _short(name, 80), style="bold")
            excluded.append(f": {_short(reason, 200)}")
        if len(facts.excluded_tools) > 50:
            excluded.append(f"\n… {len(facts.excluded_tools) - 50} more", style="dim")
        rows.append((f"Excluded tools ({len(facts.excluded_tools)})", excluded))
    if not rows:
        return Text("")
    for label, value in rows:
        table.add_row(label, value)
    return table


def capabilities_table(facts: ServerFacts) -> Table | Text:
    lines = explain_capabilities(facts.capabilities)
    if not lines:
        return Text("The server declared no capabilities.", style="italic")
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True, style="dim")
    table.add_column(ratio=1)
    for line in lines:
        path = Text(("  " * line.depth) + line.path, style="bold" if line.depth == 0 else "")
        if line.explanation is None:
            explanation = Text("(not a capability mcp-inspector knows; shown as declared)", style="italic dim")
        else:
            explanation = Text(line.explanation)
        table.add_row(path, Text(render_value(line.value)[:120]), explanation)
    return table


def client_table(capabilities: dict | None, roots: list[str], source: str, era: str | None) -> Table:
    """What the inspector declared to the server (its capabilities) and the roots roots/list answers."""
    from ...server.roots import root_problem

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1)
    if capabilities is not None:
        declared = Text()
        for number, (name, value) in enumerate(capabilities.items()):
            declared.append(("\n" if number else "") + _short(name, 60), style="bold")
            declared.append(f" {render_value(value)[:200]}", style="dim")
        where = "in every request's _meta" if era == "modern" else "in initialize"
        table.add_row("Declared", declared if declared.plain else Text("nothing", style="dim"))
        table.add_row("", Text(f"(the client capabilities sent {where})", style="dim italic"))
    if roots:
        listed = Text()
        for number, path in enumerate(roots[:50]):
            listed.append(("\n" if number else "") + _short(path, 300))
            problem = root_problem(path)
            if problem:
                listed.append(f"  ⚠ {problem}", style="bold")
        if len(roots) > 50:
            listed.append(f"\n… {len(roots) - 50} more", style="dim")
        origin = "set in the Roots editor" if source == "editor" else "given at start (--root or the config entry)"
        listed.append(f"\n{origin}; ctrl+f edits them", style="dim italic")
        table.add_row(f"Roots ({len(roots)})", listed)
    else:
        table.add_row(
            "Roots",
            Text(
                "none given: roots/list is answered with an empty list (never a made-up root); "
                '--root PATH, a config entry\'s "roots" or ctrl+f gives some',
                style="dim",
            ),
        )
    return table


class ServerOverview(VerticalScroll):
    """Shows a ServerFacts; empty until the handshake is done."""

    DEFAULT_CSS = """
    ServerOverview { padding: 0 1; }
    ServerOverview .overview--heading { text-style: bold; color: $accent; margin-top: 1; }
    ServerOverview #overview-instructions { margin: 0; padding: 0 1; border-left: tall $accent 40%; height: auto; }
    """

    def watch_has_focus(self, _has_focus: bool) -> None:
        """Restyle this container alone when it gains or loses focus.

        Textual restyles the focused widget's whole subtree, here every block of the
        instructions' Markdown (tens of ms, on each switch to and from this view),
        though no rule styles anything inside by this container's focus (``:focus``
        only ever ends a selector for it; ``:focus-within`` is handled by the screen).
        """
        self.app.stylesheet.update_nodes([self], animate=True)

    def compose(self) -> ComposeResult:
        yield Static("Server", classes="overview--heading")
        yield Static("Not connected yet.", id="overview-server")
        for widget in (
            Static("Connection", classes="overview--heading", id="overview-connection-heading"),
            Static("", id="overview-connection"),
        ):
            widget.display = False  # until a connection says how it runs
            yield widget
        for widget in (
            Static("Client (what mcp-inspector declared)", classes="overview--heading", id="overview-client-heading"),
            Static("", id="overview-client"),
        ):
            widget.display = False  # a live server only (a recording says what it says in its traffic)
            yield widget
        yield Static("Capabilities", classes="overview--heading")
        yield Static("", id="overview-capabilities")
        yield Static("Instructions", classes="overview--heading")
        yield Markdown("", id="overview-instructions")

    def show(self, facts: ServerFacts) -> None:
        self.query_one("#overview-server", Static).update(server_table(facts))
        connection = connection_table(facts)
        known = not (isinstance(connection, Text) and not connection.plain)
        self.query_one("#overview-connection", Static).update(connection)
        self.query_one("#overview-connection", Static).display = known
        self.query_one("#overview-connection-heading", Static).display = known
        self.query_one("#overview-capabilities", Static).update(capabilities_table(facts))
        text = facts.instructions if facts.instructions else "*The server sent no instructions.*"
        self.query_one("#overview-instructions", Markdown).update(text)
        self.show_client()

    def show_client(self) -> None:
        """The Client section: the capabilities declared to the live server and its roots (tui/server/roots.py)."""
        from ...server.roots import declared_capabilities

        app = self.app
        book = getattr(app, "roots", None)
        try:
            main = app.main
        except LookupError:
            main = None
        live = main is not None and not main.read_only and main.spec is not None and book is not None
        for widget in self.query("#overview-client, #overview-client-heading"):
            widget.display = live
        if not live:
            return
        session = main.connection.live
        roots = book.of(main.spec)
        self.query_one("#overview-client", Static).update(
            client_table(declared_capabilities(session), list(roots.paths), roots.source, getattr(session, "era", None))
        )
