"""Choose a server: the ones in config files the user already has (Claude
Desktop, Cursor, VS Code, Claude Code's .mcp.json, ours), the built-in demo,
or any command line typed in. Dismisses with the chosen ServerSpec."""

from __future__ import annotations

import shlex

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ....core.base.masking import mask_url
from ....core.config.servers import ServerSpec, demo_spec, discover_servers
from ...text.traffic_text import clean

LAUNCHERS = {"python", "python3", "node", "npx", "uvx", "uv", "bunx", "bun", "deno", "pipx", "docker", "pnpm", "yarn"}


def guess_name(words: list[str]) -> str:
    """A short label: the module after -m, the package a launcher runs, or the command's name."""
    base = words[0].replace("\\", "/").rsplit("/", 1)[-1]
    if "-m" in words[:-1]:
        return words[words.index("-m") + 1]
    if base in LAUNCHERS or base.startswith("python"):
        for word in words[1:]:
            if not word.startswith("-") and word not in ("run", "exec", "dlx", "x", "tool"):
                # a file path becomes its name; a package (@scope/name) stays whole
                return word.replace("\\", "/").rsplit("/", 1)[-1] if word.startswith(("/", ".", "~")) else word
    return base


URL_TRANSPORTS = ("http", "streamable-http", "sse")


def display_name(spec: ServerSpec, server_info: dict | None = None) -> str:
    """How the UI names a server: a config entry's (or the built-in's) own name; for a command line or
    URL the server's serverInfo (title, else name) once it answered, a URL's host after it in brackets
    (the same server is called the same over stdio and HTTP: issue 21 named one ``127.0.0.1``); before
    that a URL's host, or a name guessed from the words (never just the launcher: ``node``, ``python3``)."""
    if spec.source != "command line":
        return spec.name
    info = server_info or {}
    for key in ("title", "name"):
        value = info.get(key)
        if isinstance(value, str) and clean(value).strip():
            name = clean(value).strip()[:60]
            return f"{name} ({url_name(spec.url)})" if spec.url else name
    if spec.command and not spec.url:
        return guess_name(list(spec.command))
    return spec.name


def url_name(url: str) -> str:
    """A short label for a URL: its host (never its credentials or query)."""
    from urllib.parse import urlsplit

    try:
        return urlsplit(url).hostname or "remote"
    except ValueError:
        return "remote"


def parse_command_line(text: str) -> ServerSpec:
    """An ad-hoc command line (``KEY=value`` prefixes become env)."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"cannot parse the command line: {exc}") from None
    env = {}
    while words and "=" in words[0] and not words[0].startswith(("=", "-")) and "/" not in words[0].split("=", 1)[0]:
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    if not words:
        raise ValueError("type a command, e.g. npx -y @modelcontextprotocol/server-everything")
    if len(words) == 2 and words[0] in URL_TRANSPORTS and words[1].startswith(("http://", "https://")):
        return ServerSpec(url_name(words[1]), url=words[1], transport=words[0], source="command line")
    if words[0].startswith(("http://", "https://")):
        return ServerSpec(url_name(words[0]), url=words[0], transport="http", source="command line")
    return ServerSpec(guess_name(words), words, env, source="command line")


class ConnectScreen(ModalScreen[ServerSpec | None]):
    DEFAULT_CSS = """
    ConnectScreen { align: center middle; }
    ConnectScreen > Vertical { width: 100; max-width: 95%; height: 80%; border: thick $primary; background: $surface; }
    ConnectScreen #connect-title { background: $primary 30%; padding: 0 1; text-style: bold; }
    ConnectScreen #connect-servers { height: 1fr; border: none; }
    ConnectScreen #connect-problems { color: $warning; height: auto; max-height: 4; padding: 0 1; }
    ConnectScreen #connect-hint { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Close", id="close-connect")]

    def __init__(self, current: ServerSpec | None = None, mask_paths: bool = False) -> None:
        super().__init__()
        self.current = current
        self.mask_paths = mask_paths
        self.specs: dict[str, ServerSpec] = {}

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Connect to a server", id="connect-title")
            yield Input(
                placeholder=(
                    "command line or URL, e.g. npx -y @modelcontextprotocol/server-everything  (enter connects)"
                ),
                id="connect-command",
            )
            yield OptionList(id="connect-servers")
            yield Static("", id="connect-problems", markup=False)
            yield Static(
                "enter: connect · tab: switch between the command line and the list · escape: back", id="connect-hint"
            )

    def on_mount(self) -> None:
        self._add_servers([("built-in", demo_spec())])
        self.query_one("#connect-problems", Static).update("Looking for servers in your MCP client configs…")
        self.query_one("#connect-command", Input).focus()  # F7 opens where the user types (tab: the list)
        self._discover()

    @work(thread=True, exit_on_error=False, group="discover")
    def _discover(self) -> None:
        found, problems = discover_servers()
        self.app.call_from_thread(self._discovered, found, problems)

    def _discovered(self, found: list[tuple[str, ServerSpec]], problems: list[str]) -> None:
        self._add_servers(found)
        message = "\n".join(problems)
        if not found:
            message = "No servers found in Claude Desktop, Cursor, VS Code or .mcp.json configs.\n" + message
        self.query_one("#connect-problems", Static).update(message.strip())

    def _add_servers(self, found: list[tuple[str, ServerSpec]]) -> None:
        option_list = self.query_one("#connect-servers", OptionList)
        for label, spec in found:
            option_id = f"s{len(self.specs)}"
            self.specs[option_id] = spec
            prompt = Text()
            prompt.append(spec.name, style="bold")
            prompt.append(f"  ({label})", style="dim")
            if self.current is not None and spec.key == self.current.key:
                prompt.append("  current", style="italic")
            if spec.url:
                prompt.append(f"\n  {spec.transport or 'http'} · {mask_url(spec.url)}", style="dim")
            else:
                describe = (
                    "python -m mcp_inspector.demo" if self.mask_paths and spec.source == "built-in" else spec.describe()
                )
                prompt.append("\n  stdio · " + describe, style="dim")
            option_list.add_option(Option(prompt, id=option_id))

    @on(OptionList.OptionSelected, "#connect-servers")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        spec = self.specs.get(event.option.id or "")
        if spec is not None:
            self.dismiss(spec)

    @on(Input.Submitted, "#connect-command")
    def _command(self, event: Input.Submitted) -> None:
        try:
            spec = parse_command_line(event.value)
        except ValueError as exc:
            self.query_one("#connect-problems", Static).update(str(exc))
            return
        self.dismiss(spec)

    def action_cancel(self) -> None:
        self.dismiss(None)
