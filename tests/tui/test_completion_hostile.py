"""CompletionInput against a server whose completions are hostile (tests/servers/completion_server.py):
10,000 values, a 5 MB value, a result that is not an object, values that are not strings, no
answer at all, and a late answer to a request already cancelled. The field stays usable and
says what happened; a stale answer never replaces newer suggestions."""

from __future__ import annotations

import sys

import pytest
from app_helpers import wait_for
from test_completion_input import SERVER, FormApp, cancels, options_text, requests, settled

from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.widgets.form.completion_input import shown_value

pytestmark = pytest.mark.anyio


def test_shown_value_is_one_short_line():
    assert shown_value("a\nb\tc") == "a b c"
    huge = shown_value("L" * 5_000_000)
    assert len(huge) < 100 and huge.endswith("… (5,000,000 characters)")


async def test_ten_thousand_values_are_cut_to_the_spec_cap_and_the_count_says_so(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(100, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"many")
            await settled(pilot, field, "the suggestions")
            assert len(field.suggestions) == 100 and field.sent == 10_000
            assert field.dropdown.options.option_count == 100
            status = str(field.dropdown.status.render())
            assert status.startswith("100 of 10,000 (over the spec's 100: the rest dropped)")
            await pilot.press("down", "enter")
            assert field.value == "many00001"


async def test_a_five_megabyte_value_is_drawn_on_one_short_line_and_taken_whole(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(80, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"long")
            await settled(pilot, field, "the suggestions")
            shown = options_text(field)
            assert shown == ["L" * 60 + "… (5,000,000 characters)", "long-short"]
            options = field.dropdown.options
            await wait_for(pilot, lambda: options.size.height, what="the list laid out")
            assert options.size.height == 2  # one line each, no wrapping
            await pilot.press("enter")
            assert len(field.value) == 5_000_000 and not field.list_open
            await pilot.press("ctrl+u", *"long")  # the field still answers
            await settled(pilot, field, "the suggestions again")
            await pilot.press("down", "enter")
            assert field.value == "long-short"


async def test_a_result_that_is_not_an_object_is_a_note_and_values_that_are_not_strings_are_left_out(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(100, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"garbage")
            await settled(pilot, field, "the note")
            assert "not an object" in field.note and field.suggestions == []
            # values that are not strings are left out (as the CLI prints only the strings), said
            await pilot.press("ctrl+u", *"nonstr")
            await settled(pilot, field, "the suggestions")
            assert options_text(field) == ["nonstr-a", "nonstr-b"] and field.note == ""
            assert str(field.dropdown.status.render()).startswith("2 suggestions (3 non-string values left out) · ")
            await pilot.press("down", "enter")
            assert field.value == "nonstr-b"
            await pilot.press("ctrl+u", *"nostr")
            await settled(pilot, field, "the note")
            assert (
                field.suggestions == []
                and str(field.dropdown.status.render()) == "no suggestions (3 non-string values left out)"
            )
            await pilot.press("ctrl+u", *"it")  # the server is still usable
            await settled(pilot, field, "the suggestions")
            assert options_text(field)[0] == "item00"


async def test_a_finished_request_is_not_answered_until_its_answer_is_shown(connect):
    """The window that made the list look settled on the older answer: the request has ended (not busy),
    the list of the value before is still open, and the answer is a message not handled yet."""
    from mcp_inspector.tui.widgets.form.completion_input import CompletionInput

    at_arrival: list[tuple[bool, bool, bool]] = []

    def hook(message) -> None:
        if isinstance(message, CompletionInput.Suggested) and message.value == "nonstr" and not at_arrival:
            field = message.input
            at_arrival.append((field.busy, field.list_open, field.answered))

    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(100, 24), message_hook=hook) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"garbage")
            await settled(pilot, field, "the note")
            await pilot.press("ctrl+u", *"nonstr")
            await settled(pilot, field, "the suggestions")
            assert at_arrival == [(False, True, False)]  # idle, open on the old note, not answered yet
            assert field.answered and options_text(field) == ["nonstr-a", "nonstr-b"]


async def test_no_answer_says_it_waits_escape_stops_it_and_a_timeout_is_said(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(100, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"never")
            await wait_for(pilot, lambda: field.list_open, what="the waiting line")
            assert str(field.dropdown.status.render()).startswith("… waiting for the server's suggestions")
            assert field.busy
            never_id = requests(c.session)[-1]["id"]
            await pilot.press("escape")  # closes the list and drops the request
            await wait_for(pilot, lambda: cancels(c.session), what="notifications/cancelled")
            assert cancels(c.session)[-1]["params"]["requestId"] == never_id
            assert not field.list_open and not field.busy and app.left == 0
            field.TIMEOUT = 0.5  # on this field only: the timeout is said, not a hang
            await pilot.press("down")
            await wait_for(pilot, lambda: field.note, what="the timeout note")
            assert field.note == "completion: no answer within 0.5 s (the request was cancelled)"
            await wait_for(pilot, lambda: len(cancels(c.session)) == 2, what="the timeout's notifications/cancelled")


async def test_a_late_answer_to_a_cancelled_request_never_replaces_newer_suggestions(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(100, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"hold")  # held by the server until a newer request was answered
            await wait_for(pilot, lambda: field._pending is not None, what="the held request in flight")
            held_id = requests(c.session)[-1]["id"]
            await pilot.press("ctrl+u", *"it")
            await settled(pilot, field, "the newer suggestions")
            assert cancels(c.session)[0]["params"]["requestId"] == held_id

            def late_answer():
                return [e for e in c.session.store if e.direction is Direction.IN and e.msg_id == held_id]

            await wait_for(pilot, late_answer, what="the late answer to the held request")
            assert late_answer()[0].late
            await pilot.pause()
            assert options_text(field)[0] == "item00" and field.value == "it"
            assert not any(value.startswith("stale-") for value in field.suggestions)


async def test_typing_while_the_list_is_open_says_a_fresh_answer_is_coming(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(100, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"boom")
            await settled(pilot, field, "the error note")
            await pilot.press("ctrl+u", *"never")
            await wait_for(pilot, lambda: "waiting" in str(field.dropdown.status.render()), what="the waiting line")
            assert "boom" not in str(field.dropdown.status.render())  # the old error is not left standing


async def test_enter_while_the_list_answers_an_older_value_keeps_what_was_typed(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(100, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"it")
            await settled(pilot, field, "the suggestions")
            assert options_text(field)[0] == "item00"
            await pilot.press("ctrl+u", *"never")  # no answer will come: the list shown is for "it"
            assert field.list_open and field.dropdown.has_class("-stale")
            assert str(field.dropdown.status.render()).startswith("… waiting for the server's suggestions")
            await wait_for(
                pilot,
                lambda: requests(c.session)[-1]["params"]["argument"]["value"] == "never",
                what="the request for never",
            )
            assert options_text(field)[0] == "item00" and field.busy  # still shown, still unanswered
            await pilot.press("enter")
            assert field.value == "never" and app.submitted == ["never"]  # not item00
            await pilot.press("ctrl+u", *"item0")
            await wait_for(
                pilot,
                lambda: not field.busy and field.list_open and field.answered,
                what="fresh suggestions",
            )
            await pilot.press("down", "enter")  # fresh ones are taken as before
            assert field.value == "item01"
