"""End to end through the real app: a pydantic server's nested ``$ref`` model filled in the
form, sent over real pipes, answered by the server."""

from __future__ import annotations

import json

import pytest
from app_helpers import SIZE, choose_tool, live_app, outgoing, wait_for, wait_for_tools
from conftest import sdk_server_command

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.messages import CallFinished


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    """Drafts and config go to a temp dir, never the developer's home."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.mark.anyio
async def test_nested_ref_model_is_a_form_and_the_call_goes_through():
    finished: list[CallFinished] = []
    app = live_app(ServerSpec("sdk", sdk_server_command(), source="test"))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "greet")
        composer = app.main.composer
        form = composer.schema_form
        # person is {"$ref": "#/$defs/Person"} whose address is another $ref: all fields, no JSON box
        assert form.spec.fallback_notes == []
        assert {"$.person.name", "$.person.address.city", "$.person.address.country"} <= set(form.editors)
        for key, text in (("$.person.name", "Ada"), ("$.person.address.city", "Paris")):
            form.editors[key].focus()
            await pilot.press("end", *text)
        await pilot.pause()
        # country holds its schema default "FR": left out, the server's own default applies (issue 21)
        assert composer.get_arguments()["person"] == {"name": "Ada", "address": {"city": "Paris"}}
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: finished, what="the call to finish")
        outcome = finished[0].outcome
        assert outcome.name == "greet"
        assert [block.get("text") for block in outcome.result["content"]] == ["Hello, Ada from Paris"]
        request = json.loads(outgoing(app, "tools/call")[-1].raw)
        assert request["params"]["arguments"] == {"person": {"name": "Ada", "address": {"city": "Paris"}}}
