"""The main screen's part in the server check: live checks on every session, the count in the
status bar, the active checks on demand, and jumping from a finding to its frame.

``LiveChecks`` (tui/server/live_checks.py) is made with the screen, before the first connection,
and every connection tells it when it makes a session (``on_session``), so the handshake is judged.
A timer drains its deferred checks within a time budget and updates the status bar when a finding
came. ``Run checks`` runs the probes that leave the session as it was (``default_probes(
disruptive=False)``: no line that is not JSON, no stdin close) in a worker, one after the other,
the view saying which runs; what they find is merged in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ....core.checks.auth_steps import auth_findings
from ....core.checks.model import Finding
from ....core.traffic.store import TrafficStore
from ...server.live_checks import LiveChecks
from ...text.check_text import counts_text
from ...widgets.status_bar import StatusBar
from .host import ScreenHost

if TYPE_CHECKING:
    from ...server.switching import SwitchingConnection

TICK = 0.1  # seconds between drains of the deferred checks
RUN_BUDGET = 120.0  # seconds for the whole on-demand check
RUN_TIMEOUT = 10.0  # per request of the check (the CLI's default)
PRELOAD_AFTER = 1.5  # seconds after mount: the schema models are imported then


class ChecksHost(ScreenHost, Protocol):
    """What the checks need of the main screen."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def connection(self) -> SwitchingConnection: ...
    @property
    def status_bar(self) -> StatusBar: ...
    @property
    def timeout(self) -> float: ...
    @property
    def read_only(self) -> bool: ...

    async def show_frame(self, seq: int) -> None: ...
    async def show_exchange(self, exchange_id: int, open_detail: bool = True) -> None: ...


class ChecksState:
    """The main screen's checks: ``live`` (what the views show) and the actions around it."""

    def __init__(self, host: ChecksHost) -> None:
        self.host = host
        self.live = LiveChecks(host.store)
        self._seen = -1
        self._auth_seen = (0, 0)
        host.connection.on_session = self.live.session_started

    def start(self) -> None:
        """On mount: the drain timer; the schema models in a thread a little later (an import of
        0.7-1.7 s beside the first paint and the handshake would hold the GIL against them; the
        frames wait in the checker's queue meanwhile)."""
        self.host.set_timer(PRELOAD_AFTER, self.live.preload, name="live-checks-preload")
        self.host.set_interval(TICK, self._tick, name="live-checks")

    def _tick(self) -> None:
        checks = self.live
        checks.tick()
        log = self.host.connection.auth_log
        if (id(log), log.version) != self._auth_seen:  # the OAuth client's step checks (oauth-step)
            self._auth_seen = (id(log), log.version)
            checks.add(auth_findings(log))
        if checks.version != self._seen:
            self._seen = checks.version
            self.host.status_bar.checks = dict(checks.counts)

    def judge_recording(self, server: str) -> None:
        self.live.judge_recording("http" if "://" in server else "stdio")

    # -- the Checks view (the screen's handlers pass its messages on) ----------------------
    async def jump(self, item: Finding) -> None:
        """To the frame (or, over HTTP, the exchange) a finding is about."""
        host = self.host
        if item.exchange is not None and host.status_bar.status.transport not in ("", "stdio"):
            await host.show_exchange(item.exchange, open_detail=False)
            return
        if item.seq is None:
            return
        if host.store.get(item.seq) is None:
            host.notify(f"#{item.seq} is no longer in memory (see the session file).", severity="warning")
            return
        await host.show_frame(item.seq)

    def run(self) -> None:
        host = self.host
        session = host.connection.live
        if session is None:
            reason = "a recording is judged by the live rules only" if host.read_only else "not connected"
            host.notify(f"Cannot run the active checks: {reason}.", severity="warning")
            return
        if self.live.progress:
            host.notify("The checks are running already.", severity="information")
            return
        host.run_worker(self._run(session), group="run-checks", exclusive=True, exit_on_error=False)

    async def _run(self, session: Any) -> None:
        from ....core.checks.live import LiveChecker
        from ....core.checks.probes import CheckOptions, StartupProbe
        from ....core.checks.runner import default_probes, run_check

        checks = self.live
        checks.preload()  # the surface rules use jsonschema: imported in the thread, not on the loop
        if not checks.ready:
            checks.progress = "loading the schema models"
            await checks.wait_ready()
        # StartupProbe reads the whole store from its first entry (this store keeps every server of
        # the session): not here. The live findings come from the session's own checker.
        probes = [probe for probe in default_probes(disruptive=False) if not isinstance(probe, StartupProbe)]
        announced = [_announced(probe, index, len(probes), checks) for index, probe in enumerate(probes)]
        timeout = min(self.host.timeout, RUN_TIMEOUT) if self.host.timeout else RUN_TIMEOUT
        try:
            report = await run_check(
                session, LiveChecker(None), CheckOptions(timeout=timeout), budget=RUN_BUDGET, probes=announced
            )
        except Exception as exc:  # noqa: BLE001 - a probe's bug is said, never a traceback
            checks.progress = ""
            checks.runs += 1
            checks.version += 1
            self.host.notify(f"The checks stopped: {exc.__class__.__name__}: {exc}", severity="error", markup=False)
            return
        checks.progress = ""
        checks.runs += 1
        new = checks.add(report.findings)
        checks.version += 1
        summary = counts_text({item.severity: 0 for item in report.findings} | _counts(report.findings))
        self.host.notify(
            f"{len(report.findings)} findings ({summary or 'nothing at all'}), {new} new, in {report.seconds:.1f} s",
            title="Checks done",
            markup=False,
        )
        for note in report.notes[:3]:
            self.host.notify(note, severity="information", markup=False, timeout=6)


def _counts(findings: list[Any]) -> dict[Any, int]:
    counts: dict[Any, int] = {}
    for item in findings:
        counts[item.severity] = counts.get(item.severity, 0) + 1
    return counts


def _announced(probe: Any, index: int, total: int, checks: LiveChecks) -> Any:
    """The probe, saying in ``checks.progress`` that it runs (the view shows it). A subclass of the
    wrapper named like the probe, so the run's notes name it."""
    name = type(probe).__name__

    async def run(self: Any, ctx: Any) -> None:
        checks.progress = f"running {name.removesuffix('Probe').lower()} ({index + 1}/{total})"
        checks.version += 1
        await probe.run(ctx)

    return type(name, (), {"rules": probe.rules, "run": run})()
