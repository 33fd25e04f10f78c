"""ctrl+n (palette "replay: re-run a recording against this server"): pick a recording,
re-run its client requests against the connected server, and see each request ✓ or ✗.

The requests go through the current session in a worker, so their frames appear in the
traffic log like any others; while it runs, the server's sampling, elicitation and roots
requests are answered from the recording (core/replay/run.py), then the usual answering
screens are back. Enter on a request shows the recorded response beside the one received
now (screens/traffic/side_diff.py), with the differences the comparison found above them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ....core.replay.plan import ANSWERED_METHODS, Plan, PlanError, read_plan
from ....core.replay.run import EQUAL, NO_RESPONSE, UNCHECKED, RecordedAnswers, ReplayReport, StepOutcome, replay
from ....core.session.mcp_session import McpSession
from ...widgets.result.files import output_dir
from ...widgets.side_diff import pretty
from ..dialogs.path_prompt import PathPromptScreen, typed_path
from .side_diff import SideDiffScreen

MARKS = {EQUAL: ("✓", "green"), UNCHECKED: ("?", "yellow"), NO_RESPONSE: ("✗", "red")}


class OpenRecordingScreen(PathPromptScreen):
    """Which recording: a path (a session file or a hand-written JSONL); enter opens, escape cancels."""

    ID_PREFIX = "open-recording"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="open-recording.cancel")]

    def __init__(self, suggestion: str) -> None:
        super().__init__(
            "Replay a recording against this server",
            suggestion,
            "a --record session file, or JSONL of requests · enter: replay · escape: cancel",
        )

    def check(self, text: str) -> tuple[Path | None, str]:
        path = typed_path(text)
        if path is None:
            return None, "Type the path of a recording."
        if not path.is_file():
            return None, f"{path} is not a file." if path.exists() else f"There is no file {path}."
        return path, ""


def outcome_line(outcome: StepOutcome) -> Text:
    mark, style = MARKS.get(outcome.status, ("✗", "red"))
    text = Text.assemble((mark + " ", f"bold {style}"), outcome.step.label)
    if outcome.status == UNCHECKED:
        text.append("  (nothing recorded to compare with)", style="dim")
    elif outcome.differences:
        count = len(outcome.differences)
        text.append(f"  {count} difference{'s' if count != 1 else ''}: ", style="dim")
        text.append(outcome.differences[0].describe()[:100], style="dim")
    return text


class ReplayScreen(ModalScreen[None]):
    """The replay of one file: runs on mount; a line per request as its answer comes."""

    DEFAULT_CSS = """
    ReplayScreen { align: center middle; }
    ReplayScreen > Vertical { width: 96%; height: 90%; border: thick $accent; background: $surface; }
    ReplayScreen #replay-title { padding: 0 1; background: $accent 30%; text-style: bold; }
    ReplayScreen #replay-status { padding: 0 1; height: auto; }
    ReplayScreen OptionList { height: 1fr; border: none; }
    ReplayScreen #replay-hint { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="replay.close", tooltip="Replay: close (stops a replay still running)")
    ]

    class Progressed(Message):
        def __init__(self, outcome: StepOutcome) -> None:
            super().__init__()
            self.outcome = outcome

    class Started(Message):
        def __init__(self, requests: int) -> None:
            super().__init__()
            self.requests = requests

    class Finished(Message):
        def __init__(self, report: ReplayReport | None, problem: str = "") -> None:
            super().__init__()
            self.report = report
            self.problem = problem

    def __init__(self, path: Path, session: McpSession) -> None:
        super().__init__()
        self.path = path
        self.session = session
        self.outcomes: list[StepOutcome] = []
        self.report: ReplayReport | None = None
        self.plan: Plan | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Replay of {self.path.name}", id="replay-title", markup=False)
            yield Static("reading the file…", id="replay-status", markup=False)
            yield OptionList(id="replay-list")
            yield Static("enter: recorded and now side by side · escape: close", id="replay-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.run_worker(self._run(), group="replay", exclusive=True, exit_on_error=False)

    async def _run(self) -> None:
        try:
            plan = await anyio.to_thread.run_sync(read_plan, self.path)
        except PlanError as exc:
            self.post_message(self.Finished(None, str(exc)))
            return
        self.plan = plan
        self.post_message(self.Started(len(plan.requests)))
        answers = RecordedAnswers(plan.answers)
        handlers = self.session.connection.handlers
        kept = {method: handlers.get(method) for method in ANSWERED_METHODS}
        handlers.update(answers.handlers())
        try:
            report = await replay(
                self.session,
                plan,
                None,
                answers,
                on_outcome=lambda outcome: self.post_message(self.Progressed(outcome)),
            )
        except Exception as exc:  # the server went away: the outcomes so far stay
            self.post_message(self.Finished(None, f"the replay stopped: {exc}"))
            return
        finally:
            for method, handler in kept.items():
                if handler is None:
                    handlers.pop(method, None)
                else:
                    handlers[method] = handler
        self.post_message(self.Finished(report))

    @on(Started)
    def _started(self, message: Started) -> None:
        count = message.requests
        self.query_one("#replay-status", Static).update(f"replaying {count} request{'s' if count != 1 else ''}…")

    @on(Progressed)
    def _progressed(self, message: Progressed) -> None:
        outcome = message.outcome
        if outcome.status == "sent":
            return
        self.outcomes.append(outcome)
        options = self.query_one(OptionList)
        options.add_option(Option(outcome_line(outcome), id=str(len(self.outcomes) - 1)))
        if options.highlighted is None:
            options.highlighted = 0  # enter works at once

    @on(Finished)
    def _finished(self, message: Finished) -> None:
        status = self.query_one("#replay-status", Static)
        if message.report is None:
            status.update(Text(message.problem, style="bold red"))
            return
        self.report = report = message.report
        style = "bold green" if report.equal else "bold red"
        verdict = "as recorded" if report.equal else "differs from the recording"
        status.update(Text.assemble((f"{verdict}: ", style), report.summary()))

    @on(OptionList.OptionSelected, "#replay-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id and event.option.id.isdigit():
            self.app.push_screen(diff_screen(self.outcomes[int(event.option.id)]))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "replay")
        self.dismiss(None)


def diff_screen(outcome: StepOutcome) -> SideDiffScreen:
    step = outcome.step
    recorded = pretty(step.expect) if step.expect is not None else "(nothing recorded)"
    now = pretty(outcome.now) if outcome.now is not None else "(no response)"
    notes = [difference.describe() for difference in outcome.differences]
    if outcome.problem:
        notes.insert(0, f"note: {outcome.problem}")
    return SideDiffScreen(
        f"{step.label}: {outcome.status}",
        recorded,
        now,
        f"recorded (line {step.expect_line or step.line})",
        "now",
        notes,
    )


def open_replay(app: Any) -> None:
    """ctrl+n: ask for the file, then replay it against the connected server."""
    try:
        main = app.main
    except LookupError:
        return
    if app.screen is not main:
        return
    connection = getattr(app, "connection", None)
    session = connection.live if connection is not None else None
    if session is None:
        app.notify(
            "No server is connected: connect one first (F7), then replay a recording against it.", severity="warning"
        )
        return
    suggestion = str(output_dir()) + os.sep

    def chosen(path: Path | None) -> None:
        if path is not None:
            app.push_screen(ReplayScreen(path, session))

    app.push_screen(OpenRecordingScreen(suggestion), chosen)
