"""The result panel's jq query (mixed into ``ResultPanel``).

``|`` opens an input over the result; the expression runs on the whole shown object
(a tool's ``result``: ``.structuredContent.items[].id``, ``.content[0].text``; or the
error object) and its outputs replace the rendered result until the query is cleared
(``x``). A new result is queried again. The work (encoding the result, jq in the child
process) runs in a thread worker, so a 50 MB result never blocks the UI.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static, TextArea

from ....core.query import FrameOutputs, QueryError, QuerySandbox, QueryStopped
from ..query_bar import SHOWN_BYTES, SHOWN_OUTPUTS, QueryBar, output_lines

CPU_LIMIT = 10.0
PLACEHOLDER = "jq over the result, e.g. .structuredContent · enter applies · esc leaves · x clears"


def reply_frame(outcome: Any) -> bytes | None:
    """The bytes of the frame that carried a tool call's result (None for a task's result)."""
    if getattr(outcome, "task_id", None) is not None:
        return None
    rounds = getattr(outcome, "rounds", None) or []
    pending = rounds[-1] if rounds else getattr(outcome, "request", None)
    reply = getattr(pending, "reply", None)
    raw = getattr(reply, "raw", None)
    return raw if isinstance(raw, bytes) else None


class ResultQueryDone(Message):
    """The outputs for ``key`` ((expression, generation of the shown result))."""

    def __init__(self, key: tuple, found: FrameOutputs | None, error: str | None = None) -> None:
        super().__init__()
        self.key = key
        self.found = found
        self.error = error


def outputs_widget(text: Text) -> Any:
    """A Static for a few lines, a read-only TextArea (scrolls itself) for more."""
    plain = text.plain
    if len(plain) <= 2_000 and plain.count("\n") < 40:
        return Static(text, classes="block-text")
    area = TextArea(plain, read_only=True, soft_wrap=True)
    area.add_class("block-text-area")
    return area


class ResultQueryMixin:
    """The query part of ``ResultPanel``: it provides ``payload``, ``_generation`` and ``_body``."""

    payload: Any
    _generation: int
    _body: Vertical
    _query_sandbox: QuerySandbox | None = None
    _query_key: tuple | None = None
    payload_frame: bytes | None = None  # the frame the shown result came in (queried as its "result")

    def compose_query(self) -> ComposeResult:
        yield QueryBar(PLACEHOLDER, id="result-query")
        yield Vertical(id="result-query-outputs")

    @property
    def result_query(self) -> QueryBar:
        return self.query_one("#result-query", QueryBar)  # type: ignore[attr-defined]  # a mixin: self is the ResultPanel widget

    def action_query_result(self) -> None:
        self.result_query.open()

    def action_clear_result_query(self) -> None:
        self.result_query.clear()
        self.focus()  # type: ignore[attr-defined]  # a mixin: self is the ResultPanel widget

    def on_query_bar_changed(self, event: QueryBar.Changed) -> None:
        event.stop()
        self.run_result_query()

    def on_query_bar_left(self, event: QueryBar.Left) -> None:
        event.stop()
        self.focus()  # type: ignore[attr-defined]  # a mixin: self is the ResultPanel widget

    def run_result_query(self) -> None:
        """(Re)run the query on the shown result; with none (or no result) the rendered result is back."""
        if not self.is_mounted:  # type: ignore[attr-defined]  # a mixin: self is the ResultPanel widget
            return
        bar = self.result_query
        box = self.query_one("#result-query-outputs", Vertical)  # type: ignore[attr-defined]  # a mixin: self is the ResultPanel widget
        expression = bar.expression
        if expression is None or self.payload is None:
            self._query_key = None
            box.display = False
            self._body.display = True
            if expression is not None:
                bar.set_status("no result to query yet")
            return
        key = self._query_key = (expression, self._generation)
        bar.set_status("running…")
        box.remove_children()
        payload, frame = self.payload, self.payload_frame
        self.run_worker(
            lambda: self._query_work(key, payload, frame),
            thread=True,
            exclusive=True,
            group="result-query",
            exit_on_error=False,
        )

    def _query_work(self, key: tuple, payload: Any, frame: bytes | None) -> None:
        if self._query_sandbox is None:
            self._query_sandbox = QuerySandbox(cpu_limit=CPU_LIMIT)
        try:
            if frame is not None:  # a 50 MB result is not encoded again here (json.dumps holds the GIL)
                found = self._query_sandbox.value_outputs(key[0], frame, SHOWN_OUTPUTS, SHOWN_BYTES, member="result")
            else:
                text = json.dumps(payload, ensure_ascii=False)
                found = self._query_sandbox.value_outputs(key[0], text, SHOWN_OUTPUTS, SHOWN_BYTES)
        except (QueryStopped, QueryError, ValueError) as exc:
            self.post_message(ResultQueryDone(key, None, str(exc)))  # type: ignore[attr-defined]  # a mixin: self is the ResultPanel widget
            return
        self.post_message(ResultQueryDone(key, found))  # type: ignore[attr-defined]  # a mixin: self is the ResultPanel widget

    def on_result_query_done(self, message: ResultQueryDone) -> None:
        message.stop()
        if message.key != self._query_key:
            return  # a stale run (the expression or the result changed since)
        bar = self.result_query
        box = self.query_one("#result-query-outputs", Vertical)  # type: ignore[attr-defined]  # a mixin: self is the ResultPanel widget
        box.remove_children()
        if message.found is None:
            bar.set_status(f"✗ {message.error}", error=True)
            box.mount(Static(Text(f"✗ {message.error}"), classes="block-problem"))
        else:
            found = message.found
            count = len(found.outputs)
            status = f"{count:,} output{'s' if count != 1 else ''}{' (more not shown)' if found.cut else ''}"
            bar.set_status(status + (f" · ✗ {found.error}" if found.error else ""), error=found.error is not None)
            box.mount(outputs_widget(output_lines(found, cap=SHOWN_BYTES)))
        box.display = True
        self._body.display = False

    def on_unmount(self) -> None:
        if self._query_sandbox is not None:
            self._query_sandbox.close()
