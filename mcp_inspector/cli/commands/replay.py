"""``replay SESSION.jsonl``: a recording re-run against a server, each response compared.

The file is read (and the ``--ignore`` paths checked) before the server starts: a bad
file or path is a usage error. One line per request (``✓ tools/call add``), each
difference under it (``.result.content[0].text: "3" → "4"``), a summary line; or one
JSON document with ``--json``. Exit 0 when every response is as recorded, 6 when one
differs or never came; ``--update`` then writes the new responses into the file.
"""

from __future__ import annotations

from typing import Any

from ...core.replay.compare import IgnoreError, Ignores
from ...core.replay.plan import Plan, PlanError, read_plan
from ...core.replay.run import EQUAL, NO_RESPONSE, SENT, UNCHECKED, RecordedAnswers, StepOutcome, replay
from ...core.session.mcp_session import McpSession
from .. import exit_codes
from ..exit_codes import UsageError
from ..output.report import error
from ..runner import Context
from .basic import out, out_json

MARKS = {EQUAL: "✓", UNCHECKED: "?", NO_RESPONSE: "✗"}


def prepare(args: Any) -> None:
    """Read the plan and check the ignores now (usage errors before any server starts)."""
    try:
        args.plan = read_plan(args.session_file, max_line=max(args.max_frame_size * 2, 1 << 20))
    except PlanError as exc:
        raise UsageError(str(exc)) from None
    try:
        args.ignores = Ignores(args.ignore)  # each path is checked in the query sandbox (bounded)
    except IgnoreError as exc:
        raise UsageError(str(exc)) from None
    args.answers = RecordedAnswers(args.plan.answers)


def answer_handlers(args: Any, declared: dict) -> dict:
    """The recorded answers, declared as the usual handlers are (``declared``: every command's), so
    the server sees the capabilities it saw when the file was recorded by the CLI or the TUI."""
    from ...core.session.modern import CAPABILITY_ATTRIBUTE

    handlers = args.answers.handlers()
    for method, handler in handlers.items():
        value = getattr(declared.get(method), CAPABILITY_ATTRIBUTE, None)
        if value is not None:
            setattr(handler, CAPABILITY_ATTRIBUTE, value)
    return handlers


def render_outcome(outcome: StepOutcome) -> str:
    mark = MARKS.get(outcome.status, "✗")
    head = f"{mark} {outcome.step.label}"
    if outcome.status == UNCHECKED:
        head += "  (no recorded response to compare with)"
    elif outcome.status == NO_RESPONSE:
        head += "  (no response)"
    lines = [head]
    if outcome.problem:
        lines.append(f"    note: {outcome.problem}")
    lines.extend(f"    {difference.describe()}" for difference in outcome.differences)
    return "\n".join(lines)


async def cmd_replay(session: McpSession, ctx: Context, args: Any) -> int:
    plan: Plan = args.plan
    ctx.step = "replay"
    for skipped in plan.skipped:
        ctx.note(f"replay: skipped {skipped}")

    def show(outcome: StepOutcome) -> None:
        if not ctx.options.json and outcome.status != SENT:
            out(render_outcome(outcome))

    try:
        report = await replay(session, plan, args.ignores, args.answers, timeout=ctx.options.timeout, on_outcome=show)
    except IgnoreError as exc:  # jq was stopped (CPU, memory) on a response: no comparison can be trusted
        ctx.step = ""
        error(f"replay: {exc}")
        return exit_codes.QUERY_ERROR
    finally:
        args.ignores.close()
    ctx.step = ""
    if report.unused_answers:
        ctx.note(f"replay: {report.unused_answers} recorded answer(s) to server requests were not asked for")
    updated = 0
    if args.update:
        from ...core.replay.update import write_update

        try:
            updated = write_update(report)
        except PlanError as exc:
            ctx.warn(str(exc))
            return exit_codes.DIFFERENCES
        ctx.note(
            f"replay: {updated} expectation(s) updated in {plan.path}"
            if updated
            else f"replay: {plan.path} already matches; nothing updated"
        )
    if ctx.options.json:
        document = report.to_json()
        document["updated"] = updated
        out_json(document)
    else:
        out(f"replay: {report.summary()}")
    if report.equal:
        return exit_codes.OK
    if args.update and not any(o.status == NO_RESPONSE for o in report.outcomes):
        return exit_codes.OK  # the differences are the expectations now
    return exit_codes.DIFFERENCES


COMMANDS = {"replay": cmd_replay}
