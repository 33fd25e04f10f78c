"""The Prompts view against an ``mcp`` SDK server with completable prompt arguments
(tests/servers/sdk_prompts_server.py: ``plan_trip``, whose ``city`` narrows by ``country``), in
both eras, over stdio and Streamable HTTP; and ``mcp-inspector complete``/``get`` on it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, live_app, outgoing, wait_for
from http_fixtures import PYTHON, _launch
from test_prompts_view import choose, field, open_prompts, status

from mcp_inspector.core.config.servers import ServerSpec

pytestmark = pytest.mark.usefixtures("isolated_cwd")

SERVER = Path(__file__).resolve().parents[1] / "servers" / "sdk_prompts_server.py"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sdk_prompts_url():
    def find_port(log_path: Path) -> int | None:
        match = re.search(rb"^PORT (\d+)$", log_path.read_bytes(), re.MULTILINE)
        return int(match.group(1)) if match else None

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    server = _launch([PYTHON, str(SERVER), "--exit-on-eof"], env, find_port, "/mcp", "sdk-prompts")
    try:
        yield server.url
    finally:
        server.stop()


def stdio_spec(era: str) -> ServerSpec:
    flag = "--modern-stdio" if era == "modern" else "--stdio"
    return ServerSpec("sdk-prompts", [sys.executable, str(SERVER), flag], source="test", era=era)


async def plan_a_trip(pilot, app, era: str) -> None:
    """Country by completion, the city narrowed by it, then prompts/get: both messages shown."""
    view = await open_prompts(pilot, app)
    assert app.main.status_bar.status.era == era
    assert "completions" in app.main.connection.live.capabilities
    await choose(pilot, view, "plan_trip")
    country = field(view, "country")
    assert app.focused is country
    await pilot.press(*"ja")
    await wait_for(pilot, lambda: country.suggestions == ["Japan"] and not country.busy, what="Japan")
    await pilot.press("tab")
    assert country.value == "Japan"
    await pilot.press("tab")
    city = field(view, "city")
    assert app.focused is city
    await pilot.press("down")  # ask now, for the empty value: the cities of Japan only
    await wait_for(pilot, lambda: city.list_open and city.suggestions and not city.busy, what="the cities")
    assert city.suggestions == ["Kyoto", "Osaka", "Tokyo"]
    assert str(city.dropdown.status.render()).startswith("3 of 3")
    request = json.loads(outgoing(app, "completion/complete")[-1].raw)["params"]
    assert request["ref"] == {"type": "ref/prompt", "name": "plan_trip"}
    assert request["context"] == {"arguments": {"country": "Japan"}}
    if era == "modern":
        assert "io.modelcontextprotocol/protocolVersion" in request["_meta"]
    await pilot.press("down", "enter")
    assert city.value == "Osaka"
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: view.messages.messages or "✖" in status(view), what="the messages")
    assert [m["role"] for m in view.messages.messages] == ["user", "assistant"], status(view)
    assert view.messages.messages[0]["content"]["text"] == "Plan a trip to Osaka, Japan."
    assert json.loads(outgoing(app, "prompts/get")[-1].raw)["params"]["arguments"] == {
        "country": "Japan",
        "city": "Osaka",
    }


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sdk_server_over_stdio_completes_the_city_by_the_country(era):
    app = live_app(stdio_spec(era))
    async with app.run_test(size=SIZE) as pilot:
        await plan_a_trip(pilot, app, era)


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sdk_server_over_streamable_http_completes_the_city_by_the_country(sdk_prompts_url, era):
    app = live_app(ServerSpec("sdk-prompts", url=sdk_prompts_url, transport="http", era=era))
    async with app.run_test(size=SIZE) as pilot:
        await plan_a_trip(pilot, app, era)


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "mcp_inspector", *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_cli_completes_and_gets_over_http(sdk_prompts_url, era):
    done = cli(
        "--url",
        sdk_prompts_url,
        "--era",
        era,
        "complete",
        "--prompt",
        "plan_trip",
        "city",
        "",
        "--context",
        "country=Italy",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Milan", "Rome", "(total: 2, hasMore: false)"]
    got = cli("--url", sdk_prompts_url, "--era", era, "get", "plan_trip", "country=Italy", "city=Rome", "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["messages"][0]["content"]["text"] == "Plan a trip to Rome, Italy."


@pytest.mark.parametrize("flag", ["--stdio", "--modern-stdio"])
def test_cli_completes_over_stdio(flag):
    done = cli(
        "complete",
        "--prompt",
        "plan_trip",
        "city",
        "m",
        "--context",
        "country=Germany",
        "--",
        sys.executable,
        str(SERVER),
        flag,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Munich", "(total: 1, hasMore: false)"]
