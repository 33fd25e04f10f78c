"""The result panel's jq query: ``ResultQuery``, a part the ``ResultPanel`` owns.

``|`` opens an input over the result; the expression runs on the whole shown object
(a tool's ``result``: ``.structuredContent.items[].id``, ``.content[0].text``; or the
error object) and its outputs replace the rendered result until the query is cleared
(``x``). A new result is queried again. The work (encoding the result, jq in the child
process) runs in a thread worker, so a 50 MB result never blocks the UI.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static, TextArea
from textual.worker import Worker

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


class QueryHost(Protocol):
    """What the query needs of the result panel: the shown result, where it is drawn, its workers."""

    @property
    def payload(self) -> Any: ...
    @property
    def payload_frame(self) -> bytes | None: ...
    @property
    def generation(self) -> int: ...
    @property
    def body(self) -> Vertical: ...
    @property
    def is_mounted(self) -> bool: ...

    def post_message(self, message: Message) -> bool: ...
    def run_worker(
        self,
        work: Any,
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...


class ResultQuery:
    """The jq query over the shown result (``ResultPanel.jq``): its bar, its outputs, its sandbox."""

    def __init__(self, host: QueryHost) -> None:
        self.host = host
        self.bar = QueryBar(PLACEHOLDER, id="result-query")
        self.outputs = Vertical(id="result-query-outputs")
        self._sandbox: QuerySandbox | None = None
        self._key: tuple | None = None

    def compose(self) -> ComposeResult:
        yield self.bar
        yield self.outputs

    def run(self) -> None:
        """(Re)run the query on the shown result; with none (or no result) the rendered result is back."""
        host = self.host
        if not host.is_mounted:
            return
        bar, box = self.bar, self.outputs
        expression = bar.expression
        if expression is None or host.payload is None:
            self._key = None
            box.display = False
            host.body.display = True
            if expression is not None:
                bar.set_status("no result to query yet")
            return
        key = self._key = (expression, host.generation)
        bar.set_status("running…")
        box.remove_children()
        payload, frame = host.payload, host.payload_frame
        host.run_worker(
            lambda: self._work(key, payload, frame),
            thread=True,
            exclusive=True,
            group="result-query",
            exit_on_error=False,
        )

    def _work(self, key: tuple, payload: Any, frame: bytes | None) -> None:
        if self._sandbox is None:
            self._sandbox = QuerySandbox(cpu_limit=CPU_LIMIT)
        try:
            if frame is not None:  # a 50 MB result is not encoded again here (json.dumps holds the GIL)
                found = self._sandbox.value_outputs(key[0], frame, SHOWN_OUTPUTS, SHOWN_BYTES, member="result")
            else:
                text = json.dumps(payload, ensure_ascii=False)
                found = self._sandbox.value_outputs(key[0], text, SHOWN_OUTPUTS, SHOWN_BYTES)
        except (QueryStopped, QueryError, ValueError) as exc:
            self.host.post_message(ResultQueryDone(key, None, str(exc)))
            return
        self.host.post_message(ResultQueryDone(key, found))

    def done(self, message: ResultQueryDone) -> None:
        if message.key != self._key:
            return  # a stale run (the expression or the result changed since)
        bar, box = self.bar, self.outputs
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
        self.host.body.display = False

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
