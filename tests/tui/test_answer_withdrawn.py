"""A server request whose screen is still being built when the request ends (the server cancelled
it, the connection closed): the screen leaves once built, never mid-mount. Taken down mid-mount,
the parts of a Select in its form were pruned before the Select's own Mount handler ran, which
then failed on them (NoMatches) and ended the app: at 1, 2 and 5 scheduling steps into the mount."""

from __future__ import annotations

import asyncio

import pytest
from traffic_apps import ThemedApp

from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.screens.answer.queue import AnswerQueue
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen

pytestmark = pytest.mark.anyio

ASK = {
    "mode": "form",
    "message": "Which size?",
    "requestedSchema": {"type": "object", "properties": {"size": {"type": "string", "enum": ["S", "M"]}}},
}
STEPS = 8  # scheduling steps into the screen's mount, one apart


def asking(queue: AnswerQueue) -> asyncio.Future:
    return asyncio.ensure_future(queue.ask(lambda: ServerRequestScreen("elicitation/create", ASK)))


async def withdrawn(task: asyncio.Future) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def alive(app) -> bool:
    """Fails at once (not at a wait's bound) when the app ended on an error."""
    assert app.return_code is None, "the app ended on an error"
    return True


def no_request_shown(app) -> bool:
    return alive(app) and not any(isinstance(screen, ServerRequestScreen) for screen in app.screen_stack)


async def test_a_request_ended_while_its_screen_is_built_leaves_once_built():
    app = ThemedApp()
    async with app.run_test(size=(100, 30)) as pilot:
        queue = AnswerQueue(lambda: app)
        for steps in range(STEPS):
            task = asking(queue)
            for _ in range(steps):
                await asyncio.sleep(0)
            await withdrawn(task)
            await wait_for(pilot, lambda: no_request_shown(app), what=f"the screen gone ({steps} steps)")

        # the first ends while it is built, the next in line is shown (and answers as usual)
        for steps in range(0, STEPS, 2):
            first, second = asking(queue), asking(queue)
            for _ in range(steps):
                await asyncio.sleep(0)
            await withdrawn(first)
            await wait_for(
                pilot,
                lambda: alive(app) and isinstance(app.screen, ServerRequestScreen) and app.screen.is_mounted,
                what=f"the second request's screen ({steps} steps)",
            )
            await pilot.press("ctrl+r")  # decline
            await wait_for(pilot, lambda answer=second: alive(app) and answer.done(), what="the answer")
            assert second.result().action == "decline"
            await wait_for(pilot, lambda: no_request_shown(app), what=f"every screen gone ({steps} steps)")
