"""Themes: the ones we ship plus the user's own files.

Shipped themes are package data in ``mcp_inspector/themes/*.toml`` (the repo's
top-level ``themes/`` is a symlink to that folder, so there is one copy of each
file and the wheel includes them through ``package-data``). User themes are
``*.toml`` or ``*.json`` files in ``$XDG_CONFIG_HOME/mcp-inspector/themes/``
with the same keys: name, dark, primary, secondary, accent, warning, error,
success, foreground, background, surface, panel, and a ``variables`` table
(app colours such as ``traffic-in``; see ``theme_vars.py``).
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from textual.theme import Theme

from ...core.base.json_text import loads_strict
from ..config import config_dir

COLOUR_KEYS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


class ThemeFileError(Exception):
    """A theme file we cannot use, with the reason."""


def theme_from_data(data: Any, origin: str) -> Theme:
    if not isinstance(data, dict):
        raise ThemeFileError(f"{origin}: expected a table/object at the top level")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeFileError(f'{origin}: needs a "name"')
    if not isinstance(data.get("primary"), str):
        raise ThemeFileError(f'{origin}: needs a "primary" colour')
    colours = {key: data[key] for key in COLOUR_KEYS if isinstance(data.get(key), str)}
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeFileError(f'{origin}: "variables" must be a table of name = colour')
    try:
        theme = Theme(
            name=name.strip(),
            dark=bool(data.get("dark", True)),
            variables={str(k): str(v) for k, v in variables.items()},
            **colours,
        )
        # parse the colours now so a typo fails here, with the file name, not at paint time
        theme.to_color_system()
    except Exception as exc:  # Color.parse raises several types
        raise ThemeFileError(f"{origin}: {exc}") from None
    return theme


def load_theme_file(path: Path) -> Theme:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ThemeFileError(f"{path}: {exc.strerror or exc}") from None
    is_json = path.suffix.lower() == ".json"
    try:
        data = loads_strict(raw) if is_json else tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ThemeFileError(f"{path}: not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    except (ValueError, tomllib.TOMLDecodeError) as exc:  # JsonTextError is a ValueError
        raise ThemeFileError(f"{path}: not valid {'JSON' if is_json else 'TOML'}: {exc}") from None
    except RecursionError:  # tomllib recurses on nested arrays and inline tables
        raise ThemeFileError(f"{path}: not valid TOML: nested too deeply") from None
    return theme_from_data(data, str(path))


def builtin_themes() -> list[Theme]:
    folder = resources.files("mcp_inspector") / "themes"
    themes = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            themes.append(theme_from_data(tomllib.loads(entry.read_text(encoding="utf-8")), f"built-in {entry.name}"))
    return themes


def user_theme_dir() -> Path:
    return config_dir() / "themes"


def user_themes(folder: Path | None = None) -> tuple[list[Theme], list[str]]:
    """The user's theme files: (themes, problems). A bad file is reported, never fatal."""
    folder = folder or user_theme_dir()
    themes: list[Theme] = []
    problems: list[str] = []
    if not folder.is_dir():
        return themes, problems
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in (".toml", ".json"):
            continue
        try:
            themes.append(load_theme_file(path))
        except ThemeFileError as exc:
            problems.append(str(exc))
    return themes, problems


def keep_theme_choice(app: Any, path: Path | None = None) -> None:
    """From now on, a theme chosen in the app (the palette's "Theme" command) is saved in the
    config file for next time; a file we cannot write is said once, as a warning."""
    from ..config import ConfigSaveError, save_theme

    kept = [app.theme]  # the theme in force now (the config's, or the fallback for an unknown one)

    def saved(theme: Theme) -> None:
        if theme.name == kept[0]:
            return  # the start-up theme being announced, or no change
        kept[0] = theme.name
        try:
            save_theme(theme.name, path)
        except ConfigSaveError as exc:
            app.notify(str(exc), title="Theme not kept", severity="warning", markup=False)

    app.theme_changed_signal.subscribe(app, saved)
