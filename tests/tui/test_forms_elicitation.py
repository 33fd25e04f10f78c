"""``ElicitationForm``: a server's elicitation request answered through the same form widgets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input, SelectionList

from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.widgets.form.elicitation_form import ElicitationForm

pytestmark = pytest.mark.anyio
CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "schemas" / "hand_written_hard.json"
SCHEMAS = {tool["name"]: tool["inputSchema"] for tool in json.loads(CORPUS.read_text(encoding="utf-8"))["tools"]}


class ElicitApp(App):
    """How the next issue's screen uses it: mount the form, wait for ``Answered``, reply with ``result``."""

    def __init__(self, schema: dict) -> None:
        super().__init__()
        self.schema = schema
        self.answers: list[dict] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield ElicitationForm("The server asks: who are you?", self.schema)

    def on_elicitation_form_answered(self, event: ElicitationForm.Answered) -> None:
        self.answers.append(event.result)


async def test_fill_and_accept_after_fixing_what_is_missing():
    app = ElicitApp(SCHEMAS["elicitation_flat_primitives"])
    async with app.run_test(size=(100, 50)) as pilot:
        await pilot.pause()
        form = app.query_one(ElicitationForm)
        await pilot.click("#elicitation-accept")
        await pilot.pause()
        assert app.answers == []  # email is required: refused, with the reason on the field
        assert form.body.message_for("$.email") == 'required (ctrl+delete sends "")'
        assert "1 field to fix" in str(form.query_one("#elicitation-error").render())
        email = form.body.editors["$.email"]
        assert isinstance(email, Input)
        email.focus()
        await pilot.press(*"ada@example")
        await pilot.pause()
        assert form.body.message_for("$.email") is None  # still a valid address for the format check
        await pilot.press(*".org")
        await pilot.click("#elicitation-accept")
        await pilot.pause()
        assert app.answers == [
            {
                "action": "accept",
                "content": {"name": "guest", "email": "ada@example.org", "score": 0.5, "subscribe": False},
            }
        ]


async def test_multi_select_and_decline():
    app = ElicitApp(SCHEMAS["elicitation_multi_select"])
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        form = app.query_one(ElicitationForm)
        days = form.body.editors["$.days"]
        assert isinstance(days, SelectionList)
        days.focus()
        await pilot.press("down", "space")  # Tuesday too
        await pilot.pause()
        await pilot.click("#elicitation-accept")
        await pilot.pause()
        assert app.answers[-1] == {
            "action": "accept",
            "content": {"toppings": ["cheese"], "days": ["mon", "wed", "tue"]},
        }
        await pilot.click("#elicitation-decline")
        await pilot.pause()
        assert app.answers[-1] == {"action": "decline"}
