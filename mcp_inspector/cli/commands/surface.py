"""snapshot (a server's surface as canonical JSON) and diff (two surfaces, classified)."""

from __future__ import annotations

import json
import sys
from typing import Any

from ...core.base.files import open_private
from ...core.session.legacy import McpSession
from ...core.surface import snapshot as surface_snapshot
from ...core.surface.collect import collect
from ...core.surface.diff import KINDS, Change, diff
from .. import exit_codes
from ..exit_codes import UsageError
from ..runner import Context
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


def report(changes: list[Change], as_json: bool, fail_on: str) -> int:
    failing = {"breaking", "unknown"} | ({"compatible"} if fail_on == "compatible" else set())
    if as_json:
        counts = {kind: sum(1 for c in changes if c.kind == kind) for kind in KINDS}
        out_json({"changes": [c.as_json() for c in changes], "counts": counts})
    elif not changes:
        out("no changes")
    else:
        titles = {
            "breaking": "breaking",
            "unknown": "changed, impact unknown",
            "compatible": "compatible",
            "cosmetic": "cosmetic",
        }
        lines: list[str] = []
        for kind in KINDS:
            mine = [c for c in changes if c.kind == kind]
            if mine:
                lines.append(f"{titles[kind]} ({len(mine)}):")
                lines.extend(f"  {c.path}: {c.message}" for c in mine)
        out("\n".join(lines))
    return exit_codes.SURFACE_CHANGED if any(c.kind in failing for c in changes) else exit_codes.OK


def cmd_diff_files(args: Any) -> int:
    """Both sides are files: no server is started."""
    code = report(diff(load_snapshot(args.old), load_snapshot(args.new)), args.json, args.fail_on)
    sys.stdout.flush()
    return code


async def cmd_diff_live(session: McpSession, ctx: Context, args: Any) -> int:
    old = load_snapshot(args.old)
    new = json.loads(surface_snapshot.dumps(await surface_of(session, ctx)))
    return report(diff(old, new), ctx.options.json, args.fail_on)


COMMANDS = {"snapshot": cmd_snapshot, "diff": cmd_diff_live}
