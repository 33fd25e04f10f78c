"""The check command's output: text grouped by severity, the ``--json`` document, JUnit XML.

JUnit: one test case per rule of the registry (classname ``mcp-inspector.check.GROUP``); a rule
with an error finding fails (``<failure>``, each finding a line), one with only warnings or info
passes with them in ``<system-out>``, an ignored or unimplemented rule is ``<skipped>``. CI tools
(GitLab, Jenkins, GitHub test reporters) show the failures by rule id.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ...core.checks.catalog import RULES
from ...core.checks.model import Finding, Severity

HEADINGS = {Severity.ERROR: "Errors", Severity.WARNING: "Warnings", Severity.INFO: "Info"}


def text(reports: list[Any], target: str) -> str:
    """The human report: per era (when more than one), findings grouped by severity."""
    lines: list[str] = []
    for report in reports:
        name = report.server.get("name") or target
        version = report.server.get("version")
        era = f", {report.era} era" if report.era else ""
        source = f"recording {report.server['recording']}, " if report.server.get("recording") else ""
        took = "" if source else f", {report.seconds:.1f} s"
        lines.append(
            f"check of {name}{' ' + str(version) if version else ''} "
            f"({source}protocol {report.protocol_version or '?'}{era}){took}"
        )
        by_severity: dict[Severity, list[Finding]] = {severity: [] for severity in Severity}
        for item in report.findings:
            by_severity[item.severity].append(item)
        for severity in Severity:
            items = by_severity[severity]
            if not items:
                continue
            lines.append("")
            lines.append(f"{HEADINGS[severity]} ({len(items)})")
            by_rule: dict[str, list[Finding]] = {}
            for item in items:
                by_rule.setdefault(item.rule, []).append(item)
            for rule_id, group in by_rule.items():
                lines.extend(_rule_lines(rule_id, group))
        if report.notes:
            lines.append("")
            lines.extend(f"note: {note}" for note in report.notes)
        summary = report.summary()
        lines.append("")
        lines.append(
            f"{summary['error']} error{'s' if summary['error'] != 1 else ''}, "
            f"{summary['warning']} warning{'s' if summary['warning'] != 1 else ''}, {summary['info']} info"
        )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


SHOWN_PER_RULE = 10  # findings of one rule listed in the text output (all are in --json)


def _rule_lines(rule_id: str, items: list[Finding]) -> list[str]:
    """One rule's findings: each with where, the message and the evidence; the fix and the
    source once after them (unless a finding has its own)."""
    lines = [f"  {rule_id} ({len(items)})" if len(items) > 1 else f"  {rule_id}"]
    for item in items[:SHOWN_PER_RULE]:
        where = f"[{item.where}] " if item.where else ""
        era = f" ({item.era})" if item.era else ""
        lines.append(f"    - {where}{item.message}{era}")
        if item.evidence:
            lines.append(f"      evidence: {item.evidence}")
    if len(items) > SHOWN_PER_RULE:
        lines.append(f"    … and {len(items) - SHOWN_PER_RULE} more (all of them with --json)")
    hints = list(dict.fromkeys(item.hint for item in items if item.hint))
    specs = list(dict.fromkeys(item.spec for item in items if item.spec))
    lines.extend(f"    fix: {hint}" for hint in hints[:3])
    lines.extend(f"    see: {spec}" for spec in specs[:2])
    return lines


def json_document(reports: list[Any], target: str) -> dict[str, Any]:
    """``{"server", "era", "findings", "summary"}``, the issue's shape. Over two eras (``--era
    both``) the same, ``era`` "both", each finding tagged with its era."""
    if len(reports) == 1:
        document = reports[0].to_json()
        document["server"] = {**document["server"], "target": target}
        return document
    summary = {"error": 0, "warning": 0, "info": 0}
    for report in reports:
        for key, value in report.summary().items():
            summary[key] += value
    return {
        "server": {**reports[0].to_json()["server"], "target": target},
        "era": "both",
        "findings": [item.to_json() for report in reports for item in report.findings],
        "summary": summary,
    }


def junit(reports: list[Any], ignored: set[str], target: str) -> str:
    findings = [item for report in reports for item in report.findings]
    by_rule: dict[str, list[Finding]] = {}
    for item in findings:
        by_rule.setdefault(item.rule, []).append(item)
    cases = []
    failures = skipped = 0
    seconds = sum(report.seconds for report in reports)
    for rule in RULES.values():
        items = by_rule.get(rule.id, [])
        attrs = f"classname={quoteattr('mcp-inspector.check.' + rule.group)} name={quoteattr(rule.id)}"
        errors = [item for item in items if item.severity is Severity.ERROR]
        body = ""
        if rule.id in ignored or not rule.implemented:
            skipped += 1
            why = "ignored (--ignore or the config's ignore)" if rule.id in ignored else "not checked yet"
            body = f"<skipped message={quoteattr(why)}/>"
        elif errors:
            failures += 1
            detail = "\n".join(_plain(item) for item in items)
            message = quoteattr(errors[0].message[:500])
            body = f"<failure message={message} type={quoteattr(rule.id)}>{escape(detail)}</failure>"
        elif items:
            body = f"<system-out>{escape(chr(10).join(_plain(item) for item in items))}</system-out>"
        cases.append(f'    <testcase {attrs} time="0">{body}</testcase>')
    name = quoteattr(f"mcp-inspector check {target}")
    counts = f'tests="{len(cases)}" failures="{failures}" skipped="{skipped}"'
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name={name} {counts} time="{seconds:.3f}">\n'
        f'  <testsuite name={name} {counts} errors="0" time="{seconds:.3f}">\n'
        + "\n".join(cases)
        + "\n  </testsuite>\n</testsuites>\n"
    )


def _plain(item: Finding) -> str:
    parts = [f"{item.severity.value}: {item.message}"]
    if item.where:
        parts.append(f"where: {item.where}")
    if item.evidence:
        parts.append(f"evidence: {item.evidence}")
    if item.hint:
        parts.append(f"fix: {item.hint}")
    if item.spec:
        parts.append(f"see: {item.spec}")
    return " | ".join(parts)


def write_file(path: str, content: str) -> None:
    """The JUnit file, through the one helper for files we write server data into (0600, no
    symbolic link or FIFO followed); a secret this process holds is masked, as on stdout."""
    from ...core.base.files import open_private
    from ...core.base.masking import scrub

    with open_private(path) as stream:
        stream.write(scrub(content))
