"""jq queries on the command line: ``--query EXPR`` on a command's output, and ``query`` on a recording.

``--query`` runs over the JSON that ``--json`` would print (for ``call``, ``read`` and
``get`` the ``result`` exactly as received). The outputs are printed one a line, like
``jq -rc``: a string as its raw text, anything else as compact JSON; with ``--json``
like ``jq -c`` (strings quoted too). A bad expression is a usage error before
connecting; an error of the expression on the data (``Cannot index array``) is said
on stderr and exits ``QUERY_ERROR``, after the outputs before it.

``query SESSION EXPR`` streams a session file (``--record``'s format) frame by frame,
never holding more than a batch, and runs the expression on each frame
(``--direction in|out`` narrows them; stderr lines and events are not frames):
the outputs, or with ``--frames`` the matching frames as on the wire, or with
``--count`` how many matched. A frame matches when the expression yields an output
that is neither ``false`` nor ``null``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from ...core.base.jsonrpc import Kind
from ...core.query import FrameOutputs, QueryError, QuerySandbox, QueryStopped, check_expression
from ...core.traffic.entry import TrafficEntry
from .. import exit_codes
from ..exit_codes import UsageError
from ..output.report import error, is_terminal, visible_controls, warn

#: Which commands take --query (over what their --json prints).
QUERYABLE = ("call", "read", "get", "tools", "resources", "templates", "prompts", "info")
NOT_FRAMES = (Kind.STDERR, Kind.EVENT)


def check_query_option(args: Any) -> None:
    """--query: the command takes it and the expression compiles (a usage error before connecting)."""
    expression = getattr(args, "query", None)
    if expression is None:
        return
    if args.command not in QUERYABLE:
        raise UsageError(f"--query goes with {', '.join(QUERYABLE)} (for a recording: mcp-inspector query FILE EXPR)")
    try:
        args.query = check_expression(expression)
    except QueryError as exc:
        raise UsageError(f"--query: {exc}") from None


def output_line(text: str, as_json: bool) -> str:
    """One output as printed: jq -rc (a string raw) or, ``as_json``, jq -c."""
    if not as_json and text.startswith('"'):
        try:
            value = json.loads(text)
        except ValueError:  # a byte-cut output: a prefix, shown as it is
            return text
        if isinstance(value, str):
            return value
    return text


def _tell_cut(found: FrameOutputs, where: str, report) -> None:
    if found.cut == "count":
        report(f"only the first {len(found.outputs):,} outputs{where} are printed")
    elif found.cut == "bytes":
        report(f"the outputs{where} are cut after {sum(len(t) for t in found.outputs):,} characters")


async def print_query(ctx: Any, text: str, out: Callable[[str], None]) -> int:
    """``--query``: print (with ``out``) the outputs of the expression on ``text`` (what --json would print)."""
    import anyio

    sandbox = QuerySandbox()
    try:
        found = await anyio.to_thread.run_sync(
            partial(sandbox.value_outputs, ctx.options.query, text), abandon_on_cancel=True
        )
    except QueryStopped as exc:
        error(f"query: {exc}")
        return exit_codes.QUERY_ERROR
    finally:
        sandbox.close()
    for output in found.outputs:
        out(output_line(output, ctx.options.json))
    _tell_cut(found, "", ctx.warn)
    if found.error is not None:
        error(f"query: {found.error}")
        return exit_codes.QUERY_ERROR
    return exit_codes.OK


def _chunks(
    entries: Iterable[TrafficEntry], max_frames: int = 512, max_bytes: int = 4 << 20
) -> Iterator[list[TrafficEntry]]:
    chunk: list[TrafficEntry] = []
    size = 0
    for entry in entries:
        if chunk and (len(chunk) >= max_frames or size + len(entry.raw) > max_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(entry)
        size += len(entry.raw)
    if chunk:
        yield chunk


def cmd_query(args: Any) -> int:
    """``query SESSION EXPR [--direction in|out] [--count | --frames]``: no server involved."""
    from ...core.traffic.loading import SessionFileError, iter_session

    if getattr(args, "query", None) is not None:
        raise UsageError("query takes the expression as its second argument, not --query")
    try:
        expression = check_expression(args.expression)
    except QueryError as exc:
        raise UsageError(f"query: {exc}") from None
    try:
        _, lines = iter_session(args.session)
    except SessionFileError as exc:
        raise UsageError(str(exc)) from None
    skipped: list[int] = []
    counts = {"frames": 0, "matched": 0, "failed": 0}

    def frames() -> Iterator[TrafficEntry]:
        for number, entry in lines:
            if entry is None:
                skipped.append(number)
            elif entry.kind not in NOT_FRAMES and (args.direction is None or entry.direction.value == args.direction):
                counts["frames"] += 1
                yield entry

    terminal = is_terminal(sys.stdout)

    def write(text: str) -> None:  # on a terminal, control characters shown, not obeyed
        sys.stdout.write(visible_controls(text) if terminal else text)

    first_error: str | None = None
    matching = bool(args.count or args.frames)
    try:
        with QuerySandbox() as sandbox:
            for chunk, results in sandbox.stream(
                expression, _chunks(frames()), lambda entry: entry.raw, match=matching
            ):
                if matching:
                    counts["failed"] += results.count(-1)
                    for entry, code in zip(chunk, results, strict=True):
                        if code == 1:
                            counts["matched"] += 1
                            if args.frames:
                                write(entry.text.replace("\n", " ").rstrip() + "\n")
                    continue
                for entry, found in zip(chunk, results, strict=True):
                    counts["matched"] += found.matched
                    for output in found.outputs:
                        write(output_line(output, args.json) + "\n")
                    _tell_cut(found, f" of frame #{entry.seq}", lambda message: None if args.quiet else warn(message))
                    if found.error is not None:
                        counts["failed"] += 1
                        first_error = first_error or f"frame #{entry.seq}: {found.error}"
    except QueryStopped as exc:
        sys.stdout.flush()
        error(f"query: {exc} (after {counts['frames']:,} frames)")
        return exit_codes.QUERY_ERROR
    if args.count:
        write(f"{counts['matched']}\n")
    sys.stdout.flush()
    if skipped and not args.quiet:
        warn(f"{len(skipped)} unreadable line{'s' if len(skipped) != 1 else ''} skipped (first: line {skipped[0]})")
    if counts["failed"] and not args.quiet:
        detail = f"; the first, {first_error}" if first_error else ""
        warn(
            f"the query failed on {counts['failed']:,} of {counts['frames']:,} frames (not JSON, or an error "
            f"of the expression){detail}; a ? skips what is missing: .result.content[]?"
        )
    return exit_codes.OK
