"""The session of an app that exited is freed.

Textual cancels the connection worker when the app exits, and may cancel it again while the
session shuts the server down inside a shielded scope; that second cancellation used to skip
the session's task group exit, and anyio then kept the group's scope, the finished worker task
and its context (the app, its store, every widget) for as long as the process lived. A user's
every reconnect leaked a session that way; a test worker leaked one app per test, and its
garbage collections grew with them."""

from __future__ import annotations

import gc
import time
import weakref

import anyio
import pytest
from app_helpers import SIZE, live_app, wait_for_tools

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


async def test_an_app_that_exited_is_freed_with_its_session():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        session = weakref.ref(app.main.connection.session)
        workers = list(app.workers)
    # the connection worker shuts the server down after the app exited: wait for it to end
    deadline = time.monotonic() + 30
    while not all(worker.is_finished for worker in workers):
        assert time.monotonic() < deadline, [(w.name, w.state) for w in workers if not w.is_finished]
        await anyio.sleep(0.05)
    del pilot, workers
    gc.collect()
    # (the app itself stays referred to by this test's own context: run_test set active_app here)
    assert session() is None, "the session is still referred to after the app exited"
