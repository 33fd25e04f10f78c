"""The Auth view (key 0): the authorization debugger.

It shows the OAuth flow of the current connection as numbered steps (the 401 and its
``WWW-Authenticate``, each metadata fetch, registration, the authorization URL, the redirect
and its checks, the token request and response, the retried request, refreshes, step-ups):
the list on the left (on top when narrow), the selected step's detail beside it (its request,
response documents, details such as decoded token claims, and what the spec expects: ✓ / ✗
with the spec reference), and a head line with the state of the flow.

The data is the ``AuthLog`` of the connection's ``OAuthManager`` (``core/auth/model.py``,
``manager.py``), read through ``source()``; a 10 Hz timer polls its ``version`` while the
view is shown (``ShownTimer``). Keys: ``r`` runs the flow again (``manager.restart()`` in a
worker), ``d`` clears the stored credentials (asks first), ``s`` turns step-by-step on: the
view sets ``log.gate``, so each new step waits, shown as "waiting", until ``n`` or enter lets
it run; ``c`` copies the selected step as JSON (masked, as shown).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .....core.auth.model import AuthLog, AuthStep
from .....core.base.errors import InspectorError
from ....clipboard import copy_text
from ...dialogs import dialogs
from ...shown_timer import ShownTimer
from .step_text import head_text, identity, mask_volatile, none_text, step_detail, step_json, step_row

PENDING = "pending"
NARROW = 100  # columns below which the detail goes under the list


def new_group(previous: AuthStep, step: AuthStep) -> bool:
    """A line between two steps: a 401/403 starts a flow (its step is made before the flow
    begins), and so does any other change of flow (a refresh, a restart)."""
    if step.kind == "challenge":
        return True
    return step.details.get("flow") != previous.details.get("flow") and previous.kind != "challenge"


def who_text(manager: Any) -> str:
    """ "as client X (dynamic) with scope Y": the client and the scopes granted (and asked, when
    they differ); nothing secret."""
    client = getattr(manager, "client", None)
    client_id = getattr(client, "client_id", None)
    if not isinstance(client_id, str):
        return ""
    text = f"as client {client_id}"
    via = getattr(client, "registered_via", None)
    if isinstance(via, str):
        text += f" ({via})"
    granted = getattr(getattr(manager, "tokens", None), "scope", None)
    if isinstance(granted, str) and granted:
        text += f" with scope {granted}"
        asked = getattr(manager, "scope_asked", None)
        if isinstance(asked, list) and asked and set(asked) != set(granted.split()):
            text += f" (asked: {' '.join(map(str, asked))})"
    return text


class AuthStepList(OptionList):
    """One row per step; the step waiting in step-by-step mode last."""

    DEFAULT_CSS = """
    AuthStepList { background: $surface; border: none; padding: 0; text-wrap: nowrap; text-overflow: ellipsis; }
    AuthStepList:focus { border: none; }
    """


class AuthView(Vertical):
    """The flow's steps and the selected step's detail, under a head line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "restart_flow",
            "Restart flow",
            id="auth.restart",
            tooltip="Forget the tokens in memory and run the authorization flow again",
        ),
        Binding(
            "d",
            "forget_credentials",
            "Clear credentials",
            id="auth.forget",
            tooltip="Remove this server's stored tokens and client registration (asks first)",
        ),
        Binding(
            "s",
            "toggle_step_mode",
            "Step-by-step",
            id="auth.step-mode",
            tooltip="Step-by-step: each step of a flow waits until n (or enter) lets it run",
        ),
        Binding(
            "n",
            "next_step",
            "Next step",
            id="auth.next",
            tooltip="Step-by-step: let the waiting step run (enter on the list too)",
        ),
        Binding("c", "copy_step", "Copy step", id="auth.copy", tooltip="Copy the selected step as JSON (masked)"),
    ]
    DEFAULT_CSS = """
    AuthView { height: 1fr; }
    AuthView #auth-head { height: 1; padding: 0 1; background: $boost; }
    AuthView #auth-none { padding: 1 2; color: $text-muted; height: auto; }
    AuthView #auth-body { height: 1fr; }
    AuthView #auth-steps { width: 45%; max-width: 64; height: 1fr; border-right: vkey $panel-lighten-1; }
    AuthView #auth-detail { width: 1fr; height: 1fr; padding: 0 1; }
    AuthView.-narrow #auth-body { layout: vertical; }
    AuthView.-narrow #auth-steps { width: 1fr; max-width: 100%; height: 8; border-right: none;
                                   border-bottom: hkey $panel-lighten-1; }
    """
    REFRESH_INTERVAL: ClassVar[float] = 0.1

    def __init__(
        self,
        source: Callable[[], Any],
        transport: Callable[[], str] = lambda: "",
        *,
        spec_url: Callable[[], str | None] = lambda: None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``source()`` is the connection's OAuthManager (or None, or an AuthLog alone: shown, not run);
        ``transport()`` the connection's kind (stdio, http...), ``spec_url()`` its URL."""
        super().__init__(id=id, classes=classes)
        self.source = source
        self.transport = transport
        self.spec_url = spec_url
        self.step_list = AuthStepList(id="auth-steps")
        self.mask: Callable[[str], str] = identity
        self.step_mode = False
        self.pending: AuthStep | None = None  # the step the gate holds (step-by-step)
        self.selected: int | None = None  # the selected step's number (None: follow the newest)
        self._release: asyncio.Event | None = None
        self._seen: tuple[Any, ...] = ()
        self._log: AuthLog | None = None
        self._gated: AuthLog | None = None
        self._poll: ShownTimer | None = None
        self._moving = False
        self._restarting = False
        self.detail: Any = ""  # the detail shown (a Rich renderable)

    def compose(self) -> ComposeResult:
        yield Static("", id="auth-head", markup=False)
        yield Static("", id="auth-none", markup=False)
        with Horizontal(id="auth-body"):
            yield self.step_list
            with VerticalScroll(id="auth-detail"):
                yield Static("", id="auth-detail-text", markup=False)

    def on_mount(self) -> None:
        if getattr(self.app, "snapshot_mode", False):
            self.mask = mask_volatile
        self._poll = ShownTimer(self, self.REFRESH_INTERVAL, self.sync, "auth-poll")
        self.sync(force=True)

    def on_unmount(self) -> None:
        self._set_gate(None)
        self._let_go()

    def on_hide(self) -> None:
        if self._poll is not None:
            self._poll.hidden()

    def on_show(self) -> None:
        if self._poll is not None:
            self._poll.shown()

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW, "-narrow")

    # -- the data ------------------------------------------------------------------
    @property
    def manager(self) -> Any:
        try:
            return self.source()
        except Exception:  # noqa: BLE001 - a connection being replaced: nothing to show this tick
            return None

    @property
    def log(self) -> AuthLog | None:
        manager = self.manager
        log = manager if isinstance(manager, AuthLog) else getattr(manager, "log", None)
        return log if isinstance(log, AuthLog) else None

    def steps(self) -> list[tuple[AuthStep, str]]:
        """(step, status shown) in order, the waiting step last."""
        log = self._log
        rows = [(step, step.status) for step in log.steps] if log is not None else []
        if self.pending is not None:
            rows.append((self.pending, "waiting"))
        return rows

    def step(self, number: int | None) -> tuple[AuthStep, str] | None:
        rows = self.steps()
        if not rows:
            return None
        if number is None:
            return rows[-1]
        for step, status in rows:
            if step.number == number:
                return step, status
        return None

    # -- polling -------------------------------------------------------------------
    def sync(self, force: bool = False) -> None:
        log = self.log
        if log is not self._log:
            self._log = log
            if self.step_mode:
                self._set_gate(log)
            force = True
        transport = self.transport() or ""
        seen = (id(log), log.version if log is not None else -1, id(self.pending), transport, self.step_mode)
        if (seen == self._seen and not force) or not self.is_attached:
            return
        self._seen = seen
        self._render_all(log, transport)

    def _render_all(self, log: AuthLog | None, transport: str) -> None:
        rows = self.steps()
        manager = self.manager
        who = who_text(manager) if log is not None and log.state == "authorized" and manager is not log else ""
        self.query_one("#auth-head", Static).update(
            head_text(log, transport, self.pending is not None, self.step_mode, self.mask, who)
        )
        none = self.query_one("#auth-none", Static)
        none.display = not rows
        self.query_one("#auth-body").display = bool(rows)
        if not rows:
            none.update(none_text(log, transport, self.spec_url()))
            return
        self._fill_list(rows)
        self._show_detail()

    def _fill_list(self, rows: list[tuple[AuthStep, str]]) -> None:
        options: list[Option | None] = []
        previous: AuthStep | None = None
        for step, status in rows:
            if previous is not None and new_group(previous, step):
                options.append(None)
            previous = step
            key = PENDING if status == "waiting" else f"step-{step.number}"
            options.append(Option(step_row(step, status, self.mask), id=key))
        self._moving = True
        try:
            step_list = self.step_list
            step_list.clear_options()
            step_list.add_options(options)
            target = self._option_index(self.selected) if self.selected is not None else None
            if target is None:
                self.selected = None
                target = step_list.option_count - 1
            step_list.highlighted = target
        finally:
            self._moving = False

    def _option_index(self, number: int | None) -> int | None:
        found = self.step(number)
        if found is None:
            return None
        step, status = found
        key = PENDING if status == "waiting" else f"step-{step.number}"
        try:
            return self.step_list.get_option_index(key)
        except Exception:  # noqa: BLE001 - OptionDoesNotExist
            return None

    def _show_detail(self) -> None:
        found = self.step(self.selected)
        text = self.query_one("#auth-detail-text", Static)
        if found is None:
            self.detail = ""
            text.update("")
            return
        step, status = found
        try:
            self.detail = step_detail(step, status, self.mask, volatile=self.mask is not identity)
        except Exception as exc:  # noqa: BLE001 - a step the view cannot draw must not take the view down
            self.detail = f"Step {step.number} cannot be shown: {exc.__class__.__name__}: {exc}"
        text.update(self.detail)

    @on(OptionList.OptionHighlighted, "#auth-steps")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if self._moving:
            return
        key = event.option.id or ""
        last = event.option_index == self.step_list.option_count - 1
        if last:
            self.selected = None  # the newest: follow new steps
        elif key == PENDING:
            self.selected = self.pending.number if self.pending is not None else None
        elif key.startswith("step-"):
            self.selected = int(key.removeprefix("step-"))
        self._show_detail()

    @on(OptionList.OptionSelected, "#auth-steps")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.pending is not None:
            self.action_next_step()

    def selected_step(self) -> AuthStep | None:
        found = self.step(self.selected)
        return found[0] if found is not None else None

    # -- step-by-step ------------------------------------------------------------------
    def _set_gate(self, log: AuthLog | None) -> None:
        """Put our gate on ``log`` (and take it off the log it was on)."""
        if self._gated is not None and self._gated is not log and self._gated.gate == self._gate:
            self._gated.gate = None
        self._gated = log
        if log is not None:
            log.gate = self._gate

    async def _gate(self, step: AuthStep) -> None:
        """Awaited by the flow before each new step: holds it until ``n`` / enter (or step mode ends)."""
        if not self.step_mode:
            return
        release = self._release = asyncio.Event()
        self.pending = step
        self.call_later(self.sync)
        try:
            await release.wait()
        finally:
            if self.pending is step:
                self.pending = None
            if self._release is release:
                self._release = None
            if self.is_attached:
                self.call_later(self.sync)

    def _let_go(self) -> None:
        if self._release is not None:
            self._release.set()

    def action_toggle_step_mode(self) -> None:
        self.step_mode = not self.step_mode
        if self.step_mode:
            self._set_gate(self.log)
            self.notify(
                "Step-by-step: each step of the next flow waits for n (or enter). r restarts the flow.",
                title="Auth",
                markup=False,
                timeout=4,
            )
        else:
            self._set_gate(None)
            self._let_go()
            self.notify("Step-by-step off: the flow runs on by itself.", title="Auth", markup=False, timeout=3)
        self.sync(force=True)

    def action_next_step(self) -> None:
        if self.pending is None:
            self.notify(
                "No step is waiting" + ("." if self.step_mode else " (s turns step-by-step on)."),
                severity="warning",
                markup=False,
                timeout=3,
            )
            return
        self._let_go()

    # -- actions -----------------------------------------------------------------------
    def _manager_or_say(self) -> Any:
        manager = self.manager
        if isinstance(manager, AuthLog):  # a log alone (no client to run a flow with)
            manager = None
        if manager is None:
            self.notify(
                "No authorization for this connection: OAuth is for remote (HTTP) servers.",
                severity="warning",
                markup=False,
            )
        return manager

    def action_restart_flow(self) -> None:
        manager = self._manager_or_say()
        if manager is None:
            return
        if self._restarting:
            self.notify("A flow is already running.", severity="warning", markup=False)
            return
        client = getattr(getattr(manager, "http", None), "client", None)
        if client is None or getattr(client, "is_closed", False):
            # the connection is gone (a flow that failed ends it): connecting again runs a new flow
            reconnect = getattr(self.app, "action_reconnect", None)
            if callable(reconnect):
                self.notify(
                    "The connection is closed: reconnecting, which runs a new flow.",
                    title="Auth",
                    markup=False,
                    timeout=4,
                )
                self.selected = None
                reconnect()
                return
        self._restart(manager)

    @work(group="auth-restart", exit_on_error=False)
    async def _restart(self, manager: Any) -> None:
        self._restarting = True
        self.selected = None
        try:
            await manager.restart()
        except (InspectorError, OSError) as exc:
            self.notify(str(exc), title="Authorization failed", severity="error", markup=False, timeout=8)
        except Exception as exc:  # noqa: BLE001 - a closed client, a bug: said, never a traceback
            self.notify(
                f"{exc.__class__.__name__}: {exc}",
                title="Authorization failed",
                severity="error",
                markup=False,
                timeout=8,
            )
        else:
            log = self.log
            self.notify(
                log.summary if log is not None and log.summary else "Authorized.", title="Authorization", markup=False
            )
        finally:
            self._restarting = False
            self.sync(force=True)

    def action_forget_credentials(self) -> None:
        manager = self._manager_or_say()
        if manager is None:
            return

        def chosen(yes: bool | None) -> None:
            if yes:
                self._forget(manager)

        dialogs(self).confirm_forget(self.mask(str(self.spec_url() or "this server")), chosen)

    @work(group="auth-forget", exit_on_error=False)
    async def _forget(self, manager: Any) -> None:
        try:
            outcome = manager.forget()
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except (InspectorError, OSError) as exc:
            self.notify(f"Could not clear the stored credentials: {exc}", severity="error", markup=False)
            return
        if getattr(manager, "store", True) is None:
            said = "Tokens and client forgotten (nothing was stored: --auth-store none)."
        elif isinstance(outcome, int) and not isinstance(outcome, bool):
            said = f"Tokens and client forgotten; {outcome} stored entr{'y' if outcome == 1 else 'ies'} removed."
        else:
            said = "Tokens and client forgotten, here and in the token store."
        self.notify(f"{said} The next request authorizes again.", title="Credentials cleared", markup=False)
        self.sync(force=True)

    def action_copy_step(self) -> None:
        step = self.selected_step()
        if step is None:
            self.notify("No step selected.", severity="warning", markup=False)
            return
        copy_text(self.app, step_json(step), f"step {step.number}")


PALETTE_TITLES = {
    "auth.restart": "auth: restart the authorization flow",
    "auth.forget": "auth: clear the stored credentials of this server",
    "auth.step-mode": "auth: step-by-step on / off",
    "auth.next": "auth: run the waiting step (step-by-step)",
    "auth.copy": "auth: copy the selected step as JSON",
}


def palette_commands(app: Any) -> list[tuple[str, Callable[[], Any], str]]:
    """The Auth view's actions for the command palette: each shows the view (key 0), then acts."""
    keymap = getattr(app, "keymap", {}) or {}

    def run(action: str) -> Callable[[], Any]:
        async def go() -> None:
            main = app.main
            await main.show_view("auth")
            await main.query_one("#view-auth", AuthView).run_action(action)

        return lambda: app.run_worker(go(), group="auth-palette", exit_on_error=False)

    commands = []
    for binding in AuthView.BINDINGS:
        if isinstance(binding, Binding) and binding.id in PALETTE_TITLES:
            key = keymap.get(binding.id, binding.key)
            commands.append((PALETTE_TITLES[binding.id], run(binding.action), f"key: {key} in the Auth view (0)"))
    return commands
