"""The TUI's config file: ``$XDG_CONFIG_HOME/mcp-inspector/config.toml``.

Example::

    theme = "inspector-light"
    [keymap]
    reconnect = "ctrl+e"      # binding id = key(s)

A broken file never stops the app: it starts with defaults and says why.
The theme picked in the command palette is written back (``save_theme``): the
``theme = ...`` line is replaced or added, every other line is kept as it was.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..core.config.files import write_atomic


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcp-inspector"


def config_path() -> Path:
    return config_dir() / "config.toml"


@dataclass
class TuiConfig:
    theme: str = "inspector-dark"
    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def load_config(path: Path | None = None) -> TuiConfig:
    path = path or config_path()
    config = TuiConfig()
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
    keymap = data.get("keymap", {})
    if not isinstance(keymap, dict):
        config.problems.append(f"{path}: [keymap] must be a table of binding id = \"key\"")
        keymap = {}
    for binding_id, keys in keymap.items():
        # ids of widget bindings (send-request...) are accepted too, not only the app's own
        if not isinstance(keys, str) or not keys:
            config.problems.append(f"{path}: keymap.{binding_id} must be a key string such as \"ctrl+e\"")
            continue
        config.keymap[binding_id] = keys
    return config


class ConfigSaveError(Exception):
    """The config file could not be updated (the message says why, with the path)."""


#: the top-level ``theme = ...`` line (before the first [table])
_THEME_LINE = re.compile(r"^[ \t]*theme[ \t]*=.*$", re.MULTILINE)
_FIRST_TABLE = re.compile(r"^[ \t]*\[", re.MULTILINE)


def save_theme(name: str, path: Path | None = None) -> Path:
    """Keep ``name`` as the theme for next time, in the config file (made if missing).

    Only the top-level ``theme`` line changes; comments, the keymap and anything else stay.
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
        raise ConfigSaveError(f"{path} is not valid TOML ({exc}); the theme was not saved there") from None
    line = f"theme = {json.dumps(name)}"  # a JSON string is a valid TOML basic string
    first_table = _FIRST_TABLE.search(text)
    head, tail = (text[:first_table.start()], text[first_table.start():]) if first_table else (text, "")
    if _THEME_LINE.search(head):
        head = _THEME_LINE.sub(lambda _: line, head, count=1)
    else:
        head = line + "\n" + head
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, (head + tail).encode("utf-8"), prefix=".config-")
    except OSError as exc:
        raise ConfigSaveError(f"{path}: {exc.strerror or exc}") from None
    return path
