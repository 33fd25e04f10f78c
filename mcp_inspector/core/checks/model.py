"""The check engine's vocabulary: a rule (fixed id, severity policy, why, fix, source) and a finding.

A :class:`Rule` is data: the registry (``catalog.py``) holds one per id, and the docs' table (docs/checks.md),
``--ignore`` and the JUnit output are made from it. A :class:`Finding` is one thing a rule found,
located (a tool, resource or prompt name; the traffic entry's ``seq``; the HTTP exchange) so a
front end can jump to it. Both are plain data (no I/O), shared by the live rules (``live.py``),
the active probes (``probes.py``) and the front ends (CLI, TUI).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

EVIDENCE_CUT = 300  # characters of a frame or value quoted as evidence


class Severity(StrEnum):
    """error: breaks a MUST of the negotiated revision, or a major client refuses the server or
    the tool; warning: a SHOULD, or something some clients refuse; info: advice."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


class RuleKind(StrEnum):
    """How a rule is judged."""

    LIVE = "live"  # on traffic entries as they pass (a session, a recording): live.py
    PROBE = "probe"  # by a request the check command sends (probes.py)
    SURFACE = "surface"  # on what the server listed (tools, resources, prompts): surface.py
    HTTP = "http"  # by an HTTP exchange of its own (Streamable HTTP)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of the registry. ``id`` is fixed: tests, docs and users' ``--ignore`` lists use it."""

    id: str
    severity: Severity  # the policy; one finding may be milder (e.g. a SHOULD part of a MUST rule)
    kind: RuleKind
    title: str  # what is checked, one line
    why: str  # why it matters: what breaks, for whom
    fix: str  # how to fix it (a finding's default hint)
    source: str  # spec revision + section, or the client documentation's URL
    group: str  # "stdio", "lifecycle", "tools", "resources", "prompts", "completion", "http", "modern"
    implemented: bool = True  # False: registered, judged by nobody yet (listed as planned)


@dataclass(slots=True)
class Finding:
    """One thing a rule found. ``hint`` and ``spec`` default to the rule's fix and source."""

    rule: str
    severity: Severity
    message: str
    where: str = ""  # "tool add", "resource file:///a", "frame #12", "HTTP exchange 3"
    hint: str = ""
    spec: str = ""
    evidence: str = ""
    era: str | None = None  # "legacy" / "modern" when the check ran in one era
    seq: int | None = None  # the traffic entry it is about (the TUI jumps there)
    exchange: int | None = None  # the HttpLog exchange it is about
    extra: dict[str, Any] = field(default_factory=dict)  # for front ends (e.g. tokens); not in to_json

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape: rule, severity, message, where, hint, spec, evidence (+ era, and seq
        and exchange when it is about a frame)."""
        document: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "where": self.where,
            "hint": self.hint,
            "spec": self.spec,
            "evidence": self.evidence,
        }
        if self.era is not None:
            document["era"] = self.era
        if self.seq is not None:
            document["seq"] = self.seq
        if self.exchange is not None:
            document["exchange"] = self.exchange
        return document

    @property
    def key(self) -> tuple[str, str, str]:
        """Two findings with the same key say the same thing (reported once)."""
        return (self.rule, self.where, self.message)


def cut(text: str, limit: int = EVIDENCE_CUT) -> str:
    """Evidence quoted whole when short, else its head and the size."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"
