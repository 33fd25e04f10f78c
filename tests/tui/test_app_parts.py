"""The shell's pure parts: capabilities text, replay, themes, config, keymap,
the connect screen's command-line parser and server-request replies."""

from __future__ import annotations

import json

import pytest
from app_helpers import DEMO_SESSION

from mcp_inspector.core.base.errors import RpcError
from mcp_inspector.core.traffic.loading import load_session
from mcp_inspector.tui.config import load_config
from mcp_inspector.tui.keymap import APP_KEYS
from mcp_inspector.tui.look.themes import ThemeFileError, builtin_themes, load_theme_file, user_themes
from mcp_inspector.tui.messages import ConnectionStatus
from mcp_inspector.tui.screens.answer.server_request import Answer, build_reply, elicitation_template
from mcp_inspector.tui.screens.dialogs.connect import parse_command_line
from mcp_inspector.tui.server.capabilities import explain_capabilities
from mcp_inspector.tui.server.replay import reconstruct, recorded_outcome
from mcp_inspector.tui.widgets.status_bar import describe_status


def test_capabilities_are_explained_as_declarations_and_unknown_keys_kept_raw():
    lines = {
        line.path: line
        for line in explain_capabilities(
            {
                "tools": {"listChanged": True},
                "resources": {"subscribe": True, "listChanged": False},
                "logging": {},
                "completions": {},
                "tasks": {"list": {}, "cancel": {}},
                "experimental": {"fancy": {"on": 1}},
                "madeUp": {"x": 1},
            }
        )
    }
    assert (
        lines["tools.listChanged"].explanation
        == "the server announces tool list changes (notifications/tools/list_changed)"
    )
    assert "subscribe" in lines["resources.subscribe"].explanation
    assert lines["resources.listChanged"].explanation.startswith("declared false")
    assert "logging/setLevel" in lines["logging"].explanation
    assert "completion/complete" in lines["completions"].explanation
    assert "tasks" in lines["tasks"].explanation and lines["tasks.cancel"].explanation
    assert lines["experimental.fancy"].value == {"on": 1}
    assert lines["madeUp"].explanation is None and lines["madeUp.x"].explanation is None


def test_replay_rebuilds_facts_tool_lists_and_recorded_results():
    loaded = load_session(DEMO_SESSION)
    replay = reconstruct(loaded.store)
    assert replay.facts.server_info["name"] == "mcp-inspector-demo"
    assert replay.facts.protocol_version == "2025-11-25"
    assert "tools" in replay.facts.capabilities
    assert len(replay.tool_lists) == 2  # before and after toggle_extra_tools
    names = [t["name"] for t in replay.tools]
    assert "weather_forecast" in names and "weather_forecast" not in [t["name"] for t in replay.tool_lists[0]]
    outcome = recorded_outcome(replay, loaded.store, "add")
    assert outcome.result["structuredContent"] == {"sum": 42}
    assert outcome.view.structured_issues == []
    failing = recorded_outcome(replay, loaded.store, "failing_tool")
    assert failing.is_error
    assert recorded_outcome(replay, loaded.store, "touch_resource") is None


def test_builtin_themes_load_and_carry_the_app_variables():
    themes = {t.name: t for t in builtin_themes()}
    assert {"inspector-dark", "inspector-light"} <= set(themes)
    assert themes["inspector-light"].dark is False
    assert themes["inspector-dark"].variables["traffic-in"]


def test_user_themes_toml_and_json_and_bad_files_are_reported(tmp_path):
    (tmp_path / "mine.toml").write_text('name = "mine"\nprimary = "#112233"\n[variables]\ntraffic-in = "#00ff00"\n')
    (tmp_path / "other.json").write_text(json.dumps({"name": "other", "primary": "red", "dark": False}))
    (tmp_path / "broken.toml").write_text("name = \n")
    (tmp_path / "badcolour.json").write_text(json.dumps({"name": "bad", "primary": "not-a-colour"}))
    (tmp_path / "notes.txt").write_text("ignored")
    themes, problems = user_themes(tmp_path)
    assert sorted(t.name for t in themes) == ["mine", "other"]
    assert len(problems) == 2
    assert any("broken.toml" in p and "TOML" in p for p in problems)
    assert any("badcolour.json" in p for p in problems)
    with pytest.raises(ThemeFileError, match='needs a "name"'):
        (tmp_path / "noname.toml").write_text('primary = "#000000"\n')
        load_theme_file(tmp_path / "noname.toml")


def test_config_file_theme_keymap_and_problems(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('theme = "inspector-light"\n[keymap]\nreconnect = "ctrl+e"\nsend-request = "ctrl+j"\nbad = 3\n')
    config = load_config(path)
    assert config.theme == "inspector-light"
    assert config.keymap == {"reconnect": "ctrl+e", "send-request": "ctrl+j"}
    assert any("keymap.bad" in p for p in config.problems)
    path.write_text("theme = [unclosed")
    broken = load_config(path)
    assert broken.theme == "inspector-dark" and broken.problems


def test_every_binding_has_a_unique_id():
    ids = [spec.id for spec in APP_KEYS]
    assert len(ids) == len(set(ids))


def test_command_line_parsing():
    spec = parse_command_line("API_KEY=abc npx -y '@scope/server x'")
    assert spec.command == ["npx", "-y", "@scope/server x"]
    assert spec.env == {"API_KEY": "abc"}
    assert spec.name == "@scope/server x"
    assert parse_command_line("python -m mcp_inspector.demo -v").name == "mcp_inspector.demo"
    assert parse_command_line("/usr/bin/node /srv/build/index.js").name == "index.js"
    assert parse_command_line("./my-server --port 3").name == "my-server"
    assert parse_command_line("https://example.com/mcp").url == "https://example.com/mcp"
    with pytest.raises(ValueError, match="type a command"):
        parse_command_line("   ")
    with pytest.raises(ValueError, match="cannot parse"):
        parse_command_line("python 'unclosed")


def test_server_request_replies():
    params = {
        "message": "hi",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "age": {"type": "integer"},
                "colour": {"type": "string", "enum": ["red", "blue"]},
                "subscribe": {"type": "boolean", "default": True},
            },
        },
    }
    assert json.loads(elicitation_template(params)) == {"name": "", "age": 0, "colour": "red", "subscribe": True}
    assert build_reply("elicitation/create", Answer("accept", '{"name": "Ada"}')) == {
        "action": "accept",
        "content": {"name": "Ada"},
    }
    assert build_reply("elicitation/create", Answer("decline")) == {"action": "decline"}
    assert build_reply("elicitation/create", Answer("cancel")) == {"action": "cancel"}
    reply = build_reply("sampling/createMessage", Answer("accept", "a haiku"))
    assert reply["role"] == "assistant" and reply["content"] == {"type": "text", "text": "a haiku"}
    with pytest.raises(RpcError, match="declined"):
        build_reply("sampling/createMessage", Answer("decline"))


def test_status_lines():
    exited = ConnectionStatus(
        "exited",
        "demo",
        "python x",
        "2025-11-25",
        12,
        exit_code=None,
        signal=9,
        detail="the server exited",
        stderr_tail=["boom", "Traceback: x"],
    )
    line, extra = describe_status(exited)
    assert "killed by SIGKILL" in line and extra == ["stderr │ boom", "stderr │ Traceback: x"]
    connected, _ = describe_status(ConnectionStatus("connected", "demo", "cmd", "2025-06-18", 4321, in_flight=2))
    assert "protocol 2025-06-18" in connected and "pid 4321" in connected and "2 in flight" in connected
    masked, _ = describe_status(ConnectionStatus("connected", "demo", "cmd", "2025-06-18", 4321), mask_volatile=True)
    assert "4321" not in masked
