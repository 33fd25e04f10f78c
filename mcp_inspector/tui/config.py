"""The TUI's config file: ``$XDG_CONFIG_HOME/mcp-inspector/config.toml``.

Example::

    theme = "inspector-light"
    [keymap]
    reconnect = "ctrl+e"      # binding id = key(s)

A broken file never stops the app: it starts with defaults and says why.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


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
