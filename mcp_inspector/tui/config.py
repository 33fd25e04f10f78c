"""The TUI's config file: ``$XDG_CONFIG_HOME/mcp-inspector/config.toml``.

Example::

    theme = "inspector-light"
    confirm_destructive = true    # ask before calling a tool marked destructiveHint
    request_timeout = 30          # seconds, or "none" (--timeout on the command line wins)
    [keymap]
    reconnect = "ctrl+e"      # binding id = key(s)

A broken file never stops the app: it starts with defaults and says why.
The theme picked in the command palette, the destructive-tool confirmation and the request
timeout (F11) are written back (``save_setting``): their top-level line is replaced or added,
every other line is kept as it was, and a file that does not parse is never overwritten.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..core.base.files import write_atomic


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcp-inspector"


def config_path() -> Path:
    return config_dir() / "config.toml"


@dataclass
class TuiConfig:
    theme: str = "inspector-dark"
    keymap: dict[str, str] = field(default_factory=dict)
    confirm_destructive: bool = False
    request_timeout: float | None = None  # seconds (None: no timeout), when request_timeout_set
    request_timeout_set: bool = False
    problems: list[str] = field(default_factory=list)
    path: Path | None = None  # the file it was read from: settings changed in the app are saved there


def _timeout_value(value: object) -> tuple[bool, float | None]:
    """(valid, seconds or None): a number >= 0 (0: none) or the string "none"."""
    if isinstance(value, str) and value.strip().lower() in ("none", "off", "never"):
        return True, None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf"):
        return True, float(value) or None
    return False, None


def load_config(path: Path | None = None) -> TuiConfig:
    path = path or config_path()
    config = TuiConfig(path=path)
    if not path.is_file():
        return config
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        config.problems.append(f"{path}: {getattr(exc, 'strerror', None) or exc}; using defaults")
        return config
    except RecursionError:  # tomllib recurses on nested arrays and inline tables
        config.problems.append(f"{path}: nested too deeply; using defaults")
        return config
    theme = data.get("theme")
    if isinstance(theme, str) and theme:
        config.theme = theme
    elif theme is not None:
        config.problems.append(f"{path}: theme must be a string")
    confirm = data.get("confirm_destructive")
    if isinstance(confirm, bool):
        config.confirm_destructive = confirm
    elif confirm is not None:
        config.problems.append(f"{path}: confirm_destructive must be true or false")
    if "request_timeout" in data:
        valid, seconds = _timeout_value(data["request_timeout"])
        if valid:
            config.request_timeout, config.request_timeout_set = seconds, True
        else:
            config.problems.append(f'{path}: request_timeout must be a number of seconds >= 0 or "none"')
    keymap = data.get("keymap", {})
    if not isinstance(keymap, dict):
        config.problems.append(f'{path}: [keymap] must be a table of binding id = "key"')
        keymap = {}
    for binding_id, keys in keymap.items():
        # ids of widget bindings (send-request...) are accepted too, not only the app's own
        if not isinstance(keys, str) or not keys:
            config.problems.append(f'{path}: keymap.{binding_id} must be a key string such as "ctrl+e"')
            continue
        config.keymap[binding_id] = keys
    return config


class ConfigSaveError(Exception):
    """The config file could not be updated (the message says why, with the path)."""


_FIRST_TABLE = re.compile(r"^[ \t]*\[", re.MULTILINE)


def save_theme(name: str, path: Path | None = None) -> Path:
    """Keep ``name`` as the theme for next time (see save_setting)."""
    return save_setting("theme", json.dumps(name), "the theme", path)  # a JSON string is a TOML basic string


def timeout_toml(seconds: float | None) -> str:
    return '"none"' if seconds is None else repr(float(seconds)).removesuffix(".0")


def save_setting(key: str, value: str, what: str, path: Path | None = None) -> Path:
    """Keep ``key = value`` (``value`` already TOML) for next time, in the config file (made if missing).

    Only that top-level line changes; comments, the keymap and anything else stay.
    A file that does not parse is left alone (ConfigSaveError), never overwritten."""
    path = path or config_path()
    text = ""
    try:
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigSaveError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigSaveError(f"{path} is not valid TOML ({exc}); {what} was not saved there") from None
    line = f"{key} = {value}"
    pattern = re.compile(rf"^[ \t]*{re.escape(key)}[ \t]*=.*$", re.MULTILINE)  # before the first [table]
    first_table = _FIRST_TABLE.search(text)
    head, tail = (text[: first_table.start()], text[first_table.start() :]) if first_table else (text, "")
    head = pattern.sub(lambda _: line, head, count=1) if pattern.search(head) else line + "\n" + head
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, (head + tail).encode("utf-8"), prefix=".config-")
    except OSError as exc:
        raise ConfigSaveError(f"{path}: {exc.strerror or exc}") from None
    return path
