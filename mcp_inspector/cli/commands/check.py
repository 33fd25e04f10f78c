"""``mcp-inspector check``: run the rule engine (core/checks) against a server or a recording.

    check [--strict] [--json] [--junit FILE] [--ignore RULE]... [--era legacy|modern|both]
          [--token-budget N] [--call TOOL [k=v ...]]... [--timeout S] -- SERVER
    check --open SESSION.jsonl        (the live rules over a recording; no server)

Exit 8 when a finding is an error (``--strict``: a warning too), else 0; a server that cannot
be started or reached keeps its own code (3, 4...). The run is bounded: ``--timeout`` per
request (10 s here) and ``BUDGET_FACTOR`` times it for the whole check.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Any

from ...core.base.errors import EraNotSpoken
from ...core.base.files import writable_problem
from ...core.checks.auth_steps import auth_findings
from ...core.checks.baseline import baseline_findings, current_surface, lost_eras
from ...core.checks.catalog import RULES, finding, unknown_ids
from ...core.checks.live import LiveChecker
from ...core.checks.probes import CheckOptions
from ...core.checks.runner import CheckReport, run_check, sort_findings
from ...core.checks.schema_check import preload
from ...core.session.mcp_session import McpSession
from ...core.traffic.store import TrafficStore
from .. import exit_codes
from ..exit_codes import UsageError
from ..output import check_output
from ..output.report import PROGRAM, error, write_err
from .basic import out

DEFAULT_TIMEOUT = 10.0
BUDGET_FACTOR = 12  # the whole check: at most 12 request timeouts (120 s by default)
NO_TIMEOUT_BUDGET = 600.0


def ignored_rules(args: Any, spec: Any) -> set[str]:
    """--ignore RULE (repeatable) and the config entry's "ignore"; an unknown id is a usage error."""
    given = list(getattr(args, "check_ignore", None) or []) + list(getattr(spec, "ignore", None) or [])
    unknown = unknown_ids(given)
    if unknown:
        raise UsageError(
            f"unknown rule id{'s' if len(unknown) > 1 else ''} to ignore: {', '.join(unknown)} "
            "(the rules are listed in docs/checks.md)"
        )
    return set(given)


def check_calls(args: Any) -> list[tuple[str, dict[str, Any]]]:
    from ..arguments import require_utf8, tool_arguments

    calls = []
    for words in getattr(args, "check_calls", None) or []:
        name, pairs = words[0], words[1:]
        require_utf8(name, "TOOL")
        calls.append((name, tool_arguments(pairs, None)))
    return calls


def run_check_command(spec: Any, args: Any, handlers: dict) -> int:
    if args.query is not None:
        raise UsageError("--query does not go with check: use --json and jq on its output")
    ignore = ignored_rules(args, spec)
    if args.junit:  # refused before any server starts
        problem = writable_problem(args.junit)
        if problem is not None:
            raise UsageError(f"--junit: {problem}")
    baseline = None
    if args.check_baseline is not None:
        if args.check_open is not None:
            raise UsageError("--baseline compares a running server's surface: it does not go with --open")
        from .surface import load_snapshot

        baseline = (args.check_baseline, load_snapshot(args.check_baseline))
    if args.check_open is not None:
        return _check_recording(args.check_open, ignore, args)
    calls = check_calls(args)
    timeout = args.timeout if args.timeout_given else DEFAULT_TIMEOUT
    budget = NO_TIMEOUT_BUDGET if timeout is None else max(60.0, BUDGET_FACTOR * timeout)
    eras = ["legacy", "modern"] if args.check_era == "both" else [None]
    if len(eras) > 1 and args.record:
        raise UsageError("--record writes one session: give --era legacy or --era modern with it")
    reports: list[CheckReport] = []
    refusals: list[EraNotSpoken] = []  # --era both: the eras the server refused as the other era's server does
    code = exit_codes.OK
    for era in eras:
        run_spec = replace(spec, era=era) if era is not None else spec
        options = CheckOptions(timeout=timeout, token_budget=args.token_budget, calls=calls, ignore=ignore, era=era)
        code, report = _one_run(run_spec, args, handlers, options, budget, baseline, refusals if era else None)
        if refusals and refusals[-1].era == era:
            continue  # not spoken: a note, not a failed check
        if report is None:
            return code  # the error is on stderr already (a crash, a timeout)
        reports.append(report)
    if not reports:  # refused in both eras
        for refusal in refusals:
            error(refusal.explain())
        return code
    skipped_eras = [refusal.era for refusal in refusals]
    if skipped_eras and baseline is not None and "surface-breaking" not in ignore:
        reports[0].findings = sort_findings(
            reports[0].findings + lost_eras(baseline[1], skipped_eras, source=baseline[0])
        )
    reports[0].notes.extend(refusal.explain("not checked there") for refusal in refusals)
    if len(reports) == 2:
        reports[-1].findings = sort_findings(reports[-1].findings + era_mismatches(reports[0], reports[1], ignore))
    return _emit(reports, args, ignore, spec.describe())


def _one_run(
    spec: Any,
    args: Any,
    handlers: dict,
    options: CheckOptions,
    budget: float,
    baseline: tuple[str, dict[str, Any]] | None = None,
    refusals: list[EraNotSpoken] | None = None,
) -> tuple[int, Any]:
    from ...core.auth.model import AuthLog
    from ...core.protocol.versions import LATEST_LEGACY
    from ..runner import RunOptions, run

    preload()  # the schema models load while the server starts
    holder: dict[str, Any] = {}
    auth_log = AuthLog() if spec.url else None
    judge_auth = auth_log is not None and "oauth-step" not in options.ignore

    def attach(store: TrafficStore) -> None:
        holder["store"] = store
        holder["live"] = live = LiveChecker(
            store, transport="http" if spec.url else "stdio", ignore=options.ignore, era=options.era
        )
        store.add_listener(live)

    async def body(session: McpSession, context: Any) -> int:
        holder["report"] = report = await run_check(
            session,
            holder["live"],
            options,
            budget=budget,
            server={
                "name": (session.server_info or {}).get("name"),
                "version": (session.server_info or {}).get("version"),
            },
        )
        if judge_auth:
            report.findings = sort_findings(report.findings + auth_findings(auth_log, era=options.era))
        if baseline is not None and "surface-breaking" not in options.ignore:
            _compare_baseline(report, session, *baseline, era=options.era)
        # the code --report records; the command's own exit is decided over every era
        return exit_codes.CHECK_FAILED if report.fails(args.strict) else exit_codes.OK

    run_options = RunOptions(
        timeout=options.timeout,
        record=args.record,
        show_stderr=args.show_stderr,
        protocol_version=spec.protocol_version or LATEST_LEGACY,
        quiet=True,  # what the server wrote wrong is in the findings, not in warnings
        json=args.json,
        max_frame_bytes=args.max_frame_size,
        handlers=handlers,
        report=args.report,
        command="check",
        on_store=attach,
        auth_log=auth_log,
        on_era_not_spoken=refusals.append if refusals is not None else None,
    )
    code = run(spec, run_options, body)
    report = holder.get("report")
    if report is None and "live" in holder and code != exit_codes.OK:
        report = _failed_run(holder["live"], options, auth_findings(auth_log, era=options.era) if judge_auth else [])
    return code, report


def _compare_baseline(
    report: CheckReport, session: McpSession, source: str, snapshot: dict[str, Any], *, era: str | None
) -> None:
    current, missing = current_surface(
        snapshot,
        report.lists,
        server_info=session.server_info,
        protocol_version=session.protocol_version,
        era=session.era,
        capabilities=session.capabilities,
        instructions=session.instructions,
    )
    found, notes = baseline_findings(snapshot, current, source=source, missing=missing, era=era)
    report.findings = sort_findings(report.findings + found)
    report.notes.extend(notes)


def _failed_run(live: LiveChecker, options: CheckOptions, auth: list[Any]) -> CheckReport | None:
    """The server could not be connected (the error is on stderr), but what it sent was judged:
    a handshake refused for a version no revision has is ``initialize-version``, not only exit 3;
    an OAuth flow that broke at a step is ``oauth-step``, not only exit 4."""
    live.drain()
    findings = live.findings + auth
    if not any(item.severity.rank <= 1 for item in findings):
        return None
    return CheckReport(
        server={"name": None, "version": None},
        era=live.state.era,
        protocol_version=live.state.version,
        findings=sort_findings(findings),
        notes=["the connection failed (the error is above): only what the server sent until then was judged"],
    )


def _emit(reports: list[CheckReport], args: Any, ignore: set[str], target: str) -> int:
    if args.junit:
        try:
            check_output.write_file(args.junit, check_output.junit(reports, ignore, target))
        except OSError as exc:
            raise UsageError(f"cannot write the JUnit file {args.junit}: {exc.strerror or exc}") from None
    if args.json:
        out(json.dumps(check_output.json_document(reports, target), indent=2, ensure_ascii=False))
        if not args.quiet:  # stdout is the exact document: what was not checked goes to stderr
            for report in reports:
                era = f" ({report.era})" if len(reports) > 1 and report.era else ""
                for note in report.notes:
                    write_err(f"{PROGRAM}: note{era}: {note}")
    else:
        out(check_output.text(reports, target))
    sys.stdout.flush()
    return exit_codes.CHECK_FAILED if any(report.fails(args.strict) for report in reports) else exit_codes.OK


def _check_recording(path: str, ignore: set[str], args: Any) -> int:
    """The live rules over a recorded session (what frames alone can tell)."""
    import os

    from ...core.traffic.loading import SessionFileError, load_session

    if not os.path.lexists(path):
        raise UsageError(f"session file not found: {path}")
    try:
        loaded = load_session(path)
    except SessionFileError as exc:
        raise UsageError(str(exc)) from None
    header = loaded.header
    transport = "http" if header.get("url") else "stdio"
    live = LiveChecker(loaded.store, transport=transport, ignore=ignore)
    for count, entry in enumerate(loaded.store.iter_all(), 1):
        live.observe(entry)
        if count % 2000 == 0:
            live.drain()
    live.drain()
    notes = []
    if loaded.skipped:
        notes.append(loaded.describe_skipped())
    notes.append("a recording: only the live rules are judged (no probes)")
    notes.extend(f"internal: a live rule failed: {problem}" for problem in live.errors)
    info = live.state.server_info
    report = CheckReport(
        server={"name": info.get("name") or header.get("name"), "version": info.get("version"), "recording": path},
        era=live.state.era,
        protocol_version=live.state.version,
        findings=sort_findings(live.findings),
        notes=notes,
    )
    loaded.store.close()
    return _emit([report], args, ignore, str(header.get("server") or path))


def era_mismatches(legacy: CheckReport, modern: CheckReport, ignore: set[str]) -> list[Any]:
    """``era-mismatch``: the same surface listed differently by the two eras."""
    if "era-mismatch" in ignore:
        return []
    found = []
    for kind, key in (
        ("tools", "name"),
        ("prompts", "name"),
        ("resources", "uri"),
        ("resource_templates", "uriTemplate"),
    ):
        old = {str(item.get(key)): item for item in legacy.lists.get(kind, [])}
        new = {str(item.get(key)): item for item in modern.lists.get(kind, [])}
        if kind not in legacy.lists or kind not in modern.lists:
            continue
        only_legacy = sorted(set(old) - set(new))
        only_modern = sorted(set(new) - set(old))
        differ = sorted(name for name in set(old) & set(new) if _comparable(old[name]) != _comparable(new[name]))
        parts = []
        if only_legacy:
            parts.append(f"only in legacy: {', '.join(only_legacy[:5])}")
        if only_modern:
            parts.append(f"only in 2026-07-28: {', '.join(only_modern[:5])}")
        if differ:
            parts.append(f"described differently: {', '.join(differ[:5])}")
        if parts:
            found.append(
                finding("era-mismatch", f"{kind.replace('_', ' ')}: {'; '.join(parts)}", where=kind, era="both")
            )
    return found


def _comparable(item: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in item.items() if k != "_meta"}, sort_keys=True)


RULE_COUNT = len(RULES)
