"""snapshot (a server's surface as canonical JSON) and diff (two surfaces, classified).

With ``--era both`` the server is run once in each era (:func:`run_both_eras`) and the two
surfaces make one snapshotFormat-2 document (core/surface/snapshot.py); ``diff`` compares a
two-era side era by era (core/surface/eras.py)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Any

from ...core.base.errors import EraNotSpoken
from ...core.base.files import open_private
from ...core.session.mcp_session import McpSession
from ...core.surface import snapshot as surface_snapshot
from ...core.surface.collect import collect
from ...core.surface.diff import FAILING, KINDS, TITLES, counts
from ...core.surface.eras import Comparison, compare
from .. import exit_codes
from ..exit_codes import UsageError
from ..output.report import PROGRAM, error, write_err
from ..runner import Context, RunOptions, run
from .basic import out, out_json


async def surface_of(session: McpSession, ctx: Context) -> dict[str, Any]:
    """The connected server's snapshot document (every page of every list it declares)."""

    def step(method: str) -> None:
        ctx.step = method

    return await collect(session, ctx.note, step=step)


def write_output(path: str | None, text: str) -> None:
    if path is None or path == "-":
        sys.stdout.write(text)
        return
    try:
        with open_private(path) as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


async def cmd_snapshot(session: McpSession, ctx: Context, args: Any) -> int:
    write_output(args.output, surface_snapshot.dumps(await surface_of(session, ctx)))
    return exit_codes.OK


def load_snapshot(path: str) -> dict[str, Any]:
    try:
        return surface_snapshot.read_file(path)
    except surface_snapshot.SnapshotError as exc:
        raise UsageError(str(exc)) from None


def report(comparison: Comparison, as_json: bool, fail_on: str, quiet: bool = False) -> int:
    changes = comparison.changes
    failing = set(FAILING) | ({"compatible"} if fail_on == "compatible" else set())
    if as_json:
        document: dict[str, Any] = {"changes": [c.as_json() for c in changes], "counts": counts(changes)}
        if comparison.compared is not None:  # a two-era side: which eras were compared
            document["eras"] = {"compared": comparison.compared, "notCompared": comparison.notes}
        out_json(document)
    elif not changes:
        out("no changes")
    else:
        lines: list[str] = []
        for kind in KINDS:
            mine = [c for c in changes if c.kind == kind]
            if mine:
                lines.append(f"{TITLES[kind]} ({len(mine)}):")
                lines.extend(f"  {c.path}: {c.message}" for c in mine)
        out("\n".join(lines))
    if not quiet:  # what was not compared: on stderr, so stdout stays the changes alone
        for note in comparison.notes:
            write_err(f"{PROGRAM}: note: {note}")
    return exit_codes.SURFACE_CHANGED if any(c.kind in failing for c in changes) else exit_codes.OK


def _compare(old: dict[str, Any], new: dict[str, Any], old_name: str, new_name: str) -> Comparison:
    try:
        return compare(old, new, old_name=old_name, new_name=new_name)
    except surface_snapshot.SnapshotError as exc:
        raise UsageError(str(exc)) from None


def cmd_diff_files(args: Any) -> int:
    """Both sides are files: no server is started."""
    if args.surface_eras:
        raise UsageError("diff: --era both makes the live side in both eras; two files are compared as they are")
    old, new = load_snapshot(args.old), load_snapshot(args.new)
    code = report(_compare(old, new, args.old, args.new), args.json, args.fail_on, args.quiet)
    sys.stdout.flush()
    return code


async def cmd_diff_live(session: McpSession, ctx: Context, args: Any) -> int:
    old = load_snapshot(args.old)
    new = json.loads(surface_snapshot.dumps(await surface_of(session, ctx)))
    return report(_compare(old, new, args.old, "the server"), ctx.options.json, args.fail_on, ctx.options.quiet)


def run_both_eras(spec: Any, options: RunOptions, args: Any) -> int:
    """snapshot / diff with ``--era both``: a run in each era, one two-era document. An era whose
    handshake the server refused as a server of the other era does (core's EraNotSpoken) is one
    it does not speak: a note, listed in erasNotSpoken. Any other failure (a crash, a timeout) is
    an error that ends the command with its code, and so is an era spoken in neither."""
    if options.record:
        raise UsageError("--record writes one session: give --era legacy or --era modern with it")
    surfaces: dict[str, dict[str, Any]] = {}
    refusals: list[EraNotSpoken] = []
    code = exit_codes.OK
    for era in surface_snapshot.ERAS:
        holder: dict[str, Any] = {}

        async def body(session: McpSession, ctx: Context, holder: dict[str, Any] = holder) -> int:
            holder["surface"] = json.loads(surface_snapshot.dumps(await surface_of(session, ctx)))
            return exit_codes.OK

        code = run(replace(spec, era=era), replace(options, on_era_not_spoken=refusals.append), body)
        if "surface" in holder:
            surfaces[era] = holder["surface"]
        elif not (refusals and refusals[-1].era == era):
            return code  # the error is on stderr already
    if not surfaces:  # refused in both: nothing to record, the command failed
        for refusal in refusals:
            error(refusal.explain())
        return code
    not_spoken = [refusal.era for refusal in refusals]
    if not options.quiet:
        for refusal in refusals:
            write_err(f"{PROGRAM}: note: {refusal.explain('listed in erasNotSpoken')}")
    document = surface_snapshot.build_eras(surfaces, not_spoken)
    if args.command == "snapshot":
        write_output(args.output, surface_snapshot.dumps(document))
        code = exit_codes.OK
    else:
        document = json.loads(surface_snapshot.dumps(document))
        code = report(_compare(load_snapshot(args.old), document, args.old, "the server"), args.json, args.fail_on)
    sys.stdout.flush()
    return code


COMMANDS = {"snapshot": cmd_snapshot, "diff": cmd_diff_live}
