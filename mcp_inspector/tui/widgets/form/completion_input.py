"""An Input that offers ``completion/complete`` suggestions as the user types.

``CompletionInput(ref=..., argument=..., context=..., session=...)`` is an ``Input``
(its ``Changed``/``Submitted`` still reach the parent) for one prompt argument
(``ref = {"type": "ref/prompt", "name": ...}``) or one template variable
(``ref = {"type": "ref/resource", "uri": ...}``):

- typing waits ``DEBOUNCE`` seconds of quiet, then sends one ``completion/complete``
  with ``argument {name, value}`` and ``context.arguments`` from ``context()`` (the
  other fields already typed; omitted when all are empty). A keystroke while a request
  is in flight cancels it (``PendingRequest.cancel``: ``notifications/cancelled``), and
  an answer to anything but the latest value is dropped;
- the suggestions appear in a list under the input (mounted as the input's next
  sibling, so put the input in a vertical container): up/down move, enter or tab take
  one, escape closes the list or drops suggestions still on their way (a second escape
  is left to the parent); down with the
  list closed asks at once, for the value as it is (empty included);
- ``total``/``hasMore`` are shown under the list ("3 of 40+"); an answer over the spec's
  100 values keeps 100 and says how many came; each suggestion is drawn on one line, a
  huge one cut short with its length (the value taken is whole);
- a request unanswered after ``SLOW`` seconds (or at once when the list is open) shows
  "waiting for the server's suggestions" (escape drops it); a timeout is a note; a list
  that answers an older value is dimmed and enter/tab leave it alone (what was typed stays);
- values that are not strings are left out (the list says how many), as the CLI prints only
  the strings;
- a server without the ``completions`` capability gets no request at all; an error
  or a malformed answer is a dim one-line note, never a traceback;
- the request runs in a worker (never on the event loop's critical path), and its
  outcome comes back as a ``CompletionInput.Suggested`` message, which also bubbles
  to the parent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static

from ....core.base.errors import InspectorError, RequestTimeout, RpcError
from ....core.session.mcp_session import McpSession
from ...text.traffic_text import clean

MAX_SHOWN = 100  # the spec caps a completion at 100 values; never show more
MAX_CHARS = 500  # a longer suggestion is drawn cut short (the value taken is whole)
CUT_CHARS = 60  # what is drawn of it, then its length


def shown_value(value: str) -> str:
    """A suggestion as drawn: one line (control characters blanked), a huge one cut short."""
    if len(value) > MAX_CHARS:
        return clean(value[:CUT_CHARS]) + f"… ({len(value):,} characters)"
    return clean(value)


class _SuggestionList(OptionList, can_focus=False):
    """The suggestions; the input keeps the focus and moves the highlight."""


class CompletionDropdown(Vertical):
    """The list under a CompletionInput, with its count / note line."""

    DEFAULT_CSS = """
    CompletionDropdown { height: auto; display: none; padding: 0 0 0 1; }
    CompletionDropdown.-open { display: block; }
    CompletionDropdown.-stale > _SuggestionList { text-opacity: 50%; }
    CompletionDropdown > _SuggestionList { height: auto; max-height: 6; border: none; padding: 0; background: $panel;
                                           text-wrap: nowrap; text-overflow: ellipsis; }
    CompletionDropdown > _SuggestionList.-empty { display: none; }
    CompletionDropdown > .completion-status { height: 1; color: $text-muted; text-style: dim; }
    """

    def __init__(self, owner: CompletionInput) -> None:
        super().__init__(classes="completion-dropdown")
        self.owner = owner
        self.options = _SuggestionList(classes="-empty")
        self.status = Static("", classes="completion-status", markup=False)

    def compose(self) -> ComposeResult:
        yield self.options
        yield self.status

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.owner.take(event.option_index)


LIST_HINTS = (
    " · ↑↓ move · enter/tab take · esc close",
    " · ↑↓ · enter/tab take · esc close",
    " · tab take · esc close",
)


def list_hint(count: str, width: int) -> str:
    """The open list's status: the count and the longest key hint that fits ``width`` (0: unknown)."""
    for hint in LIST_HINTS:
        if not width or len(count) + len(hint) <= width:
            return count + hint
    return count + LIST_HINTS[-1]


def count_text(shown: int, total: Any, has_more: Any, sent: int | None = None) -> str:
    """'3 of 40+': how many are shown out of how many the server says there are; ``sent``:
    how many values the answer held, when more than the spec's 100 (only 100 are shown)."""
    more = "+" if has_more is True else ""
    if sent is not None and sent > shown:
        return f"{shown:,} of {sent:,} (over the spec's {MAX_SHOWN}: the rest dropped)"
    if isinstance(total, int) and not isinstance(total, bool) and total >= shown:
        return f"{shown} of {total}{more}"
    return f"{shown}{more} suggestion{'' if shown == 1 and not more else 's'}"


def parse_completion(result: Any) -> tuple[list[str], Any, Any, int]:
    """The string values, total, hasMore and how many values were not strings (left out, as the
    CLI prints only what it can) of a completion/complete result; ValueError when malformed."""
    completion = result.get("completion") if isinstance(result, dict) else None
    if not isinstance(completion, dict):
        raise ValueError("the result has no `completion` object")
    values = completion.get("values")
    if not isinstance(values, list):
        raise ValueError("`completion.values` is not an array")
    strings = [v for v in values if isinstance(v, str)]
    return strings, completion.get("total"), completion.get("hasMore"), len(values) - len(strings)


def left_out_text(count: int) -> str:
    return f"{count:,} non-string value{'s' if count != 1 else ''} left out" if count else ""


class CompletionInput(Input):
    """An Input with ``completion/complete`` suggestions (see the module doc)."""

    DEBOUNCE = 0.25  # seconds of quiet before a request
    SLOW = 0.6  # seconds without an answer before the list says it is waiting
    TIMEOUT = 10.0  # seconds a completion may take

    class Suggested(Message):
        """A completion request ended: ``values`` (possibly empty) or a ``note`` saying why not."""

        def __init__(
            self,
            input: CompletionInput,
            generation: int,
            value: str,
            values: list[str],
            total: Any = None,
            has_more: Any = None,
            note: str = "",
            sent: int | None = None,
            left_out: int = 0,
        ) -> None:
            super().__init__()
            self.input = input
            self.generation = generation
            self.value = value
            self.values = values
            self.total = total
            self.has_more = has_more
            self.note = note
            self.sent = len(values) if sent is None else sent  # how many values the answer held
            self.left_out = left_out  # values that were not strings (not offered)

        @property
        def control(self) -> CompletionInput:
            return self.input

    def __init__(
        self,
        *,
        ref: dict,
        argument: str,
        context: Callable[[], dict[str, str]],
        session: Callable[[], Any | None],
        value: str = "",
        placeholder: str = "",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(value=value, placeholder=placeholder, id=id, classes=classes)
        self.ref = ref
        self.argument = argument
        self.context = context
        self.session = session
        self.dropdown = CompletionDropdown(self)
        self.suggestions: list[str] = []
        self.total: Any = None
        self.has_more: Any = None
        self.sent = 0  # how many values the last answer held (over MAX_SHOWN: only MAX_SHOWN kept)
        self.left_out = 0  # how many of them were not strings (not offered)
        self.note = ""
        self.requests_sent = 0  # completion/complete requests this input has sent
        self._generation = 0  # bumped by every change; an answer to an older one is stale
        self._timer: Timer | None = None
        self._pending: Any = None  # the PendingRequest in flight
        self._sending = 0  # requests being sent (begin_request not returned yet)
        self._hushed = -1  # the generation an escape dropped the suggestions of (the next escape leaves)
        self._shown = -1  # the generation the suggestions shown answer (older: stale, not taken)
        self._taken: str | None = None  # a value just taken from the list (no request for it)

    # -- life --------------------------------------------------------------
    async def _on_mount(self, event: events.Mount) -> None:
        if self.parent is not None:
            await self.parent.mount(self.dropdown, after=self)

    async def _on_unmount(self, event: events.Unmount) -> None:
        self._stop_timer()
        self._cancel_in_flight("the field was closed")
        if self.dropdown.is_attached:
            await self.dropdown.remove()

    def _on_blur(self, event: events.Blur) -> None:
        self._close()

    # -- what is sent --------------------------------------------------------
    def usable_session(self) -> Any | None:
        """The live session if it can complete (declared the ``completions`` capability)."""
        try:
            session = self.session()
        except Exception:
            return None
        if session is None:
            return None
        capabilities = getattr(session, "capabilities", None)
        if not isinstance(capabilities, dict) or "completions" not in capabilities:
            return None
        return session

    def request_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"ref": dict(self.ref), "argument": {"name": self.argument, "value": self.value}}
        try:
            context = self.context() or {}
        except Exception:
            context = {}
        arguments = {str(k): str(v) for k, v in context.items() if k != self.argument and isinstance(v, str) and v}
        if arguments:
            params["context"] = {"arguments": arguments}
        return params

    # -- typing ---------------------------------------------------------------
    def _on_input_changed(self, event: Input.Changed) -> None:
        if event.input is not self:
            return
        self._generation += 1
        self._cancel_in_flight("a newer keystroke")
        if self._taken is not None and event.value == self._taken:
            self._taken = None
            return
        self._taken = None
        if not self.has_focus or self.usable_session() is None:
            self._close()
            return
        if self.list_open:  # the list answers an older value: dimmed, its keys left to the field
            self.dropdown.add_class("-stale")
            self._say_waiting()
        self._stop_timer()
        self._timer = self.set_timer(self.DEBOUNCE, self._fire)

    def ask_now(self) -> bool:
        """Send a request for the value as it is now (no debounce). False when it cannot."""
        self._stop_timer()
        self._generation += 1
        self._cancel_in_flight("asked again")
        return self._fire()

    def _fire(self) -> bool:
        self._timer = None
        session = self.usable_session()
        if session is None or not self.is_attached:
            return False
        generation = self._generation
        self.requests_sent += 1
        self._sending += 1
        self.run_worker(
            self._complete(session, self.request_params(), generation), group="completion", exit_on_error=False
        )
        if self.list_open:  # the suggestions shown are for an older value: say a fresh answer is coming
            self._waiting(generation)
        else:
            self.set_timer(self.SLOW, lambda: self._waiting(generation))
        return True

    def _waiting(self, generation: int) -> None:
        """The request for ``generation`` is still unanswered: the list says so (esc stops it)."""
        if generation != self._generation or not self.busy or not self.has_focus or not self.dropdown.is_attached:
            return
        if not self.list_open:
            self.dropdown.options.clear_options()
            self.dropdown.options.add_class("-empty")
        self._say_waiting()
        self.dropdown.add_class("-open")

    def _say_waiting(self) -> None:
        self.dropdown.status.update(
            Text("… waiting for the server's suggestions (esc stops)", no_wrap=True, overflow="ellipsis")
        )

    async def _complete(self, session: McpSession, params: dict[str, Any], generation: int) -> None:
        value = params["argument"]["value"]
        try:
            pending = await session.begin_request("completion/complete", params, timeout=self.TIMEOUT)
        except InspectorError as exc:
            self.post_message(self.Suggested(self, generation, value, [], note=_words(exc)))
            return
        except Exception as exc:  # the session went away under us
            self.post_message(self.Suggested(self, generation, value, [], note=f"completion failed: {exc}"))
            return
        finally:
            self._sending -= 1
        if generation != self._generation:  # a keystroke came while it was being sent
            await pending.cancel("a newer keystroke")
            return
        self._pending = pending
        try:
            result = await session.finish_request(pending)
        except InspectorError as exc:
            if pending.cancel_requested is None:
                self.post_message(self.Suggested(self, generation, value, [], note=_words(exc)))
            return
        except Exception as exc:
            self.post_message(self.Suggested(self, generation, value, [], note=f"completion failed: {exc}"))
            return
        finally:
            if self._pending is pending:
                self._pending = None
        try:
            values, total, has_more, left_out = parse_completion(result)
        except ValueError as exc:
            self.post_message(self.Suggested(self, generation, value, [], note=f"malformed completion: {exc}"))
            return
        self.post_message(
            self.Suggested(
                self, generation, value, values[:MAX_SHOWN], total, has_more, sent=len(values), left_out=left_out
            )
        )

    def _cancel_in_flight(self, reason: str) -> None:
        pending, self._pending = self._pending, None
        if pending is not None and not pending.done:
            # on the app: a field being removed still tells the server
            self.app.run_worker(pending.cancel(reason), group="completion-cancel", exit_on_error=False)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # -- the answer -------------------------------------------------------------
    def _on_completion_input_suggested(self, message: CompletionInput.Suggested) -> None:
        if message.input is not self or message.generation != self._generation:
            return
        self.suggestions, self.total, self.has_more, self.note = (
            message.values,
            message.total,
            message.has_more,
            message.note,
        )
        self.sent = message.sent
        self.left_out = message.left_out
        self._shown = message.generation
        if not self.has_focus:
            return
        self._show()

    def _show(self) -> None:
        if not self.dropdown.is_attached:
            return
        options = self.dropdown.options
        options.clear_options()
        if self.suggestions:
            options.add_options(
                [Text(shown_value(value), no_wrap=True, overflow="ellipsis") for value in self.suggestions]
            )
            options.highlighted = 0
            options.remove_class("-empty")
            width = self.dropdown.status.size.width or self.size.width  # the list is as wide as its field
            count = count_text(len(self.suggestions), self.total, self.has_more, self.sent)
            if self.left_out:
                count += f" ({left_out_text(self.left_out)})"
            status = list_hint(count, width)
        else:
            options.add_class("-empty")
            status = self.note or (
                f"no suggestions ({left_out_text(self.left_out)})" if self.left_out else "no suggestions"
            )
        self.dropdown.status.update(Text(status, no_wrap=True, overflow="ellipsis"))
        self.dropdown.remove_class("-stale")
        self.dropdown.add_class("-open")
        self.call_after_refresh(self._reveal)

    def _reveal(self) -> None:
        """Scroll the container so the open list is on screen (it is under the input)."""
        if self.list_open and self.dropdown.is_attached:
            self.dropdown.scroll_visible(animate=False)

    @property
    def busy(self) -> bool:
        """A request is waiting for the debounce, being sent or in flight."""
        return self._timer is not None or self._sending > 0 or self._pending is not None

    @property
    def answered(self) -> bool:
        """What the field holds (suggestions or a note) answers the value as typed now, not an older one."""
        return self._shown == self._generation

    @property
    def list_open(self) -> bool:
        return self.dropdown.has_class("-open")

    def _close(self) -> None:
        self.dropdown.remove_class("-open")

    def take(self, index: int | None = None) -> None:
        """Put the highlighted suggestion (or ``index``) in the field and close the list."""
        if index is None:
            index = self.dropdown.options.highlighted
        if index is None or not 0 <= index < len(self.suggestions):
            self._close()
            return
        chosen = self.suggestions[index]
        self._close()
        if chosen != self.value:
            self._taken = chosen
            self.value = chosen
        self.cursor_position = len(chosen)

    # -- keys -----------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.list_open:
            options = self.dropdown.options
            # suggestions for an older value are not taken: enter keeps what was typed
            has_values = bool(self.suggestions) and self._shown == self._generation
            if key == "down" and has_values:
                options.action_cursor_down()
            elif key == "up" and has_values:
                options.action_cursor_up()
            elif key in ("enter", "tab") and has_values:
                self.take()
            elif key == "escape":
                self._close()
                if self.busy:  # an answer on its way would open the list again: drop it
                    self._hush()
            else:
                return
            event.stop()
            event.prevent_default()
        elif key == "down" and self.ask_now():
            event.stop()
            event.prevent_default()
        elif key == "escape" and self.busy and self._hushed != self._generation:
            # suggestions on their way: escape means "not now"; the next escape leaves, even
            # while the dropped request is still being sent (it stays busy until it is out)
            self._hush()
            event.stop()
            event.prevent_default()

    def _hush(self) -> None:
        """Drop the suggestions on their way (the request in flight is cancelled)."""
        self._stop_timer()
        self._generation += 1
        self._hushed = self._generation
        self._cancel_in_flight("escape")


def _words(exc: InspectorError) -> str:
    if isinstance(exc, RpcError):
        return f"completion: the server answered {exc}"
    if isinstance(exc, RequestTimeout):
        return f"completion: no answer within {exc.seconds:g} s (the request was cancelled)"
    return f"completion failed: {exc}"
