"""How findings of the check engine read in the TUI: severity marks and styles, counts."""

from __future__ import annotations

from ...core.checks.model import Severity

SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "cyan"}
SEVERITY_MARK = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "·"}


def counts_text(counts: dict[Severity, int], compact: bool = False) -> str:
    """ "2 errors · 3 warnings · 1 info" (zero counts left out), or "✖2 ▲3 ·1" when compact."""
    parts = []
    for severity, word in ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "info")):
        count = counts.get(severity, 0)
        if not count:
            continue
        if compact:
            parts.append(f"{SEVERITY_MARK[severity]}{count}")
        else:
            plural = "s" if count != 1 and severity is not Severity.INFO else ""
            parts.append(f"{count} {word}{plural}")
    return (" " if compact else " · ").join(parts)
