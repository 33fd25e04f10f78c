"""An ``mcp`` SDK (2.3.0) server with a prompt whose arguments complete, the second narrowed by
the first (``@server.completion()``), for the Prompts view and ``complete`` tests.

Usage::

    python tests/servers/sdk_prompts_server.py --stdio          # stdio, both eras (first request decides)
    python tests/servers/sdk_prompts_server.py --modern-stdio   # stdio, 2026-07-28 only
    python tests/servers/sdk_prompts_server.py [sdk_http_server.py options]   # HTTP, both eras

It is tests/servers/sdk_http_server.py's server (same tools, resources, ``greet_prompt``, same
HTTP options and ``PORT <n>`` line) with, added:

* prompt ``plan_trip`` (title "Plan a trip"; ``country`` required, ``city`` required, ``month``
  optional) -> a user text message "Plan a trip to <city>, <country>[ in <month>]." and an
  assistant text message;
* ``completion/complete`` (so the ``completions`` capability is declared): ``country`` from
  France, Germany, Italy, Japan; ``city`` from the cities of ``context.arguments.country``
  (France: Lyon, Marseille, Paris; Germany: Berlin, Hamburg, Munich; Italy: Milan, Rome;
  Japan: Kyoto, Osaka, Tokyo), all four countries' cities without it; ``month`` the twelve
  months; each filtered by the typed prefix (case-insensitive), with ``total`` and
  ``hasMore: false``. Any other reference gets no values.
"""

from __future__ import annotations

import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mcp_types as types  # noqa: E402 - after the sys.path/environment setup above
import sdk_http_server  # noqa: E402 - after the sys.path/environment setup above
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage  # noqa: E402 - after the sys.path/environment setup above
from sdk_http_server import server  # noqa: E402 - after the sys.path/environment setup above

warnings.filterwarnings("ignore")

CITIES = {
    "France": ["Lyon", "Marseille", "Paris"],
    "Germany": ["Berlin", "Hamburg", "Munich"],
    "Italy": ["Milan", "Rome"],
    "Japan": ["Kyoto", "Osaka", "Tokyo"],
}
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


@server.prompt(name="plan_trip", title="Plan a trip", description="Plan a trip; the city narrows by the country.")
def plan_trip(country: str, city: str, month: str = "") -> list:
    when = f" in {month}" if month else ""
    return [UserMessage(f"Plan a trip to {city}, {country}{when}."), AssistantMessage(f"Sure: {city} it is.")]


@server.completion()
async def complete(ref, argument, context):
    if not isinstance(ref, types.PromptReference) or ref.name != "plan_trip":
        return None
    if argument.name == "country":
        candidates = list(CITIES)
    elif argument.name == "city":
        country = ((context.arguments or {}) if context is not None else {}).get("country")
        candidates = CITIES.get(country, []) if country else sorted(c for cs in CITIES.values() for c in cs)
    elif argument.name == "month":
        candidates = MONTHS
    else:
        return None
    values = [c for c in candidates if c.lower().startswith(argument.value.lower())]
    return types.Completion(values=values, total=len(values), has_more=False)


def main() -> None:
    if "--stdio" in sys.argv:
        server.run("stdio")
    elif "--modern-stdio" in sys.argv:
        import anyio
        import sdk_modern_server

        anyio.run(sdk_modern_server.serve_modern_only)
    else:
        sdk_http_server.main()


if __name__ == "__main__":
    main()
