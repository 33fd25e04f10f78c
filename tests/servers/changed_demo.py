"""The demo server as a "new build" with one thing changed, for replay tests.

    python tests/servers/changed_demo.py [--change add-result|add-description|none] [demo options]

``add-result``: ``add`` returns a + b + 1 (text and structuredContent).
``add-description``: ``add``'s description is different (the tool list changes, nothing else).
Everything else is the built-in demo, unchanged.
"""

from __future__ import annotations

import sys

from mcp_inspector.demo import __main__ as demo_main
from mcp_inspector.demo.tools import output as tools_output
from mcp_inspector.demo.tools.kit import result, text


async def add_off_by_one(args: dict, ctx) -> dict:
    total = args["a"] + args["b"] + 1
    if isinstance(total, float) and total.is_integer():
        total = int(total)
    return result(text(str(total)), structured={"sum": total})


def main(argv: list[str]) -> int:
    change = "none"
    if argv[:1] == ["--change"]:
        change, argv = argv[1], argv[2:]
    if change == "add-result":
        tools_output.add = add_off_by_one
    elif change == "add-description":
        tools_output.ADD = dict(tools_output.ADD, description="Adds a and b, now with a better description.")
    elif change != "none":
        print(f"unknown change {change!r}", file=sys.stderr)
        return 2
    return demo_main.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
