"""Showing a huge tool result: the result panel's cost must not grow with the result.

    python bench/bench_result_view.py [--rounds 5] [--mb 50]

A bare app hosting the ResultPanel (headless, 120x40) shows a ``--mb`` MB text result (plus
5 MB of structuredContent), and, as the baseline measured in the same run, a result of the
size the panel shows (its first ``TRUNCATE_AT`` characters). The two alternate over
``rounds``; measured per show: the CPU time of ``show_outcome`` (what blocks the event loop
while it runs) and the CPU time until the panel has been mounted and painted, with the
collector held off (a collection of unrelated garbage is not the panel's cost).

Read the ratio huge/baseline: the panel formats only what it shows, so it should stay near 1
(target <= 3x; formatting all of 50 MB took several seconds, over 100x). The figures moved here
from tests/tui/test_result_view.py, whose 50 MB test now checks behaviour only (truncated,
the whole result saved, a key answered while it is shown). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time

from common import Series, machine_note, paired_ratio, print_series_table, verdict
from textual.app import App, ComposeResult

from mcp_inspector.core.session.mcp_session import ToolCallOutcome
from mcp_inspector.core.session.results import analyze_tool_result
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.widgets.result.text_body import TRUNCATE_AT
from mcp_inspector.tui.widgets.result.view import ResultPanel

TARGET = 3.0


class PanelApp(App):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield ResultPanel()


def outcome_of(text: str, structured: int) -> ToolCallOutcome:
    result = {"content": [{"type": "text", "text": text}], "structuredContent": {"blob": text[:structured], "n": 1}}
    return ToolCallOutcome("huge", {}, result, analyze_tool_result(result, None), elapsed_ms=1234.0)


async def show_once(outcome: ToolCallOutcome) -> tuple[float, float]:
    """(CPU of show_outcome, CPU until mounted and painted) for one fresh panel."""
    app = PanelApp()
    async with app.run_test(size=(120, 40)) as pilot:
        panel = app.query_one(ResultPanel)
        await pilot.pause()
        gc.collect()
        gc.disable()
        try:
            cpu = time.process_time()
            panel.show_outcome(outcome)
            call = time.process_time() - cpu
            await pilot.pause()
            painted = time.process_time() - cpu
        finally:
            gc.enable()
        assert panel.truncated == (len(outcome.result["content"][0]["text"]) > TRUNCATE_AT)
    return call, painted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mb", type=float, default=50.0)
    args = parser.parse_args()
    chars = int(args.mb * 1_000_000)
    huge = outcome_of("0123456789abcdef" * (chars // 16), 5_000_000)
    small = outcome_of("0123456789abcdef" * (TRUNCATE_AT // 16), TRUNCATE_AT // 10)
    calls = {"baseline": Series("show_outcome, baseline"), "huge": Series(f"show_outcome, {args.mb:g} MB")}
    paints = {"baseline": Series("until painted, baseline"), "huge": Series(f"until painted, {args.mb:g} MB")}
    asyncio.run(show_once(small))  # warm-up: imports, CSS
    for _ in range(args.rounds):
        for name, outcome in (("baseline", small), ("huge", huge)):
            call, painted = asyncio.run(show_once(outcome))
            calls[name].add_round([call])
            paints[name].add_round([painted])
    print(f"result panel, {args.rounds} rounds; {machine_note()}")
    print_series_table([calls["baseline"], calls["huge"]], calls["baseline"], p95=False)
    print_series_table([paints["baseline"], paints["huge"]], paints["baseline"], p95=False)
    for label, series in (("show_outcome", calls), ("until painted", paints)):
        ratio, low, high = paired_ratio(series["huge"], series["baseline"])
        print(f"  {verdict(f'{label} {args.mb:g} MB / baseline', ratio, TARGET)}  (rounds {low:.2f}..{high:.2f})")


if __name__ == "__main__":
    main()
