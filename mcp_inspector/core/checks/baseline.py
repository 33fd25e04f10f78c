"""``check --baseline FILE``: the server's surface as this check listed it, diffed against a
committed snapshot (``mcp-inspector snapshot``); what breaks a client is a ``surface-breaking``
finding, so one CI step checks the server and its compatibility.

Breaking changes are errors; "changed, impact unknown" ones are warnings (never passed as
compatible); compatible and cosmetic changes are counted in a note. A list the check could not
make (its request failed) is not compared: the note says so, rather than reporting every item
as removed.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ..surface import snapshot as surface_snapshot
from ..surface.eras import compare, surface_in
from .catalog import finding
from .model import Finding, Severity

#: the check's list keys -> the snapshot's
LIST_KEYS = {
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "resource_templates": "resourceTemplates",
}


def current_surface(
    baseline: dict[str, Any],
    lists: dict[str, list[dict[str, Any]]],
    *,
    server_info: Any,
    protocol_version: Any,
    era: Any,
    capabilities: Any,
    instructions: Any,
) -> tuple[dict[str, Any], list[str]]:
    """The snapshot of what the check saw, and the lists it could not compare (they are taken
    from the baseline, so that they show no change)."""
    baseline = surface_in(baseline, era)  # a two-era baseline: the body of the era connected in
    taken: dict[str, list[Any]] = {}
    missing = []
    for check_key, snapshot_key in LIST_KEYS.items():
        if check_key in lists:
            taken[snapshot_key] = list(lists[check_key])
        else:
            taken[snapshot_key] = list(baseline.get(snapshot_key) or [])
            if baseline.get(snapshot_key):
                missing.append(snapshot_key)
    document = surface_snapshot.build(
        server_info=server_info,
        protocol_version=protocol_version,
        era=era,
        capabilities=capabilities,
        instructions=instructions,
        lists=taken,
    )
    # through JSON, as a snapshot file is: the same canonical values on both sides
    return json.loads(surface_snapshot.dumps(document)), missing


def baseline_findings(
    baseline: dict[str, Any], current: dict[str, Any], *, source: str, missing: list[str], era: str | None = None
) -> tuple[list[Finding], list[str]]:
    """``surface-breaking`` findings for the breaking and unknown changes from ``baseline`` to
    ``current``, and notes (what else changed; what was not compared)."""
    try:
        comparison = compare(baseline, current, old_name=source, new_name="the server", only=era)
    except surface_snapshot.SnapshotError as exc:
        return [], [f"baseline {source} was not compared: {exc}"]
    changes = comparison.changes
    findings = []
    for change in changes:
        if change.kind == "breaking":
            findings.append(
                finding("surface-breaking", f"{change.message} (since {source})", where=change.path, era=era)
            )
        elif change.kind == "unknown":
            findings.append(
                finding(
                    "surface-breaking",
                    f"{change.message}: impact unknown, check it by hand (since {source})",
                    where=change.path,
                    severity=Severity.WARNING,
                    era=era,
                )
            )
    counts = Counter(change.kind for change in changes)
    notes = [
        f"baseline {source}: {counts['breaking']} breaking, {counts['unknown']} of unknown impact, "
        f"{counts['compatible']} compatible, {counts['cosmetic']} cosmetic change(s)"
    ]
    notes.extend(f"baseline: {note} (check --era both compares each era)" for note in comparison.notes)
    if missing:
        notes.append(f"baseline: {', '.join(missing)} could not be listed, so not compared")
    return findings, notes


def lost_eras(baseline: dict[str, Any], not_spoken: list[str], *, source: str) -> list[Finding]:
    """``check --era both``: an era the baseline records and the server no longer speaks is a
    breaking change (its clients cannot connect), as ``diff`` classifies it."""
    recorded = baseline.get("eras") if baseline.get("snapshotFormat") == surface_snapshot.FORMAT_ERAS else None
    return [
        finding(
            "surface-breaking",
            f"the {era} era is no longer spoken (its clients cannot connect) (since {source})",
            where=f"/eras/{era}",
            era=era,
        )
        for era in not_spoken
        if isinstance(recorded, dict) and era in recorded
    ]
