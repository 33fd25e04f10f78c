"""Running a plan (plan.py) through a connected session, and what came of each step.

Each step goes through the ordinary session (``begin_request``/``finish_request``), so
the replay works in both eras and over every transport, gets fresh ids, the modern
``_meta``, MRTR rounds, timeouts that send ``notifications/cancelled``, and every frame
in the traffic store like any other request. Requests go one at a time, in the file's
order, each after the previous one's answer (or timeout). Server requests
(sampling, elicitation, roots) are answered from the recording, matched by method and
order; one with no recorded answer gets a JSON-RPC error and is a difference of the
step it came during.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio

from ..base.errors import InspectorError, RequestTimeout, RpcError
from ..base.json_text import loads_strict
from ..base.jsonrpc import INTERNAL_ERROR
from ..session.mcp_session import McpSession
from .compare import ABSENT, Difference, Ignores, compare
from .plan import ANSWERED_METHODS, Answer, Plan, Step, response_part

EQUAL, DIFFERENT, NO_RESPONSE, UNCHECKED, SENT = "equal", "different", "no-response", "unchecked", "sent"
FAILING = (DIFFERENT, NO_RESPONSE)


@dataclass
class StepOutcome:
    step: Step
    status: str = UNCHECKED
    differences: list[Difference] = field(default_factory=list)
    now: dict[str, Any] | None = None  # {"result": ...} or {"error": ...} received now
    elapsed_ms: float = 0.0
    problem: str = ""  # a protocol problem met on the way (one line)

    @property
    def failed(self) -> bool:
        return self.status in FAILING

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "line": self.step.line,
            "method": self.step.method,
            "label": self.step.label,
            "status": self.status,
            "differences": [d.to_json() for d in self.differences],
        }
        if self.problem:
            out["problem"] = self.problem
        out["elapsedMs"] = round(self.elapsed_ms, 1)
        return out


@dataclass
class ReplayReport:
    plan: Plan
    outcomes: list[StepOutcome] = field(default_factory=list)
    unused_answers: int = 0  # recorded answers to server requests that no server request took

    @property
    def equal(self) -> bool:
        return not any(outcome.failed for outcome in self.outcomes)

    def counts(self) -> dict[str, int]:
        counts = {EQUAL: 0, DIFFERENT: 0, NO_RESPONSE: 0, UNCHECKED: 0, SENT: 0}
        for outcome in self.outcomes:
            counts[outcome.status] += 1
        return counts

    def summary(self) -> str:
        """``3 requests: 2 equal, 1 different`` (and the others when there are some)."""
        counts = self.counts()
        requests = len(self.outcomes) - counts[SENT]
        words = {NO_RESPONSE: "without a response", UNCHECKED: "without a recorded response"}
        parts = [
            f"{counts[name]} {words.get(name, name)}"
            for name in (EQUAL, DIFFERENT, NO_RESPONSE, UNCHECKED)
            if counts[name]
        ]
        noun = "request" if requests == 1 else "requests"
        text = f"{requests} {noun}: " + (", ".join(parts) or "none")
        if counts[SENT]:
            text += f"; {counts[SENT]} notification{'s' if counts[SENT] > 1 else ''} sent"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.plan.path),
            "format": self.plan.kind,
            "equal": self.equal,
            "summary": {("noResponse" if k == NO_RESPONSE else k): v for k, v in self.counts().items()},
            "requests": [o.to_json() for o in self.outcomes if o.status != SENT],
            "notificationsSent": sum(1 for o in self.outcomes if o.status == SENT),
            "unusedAnswers": self.unused_answers,
        }


class RecordedAnswers:
    """Handlers for server requests that answer from the recording, by method, in order."""

    def __init__(self, answers: list[Answer]) -> None:
        self.queues: dict[str, list[dict[str, Any]]] = {method: [] for method in ANSWERED_METHODS}
        for answer in answers:
            self.queues[answer.method].append(answer.message)
        self.current: StepOutcome | None = None  # the step running now: an unanswered request is its difference

    def handlers(self) -> dict[str, Callable[..., Any]]:
        return {method: self._handler(method) for method in ANSWERED_METHODS}

    @property
    def unused(self) -> int:
        return sum(len(queue) for queue in self.queues.values())

    def _handler(self, method: str):
        async def answer(params: dict[str, Any] | None, entry: Any) -> dict:
            queue = self.queues[method]
            if not queue:
                if self.current is not None:
                    self.current.differences.append(
                        Difference(
                            f"(server request {method})",
                            ABSENT,
                            params,
                            "the server asked this and the recording has no answer",
                        )
                    )
                raise RpcError(INTERNAL_ERROR, f"replay: the recording has no answer to {method}")
            message = queue.pop(0)
            if "error" in message:
                error = message["error"] if isinstance(message["error"], dict) else {}
                code = error.get("code") if type(error.get("code")) is int else INTERNAL_ERROR
                raise RpcError(code, str(error.get("message", "")), error.get("data"))
            result = message.get("result")
            return result if isinstance(result, dict) else {}

        return answer


def _last(pending: Any) -> Any:
    while getattr(pending, "successor", None) is not None:
        pending = pending.successor
    return pending


def _reply_part(pending: Any) -> dict[str, Any] | None:
    reply = getattr(pending, "reply", None)
    if reply is None:
        return None
    try:
        message = loads_strict(reply.raw)
    except ValueError:
        return None
    return response_part(message) if isinstance(message, dict) else None


async def run_step(
    session: McpSession,
    step: Step,
    ignores: Ignores | None,
    timeout: Any = "default",
    answers: RecordedAnswers | None = None,
) -> StepOutcome:
    outcome = StepOutcome(step)
    if answers is not None:
        answers.current = outcome
    started = time.perf_counter()
    try:
        if step.notification:
            await session.connection.notify(step.method, step.params)
            outcome.status = SENT
            return outcome
        pending = await session.begin_request(step.method, step.params, progress=step.progress, timeout=timeout)
        try:
            await session.finish_request(pending)
        except RequestTimeout as exc:
            outcome.status = NO_RESPONSE
            outcome.differences.insert(
                0,
                Difference(
                    ".",
                    step.expect if step.expect is not None else ABSENT,
                    ABSENT,
                    f"no response within {exc.seconds:g} s",
                ),
            )
            return outcome
        except RpcError:
            pass  # an error response: compared like a result
        except InspectorError as exc:  # e.g. a result the era does not allow: compared all the same, and noted
            if _reply_part(_last(pending)) is None:
                raise  # no answer at all (the server went away): the caller's to report
            outcome.problem = str(exc)
        outcome.now = _reply_part(_last(pending))
    finally:
        outcome.elapsed_ms = (time.perf_counter() - started) * 1000
        if answers is not None:
            answers.current = None
    if step.expect is None or outcome.now is None:
        outcome.status = DIFFERENT if outcome.differences else UNCHECKED
        return outcome
    if ignores is not None and ignores.paths:
        # jq runs in the query sandbox; waited for in a thread, so the loop (and a stop signal) is never held
        work = partial(compare, step.method, step.expect, outcome.now, ignores)
        try:
            differences = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            ignores.close()  # the abandoned thread's child is stopped at once
            raise
    else:
        differences = compare(step.method, step.expect, outcome.now)
    outcome.differences.extend(differences)
    outcome.status = DIFFERENT if outcome.differences else EQUAL
    return outcome


async def replay(
    session: McpSession,
    plan: Plan,
    ignores: Ignores | None = None,
    answers: RecordedAnswers | None = None,
    timeout: Any = "default",
    on_outcome: Callable[[StepOutcome], None] | None = None,
) -> ReplayReport:
    """Run every step of ``plan`` in order; ``on_outcome`` sees each outcome as it is known."""
    report = ReplayReport(plan)
    for step in plan.steps:
        outcome = await run_step(session, step, ignores, timeout, answers)
        report.outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    if answers is not None:
        report.unused_answers = answers.unused
    return report
