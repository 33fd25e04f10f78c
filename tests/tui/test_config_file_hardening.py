"""The TUI's own files (config.toml, user themes): any content gives a problem line, never a crash."""

from __future__ import annotations

import pytest

from mcp_inspector.tui.config import load_config
from mcp_inspector.tui.look.themes import ThemeFileError, load_theme_file, user_themes

DEEP_TOML = "a = " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_INLINE_TOML = "a = " + "{b = " * 5000 + "1" + "}" * 5000 + "\n"


@pytest.mark.parametrize(
    "content",
    [DEEP_TOML.encode(), DEEP_INLINE_TOML.encode(), 'theme = "caf\xe9"\n'.encode("latin-1")],
    ids=["deep-array", "deep-inline-table", "not-utf8"],
)
def test_config_toml_problems_not_crashes(tmp_path, content):
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    config = load_config(path)
    assert config.theme == "inspector-dark" and len(config.problems) == 1
    assert str(path) in config.problems[0] and "using defaults" in config.problems[0]


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("deep.toml", DEEP_TOML.encode(), "not valid TOML: nested too deeply"),
        (
            "deep.json",
            b'{"name": "x", "primary": ' + b"[" * 5000 + b"]" * 5000 + b"}",
            "not valid JSON: nested deeper than 128",
        ),
        ("latin.toml", 'name = "caf\xe9"\n'.encode("latin-1"), "not UTF-8 (byte 0xe9"),
        ("latin.json", '{"name": "caf\xe9"}'.encode("latin-1"), "not UTF-8 (byte 0xe9"),
        ("nan.json", b'{"name": "x", "primary": "#000000", "dark": NaN}', "NaN is not a JSON value"),
    ],
    ids=["deep-toml", "deep-json", "latin1-toml", "latin1-json", "nan-json"],
)
def test_theme_files_problems_not_crashes(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ThemeFileError, match=reason.replace("(", r"\(")):
        load_theme_file(path)
    themes, problems = user_themes(tmp_path)
    assert themes == [] and len(problems) == 1 and str(path) in problems[0]


def test_theme_json_with_a_bom_loads(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"name": "bom-theme", "primary": "#336699"}')
    assert load_theme_file(path).name == "bom-theme"
