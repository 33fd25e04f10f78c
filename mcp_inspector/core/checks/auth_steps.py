"""``oauth-step``: what the OAuth client checked at each step of a flow (core/auth's ``AuthStep``
findings, shown in the Auth view) as findings of the server check.

A check that failed on a step that failed (the flow could not go on) is an error; one that
failed on a step the flow got past is a warning. What the log holds is masked already (no token,
code or secret reaches it), so the findings quote it as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .catalog import finding
from .model import Finding, Severity


class StepCheck(Protocol):
    @property
    def ok(self) -> bool: ...
    @property
    def text(self) -> str: ...
    @property
    def spec(self) -> str | None: ...


class Step(Protocol):
    @property
    def number(self) -> int: ...
    @property
    def title(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def findings(self) -> Sequence[StepCheck]: ...


class StepLog(Protocol):
    """core/auth's AuthLog, as far as the check reads it."""

    @property
    def steps(self) -> Sequence[Step]: ...


def auth_findings(log: StepLog | None, *, era: str | None = None) -> list[Finding]:
    found = []
    for step in list(log.steps) if log is not None else []:
        if step.status == "running":  # judged when it is done: failed or not decides the severity
            continue
        for check in list(step.findings):
            if check.ok:
                continue
            severity = Severity.ERROR if step.status == "failed" else Severity.WARNING
            fields = {"spec": check.spec} if check.spec else {}
            found.append(
                finding(
                    "oauth-step",
                    f"{step.title}: {check.text}",
                    severity=severity,
                    where=f"auth step {step.number}",
                    era=era,
                    **fields,
                )
            )
    return found
