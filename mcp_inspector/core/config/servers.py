"""Server specs: what to connect to, from the command line or from config files.

Reads the config files people already have: Claude-style ``{"mcpServers": {...}}``
(Claude Desktop, Cursor, Claude Code's ``.mcp.json``, Windsurf, our own) and VS
Code's ``{"servers": {...}}``. An entry is a stdio command (``command``, ``args``,
``env``, ``cwd``) or a URL (``url`` with ``type``/``transport`` ``http``,
``streamable-http``/``streamableHttp`` or ``sse``, and ``headers`` whose values may
name environment variables as ``${VAR}`` or ``${env:VAR}``). Any entry may give
``era`` (``auto``, ``legacy`` or ``modern``) and ``roots``: the folders the inspector
answers ``roots/list`` with (an array of paths or ``file://`` URIs; ``~`` expanded, a
relative path taken from the config file's folder). Without ``roots`` the answer is an
empty list: the inspector never makes roots up. A stdio entry may give ``watch``: the paths
whose edits restart it (``--watch``; an array of paths, relative to the config file's folder,
or ``true`` for the directory of its script or package).
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """A config file or server entry we cannot use, with the reason."""


#: ``transport`` of a URL spec: "http" tries Streamable HTTP and falls back to legacy
#: HTTP+SSE; "streamable-http" and "sse" use that one transport only.
URL_TRANSPORTS = ("http", "streamable-http", "sse")
#: ``type``/``transport`` words of config files -> ``ServerSpec.transport``
_CONFIG_TRANSPORTS = {
    "http": "http",
    "streamable-http": "streamable-http",
    "streamablehttp": "streamable-http",
    "streamable_http": "streamable-http",
    "sse": "sse",
}
ERAS = ("auto", "legacy", "modern")
_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_variables(text: str, what: str, environ: dict[str, str] | None = None) -> str:
    """``${VAR}`` and ``${env:VAR}`` in ``text`` replaced from the environment.

    An unset variable is a ConfigError naming it (and ``what`` it was for), never an
    empty string sent as a credential.
    """
    source = os.environ if environ is None else environ

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in source:
            raise ConfigError(f"{what}: the environment variable {name} is not set")
        return source[name]

    return _VARIABLE.sub(value, text)


@dataclass
class ServerSpec:
    name: str
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict, repr=False)  # may hold secrets: never in a repr
    cwd: str | None = None
    url: str | None = None
    transport: str = "stdio"  # stdio | http (auto) | streamable-http | sse
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # may hold tokens: never in a repr
    source: str | None = None  # the config file it came from
    era: str = "auto"  # auto | legacy | modern: which protocol era to speak
    protocol_version: str | None = None  # the version to propose (None: the latest of the era)
    insecure: bool = False  # HTTPS without certificate verification
    #: OAuth settings (core/auth/model.AuthSettings: --client-id... or the entry's "auth" object);
    #: None: the defaults (a URL server is authorized when it answers 401). Holds secrets: not in a repr.
    auth: Any = field(default=None, repr=False)
    no_auth: bool = False  # --no-auth or "auth": false: never authorize
    #: Absolute paths the client answers roots/list with (--root, the entry's "roots"); empty: an
    #: empty list (never a made-up root such as the working directory).
    roots: list[str] = field(default_factory=list)
    #: The config entry's "watch": absolute paths whose edits restart the server ("" for the inferred
    #: directory of its script or package: core/watch/paths.py); empty: not watched unless --watch.
    watch: list[str] = field(default_factory=list)
    #: The config entry's "ignore": rule ids the check command leaves out (with its --ignore ones).
    ignore: list[str] = field(default_factory=list)

    def __repr__(self) -> str:  # the URL may carry a token in its query: masked, as in describe()
        from ..base.masking import mask_url

        return (
            f"ServerSpec(name={self.name!r}, command={self.command!r}, cwd={self.cwd!r}, "
            f"url={mask_url(self.url) if self.url else None!r}, transport={self.transport!r}, "
            f"source={self.source!r}, era={self.era!r}, protocol_version={self.protocol_version!r}, "
            f"insecure={self.insecure!r})"
        )

    @property
    def key(self) -> str:
        """Stable identity for per-server state (drafts, history)."""
        if self.url:
            return f"url:{self.url}"
        return "cmd:" + json.dumps(self.command)

    def describe(self) -> str:
        """One line for messages and session files: credentials in the URL are masked."""
        if self.url:
            from ..base.masking import mask_url

            return f"{self.transport} {mask_url(self.url)}"
        import subprocess

        return subprocess.list2cmdline(self.command)

    def with_overrides(
        self,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        transport: str | None = None,
        era: str | None = None,
        protocol_version: str | None = None,
        insecure: bool | None = None,
        auth: Any = None,
        no_auth: bool | None = None,
    ) -> ServerSpec:
        """A copy with these settings changed (env and headers are merged over the spec's own)."""
        return replace(
            self,
            command=list(self.command),
            env={**self.env, **(env or {})},
            cwd=cwd or self.cwd,
            headers=_merge_headers(self.headers, headers or {}),
            transport=transport or self.transport,
            era=era or self.era,
            protocol_version=protocol_version or self.protocol_version,
            insecure=self.insecure if insecure is None else insecure,
            auth=auth if auth is not None else self.auth,
            no_auth=self.no_auth if no_auth is None else no_auth,
        )


def _merge_headers(base: dict[str, str], extra: dict[str, str]) -> dict[str, str]:
    """``extra`` over ``base``; header names compare without case."""
    merged = {name: value for name, value in base.items() if name.lower() not in {key.lower() for key in extra}}
    merged.update(extra)
    return merged


def demo_spec() -> ServerSpec:
    """The built-in demo server, run with the same Python as the inspector."""
    return ServerSpec("demo", [sys.executable, "-m", "mcp_inspector.demo"], source="built-in")


def parse_env_pairs(pairs: list[str]) -> dict[str, str]:
    """``-e KEY=VALUE`` options into a dict.

    A malformed pair is reported by its position, never echoed: it may be a secret
    typed without its ``KEY=``.
    """
    env: dict[str, str] = {}
    for number, pair in enumerate(pairs, 1):
        key, sep, value = pair.partition("=")
        if not sep:
            raise ConfigError(f"-e expects KEY=VALUE: the {_ordinal(number)} -e has no '=' (its text is not shown)")
        if not key:
            raise ConfigError(
                f"-e expects KEY=VALUE: the {_ordinal(number)} -e has an empty KEY (its value is not shown)"
            )
        env[key] = value
    return env


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


# A config file bigger than this is refused (``--config /dev/zero`` would otherwise eat the memory).
MAX_CONFIG_SIZE = 16 * 1024 * 1024


class _BadEntry:
    """A server entry that could not be used: kept so that only choosing it is an error."""

    def __init__(self, error: ConfigError) -> None:
        self.error = error


def _read_config(path: Path) -> dict[str, ServerSpec | _BadEntry]:
    from ..base.files import FileReadError, read_bounded
    from ..base.json_text import JsonTextError, loads_strict

    try:
        data = read_bounded(path, MAX_CONFIG_SIZE)
    except FileReadError as exc:
        raise ConfigError(
            exc.words(
                missing=f"config file not found: {path}",
                too_large=f"{path}: larger than {MAX_CONFIG_SIZE // (1024 * 1024)} MiB; not a config file",
                unreadable=f"cannot read {path}: {exc.reason}",
            )
        ) from None
    if not data.strip():
        raise ConfigError(f"{path} is empty")
    try:
        document = loads_strict(data)
    except JsonTextError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    section = None
    for key in ("mcpServers", "servers"):
        if isinstance(document.get(key), dict):
            section = document[key]
            break
    if section is None and isinstance(document.get("mcp"), dict) and isinstance(document["mcp"].get("servers"), dict):
        section = document["mcp"]["servers"]  # VS Code settings.json
    if section is None:
        for key in ("mcpServers", "servers"):
            if key in document:
                raise ConfigError(
                    f'{path}: "{key}" must be an object of name: server entry, got {_json_type(document[key])}'
                )
        raise ConfigError(f'{path}: no "mcpServers" or "servers" object found')
    entries: dict[str, ServerSpec | _BadEntry] = {}
    for name, entry in section.items():
        try:
            entries[name] = parse_entry(name, entry, str(path))
        except ConfigError as exc:
            entries[name] = _BadEntry(ConfigError(f"{path}: {exc}"))
    return entries


def load_config(path: str | Path, problems: list[str] | None = None) -> dict[str, ServerSpec]:
    """All servers in one config file, by name.

    An entry that cannot be used raises :class:`ConfigError`, unless ``problems`` is
    given: then it is skipped and the reason appended there.
    """
    specs: dict[str, ServerSpec] = {}
    for name, entry in _read_config(Path(path).expanduser()).items():
        if isinstance(entry, _BadEntry):
            if problems is None:
                raise entry.error
            problems.append(str(entry.error))
        else:
            specs[name] = entry
    return specs


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _string(name: str, entry: dict[str, Any], key: str, *, empty: bool = False) -> str | None:
    """``entry[key]``: absent (or null) gives None; anything but a string is an error."""
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f'server {name!r}: "{key}" must be a string, got {_json_type(value)}')
    if not empty and not value:
        raise ConfigError(f'server {name!r}: "{key}" is empty')
    if "\0" in value:
        raise ConfigError(f'server {name!r}: "{key}" contains a NUL character')
    return value


def _string_map(name: str, entry: dict[str, Any], key: str, *, env: bool = False) -> dict[str, str]:
    """``entry[key]`` as an object of string -> string; values are never shown in errors (secrets)."""
    value = entry.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f'server {name!r}: "{key}" must be an object of name: string, got {_json_type(value)}')
    for item_key, item in value.items():
        if not isinstance(item, str):
            raise ConfigError(
                f'server {name!r}: "{key}": the value of {item_key!r} must be a string, got {_json_type(item)}'
            )
        if env and (not item_key or "=" in item_key or "\0" in item_key):
            raise ConfigError(f'server {name!r}: "{key}" has an invalid variable name {item_key!r}')
        if "\0" in item:
            raise ConfigError(f'server {name!r}: "{key}": the value of {item_key!r} contains a NUL character')
    return dict(value)


def parse_entry(name: str, entry: Any, source: str | None = None) -> ServerSpec:
    """One server entry; a field of the wrong type is an error naming the field."""
    if not isinstance(entry, dict):
        raise ConfigError(f"server {name!r}: expected an object, got {_json_type(entry)}")
    kind = (_string(name, entry, "type", empty=True) or _string(name, entry, "transport", empty=True) or "").lower()
    url = _string(name, entry, "url", empty=True) or _string(name, entry, "serverUrl", empty=True)
    raw_headers = _string_map(name, entry, "headers")  # checked for every entry, used for url ones
    era = (_string(name, entry, "era") or "auto").lower()
    if era not in ERAS:
        raise ConfigError(f'server {name!r}: "era" must be one of {", ".join(ERAS)}, got {era!r}')
    roots = _roots_entry(name, entry.get("roots"), source)
    watch = _watch_entry(name, entry.get("watch"), source)
    ignore = _ignore_entry(name, entry.get("ignore"))
    if url:
        if watch:
            raise ConfigError(f'server {name!r}: "watch" restarts a local stdio server; this entry has a "url"')
        if kind and kind not in _CONFIG_TRANSPORTS:
            raise ConfigError(
                f'server {name!r}: unknown "type" {kind!r} for a url entry '
                "(expected http, streamable-http, streamableHttp or sse)"
            )
        problem = url_problem(url)
        if problem is not None:
            raise ConfigError(f"server {name!r}: the url {problem}")
        headers = {key: expand_variables(value, f"server {name!r}: header {key}") for key, value in raw_headers.items()}
        for key in headers:
            if not _HEADER_NAME.match(key):
                raise ConfigError(f'server {name!r}: "headers" has an invalid header name {key!r}')
        for key, value in headers.items():
            check_header_value(value, f"server {name!r}: header {key}")
        auth, no_auth = _auth_entry(name, entry.get("auth"), source)
        return ServerSpec(
            name,
            url=url,
            transport=_CONFIG_TRANSPORTS.get(kind, "http"),
            headers=headers,
            source=source,
            era=era,
            auth=auth,
            no_auth=no_auth,
            roots=roots,
            ignore=ignore,
        )
    if kind in _CONFIG_TRANSPORTS:
        raise ConfigError(f'server {name!r}: "type" is {kind!r} but there is no "url"')
    command = entry.get("command")
    if command is None or command == "":
        raise ConfigError(f'server {name!r}: needs a "command" (or a "url")')
    command = _string(name, entry, "command")
    args = entry.get("args")
    if args is None:
        args = []
    if not isinstance(args, list):
        raise ConfigError(f'server {name!r}: "args" must be an array of strings, got {_json_type(args)}')
    for index, arg in enumerate(args):
        if not isinstance(arg, str):
            raise ConfigError(f'server {name!r}: "args"[{index}] must be a string, got {_json_type(arg)}')
        if "\0" in arg:
            raise ConfigError(f'server {name!r}: "args"[{index}] contains a NUL character')
    env = _string_map(name, entry, "env", env=True)
    cwd = _string(name, entry, "cwd", empty=True)  # "" means unset, as it does for other clients
    return ServerSpec(
        name,
        [command, *args],
        env,
        os.path.expanduser(cwd) if cwd else None,
        source=source,
        era=era,
        roots=roots,
        watch=watch,
        ignore=ignore,
    )


def _ignore_entry(name: str, value: Any) -> list[str]:
    """An entry's ``"ignore"``: rule ids of the check command (an array of strings; the ids are
    checked by the command, which knows them)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f'server {name!r}: "ignore" must be an array of rule ids, got {_json_type(value)}')
    return list(value)


def root_path(text: str, base: str | Path | None = None) -> str:
    """A root as given (a path, ``~/x``, or a ``file://`` URI) as an absolute path; a relative
    path is taken from ``base`` (the working directory when None). ValueError when it is not one."""
    if not isinstance(text, str) or not text.strip() or "\0" in text:
        raise ValueError("expected a path")
    if text.lower().startswith("file:"):
        from urllib.parse import unquote, urlsplit

        parts = urlsplit(text)
        if parts.netloc not in ("", "localhost") or not parts.path:
            raise ValueError(f"{text!r} is not a local file:// URI")
        text = unquote(parts.path)
    elif "://" in text:
        raise ValueError(f"{text!r} is not a path or a file:// URI")
    path = os.path.expanduser(text)
    if base is not None and not os.path.isabs(path):
        path = os.path.join(base, path)
    return os.path.abspath(path)


def _roots_entry(name: str, value: Any, source: str | None) -> list[str]:
    """An entry's ``"roots"``: an array of paths or file:// URIs, made absolute (relative to the
    config file's folder)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(f'server {name!r}: "roots" must be an array of paths, got {_json_type(value)}')
    base = Path(source).expanduser().resolve().parent if source else None
    roots = []
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigError(f'server {name!r}: "roots"[{index}] must be a string, got {_json_type(item)}')
        try:
            roots.append(root_path(item, base))
        except ValueError as exc:
            raise ConfigError(f'server {name!r}: "roots"[{index}]: {exc}') from None
    return roots


def _watch_entry(name: str, value: Any, source: str | None) -> list[str]:
    """An entry's ``"watch"``: ``true`` (the inferred directory: ``[""]``), ``false``/absent (none) or
    an array of paths, made absolute from the config file's folder (their existence is checked when
    watching starts)."""
    if value is None or value is False:
        return []
    if value is True:
        return [""]
    if not isinstance(value, list):
        raise ConfigError(f'server {name!r}: "watch" must be true or an array of paths, got {_json_type(value)}')
    base = Path(source).expanduser().resolve().parent if source else Path.cwd()
    paths = []
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip() or "\0" in item:
            raise ConfigError(f'server {name!r}: "watch"[{index}] must be a path')
        paths.append(os.path.abspath(os.path.join(base, os.path.expanduser(item))))
    return paths


#: An HTTP header name (an RFC 9110 token).
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")


def _auth_entry(name: str, value: Any, source: str | None) -> tuple[Any, bool]:
    """A url entry's ``"auth"``: false (never authorize), or an object of the authorization
    options (core/auth/options.py; ``${VAR}`` expanded in strings; files relative to the config
    file). Returns (AuthSettings or None, no_auth)."""
    if value is None or value is True:
        return None, False
    if value is False:
        return None, True
    if not isinstance(value, dict):
        raise ConfigError(f'server {name!r}: "auth" must be an object or false, got {_json_type(value)}')
    from ..auth.options import OptionError, normal_name, settings_from

    base = Path(source).expanduser().parent if source else None
    values: dict[str, Any] = {}
    for key, item in value.items():
        field_name = normal_name(str(key))
        if isinstance(item, str):
            item = expand_variables(item, f"server {name!r}: auth.{key}")
            if field_name in ("client_key", "assertion", "id_token") and base is not None and item != "-":
                item = str(base / os.path.expanduser(item))
        values[field_name] = item
    try:
        return settings_from(values, flag=lambda field_name: f'server {name!r}: "auth.{field_name}"'), False
    except OptionError as exc:
        raise ConfigError(str(exc)) from None


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a server's URL ("must start with http:// or https://"...), or None.
    The URL itself is not quoted: it may carry a token."""
    from urllib.parse import urlsplit

    if any(char in url for char in "\r\n\0 \t"):
        return "contains a space, line break or NUL"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return "is not a valid URL"
    if parts.scheme.lower() not in ("http", "https"):
        return "must start with http:// or https://" + (f" (got {parts.scheme}://)" if parts.scheme else "")
    if not parts.hostname:
        return "has no host"
    return None


def parse_header(text: str, what: str = "-H") -> tuple[str, str]:
    """``'Name: value'`` (a command-line header) into ``(name, value)``, ``${VAR}`` expanded.

    A malformed one is a ConfigError that does not quote the value (it may be a token).
    """
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not name:
        raise ConfigError(f"{what} expects 'Name: value' (got no ':' after a header name; the text is not shown)")
    if not _HEADER_NAME.match(name):
        raise ConfigError(f"{what}: {name!r} is not a valid header name")
    value = expand_variables(value.strip(), f"{what} {name}")
    check_header_value(value, f"{what} {name}")
    return name, value


def check_header_value(value: str, what: str) -> None:
    """An HTTP header value: printable ASCII, spaces and tabs (the value itself is not shown)."""
    if any(char in value for char in "\r\n\0"):
        raise ConfigError(f"{what}: the value contains a line break or NUL")
    if not value.isascii() or any(ord(char) < 32 and char != "\t" or ord(char) == 127 for char in value):
        raise ConfigError(
            f"{what}: the value must be printable ASCII (HTTP header values cannot carry other characters)"
        )


def server_from_config(path: str | Path, name: str | None) -> ServerSpec:
    entries = _read_config(Path(path).expanduser())
    if not entries:
        raise ConfigError(f"{path}: no servers defined")
    if name is None:
        if len(entries) > 1:
            raise ConfigError(f"{path} defines several servers; choose one with --server ({', '.join(entries)})")
        name = next(iter(entries))
    if name not in entries:
        raise ConfigError(f"no server named {name!r} in {path} (available: {', '.join(entries)})")
    entry = entries[name]
    if isinstance(entry, _BadEntry):
        raise entry.error
    return entry


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
        bad: list[str] = []
        try:
            specs = load_config(path, problems=bad)
        except ConfigError as exc:
            problems.append(f"{label}: {exc}")
            continue
        problems.extend(f"{label}: {problem}" for problem in bad)
        found.extend((label, spec) for spec in specs.values())
    return found, problems
