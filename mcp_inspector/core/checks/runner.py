"""The whole check over a connected session: the probes in order, each within what is left of
the run's time budget, then the live findings (the frames of the whole run, deferred checks
drained) and the probes' in one :class:`CheckReport`.

A front end attaches a :class:`LiveChecker` to the session's store *before* connecting (so the
handshake is judged), connects, and calls :func:`run_check`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import anyio

from ..base.errors import ConnectionLost, InspectorError
from ..session.mcp_session import McpSession
from .catalog import RULES
from .live import LiveChecker
from .model import Finding, Severity
from .probes import (
    CheckOptions,
    ExitOnEofProbe,
    MalformedInputProbe,
    PingProbe,
    Probe,
    ProbeContext,
    StartupProbe,
    UnknownMethodProbe,
    UnknownToolProbe,
    UnsupportedVersionProbe,
    lost,
)
from .probes_http import http_probes
from .probes_surface import CallProbe, CompletionProbe, ListProbe, LoggingProbe, PromptGetProbe, ResourceReadProbe


def default_probes(disruptive: bool = True) -> list[Probe]:
    """In order: what needs the lists after ListProbe; what may kill the server (a line that is
    not JSON) near the end; the stdin close last. ``disruptive=False`` leaves those two out: for
    checks run on demand in a session the user goes on using (the TUI)."""
    probes: list[Probe] = [
        StartupProbe(),
        PingProbe(),
        ListProbe(),
        UnknownMethodProbe(),
        UnknownToolProbe(),
        ResourceReadProbe(),
        PromptGetProbe(),
        CompletionProbe(),
        LoggingProbe(),
        CallProbe(),
        UnsupportedVersionProbe(),
        *http_probes(),  # Streamable HTTP only (each does nothing over stdio)
    ]
    if disruptive:
        probes += [MalformedInputProbe(), ExitOnEofProbe()]
    return probes


@dataclass
class CheckReport:
    """What a check found. ``to_json`` is the ``--json`` document."""

    server: dict[str, Any]
    era: str | None
    protocol_version: str | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    lists: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # what the server listed (first listing)

    def summary(self) -> dict[str, int]:
        counts = {"error": 0, "warning": 0, "info": 0}
        for item in self.findings:
            counts[item.severity.value] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The issue's shape, exactly: server, era, findings, summary (the notes go to stderr)."""
        return {
            "server": {**self.server, "protocolVersion": self.protocol_version},
            "era": self.era,
            "findings": [item.to_json() for item in self.findings],
            "summary": self.summary(),
        }

    def fails(self, strict: bool = False) -> bool:
        """Whether the check fails: an error (with ``strict``, a warning too)."""
        worst = Severity.WARNING.rank if strict else Severity.ERROR.rank
        return any(item.severity.rank <= worst for item in self.findings)


def sort_findings(findings: list[Finding]) -> list[Finding]:
    """By severity, then in the order found (stable)."""
    return sorted(findings, key=lambda item: item.severity.rank)


async def run_check(
    session: McpSession,
    live: LiveChecker,
    options: CheckOptions,
    *,
    budget: float,
    probes: list[Probe] | None = None,
    server: dict[str, Any] | None = None,
) -> CheckReport:
    """Run ``probes`` (default: all) over ``session`` (connected) within ``budget`` seconds in all,
    then drain ``live`` and merge. A probe whose rules are all ignored is not run; one that
    loses the server ends the run (what is left is said in the notes)."""
    started = time.perf_counter()
    ctx = ProbeContext(session, options)
    probes = default_probes() if probes is None else probes
    deadline = started + budget
    for index, probe in enumerate(probes):
        if all(rule_id in options.ignore for rule_id in probe.rules):
            continue
        left = deadline - time.perf_counter()
        if left <= 0:
            rest = ", ".join(type(p).__name__ for p in probes[index:])
            ctx.note(f"the check's time budget ({budget:g} s) ran out: not run: {rest}")
            break
        try:
            with anyio.move_on_after(left) as scope:
                await probe.run(ctx)
            if scope.cancelled_caught:
                ctx.note(f"{type(probe).__name__} stopped: the check's time budget ({budget:g} s) ran out")
        except ConnectionLost as exc:
            if not any(f.rule in probe.rules for f in ctx.findings):
                lost(ctx, probe, exc)
            rest = ", ".join(type(p).__name__ for p in probes[index + 1 :])
            ctx.note(f"the server went away ({exc.reason}); not run: {rest or 'nothing'}")
            break
        except InspectorError as exc:
            lost(ctx, probe, exc)
    live.drain()
    if live.skipped:
        ctx.note(f"{live.skipped} frames were not schema-checked (over the live checks' queue)")
    for problem in live.errors:
        ctx.note(f"internal: a live rule failed: {problem}")
    info = session.server_info or {}
    report = CheckReport(
        server=server or {"name": info.get("name"), "version": info.get("version")},
        era=session.era,
        protocol_version=session.protocol_version,
        findings=sort_findings(live.findings + ctx.findings),
        notes=ctx.notes,
        seconds=time.perf_counter() - started,
        lists=ctx.lists,
    )
    return report


def rule_ids() -> list[str]:
    return list(RULES)
