"""The result of a tool call: every content block, structured output, and what went wrong.

Three failures look different on purpose: ``isError: true`` is the *tool*
reporting a failure (warning style), a JSON-RPC error is the *server* refusing
the request (error style, with code/message/data), and timeout / cancel /
connection lost are about the *transport*. Huge payloads are never rendered
whole: each block shows its first ``TRUNCATE_AT`` characters, and the whole
result can be saved to a file or opened in ``$PAGER`` (file work runs in
thread workers); structured content is pretty-printed only as far as shown.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from ....core.base.errors import (
    ConnectionLost,
    ProtocolViolation,
    RequestCancelled,
    RequestTimeout,
    RpcError,
    TaskCancelled,
    TransportFailure,
)
from ....core.base.jsonrpc import ERROR_NAMES
from ....core.protocol.rpc import PendingRequest
from ....core.session.mcp_session import ToolCallOutcome
from ....core.session.results import BlockInfo
from ...text.http_text import explain_error
from ..dialogs import dialogs
from ..query_bar import QueryBar
from .files import private_temp
from .history import record_error, record_outcome
from .links import ResourceBlock
from .media import MediaBlock, annotation_line
from .query import ResultQuery, ResultQueryDone, reply_frame
from .text_body import ICONS, TRUNCATE_AT, bounded_json, readable_dump, text_body


class ResultPanel(VerticalScroll):
    """Shows one request's outcome: ``show_pending``, ``show_outcome``, ``show_error``, ``clear``;
    ``|`` queries it with jq (result/query.py)."""

    ALLOW_MAXIMIZE = True
    MAXIMIZE_PANEL = True  # ctrl+z maximizes it (tui/maximize.py)

    BINDINGS = [
        Binding("s", "save_result", "Save result", id="save-result", tooltip="Save the whole result as JSON"),
        Binding("p", "open_pager", "Pager", id="open-result-pager", tooltip="Open the whole result in $PAGER"),
        Binding(
            "vertical_line",
            "query_result",
            "Query",
            id="result.query",
            tooltip="Result: a jq query over the whole result; its outputs shown in place of it",
        ),
        Binding(
            "x",
            "clear_result_query",
            "Clear query",
            id="result.clear-query",
            show=False,
            tooltip="Result: clear the jq query (the rendered result is back)",
        ),
    ]
    DEFAULT_CSS = """
    ResultPanel { height: 1fr; padding: 0 1; }
    ResultPanel #result-status { height: auto; padding: 0 1; }
    ResultPanel #result-status.ok { background: $success 20%; }
    ResultPanel #result-status.pending { background: $primary 20%; }
    ResultPanel #result-status.tool-error { background: $warning 30%; color: $text-warning; text-style: bold; }
    ResultPanel #result-status.schema-error { background: $warning 30%; color: $text-warning; text-style: bold; }
    ResultPanel #result-status.rpc-error { background: $error 40%; color: $text-error; text-style: bold; }
    ResultPanel #result-status.transport { background: $secondary 30%; text-style: bold; }
    ResultPanel #result-body { height: auto; }
    ResultPanel .block { height: auto; margin-top: 1; }
    ResultPanel .block-header { color: $text-accent; }
    ResultPanel .block-meta { color: $text-muted; }
    ResultPanel .block-problem { color: $text-warning; }
    ResultPanel .block-text { height: auto; }
    ResultPanel .block-text-area { height: auto; max-height: 20; }
    ResultPanel .truncated-note { color: $text-warning; text-style: italic; }
    ResultPanel .media-actions { height: auto; }
    ResultPanel .media-actions Button { margin-right: 1; }
    ResultPanel MediaBlock:focus, ResultPanel ResourceBlock:focus { background: $boost; }
    ResultPanel .issues { color: $text-warning; }
    ResultPanel .valid { color: $text-success; }
    ResultPanel .error-detail { color: $text-error; }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.payload: Any = None  # what s / p save: the result, or the error object
        self.payload_name = "result"
        self.truncated = False
        self.status_text = ""
        self.kind = "empty"  # empty / pending / ok / tool-error / rpc-error / transport
        self.pending_call: PendingRequest | None = None  # the call shown as pending (its task's news updates it)
        self._generation = 0
        self._status_label = Static("No result yet: send a request.", id="result-status")
        self._body = Vertical(id="result-body")
        self._early: list[Widget] = []
        self.payload_frame: bytes | None = None  # the frame the shown result came in (queried as its "result")
        self.jq = ResultQuery(self)  # | : a jq query over the shown result (result/query.py)

    def compose(self) -> ComposeResult:
        yield self._status_label
        yield from self.jq.compose()
        yield self._body

    @property
    def generation(self) -> int:
        """How many results were shown: a query's outputs are for one of them."""
        return self._generation

    @property
    def body(self) -> Vertical:
        """Where the rendered result is drawn (hidden while a query's outputs are shown)."""
        return self._body

    # -- the jq query (result/query.py) ----------------------------------
    @property
    def result_query(self) -> QueryBar:
        return self.jq.bar

    def action_query_result(self) -> None:
        self.jq.bar.open()

    def action_clear_result_query(self) -> None:
        self.jq.bar.clear()
        self.focus()

    def on_query_bar_changed(self, event: QueryBar.Changed) -> None:
        event.stop()
        self.jq.run()

    def on_query_bar_left(self, event: QueryBar.Left) -> None:
        event.stop()
        self.focus()

    def run_result_query(self) -> None:
        self.jq.run()

    def on_result_query_done(self, message: ResultQueryDone) -> None:
        message.stop()
        self.jq.done(message)

    def on_unmount(self) -> None:
        self.jq.close()

    # -- public API ------------------------------------------------------
    def clear(self, text: str = "No result yet: send a request.") -> None:
        self._show("empty", text, [], None, "result")

    def show_pending(self, pending: PendingRequest) -> None:
        name = (pending.params or {}).get("name") if pending.method == "tools/call" else None
        what = f"{pending.method} {name}" if name else pending.method
        self._show("pending", f"… waiting for {what} (request id {pending.id})", [], None, str(name or pending.method))
        self.pending_call = pending

    def show_task(self, pending: PendingRequest, task: dict[str, Any], polls: int = 0) -> bool:
        """The call shown as pending runs as a task: its id, status and status message
        (as its in-flight row shows them). False (nothing changed) when another call is shown."""
        if self.kind != "pending" or self.pending_call is not pending:
            return False
        from ..inflight import describe, task_line

        status = Text(f"… {describe(pending)} runs as a ")
        status.append_text(task_line(task, polls))
        status.append(f" (request id {pending.id})")
        self.status_text = status.plain
        self._status_label.update(status)
        return True

    def show_outcome(self, outcome: ToolCallOutcome) -> None:
        view = outcome.view
        stem = f"mcp-result-{outcome.name}"
        took = f"{outcome.elapsed_ms:,.0f} ms"
        if view.is_error:
            status = f"⚠ the tool reported an error (isError: true) · {outcome.name} · {took}"
            kind = "tool-error"
        else:
            status = (
                f"✓ {outcome.name} · {len(view.blocks)} content block{'s' if len(view.blocks) != 1 else ''} · {took}"
            )
            kind = "ok"
        if kind == "ok" and (view.structured_issues or view.problems):  # no green ✓ (schema-error)
            issues = len(view.structured_issues)
            what = (
                f"fails its outputSchema ({issues} issue{'s' if issues != 1 else ''})" if issues else "malformed result"
            )
            status, kind = f"⚠ {outcome.name} · {what} · {took}", "schema-error"
        widgets: list[Widget] = []
        if view.is_error:
            widgets.append(
                Static(
                    "The tool ran and failed. This is a tool-level error (a result), not a JSON-RPC error.",
                    classes="block-meta",
                )
            )
        if outcome.argument_issues:
            listing = "\n".join(f"  • {i.path}: {i.message}" for i in outcome.argument_issues[:20])
            widgets.append(
                Static(
                    Text(f"sent with {len(outcome.argument_issues)} argument issue(s):\n{listing}"), classes="issues"
                )
            )
        for problem in view.problems:
            widgets.append(Static(Text(f"⚠ malformed result: {problem}"), classes="block-problem"))
        truncated = False
        for info in view.blocks:
            block_widgets, cut = self._block(info, stem)
            truncated = truncated or cut
            widgets.append(self._wrap(info, block_widgets))
        widgets.extend(self._structured(outcome))
        self._show(kind, status, widgets, outcome.result, stem, reply_frame(outcome))
        self.truncated = truncated
        record_outcome(self, outcome)  # the per-tool history (result/history.py)

    def show_error(self, error: BaseException, elapsed_ms: float | None = None, http_status: int | None = None) -> None:
        """``http_status``: the HTTP status of the response that carried the error, if any."""
        took = f" · after {elapsed_ms:,.0f} ms" if elapsed_ms is not None else ""
        widgets: list[Widget] = []
        payload: Any = None
        if isinstance(error, RpcError):
            name = ERROR_NAMES.get(error.code)
            status = f"✖ JSON-RPC error {error.code}{f' ({name})' if name else ''}: {error.message}{took}"
            kind = "rpc-error"
            widgets.append(
                Static("The server refused the request (an error response, not a tool result).", classes="block-meta")
            )
            meaning = explain_error(error.code, error.message, error.data, http_status)
            if meaning:
                widgets.append(Static(Text(meaning), classes="error-detail"))
            if error.data is not None:
                widgets.append(Static("data:", classes="block-header"))
                body, _ = text_body(json.dumps(error.data, indent=2, ensure_ascii=False), language="json")
                widgets.extend(body)
            payload = error.error
        elif isinstance(error, RequestTimeout):
            status, kind = f"⏱ timed out{took}", "transport"
            widgets.append(Static(Text(str(error)), classes="error-detail"))
        elif isinstance(error, RequestCancelled):
            status, kind = f"⊘ cancelled{took}", "transport"
            detail = (
                error.reason
                if isinstance(error, TaskCancelled)
                else f"{error.reason} (notifications/cancelled was sent)"
            )
            widgets.append(Static(Text(detail), classes="error-detail"))
        elif isinstance(error, ConnectionLost):
            status, kind = f"⚡ connection lost{took}", "transport"
            detail = error.reason
            if error.exit_code is not None:
                detail += f"\nexit code: {error.exit_code}"
            if error.signal is not None:
                detail += f"\nsignal: {error.signal}"
            widgets.append(Static(Text(detail), classes="error-detail"))
            if error.stderr_tail:
                widgets.append(Static("last stderr lines:", classes="block-header"))
                widgets.append(Static(Text("\n".join(error.stderr_tail[-10:])), classes="block-meta"))
        elif isinstance(error, TransportFailure):
            status, kind = f"⚡ not delivered{f' (HTTP {error.status})' if error.status else ''}{took}", "transport"
            widgets.append(Static(Text(str(error)), classes="error-detail"))
            meaning = explain_error(None, "", None, error.status)
            if meaning:
                widgets.append(Static(Text(meaning), classes="block-meta"))
        elif isinstance(error, ProtocolViolation):
            status, kind = f"✖ protocol violation{took}", "rpc-error"
            widgets.append(Static(Text(str(error)), classes="error-detail"))
        else:
            status, kind = f"✖ {type(error).__name__}{took}", "transport"
            widgets.append(Static(Text(str(error)), classes="error-detail"))
        call = self.pending_call if self.kind == "pending" and self.pending_call is not None else None
        self._show(kind, status, widgets, payload, "mcp-error")
        if call is not None and call.method == "tools/call":
            params = call.params or {}
            record_error(self, params.get("name"), error, elapsed_ms, http_status, params.get("arguments"))

    # -- rendering -------------------------------------------------------
    def _show(
        self, kind: str, status: str, widgets: list[Widget], payload: Any, name: str, frame: bytes | None = None
    ) -> None:
        self._generation += 1
        self.payload_frame = frame  # the reply the result came in: what a jq query reads (result/query.py)
        self.kind = kind
        self.pending_call: PendingRequest | None = None
        self.status_text = status
        self.payload = payload
        self.payload_name = name
        self.truncated = False
        self._status_label.update(Text(status))
        self._status_label.set_classes(kind)
        body = self._body
        if body.is_attached:
            body.remove_children()
            if widgets:
                body.mount_all(widgets)
            self._early = []
        else:  # shown before the panel was mounted: mounted in on_mount
            self._early = list(widgets)
        self.scroll_home(animate=False)
        self.run_result_query()  # a query set stays, over the new result

    def on_mount(self) -> None:
        if self._early:
            self._body.mount_all(self._early)
            self._early = []

    @staticmethod
    def _wrap(info: BlockInfo, block_widgets: Any) -> Widget:
        if isinstance(block_widgets, MediaBlock):
            return block_widgets
        if info.problem is None and info.type == "resource_link":
            return ResourceBlock(*block_widgets, uri=info.block["uri"], contents=None)
        if info.problem is None and info.type == "resource":
            return ResourceBlock(
                *block_widgets, uri=info.block["resource"]["uri"], contents=dict(info.block["resource"])
            )
        return Vertical(*block_widgets, classes="block")

    def _block(self, info: BlockInfo, stem: str) -> tuple[Any, bool]:
        block = info.block
        if info.type in ("image", "audio") or (
            info.type == "resource" and isinstance(block.get("resource"), dict) and "blob" in block["resource"]
        ):
            return MediaBlock(info, stem), False
        widgets: list[Widget] = []
        truncated = False
        if info.type == "text":
            text = block.get("text") if isinstance(block.get("text"), str) else ""
            widgets.append(
                Static(
                    Text(f"{ICONS['text']} #{info.index} text · {len(text):,} characters", style="bold"),
                    classes="block-header",
                )
            )
            widgets.extend(annotation_line(block))
            if info.problem:
                widgets.append(Static(Text(f"⚠ {info.problem}"), classes="block-problem"))
            body, truncated = text_body(text)
            widgets.extend(body)
        elif info.type == "resource_link":
            widgets.append(
                Static(
                    Text(f"{ICONS['resource_link']} #{info.index} resource link", style="bold"), classes="block-header"
                )
            )
            lines = Text()
            for key in ("uri", "name", "title", "mimeType", "description", "size"):
                if key in block:
                    lines.append(f"{key}: ", style="bold")
                    lines.append(f"{block[key]}\n")
            lines.rstrip()
            widgets.append(Static(lines, classes="block-text"))
            widgets.extend(annotation_line(block))
        elif info.type == "resource" and not info.problem:
            resource = block["resource"]
            widgets.append(
                Static(
                    Text(
                        f"{ICONS['resource']} #{info.index} embedded resource · {resource.get('uri')} · "
                        f"{resource.get('mimeType') or 'no mimeType'}",
                        style="bold",
                    ),
                    classes="block-header",
                )
            )
            widgets.extend(annotation_line(block))
            mime = resource.get("mimeType") or ""
            body, truncated = text_body(resource["text"], language="json" if "json" in mime else None)
            widgets.extend(body)
        else:
            widgets.append(
                Static(
                    Text(f"{ICONS['unknown']} #{info.index} {info.type} block", style="bold"), classes="block-header"
                )
            )
            if info.problem:
                widgets.append(Static(Text(f"⚠ {info.problem}"), classes="block-problem"))
            body, truncated = text_body(json.dumps(block, indent=2, ensure_ascii=False), language="json")
            widgets.extend(body)
        return widgets, truncated

    def _structured(self, outcome: ToolCallOutcome) -> list[Widget]:
        view = outcome.view
        if not view.has_structured and (view.output_schema is None or view.is_error):
            return []  # an error result need not carry structuredContent: nothing to show under a heading
        widgets: list[Widget] = [Static(Text("structuredContent", style="bold"), classes="block-header")]
        if view.has_structured:
            pretty, cut = bounded_json(view.structured)
            body, _ = text_body(pretty, language=None if cut else "json")
            widgets.extend(body)
            if cut:
                widgets.append(
                    Static(
                        f"truncated — showing the first {TRUNCATE_AT // 1000} KB · s: save whole result · p: open in "
                        "$PAGER",
                        classes="truncated-note",
                    )
                )
        if view.output_schema is None:
            widgets.append(Static("no outputSchema declared: not validated", classes="block-meta"))
        elif view.structured_issues:
            listing = "\n".join(f"  • {i.path}: {i.message}" for i in view.structured_issues[:50])
            widgets.append(
                Static(
                    Text(
                        f"✗ does not match the outputSchema ({len(view.structured_issues)} "
                        f"issue{'s' if len(view.structured_issues) != 1 else ''}):\n{listing}"
                    ),
                    classes="issues",
                )
            )
        elif not view.is_error:
            widgets.append(Static("✓ valid against outputSchema", classes="valid"))
        if view.unchecked:
            notes = "\n".join(f"  • {note}" for note in view.unchecked[:20])
            widgets.append(Static(Text(f"not every pattern was checked:\n{notes}"), classes="issues"))
        return [Vertical(*widgets, classes="block structured")]

    # -- save / pager ----------------------------------------------------
    def action_save_result(self) -> None:
        if self.payload is None:
            self.notify("Nothing to save yet.", severity="warning")
            return
        self._save_payload(self.payload, self.payload_name)

    def _save_payload(self, payload: Any, name: str) -> None:  # asks where first (widgets/dialogs.py)
        dialogs(self).save_as(
            self, lambda: json.dumps(payload, indent=2, ensure_ascii=False).encode("utf-8"), name, ".json", "the result"
        )

    def action_open_pager(self) -> None:
        if self.payload is None:
            self.notify("Nothing to show yet.", severity="warning")
            return
        self._page(self.payload, self.payload_name)

    PAGED = "the result"  # what the pager shows, in its messages

    def readable(self, payload: Any) -> str:
        """The text the pager shows (the Resources view's contents panel pages its contents)."""
        return readable_dump(payload)

    @work(thread=True, group="result-files")
    def _page(self, payload: Any, name: str) -> None:
        try:
            fd, path = private_temp(name, ".txt")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(self.readable(payload))
        except OSError as exc:
            self.notify(f"Could not write {self.PAGED} for the pager: {exc}", severity="error", markup=False)
            return
        self.app.call_from_thread(self._run_pager, path)

    def _run_pager(self, path: str) -> None:
        pager = shlex.split(os.environ.get("PAGER") or "less") or ["less"]
        try:
            with self.app.suspend():
                subprocess.run([*pager, path])
        except SuspendNotSupported:
            self.notify(
                f"This terminal cannot be suspended; {self.PAGED} is in {path}", severity="warning", markup=False
            )
        except OSError as exc:
            self.notify(
                f"Could not run the pager {pager[0]!r}: {exc}; {self.PAGED} is in {path}",
                severity="error",
                markup=False,
            )
