"""A server with 10,000 tools: the tool list's cost must not grow with the number of tools.

    python bench/bench_tool_list.py [--rounds 5] [--tools 10000]

A bare app hosting the ToolList (headless, 120x40) is given ``--tools`` tools, and, as the
baseline measured in the same run, ``MAX_SHOWN`` tools (as many as the list ever shows).
The two alternate over ``rounds``, a fresh app each; measured per round: the CPU time of
``set_tools`` until the list has been painted, and of a filter set in it at once ("tool_999",
which leaves 11 of the 10,000; one change, as typing is debounced above DEBOUNCE_ABOVE tools and
not below) until the list shows the matches, with the collector held off.

Read the ratio many/baseline: only ``MAX_SHOWN`` rows are built whatever the number of tools,
so set_tools should stay within a few times the baseline (target <= 5x: it still walks all
tools once to count the hidden ones; building all 10,000 rows took far longer). The figures
moved here from tests/tui/test_tool_list.py, whose 10k test now checks the rows built only.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time

from common import Series, machine_note, paired_ratio, print_series_table, verdict
from textual.app import App, ComposeResult

from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.widgets.tool_list import MAX_SHOWN, ToolList

TARGET = 5.0


class ListApp(App):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield ToolList()


def tools_of(count: int) -> list[dict]:
    return [
        {
            "name": f"tool_{i}",
            "title": f"Tool {i}",
            "description": f"does thing {i}",
            "annotations": {"readOnlyHint": i % 2 == 0},
        }
        for i in range(count)
    ]


async def run_once(tools: list[dict]) -> tuple[float, float]:
    """(CPU of set_tools until painted, CPU of typing the filter until the matches show)."""
    app = ListApp()
    async with app.run_test(size=(120, 40)) as pilot:
        tool_list = app.query_one(ToolList)
        await pilot.pause()
        gc.collect()
        gc.disable()
        try:
            cpu = time.process_time()
            tool_list.set_tools(tools)
            await pilot.pause()
            shown = time.process_time() - cpu
            tool_list.option_list.focus()
            cpu = time.process_time()
            # one filter change, not typed key by key: above DEBOUNCE_ABOVE tools the list waits for a
            # pause in typing (one rebuild for the whole word) while the baseline rebuilds per key, so
            # typing made 10,000 tools look cheaper than 1,000 (0.25x)
            tool_list.filter_input.value = "tool_999"
            matches = sum("tool_999" in tool["name"] for tool in tools)
            while tool_list.option_list.option_count != matches:  # the rebuild has run
                await pilot.pause()
            await pilot.pause()
            filtered = time.process_time() - cpu
        finally:
            gc.enable()
    return shown, filtered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tools", type=int, default=10_000)
    args = parser.parse_args()
    variants = {"baseline": tools_of(MAX_SHOWN), "many": tools_of(args.tools)}
    shows = {"baseline": Series(f"set_tools, {MAX_SHOWN} (baseline)"), "many": Series(f"set_tools, {args.tools}")}
    filters = {"baseline": Series(f"filter, {MAX_SHOWN} (baseline)"), "many": Series(f"filter, {args.tools}")}
    asyncio.run(run_once(variants["baseline"]))  # warm-up: imports, CSS
    for _ in range(args.rounds):
        for name, tools in variants.items():
            shown, filtered = asyncio.run(run_once(tools))
            shows[name].add_round([shown])
            filters[name].add_round([filtered])
    print(f"tool list, {args.rounds} rounds; {machine_note()}")
    print_series_table([shows["baseline"], shows["many"]], shows["baseline"], p95=False)
    print_series_table([filters["baseline"], filters["many"]], filters["baseline"], p95=False)
    for label, series in (("set_tools", shows), ("filter", filters)):
        ratio, low, high = paired_ratio(series["many"], series["baseline"])
        print(f"  {verdict(f'{label} {args.tools} / {MAX_SHOWN}', ratio, TARGET)}  (rounds {low:.2f}..{high:.2f})")


if __name__ == "__main__":
    main()
