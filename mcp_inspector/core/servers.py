"""Server specs: what to connect to, from the command line or from config files.

Reads the config files people already have: Claude-style ``{"mcpServers": {...}}``
(Claude Desktop, Cursor, Claude Code's ``.mcp.json``, Windsurf, our own) and VS
Code's ``{"servers": {...}}``. An entry is a stdio command (``command``, ``args``,
``env``, ``cwd``) or a URL (``url`` / ``type: http|sse``).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """A config file or server entry we cannot use, with the reason."""


@dataclass
class ServerSpec:
    name: str
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    transport: str = "stdio"  # stdio | http | sse
    headers: dict[str, str] = field(default_factory=dict)
    source: str | None = None  # the config file it came from

    @property
    def key(self) -> str:
        """Stable identity for per-server state (drafts, history)."""
        if self.url:
            return f"url:{self.url}"
        return "cmd:" + json.dumps(self.command)

    def describe(self) -> str:
        if self.url:
            return f"{self.transport} {self.url}"
        import subprocess

        return subprocess.list2cmdline(self.command)

    def with_overrides(self, env: dict[str, str] | None = None, cwd: str | None = None) -> "ServerSpec":
        spec = ServerSpec(self.name, list(self.command), {**self.env, **(env or {})}, cwd or self.cwd, self.url,
                          self.transport, dict(self.headers), self.source)
        return spec


def demo_spec() -> ServerSpec:
    """The built-in demo server, run with the same Python as the inspector."""
    return ServerSpec("demo", [sys.executable, "-m", "mcp_inspector.demo"], source="built-in")


def parse_env_pairs(pairs: list[str]) -> dict[str, str]:
    """``-e KEY=VALUE`` options into a dict."""
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"-e expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def load_config(path: str | Path) -> dict[str, ServerSpec]:
    """All servers in one config file, by name."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    section = None
    for key in ("mcpServers", "servers"):
        if isinstance(data.get(key), dict):
            section = data[key]
            break
    if section is None and isinstance(data.get("mcp"), dict) and isinstance(data["mcp"].get("servers"), dict):
        section = data["mcp"]["servers"]  # VS Code settings.json
    if section is None:
        raise ConfigError(f"{path}: no \"mcpServers\" or \"servers\" object found")
    specs: dict[str, ServerSpec] = {}
    for name, entry in section.items():
        specs[name] = parse_entry(name, entry, str(path))
    return specs


def parse_entry(name: str, entry: Any, source: str | None = None) -> ServerSpec:
    if not isinstance(entry, dict):
        raise ConfigError(f"server {name!r}: expected an object")
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    url = entry.get("url") or entry.get("serverUrl")
    if url:
        transport = "sse" if kind == "sse" else "http"
        headers = entry.get("headers") or {}
        return ServerSpec(name, url=str(url), transport=transport, headers={str(k): str(v) for k, v in headers.items()}, source=source)
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise ConfigError(f"server {name!r}: needs a \"command\" (or a \"url\")")
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise ConfigError(f"server {name!r}: \"args\" must be a list")
    env = entry.get("env") or {}
    if not isinstance(env, dict):
        raise ConfigError(f"server {name!r}: \"env\" must be an object")
    cwd = entry.get("cwd")
    return ServerSpec(name, [command, *map(str, args)], {str(k): str(v) for k, v in env.items()},
                      os.path.expanduser(cwd) if isinstance(cwd, str) else None, source=source)


def server_from_config(path: str | Path, name: str | None) -> ServerSpec:
    specs = load_config(path)
    if not specs:
        raise ConfigError(f"{path}: no servers defined")
    if name is None:
        if len(specs) == 1:
            return next(iter(specs.values()))
        raise ConfigError(f"{path} defines several servers; choose one with --server ({', '.join(specs)})")
    if name not in specs:
        raise ConfigError(f"no server named {name!r} in {path} (available: {', '.join(specs)})")
    return specs[name]


def known_config_paths(cwd: str | Path | None = None) -> list[tuple[str, Path]]:
    """Config files other MCP clients keep, labelled, whether or not they exist."""
    home = Path.home()
    here = Path(cwd or os.getcwd())
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    if sys.platform == "darwin":
        claude = home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
        vscode_user = home / "Library" / "Application Support" / "Code" / "User" / "mcp.json"
    elif sys.platform == "win32":
        appdata = Path(os.environ.get("APPDATA") or home)
        claude = appdata / "Claude" / "claude_desktop_config.json"
        vscode_user = appdata / "Code" / "User" / "mcp.json"
    else:
        claude = xdg / "Claude" / "claude_desktop_config.json"
        vscode_user = xdg / "Code" / "User" / "mcp.json"
    return [
        ("mcp-inspector", xdg / "mcp-inspector" / "servers.json"),
        ("Claude Code (project)", here / ".mcp.json"),
        ("Claude Code (user)", home / ".claude.json"),
        ("Claude Desktop", claude),
        ("Cursor (project)", here / ".cursor" / "mcp.json"),
        ("Cursor (user)", home / ".cursor" / "mcp.json"),
        ("VS Code (workspace)", here / ".vscode" / "mcp.json"),
        ("VS Code (user)", vscode_user),
        ("Windsurf", home / ".codeium" / "windsurf" / "mcp_config.json"),
    ]


def discover_servers(cwd: str | Path | None = None) -> tuple[list[tuple[str, ServerSpec]], list[str]]:
    """Every server in every known config file that exists: ([(label, spec)], [problems])."""
    found: list[tuple[str, ServerSpec]] = []
    problems: list[str] = []
    for label, path in known_config_paths(cwd):
        if not path.is_file():
            continue
        try:
            specs = load_config(path)
        except ConfigError as exc:
            problems.append(f"{label}: {exc}")
            continue
        found.extend((label, spec) for spec in specs.values())
    return found, problems
